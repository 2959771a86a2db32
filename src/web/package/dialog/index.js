// mcp-wasm-client/dialog: a ready-made input dialog for elicitation requests.
//
//   import { showElicitationDialog } from 'mcp-wasm-client/dialog';
//   new McpClient(url, { onElicitation: (request, ctx) => showElicitationDialog(request, ctx) });
//
// DOM only, no framework, no dependency on the wasm module (importing it touches nothing:
// hosts without a DOM may import it, only calling it needs `document`). Everything a server
// sent is untrusted: it is shown with textContent and attribute values, never as HTML.
// The checks of a form are the client's own (checks.js: the rules of
// src/schema/elicitation.rs and formats.rs, tested against the same vectors), so an answer
// the dialog lets through is one the client accepts.

import { choices, fieldProblem, parseNumber } from './checks.js';

const STYLE_ID = 'mcp-elicitation-dialog-styles';
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

const DEFAULT_LABELS = {
  title: 'Input requested',
  urlTitle: 'Open a page?',
  submit: 'Submit',
  decline: 'Decline',
  cancel: 'Cancel',
  close: 'Close',
  open: 'Open page',
  required: 'required',
};

// ------------------------------------------------------------------------------ the queue

/** Requests waiting for the dialog, oldest first; `active` is the one shown. */
const queue = [];
let active = null;
/** The element that had focus before the first dialog of a run of queued dialogs. */
let returnFocus = null;
let counter = 0;

/**
 * Shows a dialog for an `elicitation/create` request and resolves with the person's
 * `ElicitResult`. Calls made while a dialog is open wait their turn. `ctx.signal` (the
 * client's InputContext) closes the dialog, or drops a waiting request, with `cancel`.
 */
export function showElicitationDialog(request, ctx, options) {
  return new Promise((resolve) => {
    const signal = ctx && ctx.signal;
    if (signal && signal.aborted) {
      resolve({ action: 'cancel' });
      return;
    }
    const entry = { request, ctx: ctx || {}, options: options || {}, resolve, done: false, view: null, onAbort: null };
    if (signal && typeof signal.addEventListener === 'function') {
      entry.onAbort = () => finish(entry, { action: 'cancel' });
      signal.addEventListener('abort', entry.onAbort, { once: true });
    }
    queue.push(entry);
    pump();
  });
}

function pump() {
  if (active && active.view && active.view.left()) {
    finish(active, { action: 'cancel' }); // it left the document: the next one is shown
    return;
  }
  if (active) {
    active.view.setWaiting(queue.length);
    return;
  }
  const next = queue.shift();
  if (!next) {
    const back = returnFocus;
    returnFocus = null;
    if (back && back.isConnected && typeof back.focus === 'function') back.focus();
    return;
  }
  if (returnFocus === null) {
    const d = globalThis.document;
    returnFocus = (d && d.activeElement) || null;
  }
  active = next;
  try {
    next.view = render(next);
    next.view.setWaiting(queue.length);
  } catch (err) {
    // No DOM, or a request the dialog cannot show at all: the person never saw it.
    active = null;
    finish(next, { action: 'cancel' });
    if (globalThis.console) globalThis.console.warn('mcp-wasm-client/dialog:', err);
  }
}

function finish(entry, result) {
  if (entry.done) return;
  entry.done = true;
  const signal = entry.ctx.signal;
  if (entry.onAbort && signal) signal.removeEventListener('abort', entry.onAbort);
  if (active === entry) {
    active = null;
    if (entry.view) entry.view.remove();
  } else {
    const i = queue.indexOf(entry);
    if (i >= 0) queue.splice(i, 1);
  }
  entry.resolve(result);
  pump();
}

// ------------------------------------------------------------------------------ DOM helpers

function el(tag, attrs, ...children) {
  const node = globalThis.document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

function str(v) {
  return typeof v === 'string' ? v : '';
}

function hostOf(url) {
  try { return new URL(url).host; } catch { return ''; }
}

let styled = false;
/** Adds the default styles once: a constructed stylesheet where the browser has them (not
 *  blocked by a Content-Security-Policy without 'unsafe-inline'), else a <style> element. */
function injectStyles() {
  const d = globalThis.document;
  if (styled || d.getElementById(STYLE_ID)) return;
  styled = true;
  const Sheet = globalThis.CSSStyleSheet;
  if (Sheet && 'adoptedStyleSheets' in d && typeof Sheet.prototype.replaceSync === 'function') {
    const sheet = new Sheet();
    sheet.replaceSync(CSS);
    d.adoptedStyleSheets = [...d.adoptedStyleSheets, sheet];
    return;
  }
  const style = d.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  (d.head || d.documentElement).append(style);
}

// ------------------------------------------------------------------------------ rendering

function render(entry) {
  const { request, ctx, options } = entry;
  const d = globalThis.document;
  if (!d || typeof d.createElement !== 'function') throw new Error('showElicitationDialog needs a DOM (document)');
  if (options.injectStyles !== false) injectStyles();
  const labels = { ...DEFAULT_LABELS, ...(options.labels || {}) };
  const id = `mcp-elicit-${++counter}`;
  const isUrl = request && request.mode === 'url';

  const dialog = el('dialog', {
    class: `mcp-elicit${options.className ? ` ${options.className}` : ''}`,
    'aria-labelledby': `${id}-title`,
    'aria-describedby': `${id}-message`,
    'aria-modal': 'true',
  });
  const form = el('form', { class: 'mcp-elicit-form', novalidate: true });
  const title = el('h2', { id: `${id}-title`, class: 'mcp-elicit-title', text: options.title || (isUrl ? labels.urlTitle : labels.title) });
  const closeBtn = el('button', { type: 'button', class: 'mcp-elicit-close', 'aria-label': labels.close, text: '×' });
  // Who asks: the host of the server's URL, always (a name the app gives, which may come
  // from the server itself, only beside it).
  const serverHost = hostOf(ctx.serverUrl);
  const serverName = str(options.serverName);
  const origin = el('p', { class: 'mcp-elicit-origin' });
  if (serverHost && serverName) origin.append(`“${serverName}” at `, el('strong', { text: serverHost }), ' asks');
  else origin.append(el('strong', { text: serverHost || serverName || 'The server' }), ' asks');
  if (ctx.taskId) origin.append(` (task ${String(ctx.taskId).slice(0, 8)})`);
  const message = el('p', { id: `${id}-message`, class: 'mcp-elicit-message', text: str(request && request.message) || '(no message)' });
  const body = el('div', { class: 'mcp-elicit-body' });
  const summary = el('p', { class: 'mcp-elicit-summary', role: 'status', 'aria-live': 'polite' });
  const waiting = el('p', { class: 'mcp-elicit-waiting', hidden: true });
  const cancelBtn = el('button', { type: 'button', class: 'mcp-elicit-button', text: labels.cancel });
  const declineBtn = el('button', { type: 'button', class: 'mcp-elicit-button', text: labels.decline });
  const primary = el('button', { type: 'submit', class: 'mcp-elicit-button mcp-elicit-primary', text: isUrl ? labels.open : labels.submit });
  const footer = el('div', { class: 'mcp-elicit-actions' }, cancelBtn, declineBtn, primary);
  form.append(el('div', { class: 'mcp-elicit-header' }, title, closeBtn), origin, message, body, summary, waiting, footer);
  dialog.append(form);

  const done = (result) => finish(entry, result);
  let onSubmit;
  if (isUrl) onSubmit = renderUrl(body, primary, request, ctx, options, labels, id, done);
  else onSubmit = renderForm(body, primary, summary, request, labels, id, done);

  form.addEventListener('submit', (e) => { e.preventDefault(); onSubmit(); });
  cancelBtn.addEventListener('click', () => done({ action: 'cancel' }));
  closeBtn.addEventListener('click', () => done({ action: 'cancel' }));
  declineBtn.addEventListener('click', () => done({ action: 'decline' }));
  // Escape: the native `cancel` event of a modal <dialog>; a `close` we did not cause also cancels.
  dialog.addEventListener('cancel', (e) => { e.preventDefault(); done({ action: 'cancel' }); });
  dialog.addEventListener('close', () => done({ action: 'cancel' }));
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); done({ action: 'cancel' }); return; }
    if (e.key !== 'Tab') return;
    const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((n) => n.getClientRects().length > 0);
    if (items.length === 0) { e.preventDefault(); return; }
    const first = items[0];
    const last = items[items.length - 1];
    const current = d.activeElement;
    if (e.shiftKey && (current === first || !dialog.contains(current))) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && (current === last || !dialog.contains(current))) { e.preventDefault(); first.focus(); }
  });

  (options.container || d.body || d.documentElement).append(dialog);
  // A dialog taken out of the document (its container removed, say by a framework's
  // unmount) cannot be answered any more: it ends as `cancel`, and the next one is shown.
  // Watched in the document and in each shadow root the dialog is inside.
  let connected = dialog.isConnected;
  const left = () => {
    if (dialog.isConnected) connected = true;
    return connected && !dialog.isConnected;
  };
  let watch = null;
  if (typeof globalThis.MutationObserver === 'function') {
    watch = new globalThis.MutationObserver(() => { if (left()) done({ action: 'cancel' }); });
    watch.observe(d, { childList: true, subtree: true });
    for (let root = dialog.getRootNode(); root && root.host; root = root.host.getRootNode()) {
      watch.observe(root, { childList: true, subtree: true });
    }
  }
  try {
    dialog.showModal();
  } catch {
    // No <dialog> support (or the container is not in a document): shown, without the backdrop.
    dialog.setAttribute('open', '');
  }
  // Form: the first field; URL: Cancel (consent must be an explicit move to "Open").
  const firstField = isUrl ? cancelBtn : body.querySelector('input, select, textarea') || primary;
  firstField.focus();

  return {
    setWaiting(n) {
      waiting.hidden = n === 0;
      waiting.textContent = n === 1 ? '1 more request is waiting.' : `${n} more requests are waiting.`;
    },
    left,
    remove() {
      if (watch) watch.disconnect();
      if (dialog.open && typeof dialog.close === 'function') {
        try { dialog.close(); } catch { /* already closed */ }
      }
      dialog.remove();
    },
  };
}

// ------------------------------------------------------------------------------ URL mode

// Bidi controls and zero-width characters: the shown URL could differ from the real one.
const HIDDEN = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const UNSHOWABLE = /[\p{Cc}\p{White_Space}\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;

/**
 * Why the URL may not be opened, or null: what the client's own check refuses
 * (check_url in src/schema/url.rs), for a URL that did not come through it (the dialog
 * called without `ctx.url`): anything a browser could read differently from how it is shown.
 */
function urlProblem(url, parsed) {
  if (url === '' || new TextEncoder().encode(url).length > 8192) return 'the address is empty or longer than 8192 bytes';
  if (/[\p{Cc}\p{White_Space}\\]/u.test(url) || HIDDEN.test(url)) return 'spaces, control or invisible characters and backslashes are not allowed';
  if (parsed === null || !/^https?:\/\//i.test(url)) return 'only https: pages (or http: on localhost) can be opened';
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(url)) return 'user names or passwords in addresses are not allowed';
  if (parsed.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname)) return 'http: is only allowed for localhost; use https:';
  return null;
}

function renderUrl(body, primary, request, ctx, options, labels, id, done) {
  const url = str(ctx.url) || str(request.url);
  let parsed = null;
  try { parsed = new URL(url); } catch { /* refused below */ }
  const problem = urlProblem(url, parsed);
  const openable = problem === null;
  const host = openable ? parsed.hostname : '';
  body.append(el('p', { class: 'mcp-elicit-note', text: 'The server asks you to open this page in a new tab. Check the address first:' }));

  // The URL as the browser reads it (what "Open" opens), its host (the part that says which
  // site it is) highlighted. A refused one as sent, its invisible characters as codes.
  const shown = el('p', { class: 'mcp-elicit-url', id: `${id}-url` });
  if (openable) {
    shown.append(`${parsed.protocol}//`, el('mark', { class: 'mcp-elicit-domain', text: host }), parsed.port ? `:${parsed.port}` : '', `${parsed.pathname}${parsed.search}${parsed.hash}`);
  } else {
    shown.textContent = url.replace(UNSHOWABLE, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
  }
  body.append(shown);
  if (host) body.append(el('p', { class: 'mcp-elicit-site' }, 'Site: ', el('strong', { text: host })));

  const labelsOfHost = host.toLowerCase().split('.');
  const punycode = openable && (ctx.isPunycode === true || labelsOfHost.some((l) => l.startsWith('xn--')) || /[^\x00-\x7f]/.test(host)); // eslint-disable-line no-control-regex
  if (punycode) {
    body.append(el('p', { class: 'mcp-elicit-warning', role: 'alert', text: 'Warning: this address uses an internationalized (punycode, xn--) domain name, which can imitate the name of another site. Open it only if you trust it.' }));
  }
  if (!openable) {
    body.append(el('p', { class: 'mcp-elicit-warning', role: 'alert', text: `This address cannot be opened: ${problem}. Decline or cancel.` }));
    primary.disabled = true;
  } else {
    primary.textContent = `${labels.open} (${host})`;
    primary.setAttribute('aria-describedby', `${id}-url`);
  }
  return () => {
    if (!openable) return;
    // Opened only now, after the person's explicit consent; never fetched by the dialog.
    if (typeof options.openUrl === 'function') options.openUrl(parsed.href);
    else if (typeof globalThis.open === 'function') globalThis.open(parsed.href, '_blank', 'noopener,noreferrer');
    done({ action: 'accept' });
  };
}

// ------------------------------------------------------------------------------ form mode

function renderForm(body, primary, summary, request, labels, id, done) {
  const schema = request && typeof request.requestedSchema === 'object' && request.requestedSchema ? request.requestedSchema : {};
  const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const fields = [];
  let unsupported = 0;
  let n = 0;
  for (const [name, prop] of Object.entries(props)) {
    const f = field(name, prop, required.has(name), `${id}-f${n++}`, labels);
    if (f) {
      fields.push(f);
      body.append(f.node);
    } else {
      unsupported += 1;
      body.append(el('p', { class: 'mcp-elicit-warning', text: `The field "${name}" cannot be shown by this dialog.` }));
    }
  }
  if (required.size > 0) body.prepend(el('p', { class: 'mcp-elicit-legend' }, el('span', { class: 'mcp-elicit-req', 'aria-hidden': 'true', text: '*' }), ` = ${labels.required}`));
  if (unsupported > 0) primary.disabled = true;

  let submitted = false;
  const recount = () => {
    if (!submitted) return;
    const n = fields.filter((f) => f.problem() !== null).length;
    summary.textContent = n === 0 ? '' : n === 1 ? '1 field needs attention.' : `${n} fields need attention.`;
  };
  for (const f of fields) {
    const edited = () => {
      f.touched = true;
      if (f.shown) f.check();
      recount();
    };
    f.node.addEventListener('input', edited);
    f.node.addEventListener('change', edited);
    // Checked when the person moves on to another field. Not when focus goes to a button:
    // a message appearing then would move the button away from under the pointer (and
    // Submit checks everything anyway).
    f.node.addEventListener('focusout', (e) => {
      const next = e.relatedTarget;
      if (f.touched && next && !f.node.contains(next) && /^(INPUT|SELECT|TEXTAREA)$/.test(next.tagName)) f.check();
    });
  }
  return () => {
    submitted = true;
    const bad = fields.filter((f) => !f.check());
    recount();
    if (bad.length > 0) {
      bad[0].focus();
      return;
    }
    // Each answer an own member (defined, not assigned: a field may be named `__proto__`).
    const content = {};
    const put = (name, v) => Object.defineProperty(content, name, { value: v, enumerable: true, writable: true, configurable: true });
    for (const f of fields) {
      const v = f.value();
      if (v !== undefined) put(f.name, v);
      // Emptied on purpose: null, or the client would fill in the field's default (SEP-1034).
      else if (props[f.name] && props[f.name].default !== undefined) put(f.name, null);
    }
    done({ action: 'accept', content });
  };
}

/** One form field: its node, `check()` (shows or clears its message), `value()`. */
function field(name, s, isRequired, fid, labels) {
  if (!s || typeof s !== 'object') return null;
  const type = s.type;
  const titleText = str(s.title) || name;
  const descId = `${fid}-desc`;
  const errId = `${fid}-err`;
  const desc = str(s.description) ? el('p', { id: descId, class: 'mcp-elicit-desc', text: s.description }) : null;
  const err = el('p', { id: errId, class: 'mcp-elicit-error', hidden: true });
  const describedBy = [desc ? descId : null, errId].filter(Boolean).join(' ');
  const reqMark = isRequired ? el('span', { class: 'mcp-elicit-req', 'aria-hidden': 'true', text: ' *' }) : null;
  const f = { name, touched: false, shown: false };
  let control;
  let read;
  let invalidTarget;

  const opts = type === 'string' ? choices(s) : type === 'array' ? choices(s.items) : null;
  if (type === 'array') {
    if (!opts) return null;
    const dflt = new Set(Array.isArray(s.default) ? s.default : []);
    const group = el('fieldset', { class: 'mcp-elicit-group', 'aria-describedby': describedBy });
    group.append(el('legend', {}, titleText, reqMark, isRequired ? el('span', { class: 'mcp-elicit-sr', text: ` (${labels.required})` }) : null));
    const boxes = opts.map((o, i) => {
      const box = el('input', { type: 'checkbox', id: `${fid}-${i}`, value: o.value });
      box.checked = dflt.has(o.value);
      group.append(el('label', { class: 'mcp-elicit-check', for: `${fid}-${i}` }, box, ` ${o.label}`));
      return box;
    });
    control = group;
    invalidTarget = boxes;
    read = () => boxes.filter((b) => b.checked).map((b) => b.value);
    f.node = el('div', { class: 'mcp-elicit-field' }, group, desc, err);
    f.focus = () => (boxes[0] || group).focus();
    f.value = () => {
      const v = read();
      return v.length === 0 && !isRequired ? undefined : v;
    };
    f.problem = () => fieldProblem(s, f.value(), isRequired);
  } else if (type === 'boolean') {
    const box = el('input', { type: 'checkbox', id: fid, 'aria-describedby': describedBy });
    box.checked = s.default === true;
    control = box;
    invalidTarget = [box];
    f.node = el('div', { class: 'mcp-elicit-field' }, el('label', { class: 'mcp-elicit-check', for: fid }, box, ` ${titleText}`, reqMark), desc, err);
    f.focus = () => box.focus();
    f.value = () => box.checked;
    f.problem = () => fieldProblem(s, f.value(), isRequired);
  } else if (type === 'string' || type === 'number' || type === 'integer') {
    const label = el('label', { class: 'mcp-elicit-label', for: fid }, titleText, reqMark);
    if (opts) {
      const select = el('select', { id: fid, 'aria-describedby': describedBy, 'aria-required': isRequired ? 'true' : null });
      const hasDefault = typeof s.default === 'string' && opts.some((o) => o.value === s.default);
      if (!hasDefault) select.append(el('option', { value: '', text: '— choose —' }));
      for (const o of opts) {
        const option = el('option', { text: o.label });
        option.value = o.value;
        select.append(option);
      }
      if (hasDefault) select.value = s.default;
      control = select;
      read = () => select.value;
      f.value = () => (read() === '' ? undefined : read());
      f.problem = () => fieldProblem(s, f.value(), isRequired);
    } else {
      const numeric = type !== 'string';
      const long = !numeric && typeof s.maxLength === 'number' && s.maxLength > 120;
      const inputType = numeric ? 'text' : ({ email: 'email', uri: 'url', date: 'date' }[s.format] || 'text');
      const input = long
        ? el('textarea', { id: fid, rows: 3 })
        : el('input', { id: fid, type: inputType, inputmode: numeric ? (type === 'integer' ? 'numeric' : 'decimal') : null, autocomplete: 'off' });
      input.setAttribute('aria-describedby', describedBy);
      if (isRequired) input.setAttribute('aria-required', 'true');
      if (s.format === 'date-time') input.setAttribute('placeholder', 'e.g. 2026-01-31T09:30:00Z');
      if (s.default !== undefined && s.default !== null && (typeof s.default === 'string' || typeof s.default === 'number')) input.value = String(s.default);
      control = input;
      read = () => input.value;
      f.value = () => {
        const raw = read();
        if (numeric) return raw.trim() === '' ? undefined : parseNumber(raw);
        return raw === '' ? undefined : raw;
      };
      f.problem = () => {
        // Text that is not a number: no value to check, the person is told so.
        if (numeric && read().trim() !== '' && parseNumber(read()) === null) return type === 'integer' ? 'Enter a whole number.' : 'Enter a number.';
        return fieldProblem(s, f.value(), isRequired);
      };
    }
    invalidTarget = [control];
    f.node = el('div', { class: 'mcp-elicit-field' }, label, control, desc, err);
    f.focus = () => control.focus();
  } else {
    return null;
  }
  f.check = () => {
    const problem = f.problem();
    f.shown = f.shown || problem !== null;
    err.hidden = problem === null;
    err.textContent = problem || '';
    for (const t of invalidTarget) {
      if (problem) t.setAttribute('aria-invalid', 'true');
      else t.removeAttribute('aria-invalid');
    }
    return problem === null;
  };
  return f;
}

// ------------------------------------------------------------------------------ styles
// Themable with CSS custom properties (set them on :root or on .mcp-elicit); see index.d.ts.

const CSS = `
.mcp-elicit {
  --_bg: var(--mcp-dialog-bg, #ffffff);
  --_fg: var(--mcp-dialog-fg, #1d1d20);
  --_muted: var(--mcp-dialog-muted, #5b5e66);
  --_border: var(--mcp-dialog-border, #c9ccd3);
  --_accent: var(--mcp-dialog-accent, #1f5fbf);
  --_accent-fg: var(--mcp-dialog-accent-fg, #ffffff);
  --_danger: var(--mcp-dialog-danger, #b3261e);
  --_warn-bg: var(--mcp-dialog-warning-bg, #fff3cd);
  --_warn-fg: var(--mcp-dialog-warning-fg, #5a4300);
  --_mark: var(--mcp-dialog-highlight-bg, #ffe58a);
  --_focus: var(--mcp-dialog-focus, #1f5fbf);
  --_input-bg: var(--mcp-dialog-input-bg, #ffffff);
  box-sizing: border-box; width: min(var(--mcp-dialog-width, 32rem), calc(100vw - 2rem)); max-height: calc(100vh - 2rem);
  overflow: auto; padding: 0; border: 1px solid var(--_border); border-radius: var(--mcp-dialog-radius, 12px);
  background: var(--_bg); color: var(--_fg); font: var(--mcp-dialog-font, 15px/1.45 system-ui, sans-serif);
  box-shadow: 0 12px 40px rgb(0 0 0 / .25);
}
.mcp-elicit::backdrop { background: var(--mcp-dialog-backdrop, rgb(20 22 28 / .45)); }
.mcp-elicit *, .mcp-elicit *::before, .mcp-elicit *::after { box-sizing: border-box; }
.mcp-elicit-form { padding: 1rem 1.25rem 1.1rem; margin: 0; }
.mcp-elicit-header { display: flex; align-items: flex-start; gap: .5rem; }
.mcp-elicit-title { flex: 1; margin: 0; font-size: 1.15em; }
.mcp-elicit-close { border: 0; background: none; color: var(--_muted); font-size: 1.4em; line-height: 1; cursor: pointer; padding: 0 .25rem; border-radius: 6px; }
.mcp-elicit-origin { margin: .15rem 0 .6rem; color: var(--_muted); font-size: .9em; }
.mcp-elicit-message { margin: 0 0 .8rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.mcp-elicit-legend, .mcp-elicit-note { margin: 0 0 .6rem; color: var(--_muted); font-size: .88em; }
.mcp-elicit-field { margin: 0 0 .75rem; }
.mcp-elicit-label { display: block; font-weight: 600; margin-bottom: .2rem; }
.mcp-elicit-req { color: var(--_danger); }
.mcp-elicit-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.mcp-elicit input:not([type=checkbox]), .mcp-elicit select, .mcp-elicit textarea {
  width: 100%; padding: .45rem .55rem; border: 1px solid var(--_border); border-radius: 8px;
  background: var(--_input-bg); color: inherit; font: inherit;
}
.mcp-elicit [aria-invalid=true] { border-color: var(--_danger); outline-color: var(--_danger); }
.mcp-elicit-group { border: 1px solid var(--_border); border-radius: 8px; padding: .4rem .7rem .5rem; margin: 0; }
.mcp-elicit-group legend { font-weight: 600; padding: 0 .25rem; }
.mcp-elicit-check { display: flex; align-items: center; gap: .35rem; padding: .15rem 0; }
.mcp-elicit-check input { width: 1.05rem; height: 1.05rem; margin: 0; accent-color: var(--_accent); }
.mcp-elicit-desc { margin: .2rem 0 0; color: var(--_muted); font-size: .88em; }
.mcp-elicit-error { margin: .25rem 0 0; color: var(--_danger); font-size: .9em; font-weight: 600; }
.mcp-elicit-summary { margin: 0; color: var(--_danger); font-size: .9em; }
.mcp-elicit-summary:empty { display: none; }
.mcp-elicit-waiting { margin: .5rem 0 0; color: var(--_muted); font-size: .88em; }
.mcp-elicit-url { margin: 0 0 .5rem; padding: .55rem .7rem; border: 1px solid var(--_border); border-radius: 8px;
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; overflow-wrap: anywhere; }
.mcp-elicit-domain { background: var(--_mark); color: inherit; font-weight: 700; padding: 0 .1em; border-radius: 3px; }
.mcp-elicit-site { margin: 0 0 .6rem; }
.mcp-elicit-warning { margin: 0 0 .6rem; padding: .5rem .7rem; border-radius: 8px; background: var(--_warn-bg); color: var(--_warn-fg); }
.mcp-elicit-actions { display: flex; justify-content: flex-end; flex-wrap: wrap; gap: .5rem; margin-top: 1rem; }
.mcp-elicit-button { padding: .45rem .9rem; border: 1px solid var(--_border); border-radius: 8px; background: var(--_bg);
  color: inherit; font: inherit; cursor: pointer; }
.mcp-elicit-primary { background: var(--_accent); border-color: var(--_accent); color: var(--_accent-fg); font-weight: 600; }
.mcp-elicit-button:disabled { opacity: .5; cursor: not-allowed; }
.mcp-elicit :focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
`;
