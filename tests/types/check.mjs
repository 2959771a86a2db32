// Type checks of the built package (pkg/ must exist):
//   1. tests/types/usage.ts, which uses every public signature, compiles with
//      `tsc --noEmit --strict`, the package resolved by name through its package.json
//      `exports` (installed as a symlink, like `npm install ./pkg`), once with
//      moduleResolution "bundler" and once with "nodenext";
//   2. no `any` in the public declarations (pkg/index.d.ts, pkg/load.d.ts,
//      pkg/mcp_wasm_client.d.ts, pkg/dialog/index.d.ts, pkg/react.d.ts, pkg/ai.d.ts), except wasm-bindgen's raw export table `InitOutput`.
// One PASS/FAIL line per check; exit status 1 on a failure.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OUT, ROOT } from '../e2e/lib.mjs';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const tsc = require.resolve('typescript/bin/tsc');
const run = promisify(execFile);
let failed = 0;
const report = (ok, line) => {
  if (!ok) failed += 1;
  console.log(`${ok ? 'PASS' : 'FAIL'} types: ${line}`);
};

const work = join(OUT, 'types');
await rm(work, { recursive: true, force: true });
await mkdir(join(work, 'node_modules'), { recursive: true });
await symlink(join(ROOT, 'pkg'), join(work, 'node_modules/mcp-wasm-client'), 'dir');
await cp(join(ROOT, 'tests/types/usage.ts'), join(work, 'usage.ts'));
await writeFile(join(work, 'package.json'), '{ "private": true, "type": "module" }\n');

// The two compiles run at once (tsc is single-threaded; the AI SDK's declarations make each ~25 s).
// types: ['node']: the AI SDK's declarations use Node's (Buffer, node:http) and json-schema's
// types, as an application using `ai` has them (@types/node, @types/json-schema are dev dependencies).
const compiled = await Promise.all(['bundler', 'nodenext'].map(async (resolution) => {
  const config = {
    compilerOptions: {
      strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022', 'ESNext.Disposable', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'],
      module: resolution === 'bundler' ? 'ESNext' : 'NodeNext', moduleResolution: resolution,
      skipLibCheck: false, types: ['node'], noUnusedLocals: false,
    },
    files: ['usage.ts'],
  };
  await writeFile(join(work, `tsconfig.${resolution}.json`), JSON.stringify(config, null, 2));
  let out = '';
  try {
    await run(process.execPath, [tsc, '-p', join(work, `tsconfig.${resolution}.json`), '--noEmit', '--strict'], { cwd: work });
  } catch (e) {
    out = (e.stdout || e.message).trim();
  }
  return [out === '', out === ''
    ? `usage.ts compiles with tsc --noEmit --strict (moduleResolution ${resolution})`
    : `usage.ts (moduleResolution ${resolution}):\n${out}`];
}));
for (const [ok, line] of compiled) report(ok, line);

const anys = [];
for (const file of ['index.d.ts', 'load.d.ts', 'mcp_wasm_client.d.ts', 'dialog/index.d.ts', 'react.d.ts', 'ai.d.ts']) {
  const path = join(ROOT, 'pkg', file);
  const source = ts.createSourceFile(path, await readFile(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node, owner) => {
    const name = node.name && ts.isIdentifier(node.name) ? node.name.text : null;
    const here = (ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node) || ts.isTypeAliasDeclaration(node)
      || ts.isFunctionDeclaration(node) || ts.isVariableStatement(node)) && name ? name : owner;
    if (node.kind === ts.SyntaxKind.AnyKeyword && here !== 'InitOutput') {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      anys.push(`pkg/${file}:${line + 1} (in ${here || 'top level'}): ${node.parent.getText().slice(0, 120)}`);
    }
    ts.forEachChild(node, (child) => visit(child, here));
  };
  visit(source, null);
}
report(anys.length === 0, anys.length === 0
  ? 'no `any` in the public declarations'
  : `\`any\` in the public declarations:\n  ${anys.join('\n  ')}`);

process.exit(failed === 0 ? 0 : 1);
