// Where a steady call's counts go, function by function, from the runs node-cachegrind.mjs
// kept (KEEP=<dir>): for each client, a function's counts in the run of N calls less those
// in the run of none, divided by N; then the functions whose share differs most between
// two clients, and the same by kind of code. Node's own code (V8's C++ and its embedded
// builtins, `Builtins_*`, libuv, OpenSSL, libc) is named; code V8 generated at run time (JS
// compiled by its tiers, and the wasm) is one anonymous entry, `???`. A probe, not a
// benchmark (BENCHMARKS.md, the thirty-second session).
//   KEEP=/tmp/cg CLIENTS=lean,ours node bench/tools/node-cachegrind.mjs
//   DIR=/tmp/cg A=ours B=lean node bench/tools/cachegrind-diff.mjs
// Settings: DIR (where the runs are), A and B (the clients compared: A − B), RUN (which
// run of each, default 0), EVENT (default I1mr; Ir, D1mr, ILmr…), TOP (default 40).
import fs from 'node:fs';
import path from 'node:path';

const DIR = process.env.DIR || '/tmp/cg';
const A = process.env.A || 'ours';
const B = process.env.B || 'lean';
const RUN = process.env.RUN || '0';
const EVENT = process.env.EVENT || 'I1mr';
const TOP = Number(process.env.TOP || 40);

/** A cachegrind output file's counts of `EVENT` by function (`file:function`). */
function read(file) {
  const text = fs.readFileSync(file, 'utf8');
  const by = new Map();
  const names = { fl: new Map(), fn: new Map() };
  let events = null;
  let col = -1;
  let fl = '';
  let fn = '';
  // Names may be compressed: `fn=(12) name` the first time, `fn=(12)` after.
  const name = (kind, v) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(v);
    if (!m) return v;
    if (m[2] !== undefined) names[kind].set(m[1], m[2]);
    return names[kind].get(m[1]) ?? v;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('events: ')) {
      events = line.slice(8).trim().split(/\s+/);
      col = events.indexOf(EVENT);
      if (col < 0) throw new Error(`${file}: no event ${EVENT} (${events.join(' ')})`);
    } else if (line.startsWith('fl=')) fl = name('fl', line.slice(3));
    else if (line.startsWith('fi=') || line.startsWith('fe=')) {
      // an inlined file's lines: counted under the function they are in
    } else if (line.startsWith('fn=')) fn = name('fn', line.slice(3));
    else if (/^\d/.test(line) && events) {
      const v = line.split(' ');
      const x = Number(v[col + 1] ?? 0);
      if (x) {
        const key = `${fl === '???' ? '' : path.basename(fl) + ':'}${fn}`;
        by.set(key, (by.get(key) ?? 0) + x);
      }
    }
  }
  return by;
}

/** What kind of code a function is. */
function kind(key) {
  if (key === '???' || key.endsWith(':???') || key.startsWith('???')) return 'generated at run time (JS, wasm)';
  if (/Builtins_/.test(key)) return 'V8 builtins';
  if (/v8::|node::|uv_|Heap|Isolate|Runtime_|Turbofan|compiler::/.test(key)) return 'V8 and Node C++';
  if (/libc|memcpy|memmove|memset|malloc|free|__/.test(key)) return 'libc and runtime';
  return 'other named code';
}

/** One client's steady call: (the N-call run − the 0-call run) ÷ N, by function. */
function perCall(client) {
  const files = fs.readdirSync(DIR).filter((f) => f.startsWith(`cachegrind.out.${client}.${RUN}.`));
  const n = Math.max(...files.map((f) => Number(f.split('.').pop())));
  if (!(n > 0) || !files.includes(`cachegrind.out.${client}.${RUN}.0`)) {
    throw new Error(`${DIR}: no runs of ${client} with 0 and N calls (KEEP=${DIR} node bench/tools/node-cachegrind.mjs)`);
  }
  const full = read(path.join(DIR, `cachegrind.out.${client}.${RUN}.${n}`));
  const none = read(path.join(DIR, `cachegrind.out.${client}.${RUN}.0`));
  const out = new Map();
  for (const k of new Set([...full.keys(), ...none.keys()])) out.set(k, ((full.get(k) ?? 0) - (none.get(k) ?? 0)) / n);
  return { out, n };
}

const a = perCall(A);
const b = perCall(B);
const diff = [];
for (const k of new Set([...a.out.keys(), ...b.out.keys()])) {
  const x = a.out.get(k) ?? 0;
  const y = b.out.get(k) ?? 0;
  if (x || y) diff.push({ k, x, y, d: x - y });
}
const total = (m) => [...m.values()].reduce((s, v) => s + v, 0);
const fmt = (v) => (v >= 0 ? '+' : '') + v.toFixed(1);
console.log(`${EVENT} per steady call (${a.n} calls), ${A} − ${B}: ${fmt(total(a.out) - total(b.out))} (${A} ${total(a.out).toFixed(1)}, ${B} ${total(b.out).toFixed(1)})`);
const kinds = new Map();
for (const r of diff) {
  const g = kinds.get(kind(r.k)) ?? { x: 0, y: 0 };
  g.x += r.x;
  g.y += r.y;
  kinds.set(kind(r.k), g);
}
console.log('\nby kind of code:');
for (const [g, v] of [...kinds].sort((p, q) => Math.abs(q[1].x - q[1].y) - Math.abs(p[1].x - p[1].y))) {
  console.log(`${fmt(v.x - v.y).padStart(10)}  ${A} ${v.x.toFixed(1).padStart(9)}  ${B} ${v.y.toFixed(1).padStart(9)}  ${g}`);
}
console.log(`\nthe ${TOP} functions that differ most:`);
for (const r of diff.sort((p, q) => Math.abs(q.d) - Math.abs(p.d)).slice(0, TOP)) {
  console.log(`${fmt(r.d).padStart(10)}  ${A} ${r.x.toFixed(1).padStart(9)}  ${B} ${r.y.toFixed(1).padStart(9)}  ${r.k.slice(0, 140)}`);
}
