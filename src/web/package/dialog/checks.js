// The checks of a form field's answer, as the dialog applies them. The model of a form
// schema is the client's checker (src/schema/elicitation.rs, formats.rs): these checks
// refuse exactly what it refuses, so an answer the dialog lets through is one the client
// sends. Pure (no DOM); both are tested against the same vectors
// (tests/fixtures/elicitation-vectors.json: tests/e2e/dialog-checks.mjs here, the test
// `shared_vectors` in src/schema/elicitation/tests.rs there).

/** The property's options for a single or multi select: [{value, label}] or null. */
export function choices(s) {
  if (!s || typeof s !== 'object') return null;
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    return s.enum.filter((v) => typeof v === 'string').map((v, i) => ({ value: v, label: typeof names[i] === 'string' ? names[i] : v }));
  }
  const list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  if (!list) return null;
  return list.filter((o) => o && typeof o.const === 'string').map((o) => ({ value: o.const, label: typeof o.title === 'string' ? o.title : o.const }));
}

/**
 * The problem with one field's answer (a message for the person), or null. `value` is what
 * the dialog sends for the field: undefined (or null) when it is left empty.
 */
export function fieldProblem(s, value, isRequired) {
  const type = s.type;
  const opts = type === 'string' ? choices(s) : type === 'array' ? choices(s.items) : null;
  if (value === undefined || value === null) {
    if (!isRequired) return null;
    return opts && type === 'string' ? 'Please choose one.' : 'This field is required.';
  }
  const isOption = (v) => opts.some((o) => o.value === v);
  if (type === 'array') {
    if (!Array.isArray(value)) return 'Choose from the options.';
    if (!value.every((v) => typeof v === 'string' && isOption(v))) return 'Please choose from the options.';
    if (new Set(value).size !== value.length) return 'An option is chosen twice.';
    return countProblem(value.length, s.minItems, s.maxItems);
  }
  if (type === 'boolean') return typeof value === 'boolean' ? null : 'Choose yes or no.';
  if (type === 'string') {
    if (typeof value !== 'string') return 'Enter text.';
    if (opts) return isOption(value) ? null : 'Please choose one of the options.';
    return stringProblem(value, s);
  }
  // number, integer
  if (typeof value !== 'number' || !Number.isFinite(value)) return type === 'integer' ? 'Enter a whole number.' : 'Enter a number.';
  if (type === 'integer' && !Number.isInteger(value)) return 'Enter a whole number.';
  // Past 2^53 a typed integer cannot be held exactly (9007199254740993 would be sent as
  // ...992): refused rather than sent rounded. The dialog's own limit, not the client's.
  if (type === 'integer' && !Number.isSafeInteger(value)) return 'Enter a whole number from -9007199254740991 to 9007199254740991.';
  return rangeProblem(value, s.minimum, s.maximum);
}

/** A number typed in a text box, or null when it is not one. */
export function parseNumber(raw) {
  const t = raw.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const x = Number(t);
  return Number.isFinite(x) ? x : null;
}

function rangeProblem(x, min, max) {
  const lo = typeof min === 'number' ? min : null;
  const hi = typeof max === 'number' ? max : null;
  if ((lo !== null && x < lo) || (hi !== null && x > hi)) {
    if (lo !== null && hi !== null) return `Enter a value from ${lo} to ${hi}.`;
    return lo !== null ? `Enter ${lo} or more.` : `Enter ${hi} or less.`;
  }
  return null;
}

function countProblem(n, min, max) {
  if (typeof min === 'number' && n < min) return min === 1 ? 'Choose at least one.' : `Choose at least ${min}.`;
  if (typeof max === 'number' && n > max) return max === 1 ? 'Choose at most one.' : `Choose at most ${max}.`;
  return null;
}

function stringProblem(v, s) {
  // Lengths count code points, as JSON Schema (and the client) do.
  const len = [...v].length;
  if (typeof s.minLength === 'number' && len < s.minLength) return `Enter at least ${s.minLength} characters.`;
  if (typeof s.maxLength === 'number' && len > s.maxLength) return `Enter at most ${s.maxLength} characters (now ${len}).`;
  switch (s.format) {
    case 'email': return isEmail(v) ? null : 'Enter an email address, like name@example.com.';
    case 'uri': return isUri(v) ? null : 'Enter a full address with its scheme, like https://example.com/.';
    case 'date': return isDate(v) ? null : 'Enter a real date as YYYY-MM-DD.';
    case 'date-time': return isDateTime(v) ? null : 'Enter a date and time like 2026-01-31T09:30:00Z (with Z or an offset like +02:00).';
    default: return null;
  }
}

// ------------------------------------------------------------------------------ formats
// The same rules as src/schema/formats.rs (the client refuses what these refuse).

const utf8Length = (s) => new TextEncoder().encode(s).length;

function isEmail(s) {
  const at = s.indexOf('@');
  if (at < 0) return false;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  const localOk = local.length > 0 && utf8Length(local) <= 64 && !local.startsWith('.') && !local.endsWith('.')
    && !local.includes('..') && [...local].every((c) => !/^[\p{White_Space}\p{Cc}]$/u.test(c) && !'()<>[]:;@\\,"'.includes(c));
  const labelsOk = utf8Length(domain) <= 253 && domain.split('.').every((l) => l.length > 0 && utf8Length(l) <= 63
    && !l.startsWith('-') && !l.endsWith('-') && [...l].every((c) => /^[A-Za-z0-9-]$/.test(c) || c.charCodeAt(0) > 0x7f));
  return localOk && labelsOk && (domain.includes('.') || domain.toLowerCase() === 'localhost');
}

function isUri(s) {
  const colon = s.indexOf(':');
  if (colon < 0) return false;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(s.slice(0, colon))) return false;
  const rest = s.slice(colon + 1);
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (c === '%') {
      if (!/^[0-9A-Fa-f]{2}$/.test(rest.slice(i + 1, i + 3))) return false;
      i += 2;
    } else if (!/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]$/.test(c)) {
      return false;
    }
  }
  return true;
}

function daysInMonth(y, m) {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

function isDateTime(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m || s.length > 64) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return false;
  if (h > 23 || mi > 59 || sec > 60) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  return true;
}

function isDate(s) {
  return s.length === 10 && isDateTime(`${s}T00:00:00Z`);
}
