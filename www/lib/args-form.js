// A form for a tool's arguments, built from its inputSchema: string, number, integer,
// boolean, enum (enum or oneOf/const with titles) and array of enum. A schema the form
// cannot show (nested objects, arrays of other things, $ref, ...) gets a JSON editor.

import { h, uid } from './dom.js';

/** The property schema without a `null` alternative (`anyOf: [X, {type: 'null'}]`, `type: [X, 'null']`). */
function unwrapNullable(p) {
  if (!p || typeof p !== 'object') return p;
  if (Array.isArray(p.type)) {
    const types = p.type.filter((t) => t !== 'null');
    return types.length === 1 ? { ...p, type: types[0] } : p;
  }
  for (const key of ['anyOf', 'oneOf']) {
    const alts = p[key];
    if (p.type === undefined && Array.isArray(alts) && alts.length === 2 && alts.some((a) => a && a.type === 'null')) {
      const rest = { ...p };
      delete rest[key];
      return { ...alts.find((a) => !a || a.type !== 'null'), ...rest };
    }
  }
  return p;
}

function options(s) {
  if (!s || typeof s !== 'object') return null;
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v) => typeof v === 'string')) {
    return s.enum.map((v) => ({ value: v, label: v }));
  }
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  if (alts && alts.length > 0 && alts.every((o) => o && typeof o.const === 'string')) {
    return alts.map((o) => ({ value: o.const, label: typeof o.title === 'string' ? `${o.title}` : o.const }));
  }
  return null;
}

/** What kind of control a property gets, or a reason why it cannot be shown. */
export function kindOf(prop) {
  const p = unwrapNullable(prop);
  if (!p || typeof p !== 'object') return { reason: 'not a schema' };
  if (p.type === 'string') {
    const opts = options(p);
    if (opts) return { kind: 'enum', p, opts };
    if (p.enum || p.oneOf || p.anyOf) return { reason: 'an enum of non-strings' };
    return { kind: 'string', p };
  }
  if (p.type === 'number' || p.type === 'integer') return { kind: 'number', p };
  if (p.type === 'boolean') return { kind: 'boolean', p };
  if (p.type === 'array') {
    const opts = options(unwrapNullable(p.items));
    if (opts) return { kind: 'multi', p, opts };
    const t = p.items && p.items.type ? `${p.items.type}` : 'values';
    return { reason: `an array of ${t}` };
  }
  if (p.type === 'object') return { reason: 'a nested object' };
  if (p.$ref) return { reason: 'a reference ($ref)' };
  return { reason: `a property without a simple type` };
}

/** Why the whole schema needs the JSON editor, or null when a form can show it. */
export function whyJson(schema) {
  if (!schema || typeof schema !== 'object') return 'the input schema is not an object';
  if (schema.type !== undefined && schema.type !== 'object') return 'the input schema is not an object schema';
  const props = schema.properties || {};
  if (typeof props !== 'object') return 'its properties are not an object';
  for (const [name, prop] of Object.entries(props)) {
    const k = kindOf(prop);
    if (k.reason) return `“${name}” is ${k.reason}`;
  }
  return null;
}

function placeholder(prop) {
  const p = unwrapNullable(prop) || {};
  if (p.default !== undefined) return p.default;
  if (Array.isArray(p.examples) && p.examples.length > 0) return p.examples[0];
  switch (p.type) {
    case 'string': return '';
    case 'number': case 'integer': return 0;
    case 'boolean': return false;
    case 'array': return [];
    case 'object': return {};
    default: return null;
  }
}

/**
 * Builds the argument editor of a tool. Returns `{ node, read }`; `read()` gives
 * `{ ok: true, args }` or shows messages and gives `{ ok: false }`.
 */
export function buildArgsForm(tool) {
  const schema = tool.inputSchema || {};
  const reason = whyJson(schema);
  return reason === null ? formEditor(schema) : jsonEditor(schema, reason);
}

function jsonEditor(schema, reason) {
  const id = uid('json');
  const start = {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, prop] of Object.entries(schema.properties || {})) {
    const v = placeholder(prop);
    if (required.has(name) || (prop && prop.default !== undefined)) start[name] = v;
  }
  const area = h('textarea', { id, class: 'json', rows: 6, spellcheck: 'false', 'aria-describedby': `${id}-why ${id}-err` });
  area.value = JSON.stringify(start, null, 2);
  const err = h('p', { id: `${id}-err`, class: 'field-error', hidden: true });
  const node = h('div', { class: 'args json-editor' },
    h('p', { id: `${id}-why`, class: 'hint', text: `The form cannot show these arguments (${reason}); edit them as JSON.` }),
    h('label', { for: id, class: 'field-label', text: 'Arguments (JSON object)' }),
    area, err,
    h('details', { class: 'schema' }, h('summary', { text: 'Input schema' }), h('pre', { text: JSON.stringify(schema, null, 2) })));
  const read = () => {
    let args;
    try {
      args = JSON.parse(area.value || '{}');
    } catch (e) {
      return fail(`Not valid JSON: ${e.message}`);
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return fail('The arguments must be a JSON object: { … }.');
    err.hidden = true;
    area.removeAttribute('aria-invalid');
    return { ok: true, args };
  };
  const fail = (message) => {
    err.textContent = message;
    err.hidden = false;
    area.setAttribute('aria-invalid', 'true');
    area.focus();
    return { ok: false };
  };
  return { node, read, mode: 'json' };
}

function formEditor(schema) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(schema.properties || {}).map(([name, prop]) => control(name, kindOf(prop), required.has(name)));
  const node = h('div', { class: 'args' }, fields.length === 0 ? h('p', { class: 'hint', text: 'No arguments.' }) : fields.map((f) => f.node));
  const read = () => {
    const args = {};
    let firstBad = null;
    for (const f of fields) {
      const r = f.read();
      if (r.error) {
        f.show(r.error);
        firstBad = firstBad || f;
      } else {
        f.show(null);
        if (r.value !== undefined) args[f.name] = r.value;
      }
    }
    if (firstBad) {
      firstBad.focus();
      return { ok: false };
    }
    return { ok: true, args };
  };
  return { node, read, mode: 'form' };
}

function control(name, { kind, p, opts }, isRequired) {
  const id = uid('arg');
  const errId = `${id}-err`;
  const descId = `${id}-desc`;
  const title = typeof p.title === 'string' && p.title ? p.title : name;
  const desc = typeof p.description === 'string' && p.description ? h('p', { id: descId, class: 'hint', text: p.description }) : null;
  const err = h('p', { id: errId, class: 'field-error', hidden: true });
  const describedBy = [desc ? descId : null, errId].filter(Boolean).join(' ');
  const mark = isRequired ? h('span', { class: 'req', 'aria-hidden': 'true', text: ' *' }) : null;
  const nameTag = name !== title ? h('code', { class: 'arg-name', text: name }) : null;
  let input;
  let read;
  let targets;
  let labelled;

  if (kind === 'multi') {
    const defaults = new Set(Array.isArray(p.default) ? p.default : []);
    const boxes = opts.map((o) => {
      const b = h('input', { type: 'checkbox', value: o.value });
      b.checked = defaults.has(o.value);
      return b;
    });
    labelled = h('fieldset', { class: 'choices', 'aria-describedby': describedBy },
      h('legend', {}, title, mark, nameTag), boxes.map((b, i) => h('label', { class: 'check' }, b, ` ${opts[i].label}`)));
    targets = boxes;
    input = boxes[0];
    read = () => {
      const v = boxes.filter((b) => b.checked).map((b) => b.value);
      if (typeof p.minItems === 'number' && v.length < p.minItems) return { error: `Choose at least ${p.minItems}.` };
      if (typeof p.maxItems === 'number' && v.length > p.maxItems) return { error: `Choose at most ${p.maxItems}.` };
      return { value: v.length === 0 && !isRequired ? undefined : v };
    };
  } else if (kind === 'boolean') {
    input = h('input', { id, type: 'checkbox', 'aria-describedby': describedBy });
    input.checked = p.default === true;
    labelled = h('label', { class: 'check', for: id }, input, ` ${title}`, mark, nameTag);
    targets = [input];
    read = () => ({ value: input.checked });
  } else {
    if (kind === 'enum') {
      input = h('select', { id, 'aria-describedby': describedBy });
      const hasDefault = opts.some((o) => o.value === p.default);
      if (!isRequired || !hasDefault) input.append(h('option', { value: '', text: isRequired ? '— choose —' : '(not set)' }));
      for (const o of opts) {
        const opt = h('option', { text: o.label });
        opt.value = o.value;
        input.append(opt);
      }
      if (hasDefault) input.value = p.default;
      read = () => (input.value === '' ? (isRequired ? { error: 'Choose one.' } : { value: undefined }) : { value: input.value });
    } else {
      const numeric = kind === 'number';
      input = h('input', { id, type: 'text', inputmode: numeric ? (p.type === 'integer' ? 'numeric' : 'decimal') : null, autocomplete: 'off', 'aria-describedby': describedBy });
      if (p.default !== undefined && p.default !== null && typeof p.default !== 'object') input.value = String(p.default);
      read = () => {
        const raw = input.value;
        if (raw.trim() === '') return isRequired ? { error: 'Required.' } : { value: undefined };
        if (!numeric) {
          const n = [...raw].length;
          if (typeof p.minLength === 'number' && n < p.minLength) return { error: `At least ${p.minLength} characters.` };
          if (typeof p.maxLength === 'number' && n > p.maxLength) return { error: `At most ${p.maxLength} characters.` };
          return { value: raw };
        }
        const x = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
        if (!Number.isFinite(x)) return { error: p.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
        if (p.type === 'integer' && !Number.isInteger(x)) return { error: 'Enter a whole number.' };
        const lo = p.minimum ?? (typeof p.exclusiveMinimum === 'number' ? p.exclusiveMinimum : undefined);
        const hi = p.maximum ?? (typeof p.exclusiveMaximum === 'number' ? p.exclusiveMaximum : undefined);
        if ((typeof p.minimum === 'number' && x < p.minimum) || (typeof p.exclusiveMinimum === 'number' && x <= p.exclusiveMinimum)
          || (typeof p.maximum === 'number' && x > p.maximum) || (typeof p.exclusiveMaximum === 'number' && x >= p.exclusiveMaximum)) {
          return { error: `Out of range (${lo ?? '…'} to ${hi ?? '…'}).` };
        }
        return { value: x };
      };
    }
    if (isRequired) input.setAttribute('aria-required', 'true');
    labelled = h('div', {}, h('label', { for: id, class: 'field-label' }, title, mark, nameTag), input);
    targets = [input];
  }
  const node = h('div', { class: 'field' }, labelled, desc, err);
  return {
    name,
    node,
    read,
    focus: () => input && input.focus(),
    show(message) {
      err.hidden = !message;
      err.textContent = message || '';
      for (const t of targets) {
        if (message) t.setAttribute('aria-invalid', 'true');
        else t.removeAttribute('aria-invalid');
      }
    },
  };
}
