// The echo call of each client the Node probes run (bench/tools/node-loopback-parts.mjs,
// node-cachegrind.mjs), in this process: `ours` (pkg/, or PKG), `ours-b` (PKG_B: another
// build of ours, for an A/B; `ours-c` and so on with PKG_C, …), `ts`, `raw`, `fetch` (bench/lib/workload.js `fetchAsOurs`),
// and the probes `lean` and `lean-core` (the bench package, bench/build-bench-pkg.sh).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ARGS, fetchAsOurs } from './workload.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The call function of `client` against `url`, or null for a client not named above. */
export async function echoCall(client, url) {
  const other = /^ours-([a-z])$/.exec(client)?.[1];
  if (client === 'ours' || other) {
    const env = other && `PKG_${other.toUpperCase()}`;
    if (other && !process.env[env]) throw new Error(`the client ${client} needs ${env}=<pkg dir>`);
    const pkg = path.resolve(other ? process.env[env] : process.env.PKG || path.join(ROOT, 'pkg'));
    const { McpClient } = await import(pathToFileURL(path.join(pkg, 'index.js')).href);
    const c = new McpClient(url, { clientInfo: { name: 'bench', version: '1.0.0' } });
    return () => c.callTool('echo', ARGS);
  }
  if (client === 'ts' || client === 'raw') {
    const c = await (await import(`../clients/${client}.js`)).open(url);
    return () => c.call('echo', ARGS);
  }
  if (client === 'fetch') return fetchAsOurs(url).call;
  if (client === 'lean' || client === 'lean-core') {
    const wasm = readFileSync(path.join(ROOT, 'bench/out/pkg-bench/mcp_wasm_client_bg.wasm'));
    const c = await (await import(`../clients/${client}.js`)).open(url, { wasm });
    return () => c.call('echo', ARGS);
  }
  return null;
}
