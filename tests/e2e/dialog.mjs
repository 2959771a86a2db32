// Playwright tests of mcp-wasm-client/dialog (pkg/dialog) on its own page (Chromium; with
// BROWSER_ENGINE=firefox|webkit the same bodies through tests/browsers/playwright-shim.mjs):
// fields from requestedSchema, inline checks equal to the client's (the vectors of
// src/schema/formats.rs), URL consent, keyboard use, focus, the queue, ctx.signal,
// peer strings as text, theming. One PASS/FAIL line per test; exit status 1 on failure.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OUT as TEST_OUTPUT, ROOT, launchBrowser, staticServer } from './lib.mjs';

// Screenshots per engine (tests/browsers/run.sh runs Firefox and WebKit beside Chromium's run).
const ENGINE = process.env.BROWSER_ENGINE && process.env.BROWSER_ENGINE !== 'chromium' ? process.env.BROWSER_ENGINE : null;
const OUT = join(TEST_OUTPUT, ENGINE ? `dialog-${ENGINE}` : 'dialog');
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

const web = await staticServer({ '/pkg/': join(ROOT, 'pkg'), '/': join(ROOT, 'tests/e2e/pages') });
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
await page.goto(`${web.url}/dialog.html`);
await page.waitForFunction(() => window.ready === true);

let passed = 0;
let failed = 0;
let notRun = 0;
async function test(name, fn) {
  try {
    await fn();
    if (errors.length) throw new Error(`page error: ${errors.splice(0).join('; ')}`);
    passed += 1;
    console.log(`PASS dialog: ${name}`);
  } catch (err) {
    // A Playwright feature WebDriver lacks (BROWSER_ENGINE=firefox|webkit, tests/browsers/
    // playwright-shim.mjs): printed with the reason, not a pass.
    if (err?.name === 'EngineUnsupported') {
      notRun += 1;
      console.log(`NOT RUN (${process.env.BROWSER_ENGINE}) dialog: ${name}: ${err.message}`);
      return;
    }
    failed += 1;
    console.log(`FAIL dialog: ${name}: ${err.message.split('\n').slice(0, 3).join(' / ')}`);
    await page.screenshot({ path: join(OUT, `FAILED-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  } finally {
    for (let i = 0; i < 5 && await page.locator('dialog[open]').count(); i++) await page.keyboard.press('Escape');
  }
}

const dialog = page.locator('dialog.mcp-elicit[open]');
const assert = (ok, message) => { if (!ok) throw new Error(message); };
const eq = (a, b, what) => assert(JSON.stringify(a) === JSON.stringify(b), `${what}: got ${JSON.stringify(a)}, expected ${JSON.stringify(b)}`);
const ask = (name, request, ctx = {}, options = {}) => page.evaluate(([n, r, c, o]) => window.ask(n, r, c, o), [name, request, ctx, options]);
const answer = async (name) => {
  await page.waitForFunction((n) => window.pending[n] && window.pending[n].done, name, { timeout: 5_000 });
  return page.evaluate((n) => window.pending[n].result, name);
};
const isDone = (name) => page.evaluate((n) => window.pending[n].done, name);
const form = (properties, required = []) => ({ message: 'Test', requestedSchema: { type: 'object', properties, required } });

let seq = 0;
/** Opens a one-field dialog, lets `fill` set the field, submits; `{ sent, value, error }`. */
async function tryField(prop, fill, required = false) {
  const name = `v${++seq}`;
  await ask(name, form({ f: { title: 'Field', ...prop } }, required ? ['f'] : []));
  await dialog.waitFor();
  await fill(dialog);
  await dialog.getByRole('button', { name: 'Submit' }).click();
  await page.waitForTimeout(30);
  if (await isDone(name)) {
    const r = await answer(name);
    return { sent: true, value: r.content ? r.content.f : undefined };
  }
  const error = await dialog.locator('.mcp-elicit-error:not([hidden])').first().textContent();
  await page.keyboard.press('Escape');
  await answer(name);
  return { sent: false, error };
}
const typed = (text) => (d) => d.getByLabel('Field').fill(text);

// ------------------------------------------------------------------------------ tests

await test('every field type, defaults, required marks, labels', async () => {
  await ask('all', form({
    name: { type: 'string', title: 'Name', description: 'Your name', default: 'Ada' },
    age: { type: 'integer', title: 'Age', minimum: 0, default: 36 },
    ratio: { type: 'number', title: 'Ratio', default: 0.5 },
    agree: { type: 'boolean', title: 'Agree', default: true },
    color: { type: 'string', title: 'Color', enum: ['red', 'green'], default: 'green' },
    size: { type: 'string', title: 'Size', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
    legacy: { type: 'string', title: 'Legacy', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'], default: 'b' },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['x', 'y'] }, default: ['y'] },
    pets: { type: 'array', title: 'Pets', items: { anyOf: [{ const: 'cat', title: 'Cat' }, { const: 'dog', title: 'Dog' }] } },
  }, ['name', 'size']), { serverUrl: 'http://127.0.0.1:1234/mcp' });
  await dialog.waitFor();
  eq(await dialog.getByLabel('Name').inputValue(), 'Ada', 'string default');
  eq(await dialog.getByLabel('Age').inputValue(), '36', 'integer default');
  eq(await dialog.getByLabel('Agree').isChecked(), true, 'boolean default');
  eq(await dialog.getByLabel('Color').inputValue(), 'green', 'enum default');
  eq(await dialog.getByLabel('Legacy').locator('option:checked').textContent(), 'Beta', 'enumNames title');
  eq(await dialog.getByLabel('y', { exact: true }).isChecked(), true, 'multi default');
  eq(await dialog.getByLabel('Name').getAttribute('aria-required'), 'true', 'aria-required');
  eq(await dialog.locator('.mcp-elicit-origin strong').textContent(), '127.0.0.1:1234', 'who asks');
  const describedBy = await dialog.getByLabel('Name').getAttribute('aria-describedby');
  assert(describedBy.split(' ').length === 2, 'aria-describedby names the description and the error');
  eq(await page.locator(`#${describedBy.split(' ')[0]}`).textContent(), 'Your name', 'description');
  assert(await dialog.locator('.mcp-elicit-req').count() >= 2, 'required fields are marked');
  await page.screenshot({ path: join(OUT, 'form.png') });
  await dialog.getByRole('button', { name: 'Submit' }).click();
  const err = dialog.locator('.mcp-elicit-error:not([hidden])');
  eq(await err.allTextContents(), ['Please choose one.'], 'the required select without default');
  const sizeBy = await dialog.getByLabel('Size').getAttribute('aria-describedby');
  eq(await page.locator(`#${sizeBy}`).textContent(), 'Please choose one.', 'the error is in aria-describedby');
  eq(await dialog.getByLabel('Size').getAttribute('aria-invalid'), 'true', 'aria-invalid');
  eq(await page.evaluate(() => document.activeElement.getAttribute('aria-invalid')), 'true', 'focus on the first invalid field');
  await dialog.getByLabel('Size').selectOption('l');
  await dialog.getByLabel('Cat').check();
  await dialog.getByRole('button', { name: 'Submit' }).click();
  eq(await answer('all'), {
    action: 'accept',
    content: { name: 'Ada', age: 36, ratio: 0.5, agree: true, color: 'green', size: 'l', legacy: 'b', tags: ['y'], pets: ['cat'] },
  }, 'answer');
});

await test('email format: the client\'s vectors', async () => {
  for (const ok of ['a@b.co', 'first.last+tag@sub.example.org', 'x@localhost', 'josé@exämple.de']) {
    eq(await tryField({ type: 'string', format: 'email' }, typed(ok)), { sent: true, value: ok }, ok);
  }
  for (const bad of ['a', '@b.co', 'a@', 'a@b', 'a b@c.de', 'a@@b.de', 'a@b@c.de', 'a@.b.de', 'a@b..de', '.a@b.de', 'a.@b.de', 'a..b@c.de', 'a@-b.de', 'a@b-.de', '<a>@b.de']) {
    const r = await tryField({ type: 'string', format: 'email' }, typed(bad));
    eq([r.sent, r.error], [false, 'Enter an email address, like name@example.com.'], bad);
  }
});

await test('uri format: the client\'s vectors', async () => {
  for (const ok of ['https://example.com/a?b=c#d', 'urn:isbn:0451450523', 'mailto:a@b.c', 'file:///tmp/x', 'x:', 'h:%20']) {
    eq(await tryField({ type: 'string', format: 'uri' }, typed(ok)), { sent: true, value: ok }, ok);
  }
  for (const bad of ['example.com', '/relative', '1http://x', 'http://exa mple.com', 'http://x/é', 'h:%2', 'h:%zz', ':x']) {
    const r = await tryField({ type: 'string', format: 'uri' }, typed(bad));
    eq(r.sent, false, bad);
  }
});

await test('date and date-time formats: the client\'s vectors', async () => {
  for (const ok of ['2024-02-29', '2023-12-31', '0001-01-01']) {
    eq(await tryField({ type: 'string', format: 'date' }, typed(ok)), { sent: true, value: ok }, ok);
  }
  // A date input cannot hold an invalid date: it is either refused or never sent.
  for (const bad of ['2023-02-29', '2023-13-01', '2023-00-10', '2023-1-01', '20230101', '2023-01-32']) {
    const r = await tryField({ type: 'string', format: 'date' }, (d) => d.getByLabel('Field').evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, bad));
    assert(!r.sent || r.value === undefined, `${bad} was sent`);
  }
  for (const ok of ['2025-11-25T10:30:00Z', '2025-11-25T10:30:00.123+02:00', '2025-11-25t10:30:00z']) {
    eq(await tryField({ type: 'string', format: 'date-time' }, typed(ok)), { sent: true, value: ok }, ok);
  }
  for (const bad of ['2025-11-25', '2025-11-25T25:00:00Z', '2025-11-25T10:30:00', '2025-02-30T10:30:00Z']) {
    eq((await tryField({ type: 'string', format: 'date-time' }, typed(bad))).sent, false, bad);
  }
});

await test('numbers, lengths (code points), required, selections', async () => {
  const int = { type: 'integer', minimum: 1, maximum: 5 };
  eq(await tryField(int, typed('3.5')), { sent: false, error: 'Enter a whole number.' }, 'integer 3.5');
  eq(await tryField(int, typed('abc')), { sent: false, error: 'Enter a whole number.' }, 'integer abc');
  eq(await tryField(int, typed('7')), { sent: false, error: 'Enter a value from 1 to 5.' }, 'integer 7');
  eq(await tryField(int, typed('4')), { sent: true, value: 4 }, 'integer 4');
  eq(await tryField({ type: 'number', minimum: 0 }, typed('2.5e1')), { sent: true, value: 25 }, 'number 2.5e1');
  eq(await tryField({ type: 'number', maximum: 1 }, typed('1.5')), { sent: false, error: 'Enter 1 or less.' }, 'number 1.5');
  const len = { type: 'string', minLength: 2, maxLength: 3 };
  eq(await tryField(len, typed('😀😀😀')), { sent: true, value: '😀😀😀' }, 'three emoji are three characters');
  eq(await tryField(len, typed('😀😀😀😀')), { sent: false, error: 'Enter at most 3 characters (now 4).' }, 'four emoji');
  eq(await tryField(len, typed('a')), { sent: false, error: 'Enter at least 2 characters.' }, 'one character');
  eq(await tryField({ type: 'string' }, typed(''), true), { sent: false, error: 'This field is required.' }, 'required');
  eq(await tryField({ type: 'string' }, typed('')), { sent: true, value: undefined }, 'optional and empty: left out');
  const multi = { type: 'array', minItems: 1, maxItems: 2, items: { enum: ['a', 'b', 'c'] } };
  eq(await tryField(multi, async () => {}, true), { sent: false, error: 'Choose at least one.' }, 'no selection, required');
  // Optional: minItems constrains an answer; no selection leaves the field out (as the
  // client's checker has it: tests/fixtures/elicitation-vectors.json).
  eq(await tryField(multi, async () => {}), { sent: true, value: undefined }, 'no selection, optional');
  eq(await tryField(multi, async (d) => { for (const x of ['a', 'b', 'c']) await d.getByLabel(x, { exact: true }).check(); }), { sent: false, error: 'Choose at most 2.' }, 'three selected');
  eq(await tryField(multi, async (d) => { await d.getByLabel('c', { exact: true }).check(); await d.getByLabel('a', { exact: true }).check(); }), { sent: true, value: ['a', 'c'] }, 'two selected');
});

await test('keyboard only: focus inside, Tab trapped, Escape cancels, focus returns', async () => {
  await page.locator('#trigger').focus();
  await ask('kb', form({ a: { type: 'string', title: 'A' }, b: { type: 'boolean', title: 'B' } }));
  await dialog.waitFor();
  eq(await page.evaluate(() => document.activeElement.id === document.querySelector('dialog[open] input').id), true, 'first field focused');
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
    assert(await page.evaluate(() => Boolean(document.activeElement.closest('dialog[open]'))), `focus left the dialog after ${i + 1} Tab presses`);
  }
  await page.keyboard.press('Escape');
  eq(await answer('kb'), { action: 'cancel' }, 'Escape');
  eq(await page.evaluate(() => document.activeElement.id), 'trigger', 'focus returned');
  eq(await page.locator('dialog').count(), 0, 'dialog removed');
});

await test('decline, close button', async () => {
  await ask('d1', form({ a: { type: 'string' } }));
  await dialog.getByRole('button', { name: 'Decline' }).click();
  eq(await answer('d1'), { action: 'decline' }, 'decline');
  await ask('d2', form({ a: { type: 'string' } }));
  await dialog.getByRole('button', { name: 'Close' }).click();
  eq(await answer('d2'), { action: 'cancel' }, 'close');
});

await test('queued: a second call waits, never lost', async () => {
  await ask('q1', form({ a: { type: 'string', title: 'First' } }));
  await ask('q2', form({ b: { type: 'string', title: 'Second' } }));
  await ask('q3', form({ c: { type: 'string', title: 'Third' } }));
  await dialog.getByLabel('First').waitFor();
  eq(await page.locator('dialog').count(), 1, 'one dialog at a time');
  eq(await dialog.locator('.mcp-elicit-waiting').textContent(), '2 more requests are waiting.', 'waiting notice');
  await dialog.getByLabel('First').fill('one');
  await page.keyboard.press('Enter');
  eq(await answer('q1'), { action: 'accept', content: { a: 'one' } }, 'first');
  await dialog.getByLabel('Second').waitFor();
  eq(await dialog.locator('.mcp-elicit-waiting').textContent(), '1 more request is waiting.', 'waiting notice');
  await dialog.getByRole('button', { name: 'Decline' }).click();
  eq(await answer('q2'), { action: 'decline' }, 'second');
  await dialog.getByLabel('Third').fill('three');
  await page.keyboard.press('Enter');
  eq(await answer('q3'), { action: 'accept', content: { c: 'three' } }, 'third');
});

await test('ctx.signal closes the open dialog and drops a waiting one', async () => {
  await page.evaluate(() => {
    window.c1 = new AbortController();
    window.c2 = new AbortController();
    window.ask('s1', { message: 'one', requestedSchema: { type: 'object', properties: {} } }, { signal: window.c1.signal });
    window.ask('s2', { message: 'two', requestedSchema: { type: 'object', properties: {} } }, { signal: window.c2.signal });
    window.ask('s3', { message: 'three', requestedSchema: { type: 'object', properties: {} } }, {});
  });
  await dialog.locator('.mcp-elicit-message', { hasText: 'one' }).waitFor();
  await page.evaluate(() => window.c2.abort());
  eq(await answer('s2'), { action: 'cancel' }, 'the waiting one');
  await page.evaluate(() => window.c1.abort());
  eq(await answer('s1'), { action: 'cancel' }, 'the open one');
  await dialog.locator('.mcp-elicit-message', { hasText: 'three' }).waitFor();
  await page.keyboard.press('Escape');
  eq(await answer('s3'), { action: 'cancel' }, 'the next one is shown');
  const pre = await page.evaluate(() => { const c = new AbortController(); c.abort(); return window.showElicitationDialog({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, { signal: c.signal }); });
  eq(pre, { action: 'cancel' }, 'already aborted');
});

await test('peer strings are text, never HTML', async () => {
  const evil = '<img src=x onerror="window.pwned=1"><b>bold</b>';
  await ask('x', { message: evil, requestedSchema: { type: 'object', properties: { [evil]: { type: 'string', title: evil, description: evil, enum: [evil] } } } });
  await dialog.waitFor();
  eq(await dialog.locator('img, b').count(), 0, 'elements made from peer strings');
  eq(await dialog.locator('.mcp-elicit-message').textContent(), evil, 'message shown as text');
  await page.keyboard.press('Escape');
  await answer('x');
  eq(await page.evaluate(() => window.pwned), undefined, 'script ran');
});

await test('URL mode: full URL, domain highlighted, opened only after consent with noopener', async () => {
  await ask('u1', { mode: 'url', message: 'Sign in', url: 'https://accounts.example.com/connect?state=abc#x' },
    { url: 'https://accounts.example.com/connect?state=abc#x', host: 'accounts.example.com', isPunycode: false });
  await dialog.waitFor();
  eq(await dialog.locator('.mcp-elicit-url').textContent(), 'https://accounts.example.com/connect?state=abc#x', 'full URL');
  eq(await dialog.locator('mark.mcp-elicit-domain').textContent(), 'accounts.example.com', 'highlighted domain');
  eq(await dialog.locator('.mcp-elicit-warning').count(), 0, 'no warning');
  eq(await page.evaluate(() => document.activeElement.textContent), 'Cancel', 'initial focus is not on Open');
  assert(context.pages().length === 1, 'opened before consent');
  await page.screenshot({ path: join(OUT, 'url.png') });
  await context.route('https://accounts.example.com/**', (route) => route.fulfill({ body: '<title>ok</title>', contentType: 'text/html' }));
  const [popup] = await Promise.all([context.waitForEvent('page'), dialog.getByRole('button', { name: 'Open page (accounts.example.com)' }).click()]);
  eq(await answer('u1'), { action: 'accept' }, 'answer');
  await popup.waitForLoadState();
  eq(popup.url(), 'https://accounts.example.com/connect?state=abc#x', 'opened URL');
  eq(await popup.evaluate(() => window.opener), null, 'noopener');
  await popup.close();
});

await test('URL mode: punycode warning, non-http refused, openUrl hook', async () => {
  await ask('u2', { mode: 'url', message: 'Pay', url: 'https://xn--pypal-4ve.com/pay' });
  await dialog.waitFor();
  await dialog.locator('.mcp-elicit-warning', { hasText: 'punycode' }).waitFor();
  eq(await dialog.locator('mark.mcp-elicit-domain').textContent(), 'xn--pypal-4ve.com', 'punycode domain highlighted');
  await page.screenshot({ path: join(OUT, 'url-punycode.png') });
  await dialog.getByRole('button', { name: 'Decline' }).click();
  eq(await answer('u2'), { action: 'decline' }, 'declined');

  await ask('u3', { mode: 'url', message: 'Flagged by the client', url: 'https://example.com/' }, { isPunycode: true });
  await dialog.locator('.mcp-elicit-warning', { hasText: 'punycode' }).waitFor();
  await page.keyboard.press('Escape');
  eq(await answer('u3'), { action: 'cancel' }, 'cancelled');

  await ask('u4', { mode: 'url', message: 'Run this', url: 'javascript:alert(1)' });
  await dialog.waitFor();
  eq(await dialog.getByRole('button', { name: /^Open page/ }).isDisabled(), true, 'Open disabled for javascript:');
  await page.keyboard.press('Escape');
  eq(await answer('u4'), { action: 'cancel' }, 'cancelled');

  await page.evaluate(() => {
    window.opened = [];
    window.ask('u5', { mode: 'url', message: 'Hook', url: 'https://example.org/a' }, {}, { openUrl: (u) => window.opened.push(u) });
  });
  await dialog.getByRole('button', { name: /^Open page/ }).click();
  eq(await answer('u5'), { action: 'accept' }, 'accepted');
  eq(await page.evaluate(() => window.opened), ['https://example.org/a'], 'openUrl called once with the URL');
});

await test('a field named __proto__ keeps its answer (an own member of content)', async () => {
  // JSON.parse keeps "__proto__" as an own key, as the client hands a request over.
  const r = await page.evaluate(async () => {
    const request = JSON.parse('{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string","title":"Proto"},"tags":{"type":"array","title":"Tags","items":{"enum":["a","b"]}}},"required":["__proto__"]}}');
    const done = window.showElicitationDialog(request, {});
    const d = document.querySelector('dialog.mcp-elicit[open]');
    const input = d.querySelector('input:not([type=checkbox])');
    input.value = 'typed';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    d.querySelector('.mcp-elicit-primary').click();
    const a = await done;
    const arrayRequest = JSON.parse('{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"array","items":{"enum":["a","b"]}}}}}');
    const done2 = window.showElicitationDialog(arrayRequest, {});
    const d2 = document.querySelector('dialog.mcp-elicit[open]');
    d2.querySelector('input[type=checkbox]').click();
    d2.querySelector('.mcp-elicit-primary').click();
    const b = await done2;
    return {
      a: JSON.stringify(a), aOwn: Object.hasOwn(a.content, '__proto__'), aProto: Object.getPrototypeOf(a.content) === Object.prototype,
      b: JSON.stringify(b), bOwn: Object.hasOwn(b.content, '__proto__'), bProto: Object.getPrototypeOf(b.content) === Object.prototype,
    };
  });
  eq(r, {
    a: '{"action":"accept","content":{"__proto__":"typed"}}', aOwn: true, aProto: true,
    b: '{"action":"accept","content":{"__proto__":["a"]}}', bOwn: true, bProto: true,
  }, 'answers');
});

await test('an integer past 2^53 is refused, not rounded', async () => {
  const r = await tryField({ type: 'integer' }, typed('9007199254740993'));
  eq(r.sent, false, 'sent');
  assert(/9007199254740991/.test(r.error), `message: ${r.error}`);
  eq(await tryField({ type: 'integer' }, typed('-9007199254740991')), { sent: true, value: -9007199254740991 }, 'the smallest safe integer');
});

await test('a dialog whose container leaves the document ends as cancel; the next one is shown', async () => {
  await page.evaluate(() => {
    window.host = document.createElement('div');
    document.body.append(window.host);
    window.pending.gone = { done: false };
    window.showElicitationDialog({ message: 'first', requestedSchema: { type: 'object', properties: {} } }, {}, { container: window.host })
      .then((r) => { window.pending.gone = { done: true, result: r }; });
  });
  await dialog.locator('.mcp-elicit-message', { hasText: 'first' }).waitFor();
  await ask('after', { message: 'second', requestedSchema: { type: 'object', properties: {} } });
  await page.evaluate(() => window.host.remove()); // e.g. the component holding the container unmounts
  eq(await answer('gone'), { action: 'cancel' }, 'the removed dialog');
  await dialog.locator('.mcp-elicit-message', { hasText: 'second' }).waitFor({ timeout: 2_000 });
  eq(await page.locator('dialog.mcp-elicit').count(), 1, 'one dialog in the document');
  eq(await page.evaluate(() => window.host.querySelectorAll('dialog').length), 0, 'nothing left in the removed container');
  await page.keyboard.press('Escape');
  eq(await answer('after'), { action: 'cancel' }, 'the next one');
  // A dialog inside a shadow root whose host leaves the document.
  await page.evaluate(() => {
    window.shadowHost = document.createElement('div');
    document.body.append(window.shadowHost);
    const inner = document.createElement('div');
    window.shadowHost.attachShadow({ mode: 'open' }).append(inner);
    window.pending.shadow = { done: false };
    window.showElicitationDialog({ message: 'shadow', requestedSchema: { type: 'object', properties: {} } }, {}, { container: inner })
      .then((r) => { window.pending.shadow = { done: true, result: r }; });
    setTimeout(() => window.shadowHost.shadowRoot.firstChild.remove(), 50);
  });
  eq(await answer('shadow'), { action: 'cancel' }, 'removed inside a shadow root');
});

await test('who asks: always the host of ctx.serverUrl, a serverName beside it', async () => {
  await ask('who1', form({ a: { type: 'string' } }), { serverUrl: 'http://127.0.0.1:39210/mcp/spoof' }, { serverName: 'Google Accounts (verified)' });
  await dialog.waitFor();
  eq(await dialog.locator('.mcp-elicit-origin strong').textContent(), '127.0.0.1:39210', 'the host, emphasized');
  eq(await dialog.locator('.mcp-elicit-origin').textContent(), '“Google Accounts (verified)” at 127.0.0.1:39210 asks', 'the whole line');
  await page.keyboard.press('Escape');
  await answer('who1');
  await ask('who2', form({ a: { type: 'string' } }), {}, { serverName: 'Acme tools' });
  await dialog.waitFor();
  eq(await dialog.locator('.mcp-elicit-origin').textContent(), 'Acme tools asks', 'no serverUrl: the name given');
  await page.keyboard.press('Escape');
  await answer('who2');
});

await test('URL mode without ctx.url: the URL as the browser parses it; backslash, bidi, spaces, userinfo and http: off localhost refused', async () => {
  const show = async (name, url) => {
    await page.evaluate(([n, u]) => {
      window.opened = [];
      window.ask(n, { mode: 'url', message: 'm', url: u }, {}, { openUrl: (x) => window.opened.push(x) });
    }, [name, url]);
    await dialog.waitFor();
    return {
      disabled: await dialog.locator('.mcp-elicit-primary').isDisabled(),
      marked: await dialog.locator('mark.mcp-elicit-domain').allTextContents(),
      shown: await dialog.locator('.mcp-elicit-url').textContent(),
      warnings: (await dialog.locator('.mcp-elicit-warning').allTextContents()).join(' '),
    };
  };
  const refused = async (name, url, why) => {
    const r = await show(name, url);
    eq([r.disabled, r.marked], [true, []], `${url}: Open disabled, no domain highlighted`);
    assert(why.test(r.warnings), `${url}: warning ${JSON.stringify(r.warnings)}`);
    assert(!/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u0000-\u001f\u007f]/.test(r.shown), `${url}: shown raw: ${JSON.stringify(r.shown)}`);
    await dialog.locator('.mcp-elicit-primary').evaluate((b) => b.form.requestSubmit());
    await page.waitForTimeout(30);
    eq(await isDone(name), false, `${url}: submitted`);
    await page.keyboard.press('Escape');
    eq(await answer(name), { action: 'cancel' }, `${url}: cancelled`);
    eq(await page.evaluate(() => window.opened), [], `${url}: opened`);
    return r;
  };
  await refused('b1', 'https://evil.test\\@bank.example/login', /backslash/);
  const bidi = await refused('b2', 'https://evil.test/\u202Emoc.elgoog', /invisible/);
  assert(bidi.shown.includes('U+202E'), `the bidi control shown as a code: ${bidi.shown}`);
  await refused('b3', 'http://evil.test/login', /http: .*localhost/);
  await refused('b4', 'https://bank.example@evil.test/', /user name/);
  await refused('b5', 'https://evil.test/a b', /space/);
  // Opened: what is shown and highlighted is what the browser opens.
  let r = await show('o1', 'https://EXAMPLE.com:8443/a?b#c');
  eq([r.disabled, r.marked, r.shown], [false, ['example.com'], 'https://example.com:8443/a?b#c'], 'parsed form shown');
  await dialog.getByRole('button', { name: 'Open page (example.com)' }).click();
  eq(await answer('o1'), { action: 'accept' }, 'accepted');
  eq(await page.evaluate(() => window.opened), ['https://example.com:8443/a?b#c'], 'opened');
  r = await show('o2', 'http://localhost:3000/cb');
  eq([r.disabled, r.marked], [false, ['localhost']], 'http: on localhost');
  await page.keyboard.press('Escape');
  await answer('o2');
});

await test('themable with CSS custom properties, labels option', async () => {
  await page.evaluate(() => document.documentElement.style.setProperty('--mcp-dialog-accent', 'rgb(200, 0, 0)'));
  await ask('t', form({ a: { type: 'string' } }), {}, { labels: { submit: 'Send it' }, title: 'Custom title' });
  await dialog.waitFor();
  const bg = await dialog.getByRole('button', { name: 'Send it' }).evaluate((b) => getComputedStyle(b).backgroundColor);
  eq(bg, 'rgb(200, 0, 0)', 'accent color');
  eq(await dialog.locator('h2').textContent(), 'Custom title', 'title');
  await page.keyboard.press('Escape');
  await answer('t');
  await page.evaluate(() => document.documentElement.style.removeProperty('--mcp-dialog-accent'));
});

await test('styled under a Content-Security-Policy without unsafe-inline', async () => {
  const strict = await context.newPage();
  const violations = [];
  strict.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await strict.goto(`${web.url}/dialog-csp.html`);
  await strict.waitForFunction(() => window.ready === true);
  await strict.evaluate(() => window.ask('csp', { message: 'Styled?', requestedSchema: { type: 'object', properties: {} } }));
  const submit = strict.locator('dialog[open]').getByRole('button', { name: 'Submit' });
  eq(await submit.evaluate((b) => getComputedStyle(b).backgroundColor), 'rgb(31, 95, 191)', 'default accent applied');
  eq(violations, [], 'CSP violations');
  // The page's own record (dialog-csp.html), the same check where no console is read (WebDriver).
  eq(await strict.evaluate(() => window.cspViolations), [], 'CSP violations (securitypolicyviolation events)');
  await strict.close();
});

await browser.close();
await web.close();
console.log(`dialog tests: ${passed} passed, ${failed} failed${notRun ? `, ${notRun} not run` : ''}`);
process.exit(failed === 0 ? 0 : 1);
