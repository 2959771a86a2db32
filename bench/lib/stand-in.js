// The stand-in MCP server of the large-arguments probes (bench/tools/large-arguments.mjs
// in Node, bench/tools/chromium-large-arguments.mjs in a page): a fetch function that
// answers at once, after doing with the request's body what the platform's fetch does (a
// `Request` is made of it: a string body is encoded, bytes are copied), and the arguments
// the probes send. Plain ESM with web APIs only, so Node and the page load the same file.

const MCP_URL = 'http://127.0.0.1:9/mcp';
export { MCP_URL };

/** A fetch for `MCP_URL`; anything else (in a page: the wasm module) goes to `next`. */
export function standInFetch(next) {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return async (url, init) => {
    if (String(url) !== MCP_URL) return next(url, init);
    new Request(url, { method: init.method, headers: init.headers, body: init.body });
    const b = init?.body;
    // The id is near the start in our requests and at the end in the TS client's (a string
    // in its first probe).
    const ends = (x) => (typeof x === 'string' ? [x.slice(0, 200), x.slice(-100)] : [dec.decode(x.subarray(0, 200)), dec.decode(x.subarray(-100))]);
    const [head, tail] = b ? ends(b) : ['', ''];
    const idOf = (t) => /"id":("[^"\\]*"|\d+)/.exec(t)?.[1];
    const id = idOf(head) ?? idOf(tail) ?? '0';
    const text = head.includes('"tools/list"')
      ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"write","inputSchema":{"type":"object"}}]}}`
      : head.includes('"server/discover"')
        ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"stand-in","version":"1.0.0"}}}}`
        : `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"written"}]}}`;
    const bytes = enc.encode(text);
    return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } });
  };
}

/** Tool arguments of `size` characters: source text with what a JSON encoder must escape
 *  (quotes, backslashes, tabs, newlines) and, unless `ascii`, text outside ASCII (most
 *  source code is ASCII only). */
export function argsOf(size, ascii) {
  const line = ascii
    ? 'const s = "a \\"quoted\\" word" + 42; // no emoji\tand a tab\n'
    : 'const s = "a \\"quoted\\" word" + 42; // émoji 🎉\tand a tab\n';
  return { path: '/work/src/file.js', content: line.repeat(Math.ceil(size / line.length)).slice(0, size) };
}
