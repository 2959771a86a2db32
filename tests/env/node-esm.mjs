// Node >= 20, plain ESM: the package imported by name from a directory where it is
// installed (node_modules/mcp-wasm-client -> pkg/), as `npm install ./pkg` does.
// The dialog entry must import without a DOM (it only needs one when called).
import * as mcp from 'mcp-wasm-client';
import { showElicitationDialog } from 'mcp-wasm-client/dialog';
import { probe } from './probe.js';

const text = await probe(mcp, process.argv[2], 'node').catch((e) => `ERROR ${e && e.name}: ${e && e.message}`);
console.log(`${text} | dialog ${typeof showElicitationDialog} | node ${process.versions.node.split('.')[0]}`);
