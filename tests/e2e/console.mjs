// Playwright e2e of the agent console (www/) against the example server: the person's
// flows, each printing one PASS/FAIL line and saving a screenshot under test-output/e2e/.
// Exit status 1 when a flow failed.
//
//   node tests/e2e/console.mjs          (EXAMPLE_MCP_URL=... to use a running example server)
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startStatic } from '../../www/serve.mjs';
import { OUT, launchBrowser, mcpServer } from './lib.mjs';

// Screenshots per engine (Firefox and WebKit run this file through tests/browsers/run.sh).
const SHOTS = join(OUT, process.env.BROWSER_ENGINE ? `e2e-${process.env.BROWSER_ENGINE}` : 'e2e');
rmSync(SHOTS, { recursive: true, force: true });
mkdirSync(SHOTS, { recursive: true });

const mcpUrl = await mcpServer('EXAMPLE_MCP_URL', 'www/server/example_server.py');
const web = await startStatic(0, { '/config.json': { serverUrl: mcpUrl } });
const consoleUrl = `http://127.0.0.1:${web.address().port}/`;
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));

let failed = 0;
async function flow(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    if (pageErrors.length) throw new Error(`uncaught page error: ${pageErrors.splice(0).join('; ')}`);
    console.log(`PASS console: ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL console: ${name}: ${err.message.split('\n').slice(0, 3).join(' / ')}`);
    await page.screenshot({ path: join(SHOTS, `FAILED-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  } finally {
    // Leave no dialog open for the next flow.
    for (let i = 0; i < 5 && await page.locator('dialog[open]').count(); i++) await page.keyboard.press('Escape');
  }
}

const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
const tool = (name) => page.locator(`details.tool[data-tool="${name}"]`);
/** A stable locator of the newest card (cards are prepended; each has a data-call number). */
async function newestCard() {
  const n = await page.locator('#cards .card').first().getAttribute('data-call');
  return page.locator(`#cards .card[data-call="${n}"]`);
}

async function openTool(name) {
  const t = tool(name);
  if (!(await t.evaluate((d) => d.open))) await t.locator(':scope > summary').click();
  return t;
}

async function runTool(name, fill = async () => {}) {
  const t = await openTool(name);
  await fill(t);
  const before = await page.locator('#cards .card').count();
  await t.getByRole('button', { name: 'Run' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('#cards .card').length > n, before);
  return newestCard();
}

async function cardStatus(card, status, timeout = 15_000) {
  await card.and(page.locator(`[data-status="${status}"]`)).waitFor({ timeout });
}

async function expectText(locator, text) {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
}

/** Presses Tab until the focused element satisfies `test` (keyboard only), at most 20 times. */
async function tabTo(test, what) {
  for (let i = 0; i < 20; i++) {
    if (await page.evaluate(test)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${what}`);
}

const focusedInDialog = () => page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('dialog[open]')));

// ------------------------------------------------------------------------------ flows

await flow('connect', async () => {
  await page.goto(consoleUrl);
  await expectText(page.locator('#status'), 'Connected to MCP example server: 10 tools.');
  await expectText(page.locator('#server-info'), 'modern (protocol 2026-07-28)');
  await expectText(page.locator('#server-info'), 'supported');
  await shot('01-connect');
});

await flow('quick tool', async () => {
  const card = await runTool('say_hello', async (t) => {
    await t.getByLabel('Name').fill('Ada');
    await t.getByLabel('Language').selectOption('fr');
    await t.getByLabel('Excited').check();
  });
  await cardStatus(card, 'completed');
  await expectText(card.locator('pre.text'), 'Bonjour, Ada!');
  await shot('02-quick-tool');
});

await flow('task asking twice, answered with the keyboard only', async () => {
  const card = await runTool('deploy_release');
  // Dialog 1: regions (checkboxes, eu-west checked by default) and a strategy select.
  const dialog = page.locator('dialog.mcp-elicit[open]');
  await dialog.waitFor({ timeout: 15_000 });
  await expectText(dialog, 'in which regions?');
  if (!(await focusedInDialog())) throw new Error('focus is not inside the dialog when it opens');
  await cardStatus(card, 'input_required');
  await expectText(card.locator('.status-message'), 'Waiting for you: which regions?');
  // Uncheck the default region and submit: the dialog must say what is wrong and keep focus.
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  await expectText(dialog.locator('.mcp-elicit-error'), 'Choose at least one.');
  if (!(await focusedInDialog())) throw new Error('focus left the dialog after a failed submit');
  await shot('03-task-dialog-1-validation');
  await page.keyboard.press('Space'); // eu-west again
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space'); // us-east
  await tabTo(() => document.activeElement.tagName === 'SELECT', 'the strategy select');
  await page.keyboard.press('ArrowDown'); // rolling -> blue-green
  // Focus stays trapped: Tab from the last button wraps around to the first control.
  await tabTo(() => document.activeElement.textContent === 'Submit', 'Submit');
  await page.keyboard.press('Tab');
  if (!(await focusedInDialog())) throw new Error('Tab from the last button left the dialog');
  await tabTo(() => document.activeElement.textContent === 'Submit', 'Submit');
  await page.keyboard.press('Enter');
  // Dialog 2: confirm (checkbox) and a note.
  await expectText(page.locator('dialog.mcp-elicit[open] .mcp-elicit-message'), 'Switch traffic to it now?');
  await expectText(card.locator('.status-message'), 'Waiting for you: go live?');
  if (!(await focusedInDialog())) throw new Error('focus is not inside the second dialog');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Ship it');
  await shot('04-task-dialog-2');
  await page.keyboard.press('Enter');
  await cardStatus(card, 'completed', 20_000);
  await expectText(card.locator('pre.text'), '1.4.0 is live in staging (eu-west, us-east, blue-green). Note: "Ship it".');
  const back = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
  if (back !== 'Run') throw new Error(`focus did not return to the Run button after the dialogs (it is on "${back}")`);
  await shot('05-task-done');
});

await flow('cancel a slow task', async () => {
  const card = await runTool('render_video');
  await cardStatus(card, 'working');
  await expectText(card.locator('.status-message'), 'Rendering frame');
  await expectText(card.locator('.ttl'), 'left');
  await card.getByRole('button', { name: 'Cancel' }).click();
  await cardStatus(card, 'cancelled');
  await expectText(card.locator('.result'), 'The task was cancelled.');
  await shot('06-task-cancelled');
});

await flow('failed task', async () => {
  const card = await runTool('import_spreadsheet');
  await cardStatus(card, 'failed');
  await expectText(card.locator('.result .error-text'), 'The task failed: Row 412 of customers.csv has 3 columns instead of 5; nothing was imported.');
  await shot('07-task-failed');
});

await flow('structured output as a tree', async () => {
  const card = await runTool('convert_temperature', async (t) => {
    await t.getByLabel('Value').fill('100');
  });
  await cardStatus(card, 'completed');
  await expectText(card.locator('.structured'), 'value: 212');
  await expectText(card.locator('.structured'), '"F"');
});

await flow('progress, then cancel a plain call', async () => {
  const card = await runTool('index_documents', async (t) => {
    await t.getByLabel('Documents').fill('40');
    await t.getByLabel('Delay Ms').fill('150');
  });
  await page.waitForFunction(() => {
    const p = document.querySelector('#cards .card progress');
    return p && !p.hidden && p.value >= 2;
  });
  await expectText(card.locator('.status-message'), 'Indexed document');
  await shot('08-progress');
  await card.getByRole('button', { name: 'Cancel' }).click();
  await cardStatus(card, 'cancelled');
  await expectText(card.locator('.result'), 'Cancelled: the call was stopped');
});

await flow('JSON editor for a schema the form cannot show', async () => {
  const t = await openTool('render_chart');
  await expectText(t.locator('.json-editor .hint'), '“values” is an array of number');
  const area = t.locator('textarea.json');
  await area.fill('{ "values": [20, 60');
  await t.getByRole('button', { name: 'Run' }).click();
  await expectText(t.locator('.field-error'), 'Not valid JSON');
  await area.fill('{ "values": [20, 60, 90, 45], "color": "purple" }');
  const before = await page.locator('#cards .card').count();
  await t.getByRole('button', { name: 'Run' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('#cards .card').length > n, before);
  const card = await newestCard();
  await cardStatus(card, 'completed');
  await card.locator('img').waitFor();
  const width = await card.locator('img').evaluate((img) => img.naturalWidth);
  if (width !== 240) throw new Error(`the chart image did not load (naturalWidth ${width})`);
  await shot('09-json-editor-image');
});

await flow('dialog closed mid-way is a cancel', async () => {
  const card = await runTool('book_table');
  const dialog = page.locator('dialog.mcp-elicit[open]');
  await dialog.waitFor();
  // Who asks: the host the console connected to, not the name the server gave itself.
  const who = await dialog.locator('.mcp-elicit-origin').textContent();
  if (who !== `${new URL(mcpUrl).host} asks`) throw new Error(`the dialog says who asks: ${JSON.stringify(who)}`);
  await page.keyboard.type('3'); // guests field has focus; the person starts, then gives up
  await page.keyboard.press('Escape');
  await cardStatus(card, 'completed');
  await expectText(card.locator('pre.text'), 'Booking at Chez Wasm cancelled: the form was closed.');
  await expectText(page.locator('#notice'), 'You closed a question from MCP example server without answering; the server was told “cancel”.');
});

await flow('a second dialog while one is open is queued', async () => {
  // The task asks after ~1.6 s; the booking asks at once, so the task's question has to wait.
  const task = await runTool('deploy_release');
  const booking = await runTool('book_table');
  const d = page.locator('dialog.mcp-elicit[open]');
  await expectText(d, 'Booking details for Chez Wasm');
  await expectText(page.locator('#waiting'), '1 more question is waiting for you.');
  await cardStatus(task, 'input_required');
  // Fill the booking form, with inline validation along the way.
  await d.getByLabel('Email').fill('not-an-email');
  await d.getByRole('button', { name: 'Submit' }).click();
  await expectText(d.locator('.mcp-elicit-error'), 'This field is required.'); // the date
  await expectText(d.locator('.mcp-elicit-error'), 'Enter an email address');
  await d.getByLabel('Date').fill('2026-09-18');
  await d.getByLabel('Email').fill('ada@example.com');
  await d.getByLabel('Vegan').check();
  await shot('10-queued');
  await d.getByRole('button', { name: 'Submit' }).click();
  await cardStatus(booking, 'completed');
  await expectText(booking.locator('pre.text'), 'Booked Chez Wasm for 2 on 2026-09-18 at 19:30, seating any, dietary needs: vegan. Confirmation to ada@example.com; a reminder will be sent.');
  // The queued question comes next; the person declines it.
  await expectText(d.locator('.mcp-elicit-message'), 'in which regions?');
  if (await page.locator('#waiting').isVisible()) throw new Error('the waiting notice is still shown');
  await d.getByRole('button', { name: 'Decline' }).click();
  await expectText(page.locator('#notice'), 'You declined a question from MCP example server');
  await cardStatus(task, 'completed');
  await expectText(task.locator('pre.text'), 'Deployment of 1.4.0 stopped before it started: you chose decline.');
});

await flow('sampling: the person writes the reply', async () => {
  const card = await runTool('draft_reply');
  const s = page.locator('dialog.sampling[open]');
  await s.waitFor();
  await expectText(s, 'Draft a short, kind reply to: Can we move our meeting to Friday?');
  const asker = await s.locator('p', { hasText: 'wants a reply from the model' }).locator('strong').textContent();
  if (asker !== new URL(mcpUrl).host) throw new Error(`the sampling dialog says who asks: ${JSON.stringify(asker)}`);
  await s.getByRole('button', { name: 'Send reply' }).click();
  await expectText(s.locator('.field-error'), 'Write a reply, or decline.');
  await s.getByLabel('Reply').fill('Friday works for me.');
  await shot('11-sampling');
  await s.getByRole('button', { name: 'Send reply' }).click();
  await cardStatus(card, 'completed');
  await expectText(card.locator('pre.text'), 'Draft by human (agent console): Friday works for me.');
  const declined = await runTool('draft_reply');
  await s.waitFor();
  await s.getByRole('button', { name: 'Decline' }).click();
  await cardStatus(declined, 'error');
  await expectText(declined.locator('.result'), 'You declined the model request');
});

await flow('URL consent opens a tab only after consent', async () => {
  const card = await runTool('connect_calendar');
  const d = page.locator('dialog.mcp-elicit[open]');
  await d.waitFor();
  const host = new URL(mcpUrl).hostname;
  const marked = await d.locator('mark.mcp-elicit-domain').textContent();
  if (marked !== host) throw new Error(`highlighted domain is "${marked}", expected "${host}"`);
  await expectText(d.locator('.mcp-elicit-url'), '/example/connect-calendar?state=demo');
  if (context.pages().length !== 1) throw new Error('a page opened before consent');
  await shot('12-url-consent');
  const [tab] = await Promise.all([context.waitForEvent('page'), d.getByRole('button', { name: /^Open page/ }).click()]);
  await tab.waitForLoadState();
  if (!tab.url().includes('/example/connect-calendar?state=demo')) throw new Error(`opened ${tab.url()}`);
  const opener = await tab.evaluate(() => window.opener);
  if (opener !== null) throw new Error('the consent tab has an opener (noopener missing)');
  await tab.close();
  await cardStatus(card, 'completed');
  await expectText(card.locator('pre.text'), 'You agreed to open the calendar page.');
});

await flow('bad server URLs, then reconnect', async () => {
  const running = await runTool('render_video');
  await cardStatus(running, 'working');
  const input = page.locator('#server-url');
  await input.fill('ftp://example.com/mcp');
  await page.getByRole('button', { name: 'Connect' }).click();
  await expectText(page.locator('#status[data-kind=error]'), 'must start with http:// or https://');
  await cardStatus(running, 'working'); // a refused URL changes nothing
  await input.fill('http://127.0.0.1:9/mcp');
  await page.getByRole('button', { name: 'Connect' }).click();
  await expectText(page.locator('#status[data-kind=error]'), 'Could not reach the server at http://127.0.0.1:9/mcp');
  await cardStatus(running, 'stopped');
  await expectText(running.locator('.result'), 'Stopped: the console disconnected from this server; the task may still be running there.');
  await shot('13-server-down');
  await input.fill(mcpUrl);
  await page.getByRole('button', { name: 'Connect' }).click();
  // The task left running on the server is resumed from the task store (issue 13).
  await expectText(page.locator('#status'), 'Connected to MCP example server: 10 tools; 1 task resumed.');
  const resumed = page.locator('#cards .card[data-resumed="true"]').first();
  await expectText(resumed.locator('h3'), 'Render a video');
  await cardStatus(resumed, 'working');
  const card = await runTool('say_hello');
  await cardStatus(card, 'completed');
  await resumed.getByRole('button', { name: 'Cancel' }).click();
  await cardStatus(resumed, 'cancelled');
});

// Issue 13: a task outlives the page. Two tabs of a fresh profile: the task is started
// in tab A, A reloads (the card and its open question come back), tab B shows the same
// card marked "polled by another tab" and no dialog; A closes, B takes over and asks.
await flow('a task survives a reload; a second tab shows it; closing the first hands over', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  try {
    const a = await ctx.newPage();
    a.on('pageerror', (e) => pageErrors.push(e.message));
    await a.goto(consoleUrl);
    await a.locator('#status').filter({ hasText: 'Connected to MCP example server: 10 tools.' }).waitFor({ timeout: 15_000 });
    const t = a.locator('details.tool[data-tool="deploy_release"]');
    await t.locator(':scope > summary').click();
    await t.getByRole('button', { name: 'Run' }).click();
    const dialogA = a.locator('dialog.mcp-elicit[open]');
    await dialogA.locator('.mcp-elicit-message').filter({ hasText: 'in which regions?' }).waitFor({ timeout: 15_000 });
    const taskId = (await a.locator('#cards .card .task-id').first().textContent()).replace('task ', '');

    await a.reload();
    await a.locator('#status').filter({ hasText: 'Connected to MCP example server: 10 tools; 1 task resumed.' }).waitFor({ timeout: 15_000 });
    const cardA = a.locator('#cards .card[data-resumed="true"]');
    await cardA.locator('.task-id').filter({ hasText: taskId }).waitFor();
    await expectText(cardA.locator('h3'), 'Deploy a release');
    await cardA.and(a.locator('[data-status="input_required"]')).waitFor({ timeout: 10_000 });
    // Never answered before the reload: asked again.
    await dialogA.locator('.mcp-elicit-message').filter({ hasText: 'in which regions?' }).waitFor({ timeout: 10_000 });
    await a.screenshot({ path: join(SHOTS, '14-resumed-after-reload.png') });

    const b = await ctx.newPage();
    b.on('pageerror', (e) => pageErrors.push(e.message));
    await b.goto(consoleUrl);
    await b.locator('#status').filter({ hasText: '1 task resumed.' }).waitFor({ timeout: 15_000 });
    const cardB = b.locator('#cards .card[data-resumed="true"]');
    await cardB.locator('.task-id').filter({ hasText: taskId }).waitFor();
    await cardB.and(b.locator('[data-elsewhere="true"]')).waitFor({ timeout: 5_000 });
    await expectText(cardB.locator('.tag.elsewhere'), 'polled by another tab');
    // One dialog per question across the tabs: A shows it, B does not.
    await new Promise((r) => setTimeout(r, 1000));
    if (await b.locator('dialog.mcp-elicit[open]').count()) throw new Error('tab B shows the question tab A shows');
    await b.screenshot({ path: join(SHOTS, '15-second-tab.png') });

    // Answered in A (the default region), the next question comes; then A closes.
    await dialogA.getByRole('button', { name: 'Submit' }).click();
    await cardA.locator('.status-message').filter({ hasText: 'Waiting for you: go live?' }).waitFor({ timeout: 15_000 });
    await a.close();
    // B takes over: it polls itself now, and the open question moves to it.
    await cardB.and(b.locator('[data-elsewhere="false"]')).waitFor({ timeout: 5_000 });
    const dialogB = b.locator('dialog.mcp-elicit[open]');
    await dialogB.locator('.mcp-elicit-message').filter({ hasText: 'Switch traffic to it now?' }).waitFor({ timeout: 10_000 });
    await dialogB.getByLabel('Switch traffic now').check();
    await dialogB.getByRole('button', { name: 'Submit' }).click();
    await cardB.and(b.locator('[data-status="completed"]')).waitFor({ timeout: 20_000 });
    await expectText(cardB.locator('pre.text'), '1.4.0 is live in staging (eu-west, rolling).');
    // Finished: the task is gone from the store, so a new tab resumes nothing.
    const c = await ctx.newPage();
    await c.goto(consoleUrl);
    await c.locator('#status').filter({ hasText: 'Connected to MCP example server: 10 tools.' }).waitFor({ timeout: 15_000 });
    if (await c.locator('#cards .card').count()) throw new Error('a finished task was resumed');
  } finally {
    await ctx.close();
  }
});

await browser.close();
await new Promise((r) => web.close(r));
console.log(failed === 0 ? 'console e2e: all flows passed' : `console e2e: ${failed} flow(s) FAILED`);
process.exit(failed === 0 ? 0 : 1);
