// The agent console. It uses only the package's public API.
import { McpClient } from '/pkg/index.js';

const $ = (id) => document.getElementById(id);
const status = (text, error = false) => { $('status').textContent = text; $('status').classList.toggle('error', error); };

async function defaultServer() {
  try { return (await (await fetch('/config.json')).json()).serverUrl || ''; } catch { return ''; }
}

async function connect(url) {
  status(`Connecting to ${url}…`);
  const client = new McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'] });
  const info = await client.discover();
  const dl = $('server-info');
  dl.replaceChildren();
  for (const [k, v] of [['Name', info.serverInfo?.title || info.serverInfo?.name || '?'], ['Version', info.serverInfo?.version || '?'], ['Era', `${client.era} (${client.protocolVersion})`]]) {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = v;
    dl.append(dt, dd);
  }
  $('server').hidden = false;
  const tools = await client.listAllTools();
  const ul = $('tool-list');
  ul.replaceChildren(...tools.map((t) => {
    const li = document.createElement('li');
    const name = document.createElement('span'); name.className = 'tool-name'; name.textContent = t.title || t.name;
    li.append(name, document.createTextNode(t.description ? ` — ${t.description}` : ''));
    return li;
  }));
  $('tools').hidden = false;
  status(`Connected: ${tools.length} tools.`);
}

$('connect').addEventListener('submit', (e) => {
  e.preventDefault();
  connect($('server-url').value).catch((err) => status(`${err.name}: ${err.message}`, true));
});

$('server-url').value = await defaultServer();
if ($('server-url').value) $('connect').requestSubmit();
