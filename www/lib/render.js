// Rendering what a server returned: content blocks, structured content as a collapsible
// tree, and errors in plain words (chosen by error.name). All peer strings are text.

import { h } from './dom.js';
import { authorizationWords } from './signin.js';

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif)$/;
const AUDIO_TYPES = /^audio\/(mpeg|mp3|wav|x-wav|ogg|webm)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT = 20_000;
const MAX_TREE_NODES = 400;

const clip = (s, n = MAX_TEXT) => (s.length > n ? `${s.slice(0, n)}… (${s.length - n} more characters)` : s);

/** One content block of a CallToolResult. */
export function contentBlock(block) {
  if (!block || typeof block !== 'object') return h('p', { class: 'muted', text: '(an empty content block)' });
  switch (block.type) {
    case 'text':
      return h('pre', { class: 'text', text: clip(String(block.text ?? '')) });
    case 'image': {
      const mime = String(block.mimeType || '');
      const data = String(block.data || '');
      if (!IMAGE_TYPES.test(mime) || !BASE64.test(data)) return h('p', { class: 'muted', text: `(an image of type “${clip(mime, 60)}” that the console does not show)` });
      return h('figure', { class: 'image' }, h('img', { src: `data:${mime};base64,${data}`, alt: `Image returned by the tool (${mime})` }));
    }
    case 'audio': {
      const mime = String(block.mimeType || '');
      const data = String(block.data || '');
      if (!AUDIO_TYPES.test(mime) || !BASE64.test(data)) return h('p', { class: 'muted', text: `(audio of type “${clip(mime, 60)}” that the console does not play)` });
      return h('audio', { controls: true, src: `data:${mime};base64,${data}` });
    }
    case 'resource_link':
      return h('p', { class: 'resource' }, 'Resource link: ', h('code', { text: clip(String(block.uri ?? ''), 500) }), block.name ? ` (${clip(String(block.name), 200)})` : '');
    case 'resource': {
      const r = block.resource || {};
      const body = typeof r.text === 'string' ? h('pre', { class: 'text', text: clip(r.text) }) : h('p', { class: 'muted', text: `(${r.mimeType || 'binary'} content)` });
      return h('div', { class: 'resource' }, h('p', {}, 'Resource ', h('code', { text: clip(String(r.uri ?? ''), 500) })), body);
    }
    default:
      return h('p', { class: 'muted', text: `(a “${clip(String(block.type), 40)}” block)` });
  }
}

/** A JSON value as a collapsible tree (<details> per object/array). */
export function tree(value, label = 'structuredContent') {
  let budget = MAX_TREE_NODES;
  const node = (key, v, depth) => {
    if (--budget < 0) return h('li', { class: 'muted', text: '…' });
    const k = key === null ? null : h('span', { class: 'tree-key', text: `${key}: ` });
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
      const size = Array.isArray(v) ? `[${entries.length}]` : `{${entries.length}}`;
      return h('li', {}, h('details', { open: depth < 2 }, h('summary', {}, k, h('span', { class: 'tree-size', text: size })),
        h('ul', { class: 'tree' }, entries.map(([ck, cv]) => node(ck, cv, depth + 1)))));
    }
    const kind = v === null ? 'null' : typeof v;
    return h('li', {}, k, h('span', { class: `tree-${kind}`, text: kind === 'string' ? JSON.stringify(clip(v, 2000)) : String(v) }));
  };
  return h('ul', { class: 'tree root' }, node(label, value, 0));
}

/** A CallToolResult. */
export function callResult(result) {
  const out = [];
  if (!result || typeof result !== 'object') return [h('p', { class: 'muted', text: '(no result)' })];
  if (result.isError) out.push(h('p', { class: 'error-text', text: 'The tool reported an error:' }));
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const b of blocks) out.push(contentBlock(b));
  if (result.structuredContent !== undefined) out.push(h('div', { class: 'structured' }, tree(result.structuredContent)));
  if (blocks.length === 0 && result.structuredContent === undefined) out.push(h('p', { class: 'muted', text: '(an empty result)' }));
  return out;
}

/** An error in plain words. `task`: the error ended a task. */
export function errorWords(e, { task = false, url = '' } = {}) {
  const name = e && e.name ? e.name : 'Error';
  const msg = clip(String((e && e.message) || e), 2000);
  switch (name) {
    case 'AbortError': return 'Cancelled: the call was stopped before it finished.';
    case 'TaskCancelledError': return 'The task was cancelled.';
    case 'NetworkError': return `Could not reach the server${url ? ` at ${url}` : ''}. Is it running, and is the address right? (${msg})`;
    case 'CorsError': return e.data && e.data.url
      ? `The browser blocked the request to ${e.data.url} (CORS): that server must send ${(e.data.required || []).join('; ')}. (${msg})`
      : `The browser blocked the exchange (CORS): the server must allow this page's origin. (${msg})`;
    case 'AuthorizationError': return authorizationWords(e, msg);
    case 'HttpError': return `The server answered with HTTP status ${e.status ?? '?'}. (${msg})`;
    case 'TimeoutError': return `The server took too long; the call was stopped. (${msg})`;
    case 'McpError': return task ? `The task failed: ${msg}` : `The server answered with an error${e.code !== undefined ? ` (code ${e.code})` : ''}: ${msg}`;
    case 'MissingRequiredClientCapabilityError': return `The server needs a client capability this console did not declare: ${msg}`;
    case 'UnsupportedProtocolVersionError': return `The server and this client share no protocol version. (${msg})`;
    case 'InvalidResultError': return `The server's answer is not valid: ${msg}`;
    case 'ProtocolError': return `The server broke the transport rules: ${msg}`;
    case 'OutputValidationError': return `The tool's structured result does not match its output schema: ${msg}`;
    case 'InputRequiredError': return `The server's questions could not be answered: ${msg}`;
    case 'InputValidationError': return `An answer did not fit what the server asked, so nothing was sent: ${msg}`;
    case 'CapabilityError': return `A required capability is missing: ${msg}`;
    case 'TaskNotFoundError': return `The server no longer knows this task. (${msg})`;
    case 'TaskExpiredError': return 'The task expired: its time to live passed before it finished.';
    case 'TaskTimeoutError': return 'Stopped waiting; the task keeps running on the server.';
    case 'TaskError': return `That does not apply to this task: ${msg}`;
    case 'ConfigError': return `Invalid setting: ${msg}`;
    case 'SamplingDeclinedError': return 'You declined the model request, so the call stopped.';
    default: return `${name}: ${msg}`;
  }
}
