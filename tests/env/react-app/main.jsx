// Mounts the example (App.jsx) in index.html: the server URL comes from `?mcp=`; the
// server's questions are asked with the package's ready-made dialog.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { showElicitationDialog } from 'mcp-wasm-client/dialog';
import { App } from './App.jsx';

// A module constant: the same object on every render, so one client.
const options = {
  clientInfo: { name: 'react-example', version: '1.0.0' },
  extensions: ['io.modelcontextprotocol/tasks'],
  onElicitation: (request, ctx) => showElicitationDialog(request, ctx),
};

const url = new URLSearchParams(location.search).get('mcp') ?? 'http://127.0.0.1:8000/mcp';
createRoot(document.getElementById('root')).render(<StrictMode><App url={url} options={options} /></StrictMode>);
