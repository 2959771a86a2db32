// Playwright e2e of the console's sign-in (issue 17) against a real authorization server
// (oidc-provider, tests/auth-server/world.mjs) in front of the example MCP server: the
// person's login and consent pages are the authorization server's, filled by the test.
// One PASS/FAIL line per flow; screenshots of failures under test-output/e2e-signin/.
//
//   node tests/e2e/signin.mjs          (EXAMPLE_MCP_URL=... to use a running example server;
//                                       ONLY=<regexp> runs the flows whose names match)
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startStatic } from '../../www/serve.mjs';
import { startWorld, USER, SCOPE } from '../auth-server/world.mjs';
import { OUT, launchBrowser, mcpServer, until } from './lib.mjs';

// Screenshots per engine (Firefox and WebKit run this file through tests/browsers/run.sh).
const SHOTS = join(OUT, process.env.BROWSER_ENGINE ? `e2e-signin-${process.env.BROWSER_ENGINE}` : 'e2e-signin');
rmSync(SHOTS, { recursive: true, force: true });
mkdirSync(SHOTS, { recursive: true });

const upstream = await mcpServer('EXAMPLE_MCP_URL', 'www/server/example_server.py');
const config = { serverUrl: '' };
const web = await startStatic(0, { '/config.json': config });
const consoleUrl = `http://127.0.0.1:${web.address().port}/`;
const consoleOrigin = new URL(consoleUrl).origin;

const world = await startWorld({ consoleOrigin, upstream });
const short = await startWorld({ consoleOrigin, upstream, accessTokenTTL: 2 });
const noCors = await startWorld({ consoleOrigin, upstream, tokenCors: false });
const browser = await launchBrowser();

let failed = 0;
let notRun = 0;
let page = null;
const pageErrors = [];
const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
async function flow(name, fn) {
  if (ONLY && !ONLY.test(name)) return;
  const t0 = Date.now();
  try {
    await fn();
    if (pageErrors.length) throw new Error(`uncaught page error: ${pageErrors.splice(0).join('; ')}`);
    console.log(`PASS sign-in: ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    if (err?.name === 'EngineUnsupported') {
      // A Playwright feature the WebDriver shim cannot give in this engine (tests/browsers/).
      notRun += 1;
      console.log(`NOT RUN (${process.env.BROWSER_ENGINE}) sign-in: ${name}: ${err.message}`);
      return;
    }
    failed += 1;
    console.log(`FAIL sign-in: ${name}: ${err.message.split('\n').slice(0, 3).join(' / ')}`);
    if (page) await page.screenshot({ path: join(SHOTS, `FAILED-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  }
}

const check = (cond, what) => {
  if (!cond) throw new Error(what);
};
const hostOf = (u) => new URL(u).host;

/** A fresh browser profile (its own localStorage) on the console, connecting to `serverUrl`. */
async function open(serverUrl, { blockPopups = false } = {}) {
  config.serverUrl = serverUrl;
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  // A popup blocker as the page sees it: window.open returns null.
  if (blockPopups) await context.addInitScript(() => { window.open = () => null; });
  const p = await context.newPage();
  p.on('pageerror', (e) => pageErrors.push(e.message));
  page = p;
  await p.goto(consoleUrl);
  return p;
}

const statusText = (p) => p.locator('#status').textContent();
async function waitStatus(p, text, timeout = 15_000) {
  try {
    await p.locator('#status').filter({ hasText: text }).waitFor({ timeout });
  } catch (e) {
    // What the console says instead (a failure names it).
    const now = await statusText(p).catch((err) => `unreadable: ${err.message}`);
    // The status first: the failure line keeps only the first lines of a message.
    throw new Error(`the status says ${JSON.stringify(now)}, not ${JSON.stringify(text)}: ${e.message}`);
  }
}

/** The console asks: "Sign in to <server> via <authorization server>". */
async function waitAsked(p, w) {
  const ask = p.locator('#signin[data-state=ask]');
  await ask.waitFor({ timeout: 15_000 });
  const text = await ask.textContent();
  check(text.includes(`Sign in to ${hostOf(w.mcpUrl)} via ${hostOf(w.issuer)}`), `the sign-in prompt says: ${text}`);
}

/** The authorization server's own pages, in `view` (the popup or the page): login, then consent. */
async function loginAndConsent(view, w, { deny = false } = {}) {
  await view.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 15_000 });
  check(view.url().startsWith(`${w.issuer}/interaction/`), `the login page is the authorization server's: ${view.url()}`);
  await view.getByLabel('Username').fill(USER.login);
  await view.getByLabel('Password').fill(USER.password);
  await view.getByRole('button', { name: 'Sign in' }).click();
  await view.getByRole('heading', { name: 'Allow access' }).waitFor({ timeout: 15_000 });
  const asked = await view.locator('body').textContent();
  check(asked.includes(`${SCOPE} on ${w.mcpUrl}`), `the consent page names the scope and resource: ${asked}`);
  await view.getByRole('button', { name: deny ? 'Deny' : 'Allow' }).click();
}

/** Click "Sign in", do the person's part in the popup, wait until it closed. */
async function signInWithPopup(p, w, opts) {
  await waitAsked(p, w);
  const [popup] = await Promise.all([p.waitForEvent('popup'), p.locator('#sign-in').click()]);
  const closed = popup.waitForEvent('close', { timeout: 15_000 });
  await loginAndConsent(popup, w, opts);
  await closed;
}

async function runSayHello(p, name) {
  const t = p.locator('details.tool[data-tool="say_hello"]');
  await t.locator(':scope > summary').click();
  await t.getByLabel('Name').fill(name);
  await t.getByRole('button', { name: 'Run' }).click();
  const card = p.locator('#cards .card').first();
  await card.and(p.locator('[data-status="completed"]')).waitFor({ timeout: 15_000 });
  const text = await card.locator('pre.text').textContent();
  check(text.includes(`Hello, ${name}`), `the tool's answer: ${text}`);
  await t.locator(':scope > summary').click();
}

/** What the signed-in panel shows: the scopes and the expiry. */
async function signedIn(p) {
  const s = p.locator('#signin[data-state=signed-in]');
  await s.waitFor({ timeout: 15_000 });
  const scope = await s.locator('.signin-scope').textContent();
  const expiry = await s.locator('.signin-expiry').getAttribute('datetime');
  check(scope.split(' ').includes(SCOPE), `the scopes shown: ${scope}`);
  check(expiry && Date.parse(expiry) > Date.now() - 60_000, `the expiry shown: ${expiry}`);
  return { scope, expiry: Date.parse(expiry) };
}

/** Every request the MCP server got with a token came after the code was exchanged, with the token in the header only. */
function checkSeen(w, since) {
  const seen = w.seen.filter((s) => s.at >= since && s.path === '/mcp');
  const code = w.tokenRequests.find((r) => r.grant_type === 'authorization_code' && r.ok && r.at >= since);
  check(code, 'the token endpoint issued a token for the code');
  check(seen.length > 0 && seen[0].authorization === null && !seen[0].valid, 'the first request went without a token (401)');
  const withToken = seen.filter((s) => s.authorization);
  check(withToken.length > 0, 'the MCP server got requests with a token');
  for (const s of withToken) {
    check(/^Bearer \S+$/.test(s.authorization), `Authorization: ${s.authorization}`);
    check(s.at >= code.at, 'a token was sent before the flow ended');
  }
  for (const s of w.seen) {
    for (const r of w.tokenRequests) {
      if (r.access_token_issued) check(!s.query.includes(r.access_token_issued), `a token in a URL: ${s.query}`);
    }
    check(!/access_token|token=/i.test(s.query), `a token parameter in a URL: ${s.query}`);
  }
  check(seen.some((s) => s.valid), 'the MCP server accepted the token');
}

// ------------------------------------------------------------------------------ flows

let signedInPage = null;
await flow('1 popup: login and consent pages, tools listed and called, Bearer only after the flow', async () => {
  const since = Date.now();
  const p = await open(world.mcpUrl);
  await signInWithPopup(p, world);
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  await signedIn(p);
  await runSayHello(p, 'Ada');
  checkSeen(world, since);
  await p.screenshot({ path: join(SHOTS, '01-signed-in.png') });
  signedInPage = p;
});

await flow('4 sign out: the next call asks again', async () => {
  const p = signedInPage;
  check(p, 'flow 1 did not leave a signed-in console');
  page = p;
  const before = world.seen.length;
  await p.locator('#sign-out').click();
  await waitAsked(p, world);
  // The tokens are gone (the new client registered again to ask: its registration is kept).
  const keys = await p.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('mcp-wasm-client:oauth:tokens:')));
  check(keys.length === 0, `tokens left after sign out: ${keys.join(', ')}`);
  const after = world.seen.slice(before);
  check(after.length > 0 && after.every((s) => s.authorization === null), 'after sign out a request went with a token');
  await p.screenshot({ path: join(SHOTS, '04-signed-out.png') });
  await p.context().close();
});

await flow('2 popup blocked: the redirect flow, back in the console, connected', async () => {
  const since = Date.now();
  const p = await open(world.mcpUrl, { blockPopups: true });
  await waitAsked(p, world);
  await Promise.all([p.waitForURL((u) => u.href.startsWith(world.issuer), { timeout: 15_000 }), p.locator('#sign-in').click()]);
  await loginAndConsent(p, world);
  await p.waitForURL(consoleUrl, { timeout: 15_000 });
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  await signedIn(p);
  check(!p.url().includes('code='), `the code stays in the address bar: ${p.url()}`);
  const pending = await p.evaluate(() => Object.keys(localStorage).filter((k) => k.includes(':oauth:pending:')));
  check(pending.length <= 1, `pending requests left: ${pending.length}`); // the new client's own, unused
  await runSayHello(p, 'Grace');
  checkSeen(world, since);
  await p.screenshot({ path: join(SHOTS, '02-redirect.png') });
  await p.context().close();
});

await flow('a static Authorization header instead of signing in', async () => {
  const token = world.tokenRequests.filter((r) => r.ok && r.access_token_issued).pop()?.access_token_issued;
  check(token, 'no token issued by the earlier flows');
  config.serverUrl = '';
  const p = await open('');
  await p.locator('#auth-options > summary').click();
  await p.locator('#auth-header').fill(`Bearer ${token}`);
  await p.locator('#server-url').fill(world.mcpUrl);
  const since = Date.now();
  await p.getByRole('button', { name: 'Connect' }).click();
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  check(await p.locator('#signin').isHidden(), 'the sign-in panel shows with a static header');
  const seen = world.seen.filter((s) => s.at >= since);
  check(seen.length > 0 && seen.every((s) => s.authorization === `Bearer ${token}` && s.valid), 'every request carried the header');
  await p.context().close();
});

await flow('3 reload: still signed in; the expired token is refreshed without the person; a rotated refresh token is never reused', async () => {
  const p = await open(short.mcpUrl);
  let popups = 0;
  p.context().on('page', () => { popups += 1; });
  await signInWithPopup(p, short);
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  popups = 0;
  await p.reload();
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  await signedIn(p);
  // Any sign-in prompt from now on fails the flow.
  await p.evaluate(() => {
    window.__asked = 0;
    new MutationObserver(() => {
      if (document.querySelector('#signin[data-state=ask]')) window.__asked += 1;
    }).observe(document.getElementById('signin'), { attributes: true, childList: true });
  });
  for (const name of ['Alan', 'Edsger']) {
    const { expiry } = await signedIn(p);
    await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now()) + 300));
    const refreshes = short.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length;
    await runSayHello(p, name);
    await until(() => short.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length > refreshes, 'a refresh');
  }
  check(popups === 0, `${popups} window(s) opened after the reload`);
  check((await p.evaluate(() => window.__asked)) === 0, 'the person was asked to sign in again');
  const used = short.tokenRequests.filter((r) => r.grant_type === 'refresh_token');
  check(used.length >= 2 && used.every((r) => r.ok), `refreshes: ${JSON.stringify(used.map((r) => [r.ok, r.error]))}`);
  const sent = used.map((r) => r.refresh_token);
  check(new Set(sent).size === sent.length, 'a refresh token was sent twice');
  // Each refresh used the refresh token issued last (rotation), never an older one.
  const issued = short.tokenRequests.filter((r) => r.ok && r.refresh_token_issued);
  for (const r of used) {
    const before = issued.filter((i) => i.at < r.at).pop();
    check(before && before.refresh_token_issued === r.refresh_token, 'a refresh used a refresh token that was not the latest issued');
  }
  check(issued.length === 1 + used.length && new Set(issued.map((i) => i.refresh_token_issued)).size === issued.length, 'the refresh token was not rotated');
  await p.screenshot({ path: join(SHOTS, '03-refreshed.png') });
  await p.context().close();
});

await flow('5 consent denied: a clear message, nothing retried', async () => {
  const p = await open(world.mcpUrl);
  let popups = 0;
  p.context().on('page', () => { popups += 1; });
  const asks = world.interactions.length;
  await signInWithPopup(p, world, { deny: true });
  await waitStatus(p, 'access was denied at the authorization server (access_denied)');
  const seen = world.seen.length;
  const tokens = world.tokenRequests.length;
  await new Promise((r) => setTimeout(r, 2000));
  check(popups === 1, `${popups} popups`);
  check(world.interactions.length === asks + 2, `the authorization server showed ${world.interactions.length - asks} pages (login and consent expected)`);
  check(world.seen.length === seen && world.tokenRequests.length === tokens, 'the console kept trying after the denial');
  check(!(await p.locator('#signin[data-state=ask]').isVisible()), 'the console asks again by itself');
  await p.screenshot({ path: join(SHOTS, '05-denied.png') });
  await p.context().close();
});

await flow('6 no CORS on the token endpoint: CorsError naming the endpoint and the header', async () => {
  const p = await open(noCors.mcpUrl);
  await signInWithPopup(p, noCors);
  await waitStatus(p, 'The browser blocked the request to');
  const text = await statusText(p);
  check((await p.locator('#status').getAttribute('data-error')) === 'CorsError', `error name: ${await p.locator('#status').getAttribute('data-error')}`);
  check(text.includes(`${noCors.issuer}/token`), `the endpoint is named: ${text}`);
  check(text.includes(`Access-Control-Allow-Origin: ${consoleOrigin}`), `the header is named: ${text}`);
  check(text.includes(`(POST ${noCors.issuer}/token)`), `the request is named: ${text}`);
  check(noCors.seen.every((s) => s.authorization === null), 'a token reached the MCP server');
  await p.screenshot({ path: join(SHOTS, '06-cors.png') });
  await p.context().close();
});

await flow('7 metadata naming another resource: resource-mismatch, no token sent', async () => {
  const asks = world.interactions.length;
  const tokens = world.tokenRequests.length;
  const p = await open(world.mismatchUrl);
  await waitStatus(p, 'resource-mismatch');
  check((await p.locator('#status').getAttribute('data-error')) === 'AuthorizationError', 'error name');
  const seen = world.seen.filter((s) => s.path === '/elsewhere/mcp');
  check(seen.length > 0 && seen.every((s) => s.authorization === null), 'a token reached the server');
  check(world.interactions.length === asks && world.tokenRequests.length === tokens, 'the authorization server was asked');
  check(!(await p.locator('#signin[data-state=ask]').isVisible()), 'the console asks to sign in');
  await p.screenshot({ path: join(SHOTS, '07-resource-mismatch.png') });
  await p.context().close();
});

await flow('8 the popup closes before its message is handled: signed in all the same, one popup', async () => {
  const since = Date.now();
  const p = await open(world.mcpUrl);
  // The popup's message is handled after the popup reads as closed: when the message is
  // delivered, the popup is closed at once and the console's listener runs 600 ms later.
  // Nothing orders a window's `closed` against its last message (page.evaluate, not an
  // init script: the console adds its listener when "Sign in" is clicked, and WebKit's
  // driver has no init scripts).
  await p.evaluate(() => {
    const add = window.addEventListener.bind(window);
    const remove = window.removeEventListener.bind(window);
    const late = new Map();
    window.addEventListener = (type, fn, opts) => {
      if (type !== 'message') return add(type, fn, opts);
      late.set(fn, (e) => {
        e.source?.close();
        setTimeout(() => fn(e), 600);
      });
      return add(type, late.get(fn), opts);
    };
    window.removeEventListener = (type, fn, opts) => remove(type, (type === 'message' && late.get(fn)) || fn, opts);
  });
  let popups = 0;
  p.context().on('page', () => { popups += 1; });
  await signInWithPopup(p, world);
  await waitStatus(p, 'Connected to MCP example server: 10 tools.');
  await signedIn(p);
  check(popups === 1, `${popups} popups`);
  checkSeen(world, since);
  await p.context().close();
});

await flow('9 the person closes the popup: the console says so, no token asked for', async () => {
  const p = await open(world.mcpUrl);
  const tokens = world.tokenRequests.length;
  await waitAsked(p, world);
  const [popup] = await Promise.all([p.waitForEvent('popup'), p.locator('#sign-in').click()]);
  await popup.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 15_000 });
  await popup.close();
  await waitStatus(p, 'The sign-in window was closed before it finished.');
  check(world.tokenRequests.length === tokens, 'a token was asked for');
  await p.context().close();
});

await browser.close();
await Promise.all([world.close(), short.close(), noCors.close()]);
web.close();
console.log(failed ? `sign-in e2e: ${failed} flow(s) FAILED` : `sign-in e2e: all flows passed${notRun ? ` (${notRun} not run in ${process.env.BROWSER_ENGINE})` : ''}`);
process.exit(failed ? 1 : 0);
