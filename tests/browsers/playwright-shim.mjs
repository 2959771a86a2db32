// The subset of Playwright's browser/context/page API the lifecycle tests
// (tests/lifecycle/*.test.mjs) and the dialog's flows (tests/e2e/dialog.mjs) use, implemented
// over W3C WebDriver (webdriver.mjs), so the same test bodies run in Firefox ESR and WebKitGTK
// (issue 18). tests/e2e/lib.mjs's launchBrowser()
// returns this when BROWSER_ENGINE is firefox or webkit.
//
// How each piece maps:
//   browser.newContext()   a new driver and session: a fresh browser with its own profile
//                          (empty IndexedDB, localStorage, Web Locks), as a Playwright context
//   context.newPage()      the session's first window, then `POST /window/new` {type:'window'}:
//                          separate windows, so every page stays visible (a tab switch would
//                          hide the others)
//   page.evaluate(fn, a)   the function's source (and `a` as JSON) is started in the page's
//                          realm by an inline <script> (added by `execute/sync`) and its result
//                          polled (short commands), so a long evaluate in one page
//                          does not hold the session while another page is driven; the value
//                          comes back as JSON text (key order kept, as Playwright; WebKit's
//                          WebDriver serialization reorders object keys); undefined as undefined.
//                          Start and polls are safe to send twice, and are sent again when
//                          WebKitWebDriver loses a script's answer ('Could not parse script
//                          result', once in CI): see `resent` (so are the locators' reading
//                          queries, RERUNNABLE, and waitForLoadState's read)
//   page.waitForFunction   evaluate polled every 50 ms
//   context.setOffline(b)  EMULATED: navigator.onLine is overridden in every page and the
//                          `offline`/`online` event fired; the network itself stays up
//                          (WebDriver has no network emulation). The client reacts to the
//                          events, which is what the tests check; a request it still sent
//                          would reach the server (and the tests count requests there).
//   page.on('pageerror')   no WebDriver event: after goto/reload the page records its
//                          `error` and `unhandledrejection` events; every page.evaluate poll
//                          takes them and calls the listeners (errors during the load itself
//                          are not seen). Other events ('console'...): kept, never called.
//   page.locator(css, {hasText}), getByLabel, getByRole, .first()/.nth(), chained
//                          Locator (below): the chain is resolved in the page by injected JS
//                          (LOCATE: labels, aria-label(ledby), implicit roles, accessible names)
//                          at every use, and waits as Playwright's (15 s, strict: one element)
//   locator.click/check    WebDriver element click on the element LOCATE returned
//   locator.fill           WebDriver element clear + element send keys (real key input), the
//                          value checked afterwards; date/time/color inputs: value set and
//                          input/change fired (as Playwright does); text the driver cannot type
//                          (WebKitWebDriver: emoji) is inserted as an input method would
//                          (execCommand insertText) and said on stderr
//   locator.selectOption   WebDriver element click on the <option>
//   locator.focus/evaluate in the page (element.focus(), as Playwright)
//   page.keyboard.press    WebDriver actions (`POST /actions`, a key source; 'Shift+Tab' too)
//   page.screenshot        `GET /screenshot` (PNG)
//   newContext({viewport}) the window's outer size (`POST /window/rect`), best effort
//   context.route(glob, h) WebDriver BiDi network interception (bidi.mjs; the session asks for
//                          `webSocketUrl`): Firefox. WebKitWebDriver has no BiDi: it throws
//                          EngineUnsupported, which the lifecycle and dialog runners print as
//                          NOT RUN with the reason
//   context.exposeFunction window[name] in every page of the context (installed again after
//                          goto/reload) queues the call in the page; classic WebDriver has no
//                          channel from the page, so the calls are taken by the polls of a
//                          page.evaluate running in that page (the DPoP test's person step is
//                          called from inside one), the function run here with the JSON of the
//                          arguments, and the promise settled in the page with the JSON of its
//                          value (or an Error with its message). A call made while no evaluate
//                          of that page runs waits for the next one
//   page.waitForURL        the window's URL polled every 50 ms (a string, RegExp or predicate
//                          of a URL, as Playwright)
//   page.waitForEvent      'popup': a window the context did not know (WebDriver cannot say
//                          which page opened it); 'close': the window gone from the window list
//   context.on('page')     the window list polled every 100 ms while a listener is registered
//   context.addInitScript  WebDriver BiDi's script.addPreloadScript (Firefox); WebKit:
//                          EngineUnsupported (no BiDi; the sign-in flow that blocks popups with
//                          it is printed NOT RUN there)
//   locator.filter({hasText}), locator.and(other), isHidden: resolved in the page as above
//   actions on an element "not interactable" scroll it into view and retry (Playwright scrolls
//                          before acting; WebKitWebDriver does not scroll a nested scroller)
//   a click answered `unknown error` with no message (WebKitWebDriver, once): done if the
//                          element is gone a moment later, else sent once more (see `act`)
//   context.waitForEvent('page')  a new window handle (a popup), as a Page; waitForLoadState
//                          polls document.readyState. Other events: EngineUnsupported
import { writeFile } from 'node:fs/promises';
import { Bidi } from './bidi.mjs';
import { startDriver, startRetried } from './webdriver.mjs';

/** A Playwright feature with no WebDriver equivalent here (the runners print NOT RUN). */
export class EngineUnsupported extends Error {
  constructor(what, why) {
    super(why ? `${what}: ${why}` : `${what} has no W3C WebDriver equivalent in this harness`);
    this.name = 'EngineUnsupported';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `browser` for `engine` ('firefox' | 'webkit'). */
export async function launchEngine(engine) {
  return new Browser(engine);
}

class Browser {
  constructor(engine) {
    this.engine = engine;
    this.contexts = new Set();
    this.versionText = '';
  }
  async newContext({ viewport } = {}) {
    // One driver per context: geckodriver serves one session at a time. A browser that
    // does not start is tried once more (`startRetried`).
    const { driver, session } = await startRetried(this.engine, async () => {
      const d = await startDriver(this.engine);
      try {
        // WebDriver BiDi where the driver has it (Firefox), for context.route.
        return { driver: d, session: await d.newSession(d.bidi ? { webSocketUrl: true } : {}) };
      } catch (e) {
        await d.stop();
        throw e;
      }
    });
    // The window's outer size (WebDriver sets no viewport); best effort.
    if (viewport) await session.cmd('POST', '/window/rect', { width: viewport.width, height: viewport.height }).catch(() => {});
    this.versionText = session.capabilities?.browserVersion ?? '';
    const c = new Context(this, session, driver);
    this.contexts.add(c);
    return c;
  }
  /** Playwright's newPage() on the browser: a page in a context of its own. */
  async newPage() {
    const c = await this.newContext();
    return c.newPage();
  }
  version() {
    return this.versionText;
  }
  async close() {
    for (const c of this.contexts) await c.close();
  }
}

class Context {
  constructor(browser, session, driver) {
    this.browser = browser;
    this.session = session;
    this.driver = driver;
    this.all = [];
    this.queue = Promise.resolve();
    this.current = null;
    this.fresh = true;
    this.offline = false;
    /** context.exposeFunction's functions, by name. */
    this.exposed = new Map();
    /** context.on listeners ('page'), and the window poller they start. */
    this.listeners = {};
    this.poller = null;
    this.polling = null;
  }
  /** Runs `fn(session)` with `page`'s window current; one command sequence at a time. */
  run(page, fn) {
    const next = this.queue.then(async () => {
      if (page && this.current !== page.handle) {
        await this.session.switchTo(page.handle);
        this.current = page.handle;
      }
      return fn(this.session);
    });
    this.queue = next.catch(() => {});
    return next;
  }
  async newPage() {
    let handle;
    if (this.fresh) {
      this.fresh = false;
      handle = await this.run(null, (s) => s.windowHandle());
    } else {
      handle = await this.run(null, (s) => s.newWindow('window'));
    }
    const page = new Page(this, handle);
    this.all.push(page);
    return page;
  }
  pages() {
    return this.all.filter((p) => !p.closed);
  }
  async setOffline(offline) {
    this.offline = offline;
    for (const p of this.pages()) await p.applyOffline();
  }
  /**
   * Playwright's context.route(glob, handler) over WebDriver BiDi's network interception
   * (network.addIntercept; the handler's route.fulfill/continue/abort answer the blocked
   * request). Without BiDi (WebKitWebDriver): EngineUnsupported.
   */
  async route(glob, handler) {
    const wsUrl = this.session.capabilities?.webSocketUrl;
    if (!wsUrl) {
      throw new EngineUnsupported('context.route (request interception)',
        `${this.browser.engine === 'webkit' ? 'WebKitWebDriver' : 'the driver'} has no WebDriver BiDi, and classic W3C WebDriver cannot intercept requests`);
    }
    if (!this.routes) {
      await this.bidiSession('context.route (request interception)');
      this.routes = [];
      this.bidi.on('network.beforeRequestSent', (p) => this.intercepted(p));
      await this.bidi.send('session.subscribe', { events: ['network.beforeRequestSent'] });
    }
    this.routes.push({ re: globToRegExp(glob), handler });
    // Only the glob's origin is intercepted when it names one (every other request goes on untouched).
    const m = /^(https?):\/\/([^/*?:]+)(?::(\d+))?\//.exec(glob);
    const urlPatterns = m ? [{ type: 'pattern', protocol: m[1], hostname: m[2], ...(m[3] ? { port: m[3] } : {}) }] : undefined;
    await this.bidi.send('network.addIntercept', { phases: ['beforeRequestSent'], ...(urlPatterns ? { urlPatterns } : {}) });
  }
  intercepted(p) {
    if (!p.isBlocked) return;
    const route = new Route(this.bidi, p.request);
    const hit = this.routes.find((r) => r.re.test(p.request.url));
    const handled = hit ? Promise.resolve().then(() => hit.handler(route)) : route.continue();
    handled.catch((e) => process.stderr.write(`[shim] route handler for ${p.request.url}: ${e.message}\n`));
  }
  /**
   * Playwright's context.exposeFunction (a page calling a function of the test process, as
   * the DPoP sign-in test's person step does): `window[name]` in every page of the context,
   * its calls served by the polls of a page.evaluate running in that page (see the header).
   */
  async exposeFunction(name, fn) {
    if (this.exposed.has(name)) throw new Error(`context.exposeFunction: '${name}' is already exposed`);
    this.exposed.set(name, fn);
    for (const p of this.pages()) await p.installExposed();
  }
  /** The windows this context does not know yet (popups), as Pages, each announced to the
   *  'page' listeners once; windows that are gone are marked closed. */
  async discover() {
    const handles = await this.run(null, (s) => s.windowHandles());
    const live = new Set(handles);
    for (const p of this.all) if (!live.has(p.handle)) p.closed = true;
    const fresh = [];
    for (const handle of handles) {
      if (this.all.some((p) => p.handle === handle)) continue;
      const page = new Page(this, handle);
      this.all.push(page);
      page.lastUrl = await page.do((s) => s.url());
      fresh.push(page);
    }
    for (const page of fresh) for (const fn of this.listeners.page ?? []) fn(page);
    return fresh;
  }
  /** Playwright's context.waitForEvent('page'): a window this context did not know when called. */
  async waitForEvent(name, { timeout = 30_000 } = {}) {
    if (name !== 'page') throw new EngineUnsupported(`context.waitForEvent('${name}')`);
    const known = new Set(this.all.map((p) => p.handle));
    const end = Date.now() + timeout;
    for (;;) {
      await this.discover();
      const page = this.all.find((p) => !known.has(p.handle));
      if (page) return page;
      if (Date.now() > end) throw new Error(`context.waitForEvent('page'): timeout ${timeout} ms exceeded`);
      await sleep(50);
    }
  }
  /** Playwright's context.on('page'): WebDriver has no window events, so while a listener is
   *  registered the window list is polled (every 100 ms) and new windows announced. */
  on(name, fn) {
    if (name !== 'page') throw new EngineUnsupported(`context.on('${name}')`);
    (this.listeners.page ??= []).push(fn);
    this.poller ??= setInterval(() => {
      if (this.polling) return;
      this.polling = this.discover().catch(() => {}).finally(() => { this.polling = null; });
    }, 100);
    this.poller.unref?.();
    return this;
  }
  /** Playwright's context.addInitScript(fn): run in every page before its own scripts. Over
   *  WebDriver BiDi's script.addPreloadScript (Firefox); classic WebDriver has no equivalent. */
  async addInitScript(fn) {
    const bidi = await this.bidiSession('context.addInitScript');
    await bidi.send('script.addPreloadScript', { functionDeclaration: fn.toString() });
  }
  /** The session's WebDriver BiDi connection (Firefox); without BiDi, EngineUnsupported. */
  async bidiSession(what) {
    const wsUrl = this.session.capabilities?.webSocketUrl;
    if (!wsUrl) {
      throw new EngineUnsupported(what,
        `${this.browser.engine === 'webkit' ? 'WebKitWebDriver' : 'the driver'} has no WebDriver BiDi, and classic W3C WebDriver has no equivalent`);
    }
    this.bidi ??= await Bidi.connect(wsUrl);
    return this.bidi;
  }
  async close() {
    if (!this.browser.contexts.delete(this)) return;
    clearInterval(this.poller);
    await this.polling;
    this.bidi?.close();
    await this.session.quit();
    await this.driver.stop();
  }
}

let evalIds = 0;
let pollIds = 0;

class Page {
  constructor(context, handle) {
    this.ctx = context;
    this.handle = handle;
    this.closed = false;
    this.lastUrl = 'about:blank';
    this.listeners = {};
    this.keyboard = new Keyboard(this);
  }
  /** Playwright's page.context(). */
  context() {
    return this.ctx;
  }
  /** Playwright's page.waitForEvent: 'popup' (a window the context did not know: WebDriver
   *  cannot tell who opened it) and 'close' (this window gone from the window list). */
  async waitForEvent(name, { timeout = 30_000 } = {}) {
    if (name === 'popup') return this.ctx.waitForEvent('page', { timeout });
    if (name !== 'close') throw new EngineUnsupported(`page.waitForEvent('${name}')`);
    const end = Date.now() + timeout;
    while (!this.closed) {
      await this.ctx.discover();
      if (this.closed) break;
      if (Date.now() > end) throw new Error(`page.waitForEvent('close'): timeout ${timeout} ms exceeded`);
      await sleep(50);
    }
    if (this.ctx.current === this.handle) this.ctx.current = null;
    return this;
  }
  /** Listeners: 'pageerror' is fed by the page's error events (see the header); others never fire. */
  on(name, fn) {
    (this.listeners[name] ??= []).push(fn);
    return this;
  }
  emit(name, messages) {
    for (const m of messages) for (const fn of this.listeners[name] ?? []) fn(new Error(m));
  }
  /** Records the page's uncaught errors and unhandled rejections for 'pageerror' (after load). */
  async captureErrors() {
    await this.evaluate(() => {
      if (window.__wdErrors) return;
      window.__wdErrors = [];
      window.addEventListener('error', (e) => window.__wdErrors.push(String(e.message ?? e.error ?? 'error')));
      window.addEventListener('unhandledrejection', (e) => window.__wdErrors.push(String(e.reason?.message ?? e.reason)));
    }).catch(() => {});
  }
  do(fn) {
    return this.ctx.run(this, fn);
  }
  async goto(url) {
    await this.do((s) => s.navigate(url));
    this.lastUrl = url;
    await this.captureErrors();
    await this.installExposed();
    if (this.ctx.offline) await this.applyOffline();
  }
  async reload() {
    await this.do((s) => s.refresh());
    await this.captureErrors();
    await this.installExposed();
    if (this.ctx.offline) await this.applyOffline();
  }
  /** Runs `code` in the page's own realm (an inline <script>: geckodriver runs WebDriver
   *  scripts in a sandbox whose own globals do not persist between commands). */
  inPage(code) {
    return this.do((s) =>
      s.execute(
        `const [code] = arguments;
         const el = document.createElement('script');
         el.textContent = code;
         (document.head || document.documentElement).appendChild(el);
         el.remove();
         return null;`,
        [code],
      ),
    );
  }
  /** context.exposeFunction's names as functions of the page: each call is queued in
   *  `window.__wdCalls` until an evaluate's poll takes it (`serveCalls`). */
  async installExposed() {
    const names = [...this.ctx.exposed.keys()];
    if (!names.length) return;
    await this.inPage(`(() => {
      const q = (window.__wdCalls ??= { next: 1, pending: [], waiting: {} });
      window.__wdReply ??= (id, ok, text) => {
        const w = q.waiting[id];
        delete q.waiting[id];
        if (w) ok ? w.resolve(text === undefined ? undefined : JSON.parse(text)) : w.reject(new Error(text));
      };
      for (const name of ${JSON.stringify(names)}) {
        window[name] = (...args) => new Promise((resolve, reject) => {
          const id = q.next++;
          q.waiting[id] = { resolve, reject };
          q.pending.push({ id, name, args: JSON.stringify(args) });
        });
      }
    })();`);
  }
  /** Runs the exposed functions the page called and settles their promises in the page. */
  serveCalls(calls) {
    for (const c of calls) {
      const fn = this.ctx.exposed.get(c.name);
      Promise.resolve()
        .then(() => {
          if (!fn) throw new Error(`no exposed function '${c.name}'`);
          return fn(...JSON.parse(c.args));
        })
        .then(
          (v) => [true, v === undefined ? undefined : JSON.stringify(v)],
          (e) => [false, String(e?.message ?? e)],
        )
        .then(([ok, text]) => this.inPage(`window.__wdReply && window.__wdReply(${c.id}, ${ok}, ${text === undefined ? 'undefined' : JSON.stringify(text)});`))
        .catch((e) => process.stderr.write(`[shim] exposed function '${c.name}': ${e.message}\n`));
    }
  }
  url() {
    return this.lastUrl;
  }
  /** Reads the window's URL into what url() returns (kept as it was if the window is gone). */
  async readUrl() {
    this.lastUrl = await this.do((s) => s.url()).catch(() => this.lastUrl);
  }
  async applyOffline() {
    await this.evaluate((offline) => {
      Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => !offline });
      globalThis.dispatchEvent(new Event(offline ? 'offline' : 'online'));
    }, this.ctx.offline);
  }
  /** Playwright's page.evaluate: `fn` runs in the page with `arg`; its (awaited) value returns. */
  evaluate(fn, arg) {
    return this.evaluateSource(typeof fn === 'function' ? fn.toString() : `() => (${fn})`, arg);
  }
  /** evaluate() of a function's source text. */
  async evaluateSource(src, arg) {
    const id = ++evalIds;
    // Run in the page's own realm, as Playwright does (`inPage`). A start sent again (see
    // `resent`) finds its slot and does nothing, so the function runs once.
    const argText = arg === undefined ? 'undefined' : JSON.stringify(arg);
    await this.resent('page.evaluate start', () =>
      this.inPage(
        `(() => { const slots = (window.__wdEval ??= {}); if (slots[${id}]) return; slots[${id}] = { done: false };
        Promise.resolve().then(() => (${src})(${argText})).then(
          (v) => { slots[${id}] = v === undefined ? { done: true, undef: true } : { done: true, json: JSON.stringify(v) ?? 'null' }; },
          (e) => { slots[${id}] = { done: true, error: String((e && e.stack && String(e.stack).includes(String(e.message)) ? e.stack : e) ?? e) }; });
      })();`,
      ),
    );
    for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
      // A poll takes what it returns out of the page (the settled slot, the page's errors, the
      // exposed functions' calls), so a poll whose answer the driver lost must not be run
      // again: its answer is kept in the page under the poll's own number as JSON text, and a
      // poll sent again returns that text instead of taking more (the last 256 are kept).
      const poll = ++pollIds;
      const text = await this.resent('page.evaluate poll', () =>
        this.do((s) =>
          s.execute(
            `const [poll, code] = arguments;
             const kept = window.__wdPolls;
             if (!kept || !Object.prototype.hasOwnProperty.call(kept, poll)) {
               const el = document.createElement('script');
               el.textContent = code;
               (document.head || document.documentElement).appendChild(el);
               el.remove();
             }
             const now = window.__wdPolls;
             return now && Object.prototype.hasOwnProperty.call(now, poll) ? now[poll] : 'null';`,
            [
              poll,
              `(() => { const kept = (window.__wdPolls ??= {});
                for (const k of Object.keys(kept)) if (Number(k) <= ${poll} - 256) delete kept[k];
                const slots = window.__wdEval; const slot = slots && slots[${id}];
                const errors = (window.__wdErrors || []).splice(0);
                const calls = window.__wdCalls ? window.__wdCalls.pending.splice(0).map((c) => ({ id: c.id, name: c.name, args: c.args })) : [];
                let r;
                if (!slot) r = { lost: true, errors, calls };
                else if (!slot.done) r = errors.length || calls.length ? { errors, calls } : null;
                else { delete slots[${id}]; r = { ...slot, errors, calls }; }
                kept[${poll}] = JSON.stringify(r);
              })();`,
            ],
          ),
        ),
      );
      const r = JSON.parse(text);
      if (r?.errors?.length) this.emit('pageerror', r.errors);
      if (r?.calls?.length) this.serveCalls(r.calls);
      if (r?.lost) throw new Error('page.evaluate: the page navigated before the function settled');
      if (r?.done) {
        if (r.error !== undefined) throw new Error(`page.evaluate: ${r.error}`);
        // undefined stays undefined, as in Playwright (not JSON's null)
        return r.undef ? undefined : JSON.parse(r.json);
      }
      await sleep(wait);
    }
  }
  /**
   * Runs `command` (a WebDriver command that is safe to send twice) again when WebKitWebDriver
   * answers `unknown error: Could not parse script result`: the driver lost the script's
   * answer, which it does now and then when the page is slow to answer (CI: once, in a
   * lifecycle test whose page had nothing unusual to return). Three tries, each said on stderr.
   */
  async resent(what, command) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await command();
      } catch (e) {
        if (attempt >= 3 || !/Could not parse script result/.test(String(e?.message))) throw e;
        process.stderr.write(`[shim] ${what}: ${e.message}; sent again (try ${attempt + 1} of 3)\n`);
        await sleep(100);
      }
    }
  }
  async waitForFunction(fn, arg, { timeout = 30_000 } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await this.evaluate(fn, arg === null ? undefined : arg).catch((e) => {
        if (/navigated before/.test(e.message)) return false;
        throw e;
      });
      if (v) return v;
      if (Date.now() > end) throw new Error(`page.waitForFunction: timeout ${timeout} ms exceeded`);
      await sleep(50);
    }
  }
  waitForTimeout(ms) {
    return sleep(ms);
  }
  /** Playwright's waitForLoadState: document.readyState polled ('load': complete); url() updated. */
  /** Playwright's waitForURL: the window's URL polled until it matches (a string, a RegExp or
   *  a predicate of a URL); url() updated. */
  async waitForURL(match, { timeout = 30_000 } = {}) {
    const ok = (u) =>
      typeof match === 'function' ? match(new URL(u)) : match instanceof RegExp ? match.test(u) : u === match;
    const end = Date.now() + timeout;
    for (;;) {
      const u = await this.do((s) => s.url());
      this.lastUrl = u;
      if (ok(u)) return;
      if (Date.now() > end) throw new Error(`page.waitForURL: timeout ${timeout} ms exceeded (at ${u})`);
      await sleep(50);
    }
  }
  async waitForLoadState(state = 'load', { timeout = 30_000 } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const ready = await this.resent('page.waitForLoadState', () => this.do((s) => s.execute('return document.readyState')));
      if (ready === 'complete' || (state === 'domcontentloaded' && ready === 'interactive')) break;
      if (Date.now() > end) throw new Error(`page.waitForLoadState: timeout ${timeout} ms exceeded`);
      await sleep(50);
    }
    this.lastUrl = await this.do((s) => s.url());
  }
  async screenshot({ path } = {}) {
    const b64 = await this.do((s) => s.cmd('GET', '/screenshot'));
    if (path) await writeFile(path, Buffer.from(b64, 'base64'));
  }
  /** Playwright's locators, resolved in the page (LOCATE below) on every use. */
  locator(css, options) {
    return new Locator(this, []).locator(css, options);
  }
  getByLabel(text, options) {
    return new Locator(this, []).getByLabel(text, options);
  }
  getByRole(role, options) {
    return new Locator(this, []).getByRole(role, options);
  }
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.do(async (s) => {
      await s.closeWindow();
      this.ctx.current = null;
    });
  }
}

// ------------------------------------------------------------------------------ locators

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const TIMEOUT = 15_000;

/**
 * Runs in the page (its source is sent with each query): the elements `steps` select, in
 * document order. A step is { css, hasText } | { label } | { role, name } | { nth }; `label`,
 * `name` and `hasText` are matchers { s, exact } or { re, flags }: Playwright's rules (text
 * with whitespace collapsed; not exact: case-insensitive substring; exact: equal; RegExp: test).
 *   getByLabel: form controls whose <label> text, aria-labelledby text or aria-label matches
 *   getByRole:  explicit role, else the implicit one (button, checkbox, radio, textbox,
 *               spinbutton, combobox, listbox, option, dialog, link, heading, group, form,
 *               img, list, listitem), hidden elements (not rendered, aria-hidden) left out;
 *               name: aria-labelledby, aria-label, <label>, then contents or title
 */
function LOCATE(steps) {
  const norm = (t) => String(t ?? '').replace(/\s+/g, ' ').trim();
  const matches = (m, text) => {
    const t = norm(text);
    if (m.re !== undefined) return new RegExp(m.re, m.flags).test(t);
    return m.exact ? t === norm(m.s) : t.toLowerCase().includes(norm(m.s).toLowerCase());
  };
  const hidden = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n.getAttribute('aria-hidden') === 'true') return true;
      if (getComputedStyle(n).display === 'none') return true;
      if (n.localName === 'dialog' && !n.open) return true;
    }
    return getComputedStyle(el).visibility === 'hidden';
  };
  // Text of a subtree for a name: aria-hidden and not-rendered parts left out.
  const textOf = (el) => {
    let out = '';
    for (const n of el.childNodes) {
      if (n.nodeType === 3) out += n.data;
      else if (n.nodeType === 1 && n.getAttribute('aria-hidden') !== 'true' && getComputedStyle(n).display !== 'none') {
        out += n.localName === 'input' ? '' : textOf(n);
      }
    }
    return out;
  };
  const byIds = (el, attr) => (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)
    .map((id) => el.ownerDocument.getElementById(id)).filter(Boolean).map(textOf).join(' ');
  const role = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.localName;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'button') return 'button';
    if (tag === 'input') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'number') return 'spinbutton';
      if (type === 'range') return 'slider';
      if (['hidden', 'file', 'color', 'date', 'datetime-local', 'month', 'time', 'week', 'password'].includes(type)) return null;
      return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
    if (tag === 'textarea') return 'textbox';
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'option') return 'option';
    if (tag === 'dialog') return 'dialog';
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return 'link';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'fieldset') return 'group';
    if (tag === 'form') return 'form';
    if (tag === 'img') return 'img';
    if (tag === 'ul' || tag === 'ol') return 'list';
    if (tag === 'li') return 'listitem';
    return null;
  };
  const labelsOf = (el) => [...(el.labels || [])].map(textOf);
  const name = (el) => {
    if (el.hasAttribute('aria-labelledby')) return byIds(el, 'aria-labelledby');
    const aria = norm(el.getAttribute('aria-label'));
    if (aria) return aria;
    const labels = labelsOf(el).map(norm).filter(Boolean);
    if (labels.length) return labels.join(' ');
    if (['button', 'link', 'heading', 'option', 'checkbox', 'radio'].includes(role(el))) {
      const t = el.localName === 'input' ? (el.value || '') : norm(textOf(el));
      if (t) return t;
    }
    return el.getAttribute('title') || el.getAttribute('placeholder') || '';
  };
  let roots = [document];
  for (const st of steps) {
    if (st.nth !== undefined) {
      const hit = st.nth < 0 ? roots[roots.length + st.nth] : roots[st.nth];
      roots = hit ? [hit] : [];
      continue;
    }
    if (st.filterText !== undefined) {
      roots = roots.filter((e) => matches(st.filterText, e.textContent));
      continue;
    }
    if (st.and !== undefined) {
      const also = new Set(LOCATE(st.and));
      roots = roots.filter((e) => also.has(e));
      continue;
    }
    const out = new Set();
    for (const root of roots) {
      let found;
      if (st.css !== undefined) {
        found = [...root.querySelectorAll(st.css)];
        if (st.hasText) found = found.filter((e) => matches(st.hasText, e.textContent));
      } else if (st.label) {
        found = [...root.querySelectorAll('input, select, textarea, button, meter, output, progress, [aria-label], [aria-labelledby]')]
          .filter((e) => [...labelsOf(e), e.getAttribute('aria-label') || '', e.hasAttribute('aria-labelledby') ? byIds(e, 'aria-labelledby') : '']
            .some((t) => norm(t) && matches(st.label, t)));
      } else {
        found = [...root.querySelectorAll('*')].filter((e) => role(e) === st.role && !hidden(e) && (!st.name || matches(st.name, name(e))));
      }
      for (const e of found) out.add(e);
    }
    roots = [...out];
  }
  return roots;
}

const matcher = (m, exact) => (m instanceof RegExp ? { re: m.source, flags: m.flags } : { s: String(m), exact: Boolean(exact) });

/** The QUERIES that may run twice with the same effect as once (reads, focus, scrolling). */
const RERUNNABLE = new Set(['count', 'texts', 'visible', 'textContent', 'inputValue', 'isChecked', 'isDisabled', 'getAttribute', 'focus', 'scrollIntoView', 'elements', 'type']);
/** Element queries in the page (run with the elements and an argument). */
const QUERIES = {
  count: (els) => els.length,
  texts: (els) => els.map((e) => e.textContent),
  visible: (els) => els.map((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; }),
  textContent: (els) => els[0].textContent,
  inputValue: (els) => {
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(els[0].tagName)) throw new Error('Not an <input>, <select> or <textarea> element');
    return els[0].value;
  },
  isChecked: (els) => (els[0].type === 'checkbox' || els[0].type === 'radio' ? els[0].checked : els[0].getAttribute('aria-checked') === 'true'),
  isDisabled: (els) => Boolean(els[0].disabled) || els[0].getAttribute('aria-disabled') === 'true',
  getAttribute: (els, n) => els[0].getAttribute(n),
  focus: (els) => { els[0].focus(); return null; },
  scrollIntoView: (els) => { if (els.length === 1) els[0].scrollIntoView({ block: 'center', inline: 'nearest' }); return null; },
  elements: (els) => els,
  type: (els) => `${els[0].localName}:${(els[0].getAttribute('type') || '').toLowerCase()}`,
  // Playwright's fill for the inputs with no text entry (date, time, color...): value set, events fired.
  setValue: (els, v) => {
    const el = els[0];
    el.focus();
    el.value = v;
    if (el.value !== v) throw new Error(`Malformed value "${v}" for ${el.type}`);
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return null;
  },
  insertText: (els, v) => {
    const el = els[0];
    el.focus();
    el.select();
    if (!document.execCommand('insertText', false, v)) throw new Error('insertText refused');
    return null;
  },
  selectValue: (els, v) => {
    const o = [...els[0].options].find((x) => x.value === v) || [...els[0].options].find((x) => x.label === v);
    return o ? [o, o.value] : null;
  },
};

/**
 * A Playwright locator: a chain of steps resolved in the page on every use. Queries run the
 * resolver with WebDriver's execute script; actions are WebDriver's own input (element
 * click, element send keys, actions for keys) on the element the resolver returns, except
 * filling the inputs without text entry (date...: set and input/change, as Playwright does).
 * Waiting as Playwright: actions and waitFor wait (up to 15 s) for one visible element; more
 * than one is a strict-mode error; count() and allTextContents() do not wait.
 */
class Locator {
  constructor(page, steps) {
    this.page = page;
    this.steps = steps;
  }
  with(step) {
    return new Locator(this.page, [...this.steps, step]);
  }
  locator(css, { hasText } = {}) {
    return this.with({ css, hasText: hasText === undefined ? undefined : matcher(hasText, false) });
  }
  getByLabel(text, { exact } = {}) {
    return this.with({ label: matcher(text, exact) });
  }
  getByRole(role, { name, exact } = {}) {
    return this.with({ role, name: name === undefined ? undefined : matcher(name, exact) });
  }
  /** Playwright's locator.filter({ hasText }): the elements whose text matches. */
  filter({ hasText, ...rest } = {}) {
    if (Object.keys(rest).length) throw new EngineUnsupported(`locator.filter({ ${Object.keys(rest).join(', ')} })`, 'only hasText is implemented in this harness');
    return hasText === undefined ? this : this.with({ filterText: matcher(hasText, false) });
  }
  /** Playwright's locator.and(other): the elements both locators match (same page). */
  and(other) {
    if (other.page !== this.page) throw new Error('locator.and: the locators belong to different pages');
    return this.with({ and: other.steps });
  }
  first() {
    return this.with({ nth: 0 });
  }
  last() {
    return this.with({ nth: -1 });
  }
  nth(i) {
    return this.with({ nth: i });
  }
  toString() {
    return `locator(${JSON.stringify(this.steps)})`;
  }
  /** QUERIES[op](elements, arg), run in the page. */
  query(op, arg) {
    const run = () => this.page.do((s) => s.execute(
      `const LOCATE = ${LOCATE.toString()}; return (${QUERIES[op].toString()})(LOCATE(arguments[0]), arguments[1]);`,
      [this.steps, arg === undefined ? null : arg],
    ));
    // A query safe to run twice is sent again when the driver loses its answer (`resent`).
    return RERUNNABLE.has(op) ? this.page.resent(`${this} ${op}`, run) : run();
  }
  /** Waits until the locator matches one element (visible when `visible`); more is an error. */
  async one({ visible = false, timeout = TIMEOUT } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const shown = await this.query('visible');
      if (shown.length > 1) throw new Error(`strict mode violation: ${this} resolved to ${shown.length} elements`);
      if (shown.length === 1 && (!visible || shown[0])) return;
      if (Date.now() > end) throw new Error(`timeout ${timeout} ms waiting for ${this}${visible ? ' to be visible' : ''}`);
      await sleep(50);
    }
  }
  /** The WebDriver element id of the one element. */
  async elementId(options) {
    await this.one(options);
    const [el] = await this.query('elements');
    if (!el) throw new Error(`${this} is gone`);
    return el[ELEMENT];
  }
  /** Runs a WebDriver element command, retried while the element is not yet interactable. */
  async act(what, fn, { timeout = TIMEOUT } = {}) {
    const end = Date.now() + timeout;
    let unknownRetried = false;
    for (;;) {
      const id = await this.elementId({ visible: true, timeout });
      try {
        return await this.page.do((s) => fn(s, id));
      } catch (e) {
        // WebKitWebDriver has once answered a click on the elicitation dialog's Submit in a
        // two-window session with `unknown error` and no message (the thirty-fifth session's
        // run). Whether the click landed is unknown, so it is not simply retried: when the
        // element is gone or hidden a moment later, its action took effect (a Submit closes
        // its dialog) and the act is done; when it is still shown, the click is sent once
        // more, once only. Any other command or answer, or a second one, is an error as before.
        if (what === 'click' && !unknownRetried && /unknown error:\s*$/.test(e.message)) {
          unknownRetried = true;
          await sleep(250);
          if (!(await this.query('visible')).some(Boolean)) {
            process.stderr.write(`[shim] ${what} ${this}: unknown error, and the element is gone after it: taken as done\n`);
            return undefined;
          }
          process.stderr.write(`[shim] ${what} ${this}: unknown error, the element still shown: sent once more\n`);
          continue;
        }
        const retry = /stale element|not interactable|click intercepted|invalid element state/.test(e.message);
        if (!retry || Date.now() > end) throw new Error(`${what} ${this}: ${e.message}`);
        // Playwright scrolls an element into view before acting on it; WebKitWebDriver's
        // element click does not scroll a nested scroll container (the console's tool
        // panel), so an element cut by its edge stays "not interactable" there.
        if (/not interactable|click intercepted/.test(e.message)) await this.query('scrollIntoView').catch(() => {});
        await sleep(50);
      }
    }
  }
  async count() {
    return this.query('count');
  }
  async allTextContents() {
    return this.query('texts');
  }
  async textContent() {
    await this.one();
    return this.query('textContent');
  }
  async inputValue() {
    await this.one();
    return this.query('inputValue');
  }
  async isChecked() {
    await this.one();
    return this.query('isChecked');
  }
  async isDisabled() {
    await this.one();
    return this.query('isDisabled');
  }
  async isVisible() {
    const v = await this.query('visible');
    if (v.length > 1) throw new Error(`strict mode violation: ${this} resolved to ${v.length} elements`);
    return v[0] === true;
  }
  /** Playwright's isHidden: no element, or not visible (no wait). */
  async isHidden() {
    return !(await this.isVisible());
  }
  async getAttribute(name) {
    await this.one();
    return this.query('getAttribute', name);
  }
  async waitFor({ state = 'visible', timeout = TIMEOUT } = {}) {
    if (state === 'visible' || state === 'attached') {
      await this.one({ visible: state === 'visible', timeout });
      // Playwright's page.url() follows navigations; the shim's is read at the WebDriver
      // commands that can follow one. A popup found while still about:blank showed its
      // page's element now, so its URL is that page's.
      await this.page.readUrl();
      return;
    }
    const end = Date.now() + timeout;
    while ((state === 'detached' ? await this.count() : (await this.query('visible')).some(Boolean))) {
      if (Date.now() > end) throw new Error(`timeout ${timeout} ms waiting for ${this} to be ${state}`);
      await sleep(50);
    }
  }
  /** Playwright's locator.evaluate: `fn(element, arg)` in the page's realm. */
  async evaluate(fn, arg) {
    await this.one();
    return this.page.evaluateSource(
      `([steps, arg]) => { const LOCATE = ${LOCATE.toString()}; const els = LOCATE(steps);
        if (els.length !== 1) throw new Error('locator.evaluate: ' + els.length + ' elements');
        return (${fn.toString()})(els[0], arg); }`,
      [this.steps, arg === undefined ? null : arg],
    );
  }
  async focus() {
    await this.one();
    await this.query('focus');
  }
  /** WebDriver element click (scrolls into view, clicks the element's centre). */
  async click() {
    await this.act('click', (s, id) => s.cmd('POST', `/element/${id}/click`, {}));
  }
  /** Playwright's check: a WebDriver element click when unchecked, then checked or an error. */
  async check() {
    await this.one({ visible: true });
    if (await this.query('isChecked')) return;
    await this.click();
    if (!(await this.query('isChecked'))) throw new Error(`check ${this}: clicking did not check it`);
  }
  /**
   * Playwright's fill: the text replaces the value. Text inputs: WebDriver element clear, then
   * element send keys (real key input), and the value checked; date/time/color inputs: set.
   */
  async fill(text) {
    await this.one({ visible: true });
    const type = await this.query('type');
    if (/^input:(date|datetime-local|time|month|week|color|range)$/.test(type)) {
      await this.query('setValue', text);
      return;
    }
    await this.act('fill', (s, id) => s.cmd('POST', `/element/${id}/clear`, {}));
    if (text !== '') await this.act('fill', (s, id) => s.cmd('POST', `/element/${id}/value`, { text }));
    let now = await this.query('inputValue');
    if (now !== text) {
      // The driver could not type some characters (WebKitWebDriver has no key for an emoji):
      // the text goes in as an input method enters it, beforeinput and input events included
      // (Playwright's own fill inserts text this way), and the run says so on stderr.
      process.stderr.write(`[shim] fill: send keys of ${JSON.stringify(text)} left ${JSON.stringify(now)}; inserted as text\n`);
      await this.query('insertText', text);
      now = await this.query('inputValue');
      if (now !== text) throw new Error(`fill ${this}: typed ${JSON.stringify(text)}, the field holds ${JSON.stringify(now)}`);
    }
  }
  /** Playwright's selectOption(value or label): a WebDriver element click on the <option>. */
  async selectOption(value) {
    await this.one({ visible: true });
    const found = await this.query('selectValue', String(value));
    if (!found) throw new Error(`selectOption ${this}: no option ${JSON.stringify(value)}`);
    const [option, want] = found;
    await this.page.do((s) => s.cmd('POST', `/element/${option[ELEMENT]}/click`, {}));
    const now = await this.query('inputValue');
    if (now !== want) throw new Error(`selectOption ${this}: clicking the option left the select at ${JSON.stringify(now)}`);
    return [now];
  }
}

// WebDriver key codes (W3C WebDriver, "Keyboard actions").
const KEYS = {
  Backspace: '\uE003', Tab: '\uE004', Enter: '\uE007', Shift: '\uE008', Control: '\uE009', Alt: '\uE00A',
  Escape: '\uE00C', Space: ' ', PageUp: '\uE00E', PageDown: '\uE00F', End: '\uE010', Home: '\uE011',
  ArrowLeft: '\uE012', ArrowUp: '\uE013', ArrowRight: '\uE014', ArrowDown: '\uE015', Delete: '\uE017', Meta: '\uE03D',
};

/** page.keyboard over WebDriver actions (`POST /actions`, a key input source). */
class Keyboard {
  constructor(page) {
    this.page = page;
  }
  /** press('Shift+Tab'): the modifiers down, the key down and up, the modifiers up. */
  async press(combo) {
    const parts = combo === '+' ? ['+'] : combo.split('+');
    const codes = parts.map((k) => KEYS[k] ?? (k.length === 1 || [...k].length === 1 ? k : null));
    if (codes.includes(null)) throw new Error(`keyboard.press: unknown key in ${combo}`);
    const mods = codes.slice(0, -1);
    const key = codes[codes.length - 1];
    const actions = [
      ...mods.map((value) => ({ type: 'keyDown', value })),
      { type: 'keyDown', value: key }, { type: 'keyUp', value: key },
      ...mods.reverse().map((value) => ({ type: 'keyUp', value })),
    ];
    await this.page.do((s) => s.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] }));
  }
  async type(text) {
    const actions = [...text].flatMap((value) => [{ type: 'keyDown', value }, { type: 'keyUp', value }]);
    await this.page.do((s) => s.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] }));
  }
}

// ------------------------------------------------------------------------------ routes

/** Playwright's URL glob: `**` any characters, `*` any but '/'. */
function globToRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') { re += '.*'; i++; }
    else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** A blocked request (BiDi network.beforeRequestSent), answered once. */
class Route {
  constructor(bidi, request) {
    this.bidi = bidi;
    this.req = request;
  }
  request() {
    const r = this.req;
    return { url: () => r.url, method: () => r.method };
  }
  fulfill({ status = 200, body = '', contentType, headers = {} } = {}) {
    const all = { ...headers, ...(contentType ? { 'content-type': contentType } : {}) };
    return this.bidi.send('network.provideResponse', {
      request: this.req.request,
      statusCode: status,
      reasonPhrase: status === 200 ? 'OK' : '',
      headers: Object.entries(all).map(([name, value]) => ({ name, value: { type: 'string', value: String(value) } })),
      body: { type: 'string', value: String(body) },
    });
  }
  continue() {
    return this.bidi.send('network.continueRequest', { request: this.req.request });
  }
  abort() {
    return this.bidi.send('network.failRequest', { request: this.req.request });
  }
}
