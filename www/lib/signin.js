// Signing in from the console (OAuth 2.1, the package's `auth` option): the person's step
// in a popup, or a full-page redirect when the popup is blocked; the tokens and the
// registration kept per server in localStorage (through `auth.storage`), so a reload stays
// signed in; Sign out forgets them. Public API only.
//
// The popup pattern: a click on "Sign in" opens the authorization URL in a popup (a click,
// so popup blockers let it through); the authorization server sends the person back to
// /oauth/callback.html, which posts its URL to this page and closes; onAuthorize resolves
// with that URL and the client finishes the flow.
// The redirect pattern (window.open returned null): the console notes the server in
// sessionStorage and navigates to the authorization URL; the callback page keeps the URL
// it came back with and returns to the console, which connects again and hands that URL to
// the new client's first onAuthorize (the client kept the request's PKCE verifier in
// `auth.storage` under its `state`, so it finishes the flow it started before the page left).
import { h } from './dom.js';

const KEY = 'mcp-console:';
const RETURN = `${KEY}signin-return`; // sessionStorage: { serverUrl, callbackUrl? }
const TOKENS = 'mcp-wasm-client:oauth:tokens:';
const CLOSE_GRACE_MS = 1_000; // see authorize(): the popup's last message may follow its close

const host = (u) => {
  try {
    return new URL(u).host;
  } catch {
    return String(u);
  }
};

/** The localStorage prefix of one server's records. */
const prefixOf = (serverUrl) => `${KEY}auth:${serverUrl}|`;

/** `auth.storage` for one server: the client's records, in localStorage under its prefix. */
function storageFor(serverUrl, onSave) {
  const p = prefixOf(serverUrl);
  return {
    get: (k) => localStorage.getItem(p + k),
    set: (k, v) => {
      if (v === '') localStorage.removeItem(p + k); // the client clears a used record with ''
      else localStorage.setItem(p + k, v);
      onSave(k);
    },
  };
}

/** The tokens the client stored for a server: `{ scope, expiresAt }` or null. */
export function tokenFacts(serverUrl) {
  const p = prefixOf(serverUrl) + TOKENS;
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (!k || !k.startsWith(p)) continue;
    try {
      const t = JSON.parse(localStorage.getItem(k));
      if (t && t.access_token) return { issuer: k.slice(p.length).replace(/:https?:\/\/.*$/, ''), scope: t.scope || '', expiresAt: t.expires_at || null };
    } catch {
      // not ours
    }
  }
  return null;
}

/** Forgets everything kept for a server (tokens, registration, pending requests). */
export function forget(serverUrl) {
  const p = prefixOf(serverUrl);
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(p)) keys.push(k);
  }
  for (const k of keys) localStorage.removeItem(k);
}

/** Whether this page can receive a redirect (OAuth 2.1: https, or http on loopback). */
export function canSignIn() {
  return location.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(location.hostname);
}

/** The server the page came back to after a redirect sign-in (read once), or null. */
export function takeReturn() {
  let r = null;
  try {
    r = JSON.parse(sessionStorage.getItem(RETURN) || 'null');
  } catch {
    // ignore
  }
  sessionStorage.removeItem(RETURN);
  return r && typeof r.serverUrl === 'string' && typeof r.callbackUrl === 'string' ? r : null;
}

/**
 * The sign-in of one connection: `auth` (the client option) and the panel in `root`.
 * `returned`: the callback URL the page came back with (redirect pattern), handed to the
 * first onAuthorize. `onChange()`: the tokens changed (show them).
 */
export class SignIn {
  constructor(root, serverUrl, { returned = null, onChange = () => {}, onSignOut = () => {} } = {}) {
    this.root = root;
    this.serverUrl = serverUrl;
    this.returned = returned;
    this.onChange = onChange;
    this.onSignOut = onSignOut;
    this.issuer = null;
    this.auth = {
      redirectUri: new URL('/oauth/callback.html', location.href).href,
      clientName: 'MCP agent console',
      onAuthorize: (url, ctx) => this.authorize(url, ctx),
      storage: storageFor(serverUrl, (k) => {
        if (k.startsWith(TOKENS)) this.show();
      }),
    };
    this.show();
  }

  /** The person's step (auth.onAuthorize). */
  authorize(url, ctx) {
    this.issuer = ctx.issuer;
    if (this.returned) {
      const back = this.returned;
      this.returned = null;
      return back;
    }
    return new Promise((resolve, reject) => {
      let popup = null;
      let timer = 0;
      const end = () => {
        clearInterval(timer);
        window.removeEventListener('message', onMessage);
        this.show();
      };
      const onMessage = (e) => {
        // WebKit gives a closed window's message `source: null`: the popup's answer, when
        // the popup closed before it was handled. Same origin either way, and the client
        // checks the answer's `state` against the request it made.
        const fromPopup = e.source === popup || (e.source === null && popup?.closed);
        if (e.origin !== location.origin || !fromPopup || typeof e.data !== 'string') return;
        end();
        try {
          popup.close();
        } catch {
          // gone
        }
        resolve(e.data);
      };
      const start = () => {
        popup = window.open(url, 'mcp-sign-in', 'popup,width=520,height=680');
        if (!popup) {
          // Blocked: the whole page goes, and comes back to /oauth/callback.html.
          sessionStorage.setItem(RETURN, JSON.stringify({ serverUrl: this.serverUrl }));
          this.panel(`Signing in to ${host(ctx.serverUrl)} via ${host(ctx.issuer)} in this tab (the popup was blocked)…`);
          location.assign(url);
          return;
        }
        window.addEventListener('message', onMessage);
        this.panel(`Signing in to ${host(ctx.serverUrl)} via ${host(ctx.issuer)} in the popup…`, [
          h('button', { type: 'button', text: 'Cancel', onclick: () => popup.close() }),
        ]);
        // The person closed the popup: give up, after a grace for a message the popup
        // posted just before it closed (a closed window and its last message are not
        // ordered: the message can be handled after `closed` reads true).
        let closedAt = 0;
        timer = setInterval(() => {
          if (!popup.closed) return;
          if (!closedAt) closedAt = Date.now();
          else if (Date.now() - closedAt >= CLOSE_GRACE_MS) {
            end();
            reject(new Error('The sign-in window was closed before it finished.'));
          }
        }, 300);
      };
      ctx.signal.addEventListener('abort', () => {
        if (popup) popup.close();
        end();
        reject(ctx.signal.reason);
      }, { once: true });
      this.panel(`Sign in to ${host(ctx.serverUrl)} via ${host(ctx.issuer)}`, [
        h('button', { type: 'button', class: 'primary', id: 'sign-in', text: 'Sign in', onclick: start }),
        h('button', { type: 'button', text: 'Not now', onclick: () => {
          end();
          reject(new Error('You chose not to sign in.'));
        } }),
      ], 'ask');
    });
  }

  panel(text, buttons = [], kind = 'busy') {
    this.root.dataset.state = kind;
    this.root.replaceChildren(h('span', { class: 'signin-text', text }), ...buttons);
    this.root.hidden = false;
  }

  /** Signed in: who, the scopes granted, the token's expiry; Sign out. Else nothing. */
  show() {
    const t = tokenFacts(this.serverUrl);
    if (!t) {
      this.root.hidden = true;
      this.root.replaceChildren();
      delete this.root.dataset.state;
      this.onChange(null);
      return;
    }
    const exp = t.expiresAt ? new Date(t.expiresAt) : null;
    this.root.dataset.state = 'signed-in';
    this.root.replaceChildren(
      h('span', { class: 'signin-text', text: `Signed in to ${host(this.serverUrl)} via ${host(this.issuer || t.issuer)}.` }),
      h('span', { class: 'signin-facts' },
        'Scopes: ', h('code', { class: 'signin-scope', text: t.scope || '(none stated)' }),
        ' · token expires ', h('time', { class: 'signin-expiry', datetime: exp ? exp.toISOString() : '', text: exp ? exp.toLocaleTimeString() : 'never (not stated)' })),
      h('button', { type: 'button', id: 'sign-out', text: 'Sign out', onclick: () => {
        forget(this.serverUrl);
        this.show();
        this.onSignOut();
      } }),
    );
    this.root.hidden = false;
    this.onChange(t);
  }
}

/** An authorization failure in plain words, with its reason (AuthorizationError.data.reason). */
export function authorizationWords(e, msg) {
  const d = (e && e.data) || {};
  switch (d.reason) {
    case 'resource-mismatch':
      return `Not signed in: the server's Protected Resource Metadata names another resource than this server, so no token was asked for or sent (resource-mismatch). ${msg}`;
    case 'iss-mismatch':
      return `Not signed in: the sign-in answer names another authorization server than the one asked, so it was refused (iss-mismatch). ${msg}`;
    case 'authorization-error':
      return d.error === 'access_denied'
        ? `Not signed in: access was denied at the authorization server (access_denied). Connect again to try once more. ${msg}`
        : `Not signed in: the authorization server refused (${d.error || 'error'}). ${msg}`;
    default:
      return `Not signed in (${d.reason || 'authorization'}): ${msg}`;
  }
}
