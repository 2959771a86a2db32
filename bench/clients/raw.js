// The floor: a fetch loop sending the same POST bytes and headers as our client (the
// request our client sent is captured by the bench server and given as `template`), and
// parsing the answer (JSON.parse; for an SSE answer, the `data:` of its one event).
export const name = 'raw';

let nextId = 1;

export async function open(url, opts = {}) {
  const f = opts.fetch || globalThis.fetch;
  const t = opts.template;
  const headers = {};
  for (const h of ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name']) {
    if (t?.headers?.[h]) headers[h] = t.headers[h];
  }
  // The body with its id cut out: prefix + id + suffix.
  const m = t ? /^(\{"jsonrpc":"2\.0","id":)\d+(,.*)$/s.exec(t.body) : null;
  if (t && !m) throw new Error('raw: unexpected template body');
  // `strict` (bench/clients/raw-strict.js): the body read whole and decoded as our client
  // decodes it, refusing what is not UTF-8, instead of `text()`. Other strict readers,
  // measured against it for their memory (BENCHMARKS.md, the twenty-second session):
  // 'pipe' through a fatal TextDecoderStream and back into `Response#text()`; 'chunks' the
  // reader's chunks decoded by a fatal streaming TextDecoder and concatenated; 'tee' the body
  // teed, `text()` on one branch and a fatal decoder checking the other; 'blob' `blob()`,
  // then `text()` and, only when it holds U+FFFD (a replacement or a real one), the bytes
  // decoded fatally (the Blob's bytes are kept by the browser process, not the renderer);
  // 'transfer' as 'whole', with the bytes' ArrayBuffer detached by `transfer(0)` once decoded,
  // to free it before the parse rather than at the next collection (measured: the same peak;
  // BENCHMARKS.md, the twenty-third session); 'clone' `text()` on the response and, only
  // when the text holds U+FFFD, the bytes of a clone made before it decoded fatally (the
  // clone cancelled otherwise); 'slices' as 'whole', decoded by a streaming fatal decoder
  // in 512 KiB slices of the bytes and the pieces concatenated (both measured: BENCHMARKS.md,
  // the twenty-fifth session).
  const fatal = () => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const readers = {
    whole: async (res) => fatal().decode(await res.arrayBuffer()),
    transfer: async (res) => {
      const b = await res.arrayBuffer();
      const t = fatal().decode(b);
      b.transfer?.(0);
      return t;
    },
    pipe: (res) => new Response(res.body.pipeThrough(new TextDecoderStream('utf-8', { fatal: true, ignoreBOM: true })).pipeThrough(new TextEncoderStream())).text(),
    chunks: async (res) => {
      const d = fatal();
      const r = res.body.getReader();
      let s = '';
      for (;;) {
        const { done, value } = await r.read();
        if (done) break;
        s += d.decode(value, { stream: true });
      }
      return s + d.decode();
    },
    tee: async (res) => {
      const [a, b] = res.body.tee();
      const check = async () => {
        const d = fatal();
        const r = b.getReader();
        for (;;) {
          const { done, value } = await r.read();
          if (done) break;
          d.decode(value, { stream: true });
        }
        d.decode();
      };
      return (await Promise.all([new Response(a).text(), check()]))[0];
    },
    slices: async (res) => {
      const b = new Uint8Array(await res.arrayBuffer());
      const d = fatal();
      let t = '';
      const step = 1 << 19;
      for (let i = 0; i < b.length; i += step) t += d.decode(b.subarray(i, i + step), { stream: true });
      t += d.decode();
      b.buffer.transfer?.(0);
      return t;
    },
    clone: async (res) => {
      const copy = res.clone();
      const t = await res.text();
      if (!t.includes('\uFFFD')) {
        copy.body?.cancel().catch(() => {});
        return t;
      }
      return fatal().decode(await copy.arrayBuffer());
    },
    blob: async (res) => {
      const b = await res.blob();
      const t = await b.text();
      return t.includes('\uFFFD') ? fatal().decode(await b.arrayBuffer()) : t;
    },
  };
  const read = opts.strict ? readers[opts.strict === true ? 'whole' : opts.strict] : (res) => res.text();
  const parse = async (res) => {
    const text = await read(res);
    if ((res.headers.get('content-type') || '').startsWith('text/event-stream')) {
      const i = text.indexOf('\ndata: ');
      return JSON.parse(text.slice(i + 7, text.indexOf('\n', i + 7))).result;
    }
    return JSON.parse(text).result;
  };
  const rpc = async (method, params, name) => {
    const h = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    };
    if (name) h['mcp-name'] = name;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        },
      },
    });
    return parse(await f(url, { method: 'POST', headers: h, body }));
  };
  return {
    // With a template: exactly our client's request bytes (only `echo` with its captured
    // arguments); without one: an equivalent request built here.
    call: async (tool, args) => {
      if (!m || tool !== 'echo') return rpc('tools/call', { name: tool, arguments: args }, tool);
      const body = `${m[1]}${nextId++}${m[2]}`;
      return parse(await f(url, { method: 'POST', headers, body }));
    },
    listTools: () => rpc('tools/list', {}),
  };
}
