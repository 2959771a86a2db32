// Our client as built at another revision, for before/after comparisons (bench/compare.mjs):
// the package in BASELINE_PKG (default bench/out/pkg-baseline, e.g. a copy of pkg/ made
// before a change), behind the same interface as ours.js.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = process.env.BASELINE_PKG
  ? resolve(process.env.BASELINE_PKG)
  : fileURLToPath(new URL('../out/pkg-baseline/', import.meta.url));
const { McpClient } = await import(pathToFileURL(`${dir}/index.js`).href);

export const name = 'baseline';

export async function open(url, opts = {}) {
  const client = new McpClient(url, {
    clientInfo: { name: 'bench', version: '1.0.0' },
    ...(opts.tasks ? { extensions: ['io.modelcontextprotocol/tasks'] } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  return { client, call: (tool, args) => client.callTool(tool, args), listTools: () => client.listTools() };
}
