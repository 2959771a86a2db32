// The long run of the `envelopes` differential (RELIABILITY.md): seeded random mutants of
// well-formed JSON-RPC responses (tests/faults/mutants.mjs), each answered by the fault
// server (tests/faults/server.mjs, scenario `envelopes`) to three calls of one client in
// Node: without options (the direct path, whose runner reads the usual forms itself:
// `readAnswer` in src/web/js/bodies.js), with a signal (the shell's general path) and with a
// progress callback (the engine's general path). Every mutant must settle the same three
// ways; the first that does not stops the run and is printed (its bytes in base64). The
// fault suite runs 300 of these on every test run, in Node and Chromium.
//
//   node fuzz/js/envelopes.mjs [runs, default 100000] [seed, default 1]     (pkg/ built)
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { McpClient } from '../../pkg/index.js';
import { random, mutant, base64, threeWays, comparable } from '../../tests/faults/mutants.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const runs = Number(process.argv[2] ?? 100000);
const seed = Number(process.argv[3] ?? 1);
// The runner's reader itself, to count the mutants it reads.
const snippets = join(ROOT, 'pkg/snippets');
const cors = join(snippets, readdirSync(snippets)[0], 'src/web/js/bodies.js');
const { readAnswer } = await import(pathToFileURL(cors).href);

const server = spawn(process.execPath, [join(ROOT, 'tests/faults/server.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((ok, fail) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /READY (\S+)/.exec(out);
    if (m) ok(m[1].replace(/\/mcp$/, ''));
  });
  server.on('exit', (c) => fail(new Error(`fault server exited (${c})`)));
});
const same = (a, b) => comparable(a) === comparable(b);
let code = 0;
const t0 = Date.now();
const counts = { read: 0, resolved: 0, rejected: 0 };
const c = new McpClient(`${base}/s/envelopes/fuzz-${seed}/mcp`, { requestTimeoutMs: 8000 });
try {
  await c.listAllTools();
  const r = random(seed);
  for (let i = 0; i < runs; i++) {
    const bytes = mutant(r);
    const raw = base64(bytes);
    const { direct, shell, general } = await threeWays(c, { raw });
    if (!same(direct, shell) || !same(direct, general)) {
      console.log(`mutant ${i} (seed ${seed}) settles differently:\n  bytes (base64, $ID for the id): ${raw}\n  direct ${JSON.stringify(direct)}\n  shell ${JSON.stringify(shell)}\n  general ${JSON.stringify(general)}`);
      code = 1;
      break;
    }
    // (`$ID` as a number, as the server writes it for a first request id.)
    if (readAnswer(new TextEncoder().encode(new TextDecoder().decode(bytes).replaceAll('$ID', '1'))) !== null) counts.read += 1;
    counts[direct.error ? 'rejected' : 'resolved'] += 1;
    if ((i + 1) % 10000 === 0) console.log(`  ${i + 1} mutants, ${((Date.now() - t0) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}`);
  }
  if (code === 0) console.log(`${runs} mutants (seed ${seed}) in ${((Date.now() - t0) / 1000).toFixed(0)} s, each settled the same three ways: ${counts.read} read by the runner's readAnswer, ${counts.resolved} resolved, ${counts.rejected} rejected`);
} finally {
  c.close();
  server.kill();
}
process.exit(code);
