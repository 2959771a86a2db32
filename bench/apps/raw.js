// The floor: the same three requests with fetch and no client.
export async function run(url) {
  let id = 0;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench-app', version: '1.0.0' },
  };
  const rpc = async (method, params, name) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    };
    if (name) headers['mcp-name'] = name;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }) });
    return (await res.json()).result;
  };
  await rpc('server/discover', {});
  const { tools } = await rpc('tools/list', {});
  return rpc('tools/call', { name: tools[0].name, arguments: { text: 'hi' } }, tools[0].name);
}
