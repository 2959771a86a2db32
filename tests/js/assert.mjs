// Assertions and small helpers shared by the JS-level suites (tests/js/suite.mjs,
// tests/faults/harness.mjs, tests/legacy/suite.mjs). Plain ES module: imported in Node and,
// by its path under the repository root, in the Chromium pages.

export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AssertionError';
  }
}
export const show = (v) => {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
};
export function ok(cond, msg) {
  if (!cond) throw new AssertionError(msg || 'assertion failed');
}
/** Deep equality of JSON-like values (object key order does not matter). */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
}
export function eq(actual, expected, what = 'value') {
  if (!same(actual, expected)) throw new AssertionError(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}
/** `promise`, or an AssertionError when it does not settle within `ms`. */
export function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new AssertionError(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
