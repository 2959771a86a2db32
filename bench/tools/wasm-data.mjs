// What each data segment of the shipped wasm costs in gzip -9: the module's size with that
// segment's bytes zeroed, against the module as it is (a zeroed run compresses to almost
// nothing, so the difference is what the segment's bytes cost where they sit). With a
// preview of each segment as text (runs of bytes that are not printable ASCII shown as ¦),
// so that strings (error messages, names) and tables (numbers, digits) can be told apart.
//
//   node bench/tools/wasm-data.mjs                      # pkg/mcp_wasm_client_bg.wasm
//   node bench/tools/wasm-data.mjs pkg/modern/mcp_wasm_client_bg.wasm
//   MIN=1000 PREVIEW=400 node bench/tools/wasm-data.mjs # larger segments, longer previews
//
// BENCHMARKS.md, the forty-fourth session: the JSON reader's power-of-ten table, found this
// way (2.5 KB of doubles that cost 2.2 KB gzip).
import fs from 'node:fs';
import zlib from 'node:zlib';

const file = process.argv[2] ?? 'pkg/mcp_wasm_client_bg.wasm';
const MIN = Number(process.env.MIN ?? 100);
const PREVIEW = Number(process.env.PREVIEW ?? 160);
const buf = fs.readFileSync(file);
const gzip = (b) => zlib.gzipSync(b, { level: 9 }).length;

/** The data section's segments: [index, offset in the file, length]. */
function segments(b) {
  if (b.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file} is not a wasm module`);
  let p = 8;
  const leb = () => {
    let r = 0;
    let shift = 0;
    let byte;
    do {
      byte = b[p++];
      r += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return r;
  };
  // A constant expression (the segment's offset): read up to its `end`.
  const skipExpr = () => {
    while (b[p] !== 0x0b) {
      const op = b[p++];
      if (op === 0x41 || op === 0x42 || op === 0x23) leb(); // i32/i64.const, global.get
      else throw new Error(`unexpected opcode 0x${op.toString(16)} in a data offset`);
    }
    p++;
  };
  const out = [];
  while (p < b.length) {
    const id = b[p++];
    const len = leb();
    const end = p + len;
    if (id === 11) {
      const n = leb();
      for (let i = 0; i < n; i++) {
        const flags = leb();
        if (flags === 2) leb(); // memory index
        if (flags !== 1) skipExpr(); // 1: passive, no offset
        const size = leb();
        out.push([i, p, size]);
        p += size;
      }
    }
    p = end;
  }
  return out;
}

const base = gzip(buf);
const segs = segments(buf);
console.log(`${file}: ${buf.length.toLocaleString('en-US')} B, gzip -9 ${base.toLocaleString('en-US')} B; ${segs.length} data segments, ${segs.reduce((s, [, , n]) => s + n, 0).toLocaleString('en-US')} B`);
console.log(`segments of ${MIN} B or more, by what zeroing them saves:`);
const rows = [];
for (const [i, off, size] of segs) {
  if (size < MIN) continue;
  const copy = Buffer.from(buf);
  copy.fill(0, off, off + size);
  const text = buf.subarray(off, off + size).toString('latin1').replace(/[^\x20-\x7e]+/g, '¦');
  rows.push({ i, size, saved: base - gzip(copy), text });
}
rows.sort((a, b) => b.saved - a.saved);
for (const r of rows) {
  console.log(`  #${r.i}: ${r.size.toLocaleString('en-US')} B, gzip ${r.saved.toLocaleString('en-US')} B (${Math.round((100 * r.saved) / r.size)} % of its size)`);
  console.log(`      ${r.text.slice(0, PREVIEW)}${r.text.length > PREVIEW ? '…' : ''}`);
}
