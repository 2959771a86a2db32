// A deterministic SSE stream of mixed events (~`bytes` long) for the parser benchmark:
// JSON-RPC notifications and responses of many sizes, `event:` and `id:` lines, comments
// (keep-alives), multi-line data, a `retry:`, and LF / CRLF line ends.
// With `small`, the 16-64 KB events are left out (a stream of progress notifications
// and small results: per-event costs dominate).
export function makeStream(bytes, small = false) {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const parts = [];
  let size = 0;
  let i = 0;
  while (size < bytes) {
    const eol = i % 7 === 3 ? '\r\n' : '\n';
    const r = rnd();
    let ev;
    if (r < 0.1) ev = `: keep-alive ${i}${eol}`;
    else if (r < 0.5) {
      ev = `event: message${eol}data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-${i}","progress":${i},"total":100000,"message":"step ${i} of the job"}}${eol}${eol}`;
    } else if (r < 0.8) {
      const n = 1 + Math.floor(rnd() * 40);
      const items = Array.from({ length: n }, (_, k) => `{"id":${k},"name":"item ${k} \u00e9\u4e16","ok":true}`).join(',');
      ev = `id: ${i}${eol}data: {"jsonrpc":"2.0","id":${i},"result":{"resultType":"complete","structuredContent":{"items":[${items}]}}}${eol}${eol}`;
    } else if (r < 0.95) {
      ev = `data: {"jsonrpc":"2.0","method":"notifications/message",${eol}data: "params":{"level":"info","data":"line ${i}"}}${eol}${eol}`;
    } else if (r < 0.99 && !small) {
      const big = 'x'.repeat(16384 + Math.floor(rnd() * 49152));
      ev = `event: message${eol}data: {"jsonrpc":"2.0","id":${i},"result":{"content":[{"type":"text","text":"${big}"}]}}${eol}${eol}`;
    } else if (r < 0.99) {
      ev = `: ping${eol}`;
    } else ev = `retry: 1000${eol}${eol}`;
    parts.push(ev);
    size += ev.length;
    i++;
  }
  return new TextEncoder().encode(parts.join(''));
}
