// The agent console. It uses only the package's public API: /pkg/index.js and
// /pkg/dialog/index.js (what `mcp-wasm-client` and `mcp-wasm-client/dialog` resolve to).
import { McpClient, version } from '/pkg/index.js';
import { showElicitationDialog } from '/pkg/dialog/index.js';
import { buildArgsForm } from './lib/args-form.js';
import { CallCard } from './lib/card.js';
import { h } from './lib/dom.js';
import { inTurn, onWaitingChange } from './lib/queue.js';
import { errorWords } from './lib/render.js';
import { SamplingDeclinedError, showSamplingDialog } from './lib/sampling-dialog.js';
import { SignIn, canSignIn, takeReturn } from './lib/signin.js';

const $ = (id) => document.getElementById(id);
const TASKS = 'io.modelcontextprotocol/tasks';

let client = null;
/** The server's own name (serverInfo), for the status line and notices. */
let serverName = '';
/** Who asks, in the dialogs: the host of the URL the person connected to. Never the
 *  server's own name, which it may choose to imitate another (the elicitation spec: clients
 *  MUST show clearly which server requests the information). */
let serverHost = '';
/** taskId -> the card of that task (to say in a dialog which task asks). */
const taskCards = new Map();
const cards = new Set();

function status(text, kind = 'info', err = null) {
  $('status').textContent = text;
  $('status').dataset.kind = kind;
  $('status').dataset.error = err && err.name ? err.name : '';
}

// ------------------------------------------------------------------------------ questions

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

function onElicitation(request, ctx) {
  const card = ctx.taskId ? taskCards.get(ctx.taskId) : null;
  const title = card ? `Input for “${card.tool.title || card.tool.name}”` : undefined;
  return inTurn(ctx.signal, () => showElicitationDialog(request, ctx, { title }), () => ({ action: 'cancel' }))
    .then((answer) => {
      if (ctx.signal.aborted) notice('A question was withdrawn before you answered it (its call or task ended).');
      else if (answer.action === 'decline') notice(`You declined a question from ${serverName}; the server was told “decline”.`);
      else if (answer.action === 'cancel') notice(`You closed a question from ${serverName} without answering; the server was told “cancel”.`);
      else notice('');
      return answer;
    });
}

/** The host of the server that asks (its client's URL), else the one connected to. */
function askerHost(ctx) {
  try {
    return new URL(ctx.serverUrl).host;
  } catch {
    return serverHost;
  }
}

function onSampling(request, ctx) {
  return inTurn(ctx.signal, () => showSamplingDialog(request, ctx, askerHost(ctx)), () => {
    throw new SamplingDeclinedError();
  }).then((reply) => {
    notice('');
    return reply;
  }, (err) => {
    notice(ctx.signal.aborted ? 'A model request was withdrawn before you answered it.' : `You declined a model request from ${serverName}.`);
    throw err;
  });
}

onWaitingChange((n) => {
  $('waiting').hidden = n === 0;
  $('waiting').textContent = n === 1 ? '1 more question is waiting for you.' : `${n} more questions are waiting for you.`;
});

// ------------------------------------------------------------------------------ connecting

function checkUrl(text) {
  let url;
  try {
    url = new URL(text.trim());
  } catch {
    return 'That is not a URL. Enter the server’s MCP endpoint, like http://127.0.0.1:3000/mcp.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `The server URL must start with http:// or https:// (not ${url.protocol}).`;
  }
  return null;
}

/** `returned`: the URL a redirect sign-in came back with (lib/signin.js). */
async function connect(text, returned = null) {
  const problem = checkUrl(text);
  if (problem) {
    status(problem, 'error');
    $('server-url').setAttribute('aria-invalid', 'true');
    $('server-url').focus();
    return;
  }
  $('server-url').removeAttribute('aria-invalid');
  const url = text.trim();
  if (client) client.close(); // calls still running on the old server end with AbortError
  $('server').hidden = true;
  $('tools').hidden = true;
  status(`Connecting to ${url}…`);
  // A static Authorization header (API-key servers), else the OAuth sign-in.
  const header = $('auth-header').value.trim();
  const signin = !header && canSignIn() ? new SignIn($('signin'), url, { returned, onSignOut: () => connect(url) }) : null;
  if (!signin) $('signin').hidden = true;
  let next;
  try {
    next = new McpClient(url, {
      ...(header ? { headers: { Authorization: header } } : {}),
      ...(signin ? { auth: signin.auth } : {}),
      clientInfo: { name: 'mcp-wasm-client-console', version: version(), title: 'MCP agent console' },
      extensions: [TASKS],
      elicitation: { form: true, url: true },
      onElicitation,
      onSampling,
      onWarning: (message) => console.warn('mcp-wasm-client:', message),
    });
  } catch (err) {
    client = null;
    status(`Could not connect. ${errorWords(err, { url })}`, 'error', err);
    return;
  }
  client = next;
  serverHost = new URL(url).host;
  try {
    const info = await next.discover();
    if (client !== next) return;
    const si = info.serverInfo || {};
    serverName = si.title || si.name || new URL(url).host;
    showServer(info, next);
    const tools = await next.listAllTools();
    if (client !== next) return;
    showTools(tools);
    const resumed = await resume(next, tools);
    if (client !== next) return;
    const more = resumed ? `; ${resumed} task${resumed === 1 ? '' : 's'} resumed` : '';
    status(`Connected to ${serverName}: ${tools.length} tool${tools.length === 1 ? '' : 's'}${more}.`, 'ok');
  } catch (err) {
    if (client !== next) return;
    status(`Could not connect. ${errorWords(err, { url })}`, 'error', err);
  }
}

function showServer(info, c) {
  const si = info.serverInfo || {};
  const tasks = Boolean(info.capabilities && info.capabilities.extensions && info.capabilities.extensions[TASKS]);
  const rows = [
    ['Name', si.title ? `${si.title} (${si.name})` : si.name || '?'],
    ['Version', si.version || '?'],
    ['Era', `${c.era} (protocol ${c.protocolVersion})`],
    ['Tasks', tasks ? 'supported' : 'not supported'],
  ];
  $('server-info').replaceChildren(...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: String(v) })]));
  const about = [si.description && ['About', si.description], info.instructions && ['Instructions', info.instructions]].filter(Boolean);
  $('server-about').hidden = about.length === 0;
  $('server-about').replaceChildren(h('summary', { text: 'About this server' }),
    ...about.map(([k, v]) => h('p', {}, h('span', { class: 'muted', text: `${k}: ` }), String(v))));
  $('server').hidden = false;
}

// ------------------------------------------------------------------------------ tools

function showTools(tools) {
  $('tool-list').replaceChildren(...tools.map(toolItem));
  $('tools').hidden = false;
}

function toolItem(tool) {
  const editor = buildArgsForm(tool);
  const form = h('form', { class: 'tool-form', novalidate: true }, editor.node,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', text: 'Run' })));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const r = editor.read();
    if (r.ok) run(tool, r.args);
  });
  const hints = [];
  if (tool.outputSchema) hints.push('structured output');
  if (tool.annotations && tool.annotations.readOnlyHint) hints.push('read-only');
  if (editor.mode === 'json') hints.push('JSON arguments');
  return h('details', { class: 'tool', 'data-tool': tool.name },
    h('summary', {}, h('span', { class: 'tool-title', text: tool.title || tool.name }), ' ',
      h('code', { class: 'tool-name', text: tool.name }), hints.map((t) => h('span', { class: 'tag', text: t }))),
    tool.description ? h('p', { class: 'tool-description', text: tool.description }) : null,
    form);
}

// ------------------------------------------------------------------------------ running

async function run(tool, args) {
  const c = client;
  const card = addCard(new CallCard(tool, args));
  const abort = new AbortController();
  card.onCancel = () => {
    card.cancelling();
    abort.abort();
  };
  try {
    const task = await c.callToolAsTask(tool.name, args, { signal: abort.signal, onProgress: (p) => card.progress(p) });
    if (task.isLocal) {
      card.done(task.result);
      return;
    }
    await follow(c, card, task);
  } catch (err) {
    card.fail(err);
  }
}

function addCard(card) {
  cards.add(card);
  $('empty').hidden = true;
  $('cards').prepend(card.node);
  return card;
}

/** Waits on `task` with its card: live status, Cancel, then the result or the error. */
async function follow(c, card, task) {
  card.becameTask(task);
  taskCards.set(task.taskId, card);
  card.onCancel = async () => {
    card.cancelling();
    try {
      await c.cancelTask(task);
    } catch (err) {
      card.note(`Could not cancel: ${errorWords(err)}`);
    }
  };
  try {
    const final = await c.waitForTask(task, { onStatus: (t) => card.update(t) });
    card.update(final);
    card.done(final.result);
  } catch (err) {
    card.fail(err);
  } finally {
    taskCards.delete(task.taskId);
  }
}

/**
 * The tasks this browser started on this server that have not finished (kept in
 * IndexedDB by the client): after a reload, or in a second tab, each gets its card back
 * and is waited on again; its open questions come back to the dialog (the client never
 * asks again what was already answered).
 */
async function resume(c, tools) {
  let tasks;
  try {
    tasks = await c.resumeTasks();
  } catch (err) {
    console.warn('mcp-wasm-client: resumeTasks', err);
    return 0;
  }
  for (const task of tasks) {
    if (client !== c) return 0;
    const tool = tools.find((t) => t.name === task.toolName) || { name: task.toolName || 'task' };
    const card = addCard(new CallCard(tool, undefined, { resumed: true }));
    follow(c, card, task);
  }
  return tasks.length;
}

setInterval(() => {
  for (const card of cards) {
    card.tick();
    if (card.task && client) card.polledElsewhere(client.isPolledElsewhere(card.task));
    if (!card.live) cards.delete(card);
  }
}, 250);

// ------------------------------------------------------------------------------ start

$('connect').addEventListener('submit', (e) => {
  e.preventDefault();
  connect($('server-url').value);
});
$('version').textContent = `mcp-wasm-client ${version()}`;

let defaultUrl = '';
try {
  defaultUrl = (await (await fetch('/config.json')).json()).serverUrl || '';
} catch {
  // No config: the person types a URL.
}
const back = takeReturn(); // back from a redirect sign-in: finish it on that server
$('server-url').value = back ? back.serverUrl : defaultUrl;
if (back) connect(back.serverUrl, back.callbackUrl);
else if (defaultUrl) connect(defaultUrl);
else status('Enter the URL of an MCP server and connect.');
