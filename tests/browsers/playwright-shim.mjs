// The subset of Playwright's browser/context/page API the lifecycle tests use
// (tests/lifecycle/*.test.mjs), implemented over W3C WebDriver (webdriver.mjs), so the same
// test bodies run in Firefox ESR and WebKitGTK (issue 18). tests/e2e/lib.mjs's launchBrowser()
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
//                          WebDriver serialization reorders object keys)
//   page.waitForFunction   evaluate polled every 50 ms
//   context.setOffline(b)  EMULATED: navigator.onLine is overridden in every page and the
//                          `offline`/`online` event fired; the network itself stays up
//                          (WebDriver has no network emulation). The client reacts to the
//                          events, which is what the tests check; a request it still sent
//                          would reach the server (and the tests count requests there).
//   page.on('pageerror')   no WebDriver event: listeners are kept, never called
//   context.route(), context.waitForEvent()  not available: throw EngineUnsupported, which
//                          the lifecycle runner prints as NOT RUN with the reason
import { writeFile } from 'node:fs/promises';
import { startDriver } from './webdriver.mjs';

/** A Playwright feature with no WebDriver equivalent here (the runners print NOT RUN). */
export class EngineUnsupported extends Error {
  constructor(what) {
    super(`${what} has no W3C WebDriver equivalent in this harness`);
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
  async newContext() {
    // One driver per context: geckodriver serves one session at a time.
    const driver = await startDriver(this.engine);
    let session;
    try {
      session = await driver.newSession();
    } catch (e) {
      await driver.stop();
      throw e;
    }
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
  route() {
    throw new EngineUnsupported('context.route (request interception)');
  }
  waitForEvent(name) {
    throw new EngineUnsupported(`context.waitForEvent('${name}')`);
  }
  async close() {
    if (!this.browser.contexts.delete(this)) return;
    await this.session.quit();
    await this.driver.stop();
  }
}

let evalIds = 0;

class Page {
  constructor(context, handle) {
    this.context = context;
    this.handle = handle;
    this.closed = false;
    this.lastUrl = 'about:blank';
  }
  on() {
    return this;
  }
  do(fn) {
    return this.context.run(this, fn);
  }
  async goto(url) {
    await this.do((s) => s.navigate(url));
    this.lastUrl = url;
    if (this.context.offline) await this.applyOffline();
  }
  async reload() {
    await this.do((s) => s.refresh());
    if (this.context.offline) await this.applyOffline();
  }
  url() {
    return this.lastUrl;
  }
  async applyOffline() {
    await this.evaluate((offline) => {
      Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => !offline });
      globalThis.dispatchEvent(new Event(offline ? 'offline' : 'online'));
    }, this.context.offline);
  }
  /** Playwright's page.evaluate: `fn` runs in the page with `arg`; its (awaited) value returns. */
  async evaluate(fn, arg) {
    const id = ++evalIds;
    const src = typeof fn === 'function' ? fn.toString() : `() => (${fn})`;
    // Run in the page's own realm, as Playwright does: an inline <script> (geckodriver runs
    // WebDriver scripts in a sandbox whose own globals do not persist between commands).
    const argText = arg === undefined ? 'undefined' : JSON.stringify(arg);
    await this.do((s) =>
      s.execute(
        `const [code] = arguments;
         const el = document.createElement('script');
         el.textContent = code;
         (document.head || document.documentElement).appendChild(el);
         el.remove();
         return null;`,
        [
          `(() => { const slots = (window.__wdEval ??= {}); slots[${id}] = { done: false };
            Promise.resolve().then(() => (${src})(${argText})).then(
              (v) => { slots[${id}] = { done: true, json: v === undefined ? 'null' : JSON.stringify(v) ?? 'null' }; },
              (e) => { slots[${id}] = { done: true, error: String((e && e.stack && String(e.stack).includes(String(e.message)) ? e.stack : e) ?? e) }; });
          })();`,
        ],
      ),
    );
    for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
      const r = await this.do((s) =>
        s.execute(
          `const slots = window.__wdEval; const slot = slots && slots[arguments[0]];
           if (!slot) return { lost: true };
           if (!slot.done) return null;
           delete slots[arguments[0]];
           return slot;`,
          [id],
        ),
      );
      if (r?.lost) throw new Error('page.evaluate: the page navigated before the function settled');
      if (r) {
        if (r.error !== undefined) throw new Error(`page.evaluate: ${r.error}`);
        return JSON.parse(r.json);
      }
      await sleep(wait);
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
  async screenshot({ path } = {}) {
    const b64 = await this.do((s) => s.cmd('GET', '/screenshot'));
    if (path) await writeFile(path, Buffer.from(b64, 'base64'));
  }
  locator() {
    throw new EngineUnsupported('page.locator');
  }
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.do(async (s) => {
      await s.closeWindow();
      this.context.current = null;
    });
  }
}
