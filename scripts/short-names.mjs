// Shortens the names that link wasm-bindgen's JS glue and the wasm module, in both files:
// the glue's own imports (`__wbg_then_656f253a5dd7d8ea`: a name and a 16-digit hash each,
// 112 of them) and the module's exports (`mcpclient_callTool`, and closure shims named after
// their whole Rust signature, up to 500 characters). The hashes are incompressible and each
// name is written twice (the wasm's import or export section and the glue), so they cost
// ~4.5 KB of the gzip size (BENCHMARKS.md, the eighteenth session). wasm-bindgen 0.2.130 has
// no option for short names (`wasm-bindgen --help`); the rename is two sections of the wasm
// and one JS file, so it is written here rather than taken from a tool.
//
// What is renamed, and how it is checked (any surprise stops the build, so a wasm-bindgen
// upgrade that changes its glue cannot ship a module whose names no longer match):
// - an import of the glue's own module (`./<name>_bg.js`) must be the key of exactly one
//   property (`name: function(...)`) in the glue;
// - an export is renamed only when the glue reads it as `wasm.<name>`, and then no read of it
//   by another way (`exports.<name>`, a quoted name) may be left; `memory` keeps its name
//   (hosts may read it), and an export the glue never reads keeps its name too;
// - the TypeScript declarations of the raw exports (`InitOutput` in `<name>.d.ts`,
//   `<name>_bg.wasm.d.ts`) get the new names.
//
//   node scripts/short-names.mjs <dir> <name>     (files <dir>/<name>.js, <dir>/<name>_bg.wasm, ...)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, name] = process.argv.slice(2);
if (!dir || !name) {
  console.error('usage: node scripts/short-names.mjs <dir> <name>');
  process.exit(2);
}
const fail = (msg) => {
  console.error(`short-names: ${msg}`);
  process.exit(1);
};
const wasmPath = join(dir, `${name}_bg.wasm`);
const jsPath = join(dir, `${name}.js`);
const wasm = readFileSync(wasmPath);
let js = readFileSync(jsPath, 'utf8');
const OWN = `./${name}_bg.js`;

const uleb = (b, i) => {
  let r = 0;
  let s = 0;
  let x;
  do {
    if (i >= b.length) fail('truncated LEB128 in the wasm');
    x = b[i++];
    r += (x & 0x7f) * 2 ** s;
    s += 7;
  } while (x & 0x80);
  return [r, i];
};
const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
};
const str = (s) => {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([leb(b.length), b]);
};
const readStr = (b, i) => {
  const [n, j] = uleb(b, i);
  return [b.subarray(j, j + n).toString('utf8'), j + n];
};
// Short names: a, b, ..., z, aa, ab, ... (a prefix keeps the two kinds apart).
const short = (n) => {
  let s = '';
  n += 1;
  while (n > 0) {
    n -= 1;
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
};
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const count = (text, re) => (text.match(re) || []).length;

const imports = new Map();
const exports = new Map();
const keptExports = [];
const parts = [wasm.subarray(0, 8)];
let i = 8;
while (i < wasm.length) {
  const id = wasm[i];
  const [size, start] = uleb(wasm, i + 1);
  const end = start + size;
  const body = wasm.subarray(start, end);
  if (id === 2) {
    // The import section: (module, field, kind, index or type).
    let [n, p] = uleb(body, 0);
    const out = [leb(n)];
    for (let e = 0; e < n; e++) {
      let module;
      let field;
      [module, p] = readStr(body, p);
      [field, p] = readStr(body, p);
      const from = p;
      const kind = body[p++];
      if (kind !== 0) fail(`import ${module} ${field}: only function imports are expected (kind ${kind})`);
      [, p] = uleb(body, p);
      if (module === OWN) {
        if (!imports.has(field)) imports.set(field, short(imports.size));
        field = imports.get(field);
      }
      out.push(str(module), str(field), body.subarray(from, p));
    }
    if (p !== body.length) fail('unexpected bytes after the import section');
    const section = Buffer.concat(out);
    parts.push(Buffer.from([2]), leb(section.length), section);
  } else if (id === 7) {
    // The export section: (field, kind, index).
    let [n, p] = uleb(body, 0);
    const out = [leb(n)];
    for (let e = 0; e < n; e++) {
      let field;
      [field, p] = readStr(body, p);
      const from = p;
      p += 1;
      [, p] = uleb(body, p);
      const read = new RegExp(`\\bwasm\\.${escape(field)}\\b`, 'g');
      if (field !== 'memory' && count(js, read) > 0) {
        exports.set(field, `x${short(exports.size)}`);
        field = exports.get(field);
      } else {
        keptExports.push(field);
      }
      out.push(str(field), body.subarray(from, p));
    }
    if (p !== body.length) fail('unexpected bytes after the export section');
    const section = Buffer.concat(out);
    parts.push(Buffer.from([7]), leb(section.length), section);
  } else {
    parts.push(wasm.subarray(i, end));
  }
  i = end;
}
if (imports.size === 0) fail(`no imports from ${OWN}: is this wasm-bindgen's --target web output?`);
const kept = new Set(keptExports);
for (const neu of exports.values()) if (kept.has(neu)) fail(`export ${neu}: the short name is taken by an export that keeps its name`);

for (const [old, neu] of imports) {
  const key = new RegExp(`(?<=[\\s,{])${escape(old)}(?=: function\\()`, 'g');
  const n = count(js, key);
  if (n !== 1) fail(`import ${old}: ${n} definitions in ${jsPath}, expected 1`);
  js = js.replace(key, neu);
  if (js.includes(old)) fail(`import ${old}: still named in ${jsPath} after the rename`);
}
for (const [old, neu] of exports) {
  js = js.replace(new RegExp(`\\bwasm\\.${escape(old)}\\b`, 'g'), `wasm.${neu}`);
  // Left: the glue's own JS names (an exported function keeps its name in JS); not left: a
  // read of the export by another way than `wasm.<name>`.
  if (new RegExp(`(?:\\b(?:wasm|exports)\\s*\\.\\s*${escape(old)}\\b)|(?:['"\`]${escape(old)}['"\`])`).test(js)) {
    fail(`export ${old}: still read by its old name in ${jsPath} after the rename`);
  }
}
writeFileSync(wasmPath, Buffer.concat(parts));
writeFileSync(jsPath, js);

// The raw exports' TypeScript declarations.
for (const file of [join(dir, `${name}.d.ts`), join(dir, `${name}_bg.wasm.d.ts`)]) {
  if (!existsSync(file)) continue;
  let text = readFileSync(file, 'utf8');
  for (const [old, neu] of exports) text = text.replace(new RegExp(`(?<=\\b(?:readonly|const) )${escape(old)}(?=:)`, 'g'), neu);
  writeFileSync(file, text);
}
console.log(`short-names: ${imports.size} imports and ${exports.size} exports renamed in ${dir}`);
