// OAuth across tabs (issue 13, test 7): refreshes run under a Web Lock per authorization
// server and client, new tokens are stored in the shared auth.storage and announced; a
// refresh token is never sent twice. Chromium, three tabs of one BrowserContext, an
// OAuth-protected proxy (oauth-server.mjs: a rotating token endpoint that revokes the
// family on reuse) in front of the Python MCP server.
import { launchBrowser, pages, openTab, tasksServer, test, run, until } from './lib.mjs';
import { oauthServer } from './oauth-server.mjs';
import assert from 'node:assert/strict';

const CLIENT_ID = 'lifecycle-tabs';

/**
 * In a tab: `window.kv`, an async key-value store over the origin's IndexedDB. Shared by
 * the tabs and consistent across them: a write committed in one tab is what the next read
 * in another sees. (`localStorage` is not: Chromium gives each renderer a cached copy and
 * propagates writes to the other tabs asynchronously, so a tab that takes the lock right
 * after another saved new tokens can still read the old ones.)
 */
async function useKv(tab) {
  await tab.evaluate(() => {
    const db = new Promise((ok, fail) => {
      const r = indexedDB.open('lifecycle-oauth', 1);
      r.onupgradeneeded = () => r.result.createObjectStore('kv');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    const tx = async (mode, fn) => {
      const d = await db;
      return new Promise((ok, fail) => {
        const t = d.transaction('kv', mode);
        const req = fn(t.objectStore('kv'));
        t.oncomplete = () => ok(req.result);
        t.onerror = () => fail(t.error);
      });
    };
    window.kv = {
      get: (k) => tx('readonly', (s) => s.get(k)).then((v) => v ?? null),
      set: (k, v) => tx('readwrite', (s) => s.put(v, k)),
    };
  });
}

/** In a tab: a client whose auth.storage is `window.kv` (IndexedDB, shared by the tabs). */
async function makeClient(tab, mcpUrl) {
  await useKv(tab);
  await tab.evaluate(({ mcpUrl, clientId }) => {
    const storage = window.kv;
    window.warnings = [];
    window.client = new window.mcp.McpClient(mcpUrl, {
      protocolVersion: '2026-07-28',
      onWarning: (w) => window.warnings.push(String(w && w.message ? w.message : w)),
      auth: {
        clientId,
        redirectUri: `${location.origin}/callback`,
        onAuthorize: () => { throw new Error('the person was asked: the refresh failed'); },
        storage,
      },
    });
  }, { mcpUrl, clientId: CLIENT_ID });
}

/** In a tab: `echo` through the protected server; the text, or the error's message. */
function echo(tab, text) {
  return tab.evaluate(async (text) => {
    try {
      const r = await window.client.callTool('echo', { text });
      return { ok: r.content?.[0]?.text };
    } catch (e) {
      return { error: `${e.name}: ${e.message}` };
    }
  }, text);
}

/** The storage key and record format the client uses (src/auth/flow/storage.rs, tokens.rs). */
function tokensKey(issuer, resource) {
  return `mcp-wasm-client:oauth:tokens:${issuer}:${resource}`;
}

test('7. three tabs with an expired access token: one refresh_token grant, every tab continues', async ({ browser, site, mcp }) => {
  const auth = await oauthServer(mcp, { tokenDelayMs: 300 });
  const context = await browser.newContext();
  try {
    const tabs = [];
    for (let i = 0; i < 3; i++) tabs.push(await openTab(context, site));
    // The tokens a sign-in left in the shared storage: the access token has expired.
    const seeded = auth.seed({ expiredAccess: true });
    await useKv(tabs[0]);
    await tabs[0].evaluate(({ key, record }) => window.kv.set(key, record), {
      key: tokensKey(auth.issuer, auth.mcpUrl),
      record: JSON.stringify({
        access_token: seeded.access, refresh_token: seeded.refresh, expires_at: Date.now() - 60_000,
      }),
    });
    for (const tab of tabs) await makeClient(tab, auth.mcpUrl);
    // A call in every tab at once.
    const results = await Promise.all(tabs.map((tab, i) => echo(tab, `tab ${i}`)));
    assert.deepEqual(results, [{ ok: 'tab 0' }, { ok: 'tab 1' }, { ok: 'tab 2' }], 'every tab continues');
    const { grants, mcp: calls } = auth.debug();
    const refreshes = grants.filter((g) => g.grant_type === 'refresh_token');
    assert.equal(refreshes.length, 1, `one refresh_token grant: ${JSON.stringify(grants)}`);
    assert.equal(refreshes[0].refresh_token, seeded.refresh);
    assert.equal(refreshes[0].ok, true);
    assert.equal(grants.length, 1, 'no other grant');
    // Every tab used the one new access token.
    const used = new Set(calls.filter((c) => c.status !== 401).map((c) => c.token));
    assert.equal(used.size, 1, `one access token in use: ${[...used]}`);
    // The rotated tokens are in the shared storage.
    const stored = JSON.parse(await tabs[2].evaluate((k) => window.kv.get(k), tokensKey(auth.issuer, auth.mcpUrl)));
    assert.equal(stored.access_token, [...used][0]);
    assert.notEqual(stored.refresh_token, seeded.refresh, 'rotated');
    for (const tab of tabs) {
      assert.deepEqual(await tab.evaluate(() => window.warnings), []);
      await tab.evaluate(() => window.client.close());
    }
  } finally {
    await context.close();
    await auth.close();
  }
});

/**
 * Tabs a and b of `context`, each with a client of `auth`'s MCP server, both signed in
 * from the tokens a stored (an expired access token: a's first call refreshes), one call
 * each done; `first`: the access token that call used.
 */
async function twoSignedInTabs(context, site, auth) {
  const [a, b] = [await openTab(context, site), await openTab(context, site)];
  const seeded = auth.seed({ expiredAccess: true });
  await useKv(a);
  await a.evaluate(({ key, record }) => window.kv.set(key, record), {
    key: tokensKey(auth.issuer, auth.mcpUrl),
    record: JSON.stringify({ access_token: seeded.access, refresh_token: seeded.refresh, expires_at: Date.now() - 60_000 }),
  });
  await makeClient(a, auth.mcpUrl);
  await makeClient(b, auth.mcpUrl);
  assert.deepEqual(await echo(a, 'a1'), { ok: 'a1' });
  assert.deepEqual(await echo(b, 'b1'), { ok: 'b1' });
  return { a, b, first: auth.debug().mcp.at(-1).token };
}

test('7b. an announced refresh: a tab holding the old token uses the new one with no 401', async ({ browser, site, mcp }) => {
  const auth = await oauthServer(mcp, { tokenDelayMs: 0 });
  const context = await browser.newContext();
  try {
    const { a, b, first } = await twoSignedInTabs(context, site, auth);
    // Peer input that is not a notice, or names no tokens b holds: ignored, never a throw.
    const pageErrors = [];
    b.on('pageerror', (e) => pageErrors.push(e.message));
    await a.evaluate(() => {
      const c = new BroadcastChannel('mcp-wasm-client:oauth');
      for (const m of [null, 7, 'tokens', { type: 'tokens' }, { type: 'tokens', key: 5 },
        { type: 'tokens', key: 'x'.repeat(5000) }, { type: 'tokens', key: 'mcp-wasm-client:oauth:tokens:nope' },
        { type: 'other', key: 'k' }]) c.postMessage(m);
      c.close();
    });
    assert.deepEqual(await echo(b, 'b-after-junk'), { ok: 'b-after-junk' });
    assert.equal(auth.debug().mcp.at(-1).token, first, 'b still uses its token');
    // A listener of the test in b, made after the client's: the channel delivers to b's
    // client first, which starts its storage read then. The read of this storage is an
    // IndexedDB transaction, so it ends in a later task, not with the delivery: the test
    // counts b's finished reads and waits for the notice's read too (the client takes its
    // result in a microtask after it), else b's next request can start before it has the
    // new token (seen once: b sent the old token, got a 401, then used the new one).
    // Since 55e401f the client holds a request started during that read (7d tests it);
    // here the notice alone is tested.
    await b.evaluate(() => {
      window.notices = [];
      new BroadcastChannel('mcp-wasm-client:oauth').onmessage = (e) => window.notices.push(e.data);
      window.reads = 0;
      const get = window.kv.get;
      window.kv.get = (k) => get(k).then((v) => { window.reads += 1; return v; });
    });
    // The server drops the access token; tab a is refused, refreshes and announces.
    auth.revoke(first);
    assert.deepEqual(await echo(a, 'a2'), { ok: 'a2' });
    const second = auth.debug().mcp.at(-1).token;
    assert.notEqual(second, first);
    // Tab b was told: its next request carries the new token, without a 401 first.
    const before = auth.debug().mcp.length;
    const notices = await until(async () => {
      const n = await b.evaluate(() => window.notices);
      return n.length ? n : null;
    }, 'the notice in tab b');
    assert.deepEqual(notices, [{ type: 'tokens', key: tokensKey(auth.issuer, auth.mcpUrl) }], 'a notice, no token');
    // b made no request since the revocation: its one read is the notice's.
    await until(async () => (await b.evaluate(() => window.reads)) >= 1, "tab b's read of the announced tokens");
    assert.deepEqual(await echo(b, 'b2'), { ok: 'b2' });
    const after = auth.debug().mcp.slice(before);
    assert.equal(after[0].token, second, `b's first request after the refresh: ${JSON.stringify(after)}`);
    assert.ok(after.every((c) => c.status !== 401), 'no 401 in tab b');
    assert.equal(auth.debug().grants.filter((g) => g.grant_type === 'refresh_token').length, 2);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(await b.evaluate(() => window.warnings), []);
    for (const tab of [a, b]) await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await auth.close();
  }
});

test('7d. a request started while the announced tokens are read waits for the read: the new token, no 401', async ({ browser, site, mcp }) => {
  const auth = await oauthServer(mcp, { tokenDelayMs: 0 });
  const context = await browser.newContext();
  try {
    const { a, b, first } = await twoSignedInTabs(context, site, auth);
    // Tab b's storage reads take 400 ms from now on, and are counted as they start and end.
    await b.evaluate(() => {
      window.started = 0;
      window.ended = 0;
      const get = window.kv.get;
      window.kv.get = (k) => {
        window.started += 1;
        return new Promise((r) => setTimeout(r, 400)).then(() => get(k)).then((v) => { window.ended += 1; return v; });
      };
    });
    auth.revoke(first);
    assert.deepEqual(await echo(a, 'a2'), { ok: 'a2' });
    const second = auth.debug().mcp.at(-1).token;
    assert.notEqual(second, first);
    const before = auth.debug().mcp.length;
    // The notice reached b and its read began; b's call starts before the read ends.
    await until(async () => (await b.evaluate(() => window.started)) >= 1, "tab b's read of the announced tokens");
    const [res, endedAtCall] = await b.evaluate(async () => {
      const ended = window.ended;
      const r = await window.client.callTool('echo', { text: 'b2' }).then(
        (x) => ({ ok: x.content?.[0]?.text }),
        (e) => ({ error: `${e.name}: ${e.message}` }),
      );
      return [r, ended];
    });
    assert.equal(endedAtCall, 0, 'the call started after the read ended: the test proves nothing');
    assert.deepEqual(res, { ok: 'b2' });
    const after = auth.debug().mcp.slice(before);
    assert.ok(after.length > 0, 'b sent nothing');
    assert.equal(after[0].token, second, `b's first request after the refresh: ${JSON.stringify(after)}`);
    assert.ok(after.every((c) => c.status !== 401), 'no 401 in tab b');
    assert.equal(auth.debug().grants.filter((g) => g.grant_type === 'refresh_token').length, 2);
    assert.deepEqual(await b.evaluate(() => window.warnings), []);
    for (const tab of [a, b]) await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await auth.close();
  }
});

test('7c. close() abandons a lock wait and releases a held lock (a sign-in pending in another tab)', async ({ browser, site, mcp }) => {
  const auth = await oauthServer(mcp, { tokenDelayMs: 0 });
  const context = await browser.newContext();
  try {
    const [a, b] = [await openTab(context, site), await openTab(context, site)];
    // No stored tokens: tab a's flow reaches the person's step, which never ends, and
    // holds the lock meanwhile.
    await a.evaluate((mcpUrl) => {
      window.signal = null;
      window.client = new window.mcp.McpClient(mcpUrl, {
        protocolVersion: '2026-07-28',
        auth: {
          clientId: 'lifecycle-tabs',
          redirectUri: `${location.origin}/callback`,
          onAuthorize: (_url, ctx) => { window.signal = ctx.signal; return new Promise(() => {}); },
          storage: { get: (k) => localStorage.getItem(k), set: (k, v) => localStorage.setItem(k, v) },
        },
      });
      window.call = window.client.callTool('echo', { text: 'a' }).then(() => 'ok', (e) => e.name);
    }, auth.mcpUrl);
    await until(() => a.evaluate(() => window.signal !== null), 'the person\'s step in tab a');
    await makeClient(b, auth.mcpUrl);
    await b.evaluate(() => {
      window.call = window.client.callTool('echo', { text: 'b' }).then(() => 'ok', (e) => e.name);
    });
    const locks = (tab) => tab.evaluate(async () => {
      const q = await navigator.locks.query();
      return { held: q.held.map((l) => l.name), pending: q.pending.map((l) => l.name) };
    });
    await until(async () => (await locks(b)).pending.some((n) => n.startsWith('mcp-wasm-client:oauth:')), 'tab b waiting for the lock');
    assert.equal((await locks(b)).held.filter((n) => n.startsWith('mcp-wasm-client:oauth:')).length, 1, 'tab a holds it');
    // b closes while it waits: its call ends, its lock request is withdrawn.
    await b.evaluate(() => window.client.close());
    assert.equal(await b.evaluate(() => window.call), 'AbortError');
    await until(async () => !(await locks(b)).pending.some((n) => n.startsWith('mcp-wasm-client:oauth:')), 'the wait withdrawn');
    // a closes during the person's step: the step's signal fires, the lock is released.
    await a.evaluate(() => window.client.close());
    assert.equal(await a.evaluate(() => window.call), 'AbortError');
    assert.equal(await a.evaluate(() => window.signal.aborted), true);
    await until(async () => !(await locks(a)).held.some((n) => n.startsWith('mcp-wasm-client:oauth:')), 'the lock released');
    assert.equal(auth.debug().grants.length, 0, 'no token request');
  } finally {
    await context.close();
    await auth.close();
  }
});

run(async () => {
  const mcp = await tasksServer();
  const site = await pages();
  const browser = await launchBrowser();
  return { mcp, site, browser };
}, async ({ site, browser }) => {
  await browser.close();
  await site.close();
});
