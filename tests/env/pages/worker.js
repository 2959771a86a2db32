// A dedicated module worker: no window, no DOM; the package uses the worker's global scope.
import * as mcp from '/pkg/index.js';
import { probe } from '/env/probe.js';

const url = new URLSearchParams(self.location.search).get('mcp');
const text = await probe(mcp, url, 'worker').catch((err) => `ERROR ${err && err.name}: ${err && err.message}`);
self.postMessage(`${text} | window ${typeof window}`);
