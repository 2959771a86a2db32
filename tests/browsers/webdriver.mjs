// A small W3C WebDriver client (https://w3c.github.io/webdriver/) for the engines Playwright
// cannot drive here: Firefox ESR through geckodriver and WebKitGTK (MiniBrowser) through
// WebKitWebDriver under Xvfb (issue 18). Plain `fetch` to the driver; only the commands the
// browser suites use: new session, navigate, execute (sync and async) script, window
// handles, new window, switch, close, minimize, delete session (the shim adds element and
// action commands, and bidi.mjs WebDriver BiDi where the driver has it: Firefox).
//
//   const driver = await startDriver('firefox');      // spawns the driver on a free port
//   const s = await driver.newSession();               // a fresh browser (own profile)
//   await s.navigate(url); await s.execute('return document.title');
//   await s.quit(); await driver.stop();
//
// The driver (and, for WebKit, its Xvfb) are child processes stopped by PID.
//
// Firefox sessions start on a copy of a template profile (firefoxTemplate below), not on the
// empty profile geckodriver would make: each is still a fresh browser.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/**
 * The engines, their drivers and capabilities (issue 18). Paths can be overridden with
 * GECKODRIVER, FIREFOX, WEBKITWEBDRIVER, MINIBROWSER.
 */
export const ENGINES = {
  firefox: {
    driver: () => process.env.GECKODRIVER || firstExisting([join(homedir(), '.cargo/bin/geckodriver'), '/usr/local/bin/geckodriver']) || 'geckodriver',
    binary: () => process.env.FIREFOX || '/usr/bin/firefox-esr',
    // WebDriver BiDi (network interception, bidi.mjs) on a free port of its own: geckodriver's
    // default 9222 is one port for every geckodriver on the machine.
    args: (port, wsPort) => ['--port', String(port), '--websocket-port', String(wsPort)],
    bidi: true,
    display: false,
    profiles: true, // sessions start on a copy of the template profile (firefoxTemplate)
    capabilities: (binary) => ({
      browserName: 'firefox',
      'moz:firefoxOptions': {
        binary,
        args: ['-headless'],
        // A test profile: no first-run pages, no background traffic.
        prefs: {
          'browser.shell.checkDefaultBrowser': false,
          'datareporting.policy.dataSubmissionEnabled': false,
          'app.update.enabled': false,
        },
      },
    }),
  },
  webkit: {
    driver: () => process.env.WEBKITWEBDRIVER || '/usr/bin/WebKitWebDriver',
    binary: () => process.env.MINIBROWSER || MINIBROWSER,
    args: (port) => [`--port=${port}`],
    bidi: false, // WebKitWebDriver 2.50 refuses the webSocketUrl capability
    display: true, // MiniBrowser is a GTK window: Xvfb
    capabilities: (binary) => ({
      'webkitgtk:browserOptions': { binary, args: ['--automation'] },
    }),
  },
};

function firstExisting(paths) {
  return paths.find((p) => existsSync(p));
}

/** Why `engine` cannot run here (its driver or browser is missing), or null. */
export function missing(engine) {
  const e = ENGINES[engine];
  if (!e) return `unknown engine ${engine}`;
  const driver = e.driver();
  if (driver.includes('/') && !existsSync(driver)) return `${driver} not installed (scripts/setup.sh)`;
  if (!existsSync(e.binary())) return `${e.binary()} not installed (scripts/setup.sh)`;
  if (e.display && !existsSync('/usr/bin/Xvfb')) return 'Xvfb not installed (scripts/setup.sh)';
  return null;
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = new Set();
/** The profile copies of this process's Firefox sessions, removed when their driver stops. */
const copies = new Set();
process.on('exit', () => {
  for (const c of children) {
    try { process.kill(c.pid, 'SIGKILL'); } catch { /* gone */ }
  }
  for (const dir of copies) removeProfile(dir);
});

/** Removes a session's profile copy. Firefox may still be writing to it for a moment after its
 *  driver was stopped (ENOTEMPTY seen in CI-like runs): retried, and a copy left behind is
 *  kept for the exit's sweep, not a failure of the case that closed the browser. */
function removeProfile(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    copies.delete(dir);
  } catch {
    // left for process exit (or the OS's temp cleanup)
  }
}

// Firefox's template profile. geckodriver starts every session on a new, empty profile, which
// Firefox then initialises (its databases, the registration of its built-in add-ons, the
// startup cache): measured here, a session took 3.4-4.2 s to start and ~0.9 s to quit, and
// 2.6 s in all on a copy of a profile Firefox had already initialised. So sessions start on
// a copy of such a profile: one made by a session that visited about:blank only and quit,
// so it holds no site's storage, cookies, cache, permissions or service worker, as an
// empty profile. Each session is still a fresh browser with a profile of its own
// (Playwright's context); the copy is removed when its driver stops.
// FIREFOX_PROFILE_TEMPLATE: a template prepared by prepareFirefoxProfile (tests/browsers/run.sh
// prepares one for all its runs); without a ready one there, a process prepares its own.
const READY = '.template-ready';
/** Files of the template's run that a copy leaves out: its lock and its session history. */
const NOT_COPIED = new Set(['lock', '.parentlock', 'sessionstore.jsonlz4', 'sessionstore-backups', 'sessionCheckpoints.json', READY]);
let template = null;

/** Makes `dir` a template profile: a Firefox session started on it, shown about:blank, quit. */
export async function prepareFirefoxProfile(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const driver = await startDriver('firefox', { profile: dir });
  try {
    const s = await driver.newSession({ webSocketUrl: true });
    await s.navigate('about:blank');
    await s.quit();
  } finally {
    await driver.stop();
  }
  writeFileSync(join(dir, READY), '');
  return dir;
}

function firefoxTemplate() {
  template ??= (async () => {
    const shared = process.env.FIREFOX_PROFILE_TEMPLATE;
    if (shared && existsSync(join(shared, READY))) return shared;
    const own = mkdtempSync(join(tmpdir(), 'mcp-ff-template-'));
    copies.add(own); // removed when this process exits
    return prepareFirefoxProfile(own);
  })();
  return template;
}

/** A new copy of the template profile, for one session. */
async function firefoxProfileCopy() {
  const from = await firefoxTemplate();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ff-profile-'));
  copies.add(dir);
  cpSync(from, dir, { recursive: true, verbatimSymlinks: true, filter: (src) => src === from || !NOT_COPIED.has(basename(src)) });
  return dir;
}

function kill(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const t = setTimeout(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } }, 3000);
    child.once('exit', () => { clearTimeout(t); children.delete(child); done(); });
    try { child.kill('SIGTERM'); } catch { done(); }
  });
}

/** Starts Xvfb on a free display (`-displayfd`): `{ display, stop() }`. */
async function startXvfb() {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const display = await new Promise((ok, fail) => {
    let buf = '';
    const t = setTimeout(() => fail(new Error(`Xvfb gave no display within 10 s: ${err}`)), 10_000);
    child.stdio[3].on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) { clearTimeout(t); ok(`:${buf.trim()}`); }
    });
    child.on('exit', (code) => fail(new Error(`Xvfb exited (${code}): ${err}`)));
  });
  return { display, stop: () => kill(child) };
}

/** Spawns the engine's WebDriver server on a free port and waits for `/status` ready. */
export async function startDriver(engine, { profile } = {}) {
  const e = ENGINES[engine];
  const why = missing(engine);
  if (why) throw new Error(`${engine}: ${why}`);
  const xvfb = e.display ? await startXvfb() : null;
  const port = await freePort();
  const wsPort = e.bidi ? await freePort() : null;
  const env = { ...process.env };
  if (xvfb) env.DISPLAY = xvfb.display;
  // geckodriver logs every command at info level: keep its stderr only for failures.
  const child = spawn(e.driver(), e.args(port, wsPort), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let log = '';
  const keep = (d) => { log = (log + d).slice(-20_000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  /** The profile copies of this driver's sessions. */
  const mine = [];
  const end = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${engine} driver exited (${child.exitCode}): ${log}`);
    try {
      const r = await fetch(`${url}/status`);
      if (r.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > end) { await kill(child); await xvfb?.stop(); throw new Error(`${engine} driver not ready in 20 s: ${log}`); }
    await sleep(100);
  }
  return {
    engine,
    url,
    display: xvfb?.display,
    log: () => log,
    /** A new session: a fresh browser with its own profile (Playwright's `newContext`). */
    newSession: async (extra = {}) => {
      const caps = e.capabilities(e.binary());
      if (e.profiles) {
        // `profile` (the template being made) or a copy of the template, used in place.
        const dir = profile ?? await firefoxProfileCopy();
        if (!profile) mine.push(dir);
        caps['moz:firefoxOptions'].args.push('-profile', dir);
      }
      return Session.create(url, { ...caps, ...extra });
    },
    /** Whether sessions can ask for WebDriver BiDi (`webSocketUrl: true`). */
    bidi: e.bidi,
    stop: async () => {
      await kill(child);
      await xvfb?.stop();
      for (const dir of mine.splice(0)) removeProfile(dir);
    },
  };
}

/**
 * `start()` (a driver, its browser, and maybe a page's load; it cleans up what it started
 * when it fails), tried once more when it fails: a browser that does not start is the
 * machine's failure, not a case's. The retry is printed (`RETRY(<engine>)`, which
 * tests/browsers/run.sh shows); a second failure is thrown. Nothing a case checks runs in
 * `start`.
 */
export async function startRetried(engine, start) {
  try {
    return await start();
  } catch (e) {
    const why = String(e?.message ?? e).split('\n')[0].slice(0, 300);
    console.log(`RETRY(${engine}) the browser did not start or load the page (${why}); once more`);
    return start();
  }
}

/** A WebDriver error (`error`, `message` of the driver's answer). */
export class WebDriverError extends Error {
  constructor(command, value) {
    super(`${command}: ${value?.error ?? 'error'}: ${value?.message ?? JSON.stringify(value)}`);
    this.name = 'WebDriverError';
    this.error = value?.error;
  }
}

async function command(base, method, path, body) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebDriverError(`${method} ${path}`, { error: `HTTP ${r.status}`, message: text.slice(0, 500) });
  }
  if (!r.ok || (json.value && json.value.error)) throw new WebDriverError(`${method} ${path}`, json.value);
  return json.value;
}

/** One WebDriver session (one browser instance). */
export class Session {
  static async create(driverUrl, alwaysMatch) {
    const v = await command(driverUrl, 'POST', '/session', { capabilities: { alwaysMatch } });
    const s = new Session(driverUrl, v.sessionId, v.capabilities);
    // Scripts of the suites may run for minutes (the whole JS suite is one async script
    // only when asked; the runners poll instead).
    await s.cmd('POST', '/timeouts', { script: 600_000, pageLoad: 60_000 });
    return s;
  }
  constructor(driverUrl, id, capabilities) {
    this.base = `${driverUrl}/session/${id}`;
    this.id = id;
    this.capabilities = capabilities;
    this.closed = false;
  }
  /** `browserName browserVersion` of the session. */
  get version() {
    return `${this.capabilities?.browserName ?? '?'} ${this.capabilities?.browserVersion ?? '?'}`;
  }
  cmd(method, path, body) {
    return command(this.base, method, path, body);
  }
  navigate(url) {
    return this.cmd('POST', '/url', { url });
  }
  url() {
    return this.cmd('GET', '/url');
  }
  refresh() {
    return this.cmd('POST', '/refresh', {});
  }
  /** Runs `script` (a function body; `arguments` holds `args`) and returns its value. */
  execute(script, args = []) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }
  /** Runs `script`; its last argument is the callback that returns the value. */
  executeAsync(script, args = []) {
    return this.cmd('POST', '/execute/async', { script, args });
  }
  windowHandle() {
    return this.cmd('GET', '/window');
  }
  windowHandles() {
    return this.cmd('GET', '/window/handles');
  }
  /** Opens a new tab (`POST /window/new`) and returns its handle (not switched to). */
  async newWindow(type = 'tab') {
    const v = await this.cmd('POST', '/window/new', { type });
    return v.handle;
  }
  switchTo(handle) {
    return this.cmd('POST', '/window', { handle });
  }
  /** Closes the current window; returns the remaining handles. */
  closeWindow() {
    return this.cmd('DELETE', '/window');
  }
  minimize() {
    return this.cmd('POST', '/window/minimize', {});
  }
  maximize() {
    return this.cmd('POST', '/window/maximize', {});
  }
  async quit() {
    if (this.closed) return;
    this.closed = true;
    await command(this.base, 'DELETE', '').catch(() => {});
  }
}
