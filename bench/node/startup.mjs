// Start-up in a fresh Node process: from just before the client's module is imported to
// the first listTools result (our wasm compile + instantiate included; the TypeScript
// client's connect() includes its server/discover). Prints one JSON line.
//   node bench/node/startup.mjs <ours|ts|raw> <url>
const t0 = performance.now();
const [client, url] = process.argv.slice(2);
const m = await import(`../clients/${client}.js`);
const tImported = performance.now();
const c = await m.open(url);
const { tools } = await c.listTools();
const t1 = performance.now();
if (!tools?.length) throw new Error('no tools');
console.log(JSON.stringify({ client, importMs: tImported - t0, totalMs: t1 - t0 }));
process.exit(0);
