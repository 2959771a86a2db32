// The functions of a wasm module as its sections list them, for the size probes
// (bench/tools/first-call-path.mjs, bench/tools/wasm-calls.mjs).
import { readFileSync } from 'node:fs';

/** Function names (the name section) and code body sizes (the code section) by index. */
export function functions(path) {
  const b = readFileSync(path);
  let p = 8;
  const leb = () => {
    let r = 0;
    let s = 0;
    let x;
    do {
      x = b[p++];
      r |= (x & 0x7f) << s;
      s += 7;
    } while (x & 0x80);
    return r >>> 0;
  };
  const skip = () => {
    const n = leb();
    p += n;
  };
  const names = new Map();
  const sizes = [];
  let imported = 0;
  while (p < b.length) {
    const id = b[p++];
    const size = leb();
    const end = p + size;
    if (id === 2) {
      // imports: only function imports count in the function index space
      for (let i = leb(); i > 0; i--) {
        skip();
        skip();
        const kind = b[p++];
        if (kind === 0) {
          leb();
          imported++;
        } else if (kind === 1) {
          p++;
          if (b[p++] & 1) leb();
          leb();
        } else if (kind === 2) {
          if (b[p++] & 1) leb();
          leb();
        } else if (kind === 3) {
          p += 2;
        } else {
          p++;
          leb();
        }
      }
    } else if (id === 10) {
      const n = leb();
      for (let i = 0; i < n; i++) {
        const s = leb();
        sizes[imported + i] = s;
        p += s;
      }
    } else if (id === 0) {
      const nl = leb();
      const section = b.toString('utf8', p, p + nl);
      p += nl;
      while (section === 'name' && p < end) {
        const sub = b[p++];
        const ss = leb();
        const se = p + ss;
        if (sub === 1) {
          for (let i = leb(); i > 0; i--) {
            const idx = leb();
            const l = leb();
            names.set(idx, b.toString('utf8', p, p + l));
            p += l;
          }
        }
        p = se;
      }
    }
    p = end;
  }
  return { names, sizes };
}
