// A tiny app bundled by Vite: it imports the package by name, as an app that ran
// `npm install mcp-wasm-client` would.
import * as mcp from 'mcp-wasm-client';
import { showElicitationDialog } from 'mcp-wasm-client/dialog';
import { probe } from './probe.js';

const out = document.getElementById('result');
const url = new URLSearchParams(location.search).get('mcp');
probe(mcp, url, 'vite')
  .then((r) => `${r} | dialog ${typeof showElicitationDialog}`)
  .catch((e) => `ERROR ${e && e.name}: ${e && e.message}`)
  .then((text) => {
    out.textContent = text;
    out.dataset.done = 'true';
  });
