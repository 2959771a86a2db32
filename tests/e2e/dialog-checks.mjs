// The dialog's checks (src/web/package/dialog/checks.js) against the vectors the client's
// own checker is tested against (tests/fixtures/elicitation-vectors.json; the Rust side is
// the test `shared_vectors` in src/schema/elicitation/tests.rs). Plain Node, no DOM, no
// server, no build: `node tests/e2e/dialog-checks.mjs` (tests/e2e/run.sh runs it).
// One PASS/FAIL line; exit status 1 when the dialog and the client disagree on a vector.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fieldProblem, parseNumber } from '../../src/web/package/dialog/checks.js';

const ROOT = join(fileURLToPath(import.meta.url), '../../..');
const { vectors } = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/elicitation-vectors.json'), 'utf8'));

/**
 * The fields at fault in an accepted `content`, as the dialog judges them: each field's
 * answer through fieldProblem. A field left out gets its default when the default is a
 * valid answer (the dialog pre-fills it; SEP-1034), null is a field left empty, and a
 * member the form does not define is at fault (the dialog never sends one).
 */
function fieldsAtFault(schema, content) {
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const out = Object.keys(content).filter((k) => !Object.hasOwn(props, k));
  for (const [name, s] of Object.entries(props)) {
    let v = content[name];
    if (!Object.hasOwn(content, name) && s.default != null && fieldProblem(s, s.default, false) === null) v = s.default;
    if (fieldProblem(s, v, required.has(name)) !== null) out.push(name);
  }
  return out.sort();
}

const failures = [];
for (const v of vectors) {
  const got = fieldsAtFault(v.schema, v.content);
  const want = [...v.errors].sort();
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    failures.push(`${v.name}: the dialog finds ${JSON.stringify(got)} at fault, the client ${JSON.stringify(want)}`);
  }
}
if (vectors.length < 100) failures.push(`only ${vectors.length} vectors`);

// The dialog's own limit (not a vector: the client takes any JSON integer): a number typed
// past 2^53 cannot be held exactly, so it is refused rather than sent rounded.
for (const [typed, ok] of [['9007199254740993', false], ['9007199254740992', false], ['-9007199254740992', false],
  ['12345678901234567890', false], ['1e20', false], ['9007199254740991', true], ['-9007199254740991', true], ['42', true]]) {
  const problem = fieldProblem({ type: 'integer' }, parseNumber(typed), true);
  if ((problem === null) !== ok) failures.push(`integer typed ${typed}: ${problem === null ? 'accepted' : `refused (${problem})`}`);
  else if (!ok && !/9007199254740991/.test(problem)) failures.push(`integer typed ${typed}: the message does not say the range: ${problem}`);
}
if (failures.length === 0) {
  console.log(`PASS dialog checks: ${vectors.length} vectors, the same verdicts as the client's checker; integers past 2^53 refused`);
} else {
  console.log(`FAIL dialog checks: ${failures.length} failed (of ${vectors.length} vectors and the integer limit):\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}
