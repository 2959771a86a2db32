// DPoP in the browser (issue 16): tokens bound to a non-extractable WebCrypto key. Chromium
// against the real OAuth world (tests/auth-server/world.mjs: oidc-provider with DPoP and its
// nonce, and a resource server that verifies every proof, with a nonce of its own) in front
// of the Python MCP server. The person's login and consent are the authorization server's
// pages, filled by the test.
import { launchBrowser, pages, openTab, tasksServer, test, run } from './lib.mjs';
import { startWorld, thumbprint, USER } from '../auth-server/world.mjs';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';

/** In a tab: `window.kv`, an async key-value store over IndexedDB (structured clone: it
 * keeps a CryptoKeyPair as itself). */
async function useKv(tab) {
  await tab.evaluate(() => {
    const db = new Promise((ok, fail) => {
      const r = indexedDB.open('lifecycle-dpop', 1);
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
      keys: () => tx('readonly', (s) => s.getAllKeys()),
    };
  });
}

/** In a tab: a client with `dpop: true`, `window.kv` as its storage (`local`: a storage of
 * strings over localStorage); the person's step is the test's (`personStep`), unless `person`
 * is false (then being asked is an error). */
async function makeClient(tab, mcpUrl, person, local = false) {
  await useKv(tab);
  await tab.evaluate(({ mcpUrl, person, local }) => {
    window.client = new window.mcp.McpClient(mcpUrl, {
      protocolVersion: '2026-07-28',
      auth: {
        redirectUri: `${location.origin}/callback`,
        onAuthorize: (url) => {
          if (!person) throw new Error('the person was asked');
          return window.personStep(url);
        },
        storage: local ? { get: (k) => localStorage.getItem(k), set: (k, v) => localStorage.setItem(k, v) } : window.kv,
        dpop: true,
      },
    });
  }, { mcpUrl, person, local });
}

/** The person's step in `context`: the authorization server's own pages, in a tab of their
 * own, filled as `USER`; resolves with the callback URL (under `redirect`). */
async function personSteps(context, redirect) {
  await context.exposeFunction('personStep', async (url) => {
    const view = await context.newPage();
    try {
      await view.goto(url);
      await view.getByLabel('Username').fill(USER.login);
      await view.getByLabel('Password').fill(USER.password);
      await view.getByRole('button', { name: 'Sign in' }).click();
      await view.getByRole('button', { name: 'Allow' }).click();
      await view.waitForURL((u) => u.href.startsWith(redirect), { timeout: 15_000 });
      return view.url();
    } finally {
      await view.close();
    }
  });
}

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

const b64u = (b) => Buffer.from(b).toString('base64url');

test('8. DPoP: proofs on every request, a non-extractable key kept across a reload, a copied token refused', async ({ browser, site, mcp }) => {
  const world = await startWorld({ consoleOrigin: new URL(site.url).origin, upstream: mcp, dpop: true, dpopNonce: true, rsNonce: true });
  const context = await browser.newContext();
  try {
    const redirect = `${site.url}/callback`;
    await personSteps(context, redirect);
    let tab = await openTab(context, site);
    await makeClient(tab, world.mcpUrl, true);
    for (const t of ['one', 'two', 'three']) assert.deepEqual(await echo(tab, t), { ok: t });

    // The token endpoint: every request with a proof; the nonce asked for, then sent.
    const grants = world.tokenRequests;
    assert.ok(grants.length >= 2, `token requests: ${JSON.stringify(grants)}`);
    assert.ok(grants.every((g) => g.dpop), 'every token request carried a DPoP proof');
    assert.equal(grants[0].error, 'use_dpop_nonce', 'the authorization server asked for its nonce');
    const issued = grants.find((g) => g.ok);
    assert.equal(issued.token_type, 'DPoP');
    // The resource server: every request authenticated with the DPoP scheme and a valid,
    // fresh proof; the server's nonce asked for once, then sent.
    const seen = world.seen.filter((s) => s.token);
    assert.ok(seen.every((s) => s.authorization.startsWith('DPoP ')), 'never as Bearer');
    const proofs = world.proofs;
    assert.equal(proofs[0].error, 'use_dpop_nonce');
    const valid = proofs.filter((p) => !p.error);
    assert.ok(valid.length >= 3, `valid proofs: ${valid.length}`);
    assert.ok(proofs.slice(1).every((p) => !p.error), `refused proofs: ${JSON.stringify(proofs.map((p) => p.error))}`);
    const jtis = proofs.map((p) => p.claims.jti);
    assert.equal(new Set(jtis).size, jtis.length, 'a new jti in every proof');
    for (const p of proofs) {
      assert.equal(p.claims.htm, 'POST');
      assert.equal(p.claims.htu, world.mcpUrl);
      assert.equal(p.claims.ath, b64u(createHash('sha256').update(p.token).digest()));
    }
    const jkt = valid[0].thumbprint;
    assert.ok(valid.every((p) => p.thumbprint === jkt), 'one key');

    // The key: stored as a CryptoKeyPair (never a JWK), its private half not extractable.
    const name = `mcp-wasm-client:oauth:dpop:${world.issuer} dcr:${redirect}`;
    const key = await tab.evaluate(async (name) => {
      const pair = await window.kv.get(name);
      let exported = 'exported';
      try {
        await crypto.subtle.exportKey('jwk', pair.privateKey);
      } catch (e) {
        exported = e.name;
      }
      return {
        isKey: pair.privateKey instanceof CryptoKey,
        extractable: pair.privateKey.extractable,
        exported,
        publicJwk: await crypto.subtle.exportKey('jwk', pair.publicKey),
        stringsOnly: (await Promise.all((await window.kv.keys()).map((k) => window.kv.get(k))))
          .filter((v) => typeof v !== 'string').length,
      };
    }, name);
    assert.equal(key.isKey, true);
    assert.equal(key.extractable, false);
    assert.equal(key.exported, 'InvalidAccessError', 'exportKey of the private key fails');
    assert.equal(thumbprint(key.publicJwk), jkt, 'the stored key is the one the tokens are bound to');
    assert.equal(key.stringsOnly, 1, 'everything else stored is text');

    // A reload: the same key from IndexedDB, the stored token, no person.
    const before = world.interactions.length;
    await tab.evaluate(() => window.client.close());
    await tab.reload();
    await tab.waitForFunction(() => window.mcpReady === true);
    await makeClient(tab, world.mcpUrl, false);
    const from = world.proofs.length;
    assert.deepEqual(await echo(tab, 'after reload'), { ok: 'after reload' });
    assert.equal(world.interactions.length, before, 'no sign-in after the reload');
    const after = world.proofs.slice(from).filter((p) => !p.error);
    assert.ok(after.length >= 1 && after.every((p) => p.thumbprint === jkt), 'the same key after the reload');

    // A token copied out of storage, replayed with another key (and as Bearer): refused.
    const replay = await tab.evaluate(async ({ issuer, mcpUrl }) => {
      const rec = JSON.parse(await window.kv.get(`mcp-wasm-client:oauth:tokens:${issuer}:${mcpUrl}`));
      const token = rec.access_token;
      const enc = (o) => btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(o))))
        .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const thief = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const jwk = await crypto.subtle.exportKey('jwk', thief.publicKey);
      const ath = b64(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
      const input = `${enc({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } })}.${enc({
        jti: crypto.randomUUID(), htm: 'POST', htu: mcpUrl, iat: Math.floor(Date.now() / 1000), ath,
      })}`;
      const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, thief.privateKey, new TextEncoder().encode(input));
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const post = (headers) => fetch(mcpUrl, {
        method: 'POST', body, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      }).then((r) => r.status);
      return {
        token,
        dpop: await post({ Authorization: `DPoP ${token}`, DPoP: `${input}.${b64(sig)}` }),
        bearer: await post({ Authorization: `Bearer ${token}` }),
      };
    }, { issuer: world.issuer, mcpUrl: world.mcpUrl });
    assert.equal(replay.dpop, 401, 'a proof of another key is refused');
    assert.equal(replay.bearer, 401, 'the DPoP-bound token as Bearer is refused');
    const stolen = world.proofs.filter((p) => p.token === replay.token).at(-1);
    assert.match(stolen.error, /not the token's/);
    await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await world.close();
  }
});

test('9. private_key_jwt with DPoP: the token endpoint\'s nonce retry carries a new client assertion', async ({ browser, site, mcp }) => {
  // RFC 7523 §3: oidc-provider accepts a client assertion's jti once. It checks the
  // assertion before the DPoP proof, so a retry that sent the refused request's assertion
  // again was refused as a replay.
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const clientId = 'reports-bot';
  const world = await startWorld({
    consoleOrigin: new URL(site.url).origin, upstream: mcp, dpop: true, dpopNonce: true,
    assertionClient: { clientId, jwk: { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' } },
  });
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    await tab.evaluate(({ mcpUrl, clientId, jwk }) => {
      window.client = new window.mcp.McpClient(mcpUrl, {
        protocolVersion: '2026-07-28',
        auth: { grant: 'client_credentials', clientId, privateKey: jwk, keyId: 'k1', dpop: true },
      });
    }, { mcpUrl: world.mcpUrl, clientId, jwk: privateKey.export({ format: 'jwk' }) });
    assert.deepEqual(await echo(tab, 'as the client itself'), { ok: 'as the client itself' });
    const grants = world.tokenRequests;
    assert.equal(grants.length, 2, `token requests: ${JSON.stringify(grants)}`);
    assert.equal(grants[0].error, 'use_dpop_nonce', 'the authorization server asked for its nonce');
    assert.ok(grants[1].ok, `the retry was refused: ${grants[1].error} ${grants[1].error_description}`);
    assert.equal(grants[1].token_type, 'DPoP');
    for (const g of grants) {
      assert.equal(g.grant_type, 'client_credentials');
      assert.ok(g.dpop, 'a DPoP proof');
      assert.equal(g.assertion?.iss, clientId);
    }
    assert.notEqual(grants[0].assertion.jti, grants[1].assertion.jti, 'a new client assertion');
    // The MCP server's requests: the client's own DPoP-bound token, with valid proofs.
    const valid = world.proofs.filter((p) => !p.error);
    assert.ok(valid.length >= 1, `proofs: ${JSON.stringify(world.proofs.map((p) => p.error))}`);
    assert.ok(world.seen.filter((s) => s.token).every((s) => s.authorization.startsWith('DPoP ')), 'never as Bearer');
    await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await world.close();
  }
});

test('10. DPoP with a storage of strings (localStorage): the key kept in IndexedDB, no new sign-in after a reload', async ({ browser, site, mcp }) => {
  // localStorage cannot keep a CryptoKeyPair: before, each load made a new key, the stored
  // tokens (bound to the old one) were refused, and the person was asked again.
  const world = await startWorld({ consoleOrigin: new URL(site.url).origin, upstream: mcp, dpop: true, dpopNonce: true });
  const context = await browser.newContext();
  try {
    const redirect = `${site.url}/callback`;
    await personSteps(context, redirect);
    let tab = await openTab(context, site);
    await makeClient(tab, world.mcpUrl, true, true);
    assert.deepEqual(await echo(tab, 'one'), { ok: 'one' });
    const signIns = world.interactions.length;
    assert.ok(signIns >= 1, 'the person signed in');
    const valid = world.proofs.filter((p) => !p.error);
    assert.ok(valid.length >= 1);
    const jkt = valid[0].thumbprint;

    // The pair: in the client's own database, not extractable; localStorage has the tokens.
    const name = `mcp-wasm-client:oauth:dpop:${world.issuer} dcr:${redirect}`;
    const kept = await tab.evaluate(async (name) => {
      const db = await new Promise((ok, fail) => {
        const r = indexedDB.open('mcp-wasm-client-dpop');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      const pair = await new Promise((ok, fail) => {
        const q = db.transaction('keys', 'readonly').objectStore('keys').get(name);
        q.onsuccess = () => ok(q.result);
        q.onerror = () => fail(q.error);
      });
      db.close();
      return {
        isKey: pair?.privateKey instanceof CryptoKey,
        extractable: pair?.privateKey?.extractable,
        publicJwk: pair && await crypto.subtle.exportKey('jwk', pair.publicKey),
        tokens: Object.keys(localStorage).filter((k) => k.startsWith('mcp-wasm-client:oauth:tokens:')).length,
      };
    }, name);
    assert.equal(kept.isKey, true, 'the key pair is in IndexedDB');
    assert.equal(kept.extractable, false);
    assert.equal(thumbprint(kept.publicJwk), jkt, 'the kept key is the one the tokens are bound to');
    assert.equal(kept.tokens, 1, 'the tokens are in localStorage');

    // A reload: the same key, the stored token, no person.
    await tab.evaluate(() => window.client.close());
    await tab.reload();
    await tab.waitForFunction(() => window.mcpReady === true);
    await makeClient(tab, world.mcpUrl, false, true);
    const from = world.proofs.length;
    assert.deepEqual(await echo(tab, 'after reload'), { ok: 'after reload' });
    assert.equal(world.interactions.length, signIns, 'no sign-in after the reload');
    const after = world.proofs.slice(from).filter((p) => !p.error);
    assert.ok(after.length >= 1 && after.every((p) => p.thumbprint === jkt), 'the same key after the reload');
    await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await world.close();
  }
});

test('11. DPoP: a resource server that takes each nonce once and sends the next with every answer is never refused after its first nonce', async ({ browser, site, mcp }) => {
  // RFC 9449 §9 (§8.2 for the authorization server): a new nonce may come with any answer,
  // and the client's next proof carries it. Learnt only from refusals, every call after
  // the first cost a refusal and a second request.
  const world = await startWorld({ consoleOrigin: new URL(site.url).origin, upstream: mcp, dpop: true, rsNonce: true, rsNonceRotate: true });
  const context = await browser.newContext();
  try {
    await personSteps(context, `${site.url}/callback`);
    const tab = await openTab(context, site);
    await makeClient(tab, world.mcpUrl, true);
    for (const t of ['one', 'two', 'three', 'four']) assert.deepEqual(await echo(tab, t), { ok: t });
    const errors = world.proofs.map((p) => p.error ?? 'ok');
    assert.equal(errors[0], 'use_dpop_nonce', `the first proof carries no nonce: ${errors}`);
    assert.ok(errors.slice(1).every((e) => e === 'ok'), `every later proof carries the nonce of the answer before: ${errors}`);
    const nonces = world.proofs.slice(1).map((p) => p.claims.nonce);
    assert.equal(new Set(nonces).size, nonces.length, 'a new nonce each time');
    assert.ok(nonces.length >= 4);
    await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
    await world.close();
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
