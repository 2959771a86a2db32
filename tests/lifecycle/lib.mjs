// Shared helpers of the lifecycle tests (tests/lifecycle/*.test.mjs): the Python tasks
// server, a static server for pkg/ and the test pages, Chromium, and the server's counts.
import { launchBrowser, mcpServer, staticServer, until, ROOT, OUT } from '../e2e/lib.mjs';
import { join } from 'node:path';

export { launchBrowser, until, ROOT, OUT };

/** The Python MCP server with the tasks extension (started once per process). */
export function tasksServer() {
  return mcpServer('MCP_TEST_URL', 'tests/servers/modern_server.py');
}

/** Serves `/pkg/` (the built package) and `/pages/` (tests/lifecycle/pages), readable from
 * any origin: a sandboxed iframe (an opaque origin) loads the package with CORS. */
export function pages(extraMounts = {}) {
  return staticServer({
    '/pkg/': join(ROOT, 'pkg'),
    '/pages/': join(ROOT, 'tests/lifecycle/pages'),
    ...extraMounts,
  }, {}, { 'access-control-allow-origin': '*' });
}

/** `GET /debug/tasks` of the Python server: `{taskId: {tool, status, answers, gets, ...}}`. */
export async function debugTasks(mcpUrl) {
  const r = await fetch(new URL('/debug/tasks', mcpUrl));
  return r.json();
}

/** `GET /debug/log` of the Python server (one entry per HTTP request to /mcp). */
export async function debugLog(mcpUrl) {
  const r = await fetch(new URL('/debug/log', mcpUrl));
  return r.json();
}

/** The `tasks/get` requests the server logged for `taskId` (with their `time`). */
export async function pollsOf(mcpUrl, taskId) {
  const log = await debugLog(mcpUrl);
  return log.filter((e) => e.method === 'tasks/get' && e.body?.params?.taskId === taskId);
}

/** Opens `/pages/blank.html` of `site` in a new tab of `context`, with `window.mcp` loaded. */
export async function openTab(context, site, page = 'blank.html') {
  const tab = await context.newPage();
  tab.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  await tab.goto(`${site.url}/pages/${page}`);
  await tab.waitForFunction(() => window.mcpReady === true);
  return tab;
}

/** A tiny test runner: `test(name, fn)` then `await done()` (exits 1 on failure). */
const tests = [];
export function test(name, fn) {
  tests.push({ name, fn });
}
export async function run(setup, teardown) {
  let failed = 0;
  let notRun = 0;
  const env = await setup();
  for (const t of tests) {
    const start = Date.now();
    try {
      await t.fn(env);
      console.log(`ok   ${t.name} (${Date.now() - start} ms)`);
    } catch (e) {
      // A Playwright feature WebDriver lacks (tests/browsers/playwright-shim.mjs): printed, not a pass.
      if (e?.name === 'EngineUnsupported') {
        notRun++;
        console.log(`NOT RUN (${process.env.BROWSER_ENGINE}) ${t.name}: ${e.message}`);
        continue;
      }
      failed++;
      console.log(`FAIL ${t.name}: ${e && e.stack ? e.stack : e}`);
    }
  }
  await teardown?.(env);
  console.log(`${tests.length - failed - notRun} passed, ${failed} failed${notRun ? `, ${notRun} not run` : ''}`);
  process.exit(failed ? 1 : 0);
}
