// Durable tasks (issue 13, tests 1, 2, 8 and 10): the task store in IndexedDB, resumeTasks()
// after a reload, an answer in flight across a reload, storeAnswers: false, and stores that
// are corrupt, newer, throwing or full. Chromium against the Python tasks server; each test
// has a fresh browser context (a fresh profile: an empty IndexedDB).
import assert from 'node:assert/strict';
import { launchBrowser, tasksServer, pages, openTab, debugTasks, debugLog, until, test, run } from './lib.mjs';

const EXT = 'io.modelcontextprotocol/tasks';

/** Every record of the task store in the page's IndexedDB, as `[key, value]` pairs. */
function storeDump(tab) {
  return tab.evaluate(() => new Promise((resolve, reject) => {
    const req = indexedDB.open('mcp-wasm-client', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('tasks');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const t = db.transaction('tasks', 'readonly');
      const keys = t.objectStore('tasks').getAllKeys();
      const values = t.objectStore('tasks').getAll();
      t.oncomplete = () => { db.close(); resolve(keys.result.map((k, i) => [k, values.result[i]])); };
      t.onerror = () => reject(t.error);
    };
  }));
}

/** Writes `[key, value]` pairs into the page's task store. */
function storePut(tab, entries) {
  return tab.evaluate((entries) => new Promise((resolve, reject) => {
    const req = indexedDB.open('mcp-wasm-client', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('tasks');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const t = db.transaction('tasks', 'readwrite');
      for (const [k, v] of entries) t.objectStore('tasks').put(v, k);
      t.oncomplete = () => { db.close(); resolve(); };
      t.onerror = () => reject(t.error);
    };
  }), entries);
}

/** A client in the page (`window.client`); `window.asked` lists the keys presented on this
 * page load, `window.warnings` the onWarning messages. `answers`: key -> answer content,
 * a key without one is never answered (the person walks away). */
function makeClient(tab, url, { answers = {}, options = '{}' } = {}) {
  return tab.evaluate(({ url, EXT, answers, options }) => {
    window.asked = [];
    window.warnings = [];
    // `options` is source text, so a test can pass functions (stores) into the page.
    // eslint-disable-next-line no-new-func
    const extra = new Function(`return (${options});`)();
    window.client = new window.mcp.McpClient(url, {
      extensions: [EXT],
      onWarning: (m) => window.warnings.push(m),
      onElicitation: (req, ctx) => {
        window.asked.push(ctx.key);
        const content = answers[ctx.key];
        return content ? { action: 'accept', content } : new Promise(() => {});
      },
      ...extra,
    });
  }, { url, EXT, answers, options });
}

async function reload(tab) {
  await tab.reload();
  await tab.waitForFunction(() => window.mcpReady === true);
}

/** resumeTasks() then waitForTask on each: ids, outcomes, what was asked, warnings. */
function resumeAndWait(tab) {
  return tab.evaluate(async () => {
    const tasks = await window.client.resumeTasks();
    const ids = tasks.map((t) => t.taskId);
    const statuses = tasks.map((t) => t.status);
    // Bounded: a question nobody answers would otherwise hang the test instead of failing it.
    const done = await Promise.all(tasks.map((t) => window.client.waitForTask(t, { timeoutMs: 20_000 }).then(
      (d) => ({ status: d.status, text: d.result?.content?.[0]?.text }),
      (e) => ({ error: `${e.name}: ${e.message}` }))));
    return { ids, statuses, done, asked: window.asked, warnings: window.warnings };
  });
}

const recordsOf = (dump) => dump.map(([, v]) => v);

async function reloadMidTask({ browser, url, site }, tool) {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { answers: { name: { name: 'Ada' } } });
  await tab.evaluate((tool) => { window.client.callTool(tool, {}).catch(() => {}); }, tool);
  await until(() => tab.evaluate(() => window.asked.includes('age')), 'age presented on the first page');
  // The store has caught up: name acknowledged, age outstanding.
  const dump = await until(async () => {
    const d = await storeDump(tab);
    return d.length === 1 && d[0][1].acked.includes('name') && d[0][1].task.inputRequests?.age ? d : null;
  }, 'the record with name acknowledged');
  const [key, rec] = dump[0];
  const tid = rec.task.taskId;
  assert.equal(rec.v, 1);
  assert.equal(rec.tool, tool);
  assert.equal(rec.task.serverUrl, url);
  assert.ok(key.startsWith('mcp-tasks/') && key.endsWith(`/${tid}`), key);
  assert.deepEqual(await tab.evaluate(() => window.asked), ['name', 'age']);

  await reload(tab);
  await makeClient(tab, url, { answers: { age: { age: 36 } } });
  const r = await resumeAndWait(tab);
  assert.deepEqual(r.ids, [tid]);
  assert.deepEqual(r.statuses, ['input_required']);
  assert.deepEqual(r.done, [{ status: 'completed', text: 'Ada is 36 years old' }]);
  assert.deepEqual(r.asked, ['age'], 'name, answered before the reload, is not shown again');
  assert.deepEqual(r.warnings, []);
  const stats = (await debugTasks(url))[tid];
  assert.deepEqual(stats.answers, { name: 1, age: 1 }, JSON.stringify(stats));
  assert.equal(stats.status, 'completed');
  // Removed once the waiter had the outcome.
  await until(async () => (await storeDump(tab)).length === 0, 'the record removed');
  assert.deepEqual(await tab.evaluate(() => window.client.resumeTasks().then((t) => t.length)), 0);
  await ctx.close();
  return rec;
}

test('1. reload mid-task: resumeTasks returns it, waitForTask completes, each key answered once, nothing asked twice', async (env) => {
  await reloadMidTask(env, 'task_two_inputs');
});

test('1b. the same on an eventually consistent server that still lists name after the reload: not shown again', async (env) => {
  const rec = await reloadMidTask(env, 'task_two_inputs_stale');
  // The server did list the answered key next to age: only the stored acknowledgement kept it away.
  assert.deepEqual(Object.keys(rec.task.inputRequests).sort(), ['age', 'name']);
});

test('1c. waitForTask(Task.fromJSON(json)) stores a task this client did not create', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url);
  const r = await tab.evaluate(async (url) => {
    const creator = new window.mcp.McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'], taskStore: 'none' });
    const json = (await creator.callToolAsTask('task_slow', { ms: 60_000 })).toJSON();
    const err = await window.client.waitForTask(window.mcp.Task.fromJSON(json), { timeoutMs: 300 }).catch((e) => e.name);
    return { id: json.taskId, err };
  }, url);
  assert.equal(r.err, 'TaskTimeoutError');
  const dump = await until(async () => {
    const d = await storeDump(tab);
    return d.length === 1 ? d : null;
  }, 'the handed task stored');
  assert.equal(dump[0][1].task.taskId, r.id);
  assert.equal(dump[0][1].tool, null);
  await tab.evaluate((id) => window.client.cancelTask(id), r.id);
  await until(async () => (await storeDump(tab)).length === 0, 'the cancelled task removed');
  await ctx.close();
});

test('2. reload with an answer sent but not acknowledged: re-sent after the reload, never asked again, applied once', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { answers: { name: { name: 'Grace' } } });
  await tab.evaluate(() => { window.client.callTool('task_held_update', {}).catch(() => {}); });
  // The answer is in flight (the server holds its tasks/update) and stored as pending.
  const dump = await until(async () => {
    const d = await storeDump(tab);
    return d.length === 1 && d[0][1].pending?.name ? d : null;
  }, 'the pending answer stored');
  const tid = dump[0][1].task.taskId;
  assert.deepEqual(dump[0][1].pending, { name: { action: 'accept', content: { name: 'Grace' } } });
  await until(async () => (await debugTasks(url))[tid]?.heldUpdates === 1, 'the server holding the update');
  assert.deepEqual((await debugTasks(url))[tid].answers, {}, 'not applied yet');

  await reload(tab);
  await makeClient(tab, url, { answers: {} }); // nobody would answer: it must not be asked
  const r = await resumeAndWait(tab);
  assert.deepEqual(r.ids, [tid]);
  assert.deepEqual(r.done, [{ status: 'completed', text: 'hello Grace' }]);
  assert.deepEqual(r.asked, [], 'the answer is re-sent, the person is not asked again');
  const stats = (await debugTasks(url))[tid];
  assert.equal(stats.droppedHeldUpdates, 1, `the first update went away with the page: ${JSON.stringify(stats)}`);
  assert.deepEqual(stats.answers, { name: 1 }, `applied exactly once: ${JSON.stringify(stats)}`);
  const updates = (await debugLog(url)).filter((e) => e.method === 'tasks/update' && e.body?.params?.taskId === tid);
  assert.equal(updates.length, 2, 'sent before the reload, and once after it');
  assert.deepEqual(updates[1].body.params.inputResponses, { name: { action: 'accept', content: { name: 'Grace' } } });
  await until(async () => (await storeDump(tab)).length === 0, 'the record removed');
  await ctx.close();
});

test('8. storeAnswers: false: no answer content ever in IndexedDB; the task is; asked again after a reload', async ({ browser, url, site }) => {
  const SECRET = 'Zebediah-7f3a';
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { answers: { name: { name: SECRET } }, options: '{ storeAnswers: false }' });
  await tab.evaluate(() => { window.client.callTool('task_held_update', {}).catch(() => {}); });
  await until(() => tab.evaluate(() => window.asked.includes('name')), 'name presented');
  const tid = await until(async () => (await storeDump(tab))[0]?.[1].task.taskId, 'the task stored');
  await until(async () => (await debugTasks(url))[tid]?.heldUpdates === 1, 'the answer in flight (held by the server)');
  // Reads while the answer is sent and not acknowledged: the moment storeAnswers would keep it.
  for (let i = 0; i < 5; i++) {
    const dump = await storeDump(tab);
    const text = JSON.stringify(dump);
    assert.equal(dump.length, 1, text);
    assert.equal(dump[0][1].task.taskId, tid);
    assert.equal(dump[0][1].task.status, 'input_required');
    assert.ok(!text.includes(SECRET), `answer content in IndexedDB: ${text}`);
    assert.equal(dump[0][1].pending, undefined, text);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The trade-off: after a reload the unacknowledged key has no stored answer: asked again.
  await reload(tab);
  await makeClient(tab, url, { answers: { name: { name: SECRET } }, options: '{ storeAnswers: false }' });
  const r = await resumeAndWait(tab);
  assert.deepEqual(r.asked, ['name']);
  assert.deepEqual(r.done, [{ status: 'completed', text: `hello ${SECRET}` }]);
  assert.ok(!JSON.stringify(await storeDump(tab)).includes(SECRET));
  assert.deepEqual((await debugTasks(url))[tid].answers, { name: 1 });
  await ctx.close();
});

test('8b. control: with storeAnswers (default) the pending answer is in IndexedDB', async ({ browser, url, site }) => {
  const SECRET = 'Control-91c2';
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { answers: { name: { name: SECRET } } });
  await tab.evaluate(() => { window.client.callTool('task_held_update', {}).then(() => { window.finished = true; }); });
  await until(async () => JSON.stringify(await storeDump(tab)).includes(SECRET), 'the pending answer stored');
  await tab.waitForFunction(() => window.finished === true, null, { timeout: 20_000 });
  await until(async () => (await storeDump(tab)).length === 0, 'the record removed');
  await ctx.close();
});

test('10a. corrupt, newer-version and expired entries: warnings, no throw; the good entry resumes; newer kept, expired removed', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url);
  const tid = await tab.evaluate(() => window.client.callToolAsTask('task_slow', { ms: 60_000 }).then((t) => t.taskId));
  const [[key, good]] = await until(async () => {
    const d = await storeDump(tab);
    return d.length === 1 ? d : null;
  }, 'the task stored');
  assert.equal(good.task.taskId, tid);
  const prefix = key.slice(0, key.length - encodeURIComponent(tid).length);
  const expired = structuredClone(good);
  expired.task.taskId = 'gone-1';
  expired.task.createdAt = '2020-01-01T00:00:00Z';
  expired.task.ttlMs = 1000;
  const newer = { v: 2, shape: 'from a later version' };
  await storePut(tab, [
    [`${prefix}corrupt-1`, 'not a record'],
    [`${prefix}corrupt-2`, { v: 1 }],
    [`${prefix}corrupt-3`, { v: 1, task: { taskId: 'x' }, acked: 'nope' }],
    [`${prefix}newer-1`, newer],
    [`${prefix}gone-1`, expired],
    ['mcp-tasks/http%3A%2F%2Felsewhere%2Fmcp/other-1', good], // another server's prefix: never listed
  ]);
  await reload(tab);
  await makeClient(tab, url);
  const r = await tab.evaluate(async () => {
    const tasks = await window.client.resumeTasks();
    return { ids: tasks.map((t) => t.taskId), warnings: window.warnings };
  });
  assert.deepEqual(r.ids, [tid]);
  assert.equal(r.warnings.filter((w) => w.includes('could not be read')).length, 3, r.warnings.join('\n'));
  assert.equal(r.warnings.filter((w) => w.includes('format version 2')).length, 1, r.warnings.join('\n'));
  assert.equal(r.warnings.filter((w) => w.includes('"gone-1" passed its TTL')).length, 1, r.warnings.join('\n'));
  assert.equal(r.warnings.length, 5, r.warnings.join('\n'));
  const keys = await until(async () => {
    const k = (await storeDump(tab)).map(([k]) => k);
    return k.includes(`${prefix}gone-1`) ? null : k;
  }, 'the expired entry removed');
  assert.ok(keys.includes(`${prefix}newer-1`), 'a newer version is left for the client that wrote it');
  assert.ok(keys.includes(key));
  // Cancelled: its record goes.
  await tab.evaluate((tid) => window.client.cancelTask(tid), tid);
  await until(async () => !(await storeDump(tab)).some(([k]) => k === key), 'the cancelled task removed');
  await ctx.close();
});

test('10b. a store object that throws: one warning, memory from then on, resumeTasks never throws', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { options: `{ taskStore: {
    get() { throw new Error('get boom'); }, put() { throw new Error('put boom'); },
    delete() { throw new Error('delete boom'); }, list() { throw new Error('list boom'); } } }` });
  const r = await tab.evaluate(async () => {
    const first = await window.client.resumeTasks().then((t) => t.length, (e) => `threw ${e}`);
    const t = await window.client.callToolAsTask('task_slow', { ms: 60_000 });
    const again = await window.client.resumeTasks().then((ts) => ts.map((x) => x.taskId), (e) => `threw ${e}`);
    await window.client.cancelTask(t);
    return { first, again, id: t.taskId, warnings: window.warnings };
  });
  assert.equal(r.first, 0);
  assert.deepEqual(r.again, [r.id], 'kept in memory after the fallback');
  assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
  assert.match(r.warnings[0], /task store failed \(list: Error: list boom\).*memory/);
  await ctx.close();
});

test('10c. a store whose put throws QuotaExceededError: a warning, the task goes on in memory', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url, { answers: { name: { name: 'Ada' }, age: { age: 3 } }, options: `{ taskStore: {
    async get() { return undefined; }, async list() { return []; }, async delete() {},
    async put() { throw new DOMException('the quota is exceeded', 'QuotaExceededError'); } } }` });
  const r = await tab.evaluate(async () => {
    const result = await window.client.callTool('task_two_inputs', {});
    const slow = await window.client.callToolAsTask('task_slow', { ms: 60_000 });
    const resumed = await window.client.resumeTasks().then((ts) => ts.map((x) => x.taskId), (e) => `threw ${e}`);
    await window.client.cancelTask(slow);
    return { text: result.content[0].text, resumed, id: slow.taskId, warnings: window.warnings };
  });
  assert.equal(r.text, 'Ada is 3 years old');
  assert.deepEqual(r.resumed, [r.id]);
  assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
  assert.match(r.warnings[0], /QuotaExceededError/);
  await ctx.close();
});

test('10c2. one IndexedDB write fails (quota): tasks that end later are still removed from IndexedDB, nothing is resumed after a reload', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await makeClient(tab, url);
  const r = await tab.evaluate(async () => {
    const c = window.client;
    const t1 = await c.callToolAsTask('task_slow', { ms: 1500 }); // written to IndexedDB
    await new Promise((ok) => setTimeout(ok, 300));
    // The next write fails once, as when the origin's quota is full.
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      IDBObjectStore.prototype.put = put;
      throw new DOMException('the quota is exceeded', 'QuotaExceededError');
    };
    const t2 = await c.callToolAsTask('task_slow', { ms: 200 });
    const done = await Promise.all([c.waitForTask(t1), c.waitForTask(t2)].map((p) => p.then((t) => t.status, (e) => e.name)));
    return { done, warnings: window.warnings };
  });
  assert.deepEqual(r.done, ['completed', 'completed']);
  assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
  assert.match(r.warnings[0], /QuotaExceededError/);
  await until(async () => (await storeDump(tab)).length === 0, 'the finished tasks removed from IndexedDB', 3000);
  await reload(tab);
  await makeClient(tab, url);
  const resumed = await tab.evaluate(async () => (await window.client.resumeTasks()).map((t) => `${t.taskId} ${t.status}`));
  assert.deepEqual(resumed, [], 'finished tasks resumed again');
  await ctx.close();
});

test('10d. IndexedDB unavailable (open throws, as in some private modes): a warning, memory', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  await tab.evaluate(() => {
    indexedDB.open = () => { throw new DOMException('not in this mode', 'InvalidStateError'); };
  });
  await makeClient(tab, url);
  const r = await tab.evaluate(async () => {
    const t = await window.client.callToolAsTask('task_slow', { ms: 60_000 });
    const resumed = await window.client.resumeTasks().then((ts) => ts.map((x) => x.taskId), (e) => `threw ${e}`);
    await window.client.cancelTask(t);
    return { resumed, id: t.taskId, warnings: window.warnings };
  });
  assert.deepEqual(r.resumed, [r.id]);
  assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
  assert.match(r.warnings[0], /InvalidStateError/);
  await ctx.close();
});

test('10e. a key-value store (async, list gives keys, values as JSON text) resumes like IndexedDB', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  const options = `{ taskStore: window.kv = {
    m: new Map(),
    async get(k) { return this.m.get(k); },
    async put(k, v) { this.m.set(k, JSON.stringify(v)); },
    async delete(k) { this.m.delete(k); },
    async list(p) { return [...this.m.keys()].filter((k) => k.startsWith(p)); } } }`;
  await makeClient(tab, url, { options });
  const r = await tab.evaluate(async () => {
    const t = await window.client.callToolAsTask('task_slow', { ms: 60_000 });
    await new Promise((res) => setTimeout(res, 50));
    const stored = [...window.kv.m.values()];
    // A second client on the same store (a reload would start from the same KV).
    const other = new window.mcp.McpClient(window.client.url, { extensions: ['io.modelcontextprotocol/tasks'], taskStore: window.kv, onWarning: (m) => window.warnings.push(m) });
    const resumed = await other.resumeTasks().then((ts) => ts.map((x) => x.taskId));
    await other.cancelTask(t);
    await new Promise((res) => setTimeout(res, 50));
    return { id: t.taskId, stored, resumed, left: window.kv.m.size, warnings: window.warnings };
  });
  assert.equal(r.stored.length, 1);
  assert.equal(JSON.parse(r.stored[0]).task.taskId, r.id);
  assert.deepEqual(r.resumed, [r.id]);
  assert.equal(r.left, 0, 'cancelled: removed');
  assert.deepEqual(r.warnings, []);
  await ctx.close();
});

test('taskStore is checked: a bad value is a ConfigError', async ({ browser, url, site }) => {
  const ctx = await browser.newContext();
  const tab = await openTab(ctx, site);
  const names = await tab.evaluate((url) => [ 'localStorage', { get() {} }, 3 ].map((taskStore) => {
    try { new window.mcp.McpClient(url, { taskStore }); return 'accepted'; } catch (e) { return e.name; }
  }).concat([(() => { try { new window.mcp.McpClient(url, { storeAnswers: 'no' }); return 'accepted'; } catch (e) { return e.name; } })()]), url);
  assert.deepEqual(names, ['ConfigError', 'ConfigError', 'ConfigError', 'ConfigError']);
  await ctx.close();
});

await run(async () => {
  const url = await tasksServer();
  const site = await pages();
  const browser = await launchBrowser();
  return { url, site, browser };
}, async ({ site, browser }) => {
  await browser.close();
  await site.close();
});
