// The npm package as `npm pack` would publish it: every file package.json promises is in
// the tarball (the licence it declares above all), and nothing from outside pkg/.
// Run by tests/e2e/run.sh after scripts/build.sh; exits non-zero with the reason.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const pkgDir = new URL('../../pkg/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', pkgDir), 'utf8'));
const [report] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: pkgDir,
    encoding: 'utf8',
  }),
);
const files = new Set(report.files.map((f) => f.path));
const must = ['LICENSE', 'README.md', 'package.json', 'index.js', 'index.d.ts', 'load.js',
  'load.d.ts', 'mcp_wasm_client_bg.wasm', 'dialog/index.js', 'react.js', 'react.d.ts', 'ai.js', 'ai.d.ts',
  // mcp-wasm-client/modern (2026-07-28 only): its entry, types, glue and module.
  'modern/index.js', 'modern/index.d.ts', 'modern/load.js', 'modern/mcp_wasm_client.js',
  'modern/mcp_wasm_client_bg.wasm'];
const missing = must.filter((f) => !files.has(f));
const problems = [];
if (missing.length) problems.push(`missing from the tarball: ${missing.join(', ')}`);
// The framework entries' peers are optional: installing the package never pulls React or ai.
for (const peer of ['react', 'ai']) {
  if (!manifest.peerDependencies?.[peer] || manifest.peerDependenciesMeta?.[peer]?.optional !== true) {
    problems.push(`${peer} is not an optional peer dependency`);
  }
  if (!manifest.exports?.[`./${peer}`]) problems.push(`no ./${peer} in exports`);
}
if (!manifest.exports?.['./modern']) problems.push('no ./modern in exports');
if (manifest.license !== 'Apache-2.0') problems.push(`license is ${manifest.license}`);
const licence = readFileSync(new URL('LICENSE', pkgDir), 'utf8');
if (!/Apache License\s+Version 2\.0/.test(licence)) problems.push('LICENSE is not the Apache-2.0 text');
if (problems.length) {
  console.error(`FAIL package contents: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(`PASS package contents: ${files.size} files, LICENSE (Apache-2.0) included`);
