// The floor of a streaming client: raw.js's request, but sent with an AbortController's
// signal and its body read with a ReadableStream reader chunk by chunk (as our client reads
// every answer, JSON or SSE), then decoded and parsed. Against raw.js (res.text()), it shows
// what reading a body as a stream costs in a runtime.
export const name = 'raw-stream';

let nextId = 1;

export async function open(url) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
  };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  };
  return {
    call: async (tool, args) => {
      const controller = new AbortController();
      const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: tool, arguments: args, _meta: meta } });
      const res = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-name': tool }, body, signal: controller.signal });
      const reader = res.body.getReader();
      const chunks = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.length;
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      return JSON.parse(new TextDecoder().decode(all)).result;
    },
  };
}
