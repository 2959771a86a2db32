// The fault-injection suite: one or more cases per scenario of the fault server
// (tests/faults/server.mjs, catalogue in scenarios.mjs), run in Node and in headless
// Chromium by the tests/js runners:
//
//   node tests/js/run-node.mjs    <fault server base URL> --suite tests/faults/suite.mjs [--only <regexp>]
//   node tests/js/run-browser.mjs <fault server base URL> --suite tests/faults/suite.mjs [--only <regexp>]
//
// (tests/faults/run.sh starts the server and runs both). Each case asserts the TYPED outcome
// (error class, name, code, status, data; or the correct result when the client recovers)
// AND that the client stays usable (the next call on the same client works). The counting
// cases prove "nothing lost, nothing twice": each input key is presented to the host handler
// exactly once and answered exactly once, across drops, lost acks, retries and restarts. The
// limits cases check each limit exactly at its bound and one over. The CORS cases run in
// Chromium only (Node has no CORS). Uses only the public package API (pkg/).
import { cases, test, ok } from './harness.mjs';
import { SCENARIOS } from './scenarios.mjs';
import './cases/transport.mjs';
import './cases/tasks.mjs';
import './cases/listen.mjs';
import './cases/limits.mjs';
import './cases/security.mjs';
import './cases/cors.mjs';

test('every scenario of the fault server has a case', {}, async () => {
  const covered = new Set(cases.flatMap((c) => c.scenarios));
  const missing = Object.keys(SCENARIOS).filter((s) => !covered.has(s));
  ok(missing.length === 0, `scenarios without a case: ${missing.join(', ')}`);
  const unknown = [...covered].filter((s) => !SCENARIOS[s]);
  ok(unknown.length === 0, `cases name unknown scenarios: ${unknown.join(', ')}`);
});

export { runSuite, cases } from './harness.mjs';
