// Runs tests/js/suite.mjs (or another suite with the same runSuite API, e.g.
// tests/faults/suite.mjs) in Node against a running test server.
//   node tests/js/run-node.mjs <serverUrl> [--suite <path>] [--only <regexp>] [--modern]
// --modern: the suite runs on the mcp-wasm-client/modern entry (pkg/modern/); its legacy-era
// cases are counted as not applicable.
// Exit status 0 when every case passed (expected failures aside) and no promise rejection
// went unhandled, 1 otherwise.
import net from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const serverUrl = args[0];
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new RegExp(args[onlyAt + 1]) : undefined;
const suiteAt = args.indexOf('--suite');
if (args.includes('--modern')) globalThis.__MCP_WASM_CLIENT_ENTRY = 'modern';
if (!serverUrl) {
  console.error('usage: node tests/js/run-node.mjs <serverUrl> [--suite <path>] [--only <regexp>]');
  process.exit(2);
}
const { runSuite } = await import(suiteAt >= 0 ? pathToFileURL(resolve(args[suiteAt + 1])).href : './suite.mjs');

// An unhandled rejection ends a Node host by default; here it is recorded (and fails the
// run at the end) so that the remaining cases still run and the report names it.
const unhandled = [];
process.on('unhandledRejection', (reason) => {
  unhandled.push(`${reason?.name ?? typeof reason}: ${reason?.message ?? String(reason)}`);
});

/** A URL on a port nothing listens on (bound, then released). */
async function deadUrl() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}/mcp`;
}

const t0 = Date.now();
const r = await runSuite({
  serverUrl,
  deadUrl: await deadUrl(),
  only,
  unhandled: () => unhandled,
  report: (l) => console.log(l),
});
for (const f of r.failures) console.error(`\n✗ ${f.name}\n${f.error}`);
if (unhandled.length) {
  console.error(`\n✗ ${unhandled.length} unhandled promise rejection(s) during the run (a Node host would have crashed):`);
  for (const u of [...new Set(unhandled)]) console.error(`  ${u} (×${unhandled.filter((x) => x === u).length})`);
}
console.log(
  `node${args.includes('--modern') ? ' (mcp-wasm-client/modern)' : ''}: ${r.passed} passed, ${r.failed} failed, ${r.xfailed} expected failures, ${r.xpassed} unexpected passes, ` +
    (r.skipped ? `${r.skipped} skipped, ` : '') +
    (r.notApplicable ? `${r.notApplicable} not applicable: legacy era, ` : '') +
    `${unhandled.length} unhandled rejections (${r.total} cases, ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
);
process.exit(r.failed === 0 && r.xpassed === 0 && unhandled.length === 0 && r.total > 0 ? 0 : 1);
