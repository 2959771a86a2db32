// Bundles a worker as Wrangler does (esbuild, ESM, `workerd` conditions), keeping every
// `.wasm` import a separate module (Wrangler's default rule: `**/*.wasm` -> CompiledWasm):
// the import is rewritten to the file's base name, the file copied beside the bundle, and
// config.capnp lists it as a `wasm` module of that name. `mcp-wasm-client` is resolved as an
// installed package (a node_modules symlink to pkg/), through its package.json exports.
//
//   node tests/runtimes/workerd/bundle.mjs [entry] [outdir]
//   (defaults: tests/runtimes/workerd/worker.js, test-output/runtimes/workerd)
import { copyFile, mkdir, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Bundles `entry` into `outdir`/worker.js; resolves with the names of the wasm modules.
 * `extra`: more esbuild options (bench/edge.mjs sets an `alias`).
 */
export async function bundleWorker(entry = join(ROOT, 'tests/runtimes/workerd/worker.js'), outdir = join(ROOT, 'test-output/runtimes/workerd'), extra = {}) {
  const { build } = await import('esbuild');
  await rm(outdir, { recursive: true, force: true });
  const modules = join(outdir, 'node_modules');
  await mkdir(modules, { recursive: true });
  await symlink(join(ROOT, 'pkg'), join(modules, 'mcp-wasm-client'), 'dir');
  const wasm = new Map();
  await build({
    entryPoints: [entry],
    outfile: join(outdir, 'worker.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    nodePaths: [modules, join(ROOT, 'node_modules')],
    logLevel: 'warning',
    ...extra,
    plugins: [{
      name: 'compiled-wasm',
      setup(b) {
        b.onResolve({ filter: /\.wasm$/ }, async (args) => {
          if (args.pluginData === 'wasm') return undefined;
          const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'wasm' });
          if (r.errors.length) return { errors: r.errors };
          wasm.set(basename(r.path), r.path);
          return { path: `./${basename(r.path)}`, external: true };
        });
      },
    }],
  });
  for (const [name, file] of wasm) await copyFile(file, join(outdir, name));
  return [...wasm.keys()];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, outdir] = process.argv.slice(2);
  const names = await bundleWorker(entry && resolve(entry), outdir && resolve(outdir));
  console.log(`bundled; wasm modules: ${names.join(', ') || 'none'}`);
}
