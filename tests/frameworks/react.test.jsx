// The React hooks (`mcp-wasm-client/react`) with React 19 and @testing-library/react, in
// headless Chromium against the test server. Bundled by esbuild (development React, so
// StrictMode mounts, unmounts and mounts again) and run by tests/frameworks/react.mjs,
// which prints one PASS/FAIL line per case from `window.__results`.
// Every client here has a counting `fetch`: each request is recorded with its JSON-RPC
// method and whether its signal was aborted, so "one client, no leaked request" is
// measured on the wire.
import { StrictMode, useEffect } from 'react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { McpClient } from 'mcp-wasm-client';
import { useMcpClient, useTask } from 'mcp-wasm-client/react';
import { App } from '../env/react-app/App.jsx';

const url = new URLSearchParams(location.search).get('mcp');
const results = [];
window.__results = results;

function assert(ok, what) {
  if (!ok) throw new Error(what);
}
const json = (v) => JSON.stringify(v);
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A fetch that records `{ method, aborted }` per request into `log`. */
function countingFetch(log) {
  return (input, init = {}) => {
    let method = '(none)';
    try {
      method = JSON.parse(init.body).method ?? '(response)';
    } catch { /* not JSON */ }
    const entry = { method, aborted: false };
    log.push(entry);
    init.signal?.addEventListener('abort', () => { entry.aborted = true; });
    return fetch(input, init);
  };
}
const count = (log, method) => log.filter((e) => e.method === method).length;
const aborted = (log) => log.filter((e) => e.aborted).map((e) => e.method);
/** Aborted requests once a wait has ENDED, but for the shared task stream: the client closes
 *  its `subscriptions/listen` (issue 14, push-driven tasks) by aborting that request as soon
 *  as no wait is left. While a wait runs, `aborted` itself must stay empty. */
const abortedAfterWait = (log) => aborted(log).filter((m) => m !== 'subscriptions/listen');

/** Client options with a counting fetch and an input handler that answers like a person would. */
function makeOptions(log, extra = {}) {
  return {
    clientInfo: { name: 'react-hooks-test', version: '1.0.0' },
    extensions: ['io.modelcontextprotocol/tasks'],
    fetch: countingFetch(log),
    onElicitation: async (request) => {
      const fields = Object.keys(request.requestedSchema?.properties ?? {});
      return { action: 'accept', content: fields.includes('age') ? { age: 36 } : { name: 'Ada' } };
    },
    ...extra,
  };
}

function Probe({ url: u, options, seen }) {
  const state = useMcpClient(u, options);
  seen?.push(state);
  return (
    <div>
      <p data-testid="status">{state.status}</p>
      <p data-testid="name">{state.serverInfo?.name ?? ''}</p>
      <p data-testid="tools">{state.tools.map((t) => t.name).join(',')}</p>
      <p data-testid="error">{state.error ? state.error.name : ''}</p>
    </div>
  );
}

const text = (id) => screen.getByTestId(id).textContent;
const toolNames = () => text('tools').split(',');

async function test(name, fn) {
  const t0 = performance.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: Math.round(performance.now() - t0) });
  } catch (e) {
    results.push({ name, ok: false, detail: `${e?.message ?? e}`.split('\n')[0].slice(0, 500) });
  } finally {
    cleanup();
    await tick(20); // lets a released client close
  }
}

/** Counts effect runs: StrictMode in development runs each twice (the premise of these tests). */
function MountCounter({ mounts }) {
  useEffect(() => {
    mounts.n += 1;
  }, [mounts]);
  return null;
}

await test('useMcpClient in StrictMode: one client, one discover/list/listen, nothing aborted; ready with serverInfo and tools', async () => {
  const log = [];
  const options = makeOptions(log);
  const seen = [];
  const mounts = { n: 0 };
  render(<StrictMode><MountCounter mounts={mounts} /><Probe url={url} options={options} seen={seen} /></StrictMode>);
  assert(mounts.n === 2, `StrictMode ran the effect ${mounts.n} times (a production React build?)`);
  assert(text('status') === 'connecting', `first status ${text('status')}`);
  await waitFor(() => assert(text('status') === 'ready', `status ${text('status')}`), { timeout: 10_000 });
  assert(text('name') === 'mcp-wasm-client-test-server', `serverInfo.name ${text('name')}`);
  assert(toolNames().includes('echo') && toolNames().includes('task_two_inputs'), `tools ${text('tools')}`);
  const clients = new Set(seen.map((s) => s.client).filter(Boolean));
  assert(clients.size === 1, `${clients.size} distinct clients rendered`);
  assert(count(log, 'server/discover') === 1, `server/discover sent ${count(log, 'server/discover')} times`);
  assert(count(log, 'tools/list') === 1, `tools/list sent ${count(log, 'tools/list')} times`);
  assert(count(log, 'subscriptions/listen') === 1, `subscriptions/listen sent ${count(log, 'subscriptions/listen')} times`);
  assert(aborted(log).length === 0, `aborted requests: ${json(aborted(log))}`);
});

await test('useMcpClient keeps tools current (tools/list_changed via listen); unmount closes the client', async () => {
  const log = [];
  const options = makeOptions(log);
  const seen = [];
  const view = render(<StrictMode><Probe url={url} options={options} seen={seen} /></StrictMode>);
  await waitFor(() => assert(text('status') === 'ready', `status ${text('status')}`), { timeout: 10_000 });
  const client = seen.at(-1).client;
  const name = `react_dyn_${Math.random().toString(36).slice(2, 8)}`;
  await act(() => client.callTool('add_tool', { name }));
  try {
    await waitFor(() => assert(toolNames().includes(name), `tools ${text('tools')}`), { timeout: 10_000 });
  } finally {
    await act(() => client.callTool('remove_tool', { name })); // the server is shared with other suites
  }
  await waitFor(() => assert(!toolNames().includes(name), `tools ${text('tools')}`), { timeout: 10_000 });
  assert(count(log, 'tools/list') === 3, `tools/list sent ${count(log, 'tools/list')} times (expected 3)`);
  assert(aborted(log).length === 0, `aborted while mounted: ${json(aborted(log))}`);
  view.unmount();
  await tick(50);
  assert(json(aborted(log)) === json(['subscriptions/listen']), `aborted after unmount: ${json(aborted(log))} (the listen stream only)`);
  let err = null;
  try {
    await client.listTools();
  } catch (e) {
    err = e;
  }
  assert(err !== null, 'the client still answers after unmount');
  assert(count(log, 'tools/list') === 3, 'a closed client sent tools/list');
});

await test('useMcpClient: one client per (url, options identity), shared and released', async () => {
  const log = [];
  const options = makeOptions(log);
  const other = makeOptions(log);
  const a = [];
  const b = [];
  const c = [];
  const view = render(
    <StrictMode>
      <Probe url={url} options={options} seen={a} />
      <Probe url={url} options={options} seen={b} />
      <Probe url={url} options={other} seen={c} />
    </StrictMode>,
  );
  await waitFor(() => assert(screen.getAllByTestId('status').every((n) => n.textContent === 'ready'), 'all ready'), { timeout: 10_000 });
  assert(a.at(-1).client === b.at(-1).client, 'same url and options: the same client');
  assert(a.at(-1).client !== c.at(-1).client, 'another options object: another client');
  assert(count(log, 'server/discover') === 2, `server/discover sent ${count(log, 'server/discover')} times (expected 2)`);
  // Unmounting one of two users keeps the shared client; the options change makes a new one.
  view.rerender(<StrictMode><Probe url={url} options={options} seen={a} /></StrictMode>);
  await tick(50);
  assert(aborted(log).filter((m) => m === 'subscriptions/listen').length === 1, `one listen closed: ${json(aborted(log))}`);
  assert(screen.getByTestId('status').textContent === 'ready', 'still ready');
  assert(count(log, 'server/discover') === 2, 'no new discover');
});

await test('useMcpClient: an unreachable server is status error (NetworkError); refresh tries again', async () => {
  const log = [];
  const options = makeOptions(log);
  const seen = [];
  render(<StrictMode><Probe url="http://127.0.0.1:9/mcp" options={options} seen={seen} /></StrictMode>);
  await waitFor(() => assert(text('status') === 'error', `status ${text('status')}`), { timeout: 10_000 });
  assert(text('error') === 'NetworkError', `error ${text('error')}`);
  const before = log.length;
  await act(() => seen.at(-1).refresh());
  await waitFor(() => assert(text('status') === 'error', `status ${text('status')}`), { timeout: 10_000 });
  assert(log.length > before, 'refresh sent nothing');
});

await test('useMcpClient: invalid url or options are status error (ConfigError), no crash', async () => {
  render(<StrictMode><Probe url="ftp://example.com/mcp" /></StrictMode>);
  await waitFor(() => assert(text('status') === 'error', `status ${text('status')}`), { timeout: 5_000 });
  assert(text('error') === 'ConfigError', `error ${text('error')}`);
});

await test('useMcpClient: a failed refresh sets error, a later successful one clears it', async () => {
  const log = [];
  const fail = { tools: false };
  const fetcher = countingFetch(log);
  const options = makeOptions(log, {
    fetch: (input, init = {}) => {
      if (fail.tools && /"tools\/list"/.test(String(init.body))) {
        return Promise.resolve(new Response('boom', { status: 500, headers: { 'content-type': 'text/plain' } }));
      }
      return fetcher(input, init);
    },
  });
  const seen = [];
  render(<StrictMode><Probe url={url} options={options} seen={seen} /></StrictMode>);
  await waitFor(() => assert(text('status') === 'ready', `status ${text('status')}`), { timeout: 10_000 });
  fail.tools = true;
  await act(() => seen.at(-1).refresh());
  await waitFor(() => assert(text('error') !== '', 'the failed refresh set no error'), { timeout: 10_000 });
  assert(text('status') === 'ready', `status after the failed refresh ${text('status')}`);
  fail.tools = false;
  await act(() => seen.at(-1).refresh());
  await waitFor(() => assert(text('error') === '', `error after a successful refresh: ${text('error')}`), { timeout: 10_000 });
  assert(seen.at(-1).error === undefined && text('status') === 'ready', `state ${seen.at(-1).status} ${seen.at(-1).error}`);
});

/** The promises of the cancel button's `cancel()` calls, for a test to await before it
 *  closes the client (a `tasks/cancel` still in flight then rejects with AbortError). */
const cancels = [];

function TaskProbe({ client, task, seen }) {
  const state = useTask(client, task);
  seen?.push(state);
  return (
    <div>
      <p data-testid="tstatus">{state.status ?? ''}</p>
      <p data-testid="tmessage">{state.statusMessage ?? ''}</p>
      <p data-testid="tresult">{state.result ? state.result.content.map((b) => b.text).join(' ') : ''}</p>
      <p data-testid="terror">{state.error ? state.error.name : ''}</p>
      <button type="button" onClick={() => { cancels.push(state.cancel()); }}>cancel</button>
    </div>
  );
}

/** A client whose waitForTask calls are counted. */
function countedClient(log) {
  const client = new McpClient(url, makeOptions(log));
  const waits = { n: 0 };
  const original = client.waitForTask.bind(client);
  client.waitForTask = (...args) => {
    waits.n += 1;
    return original(...args);
  };
  return { client, waits };
}

await test('useTask in StrictMode: one wait, nothing aborted; status, statusMessage; cancel', async () => {
  const log = [];
  const { client, waits } = countedClient(log);
  try {
    const task = await client.callToolAsTask('task_slow', { ms: 15_000 });
    assert(!task.isLocal, 'task_slow ran as a task');
    render(<StrictMode><TaskProbe client={client} task={task} /></StrictMode>);
    assert(text('tstatus') === 'working', `first status ${text('tstatus')}`);
    await waitFor(() => assert(text('tmessage') === 'working slowly', `statusMessage ${text('tmessage')}`), { timeout: 10_000 });
    await tick(300);
    assert(waits.n === 1, `waitForTask called ${waits.n} times`);
    assert(aborted(log).length === 0, `aborted: ${json(aborted(log))}`);
    fireEvent.click(screen.getByText('cancel'));
    await waitFor(() => assert(text('tstatus') === 'cancelled', `status ${text('tstatus')}`), { timeout: 10_000 });
    assert(count(log, 'tasks/cancel') === 1, `tasks/cancel sent ${count(log, 'tasks/cancel')} times`);
    // The status can come (by the task stream or a poll) before the cancel's own answer.
    assert(cancels.length === 1, `cancel() called ${cancels.length} times`);
    await cancels[0];
    assert(abortedAfterWait(log).length === 0, `aborted: ${json(aborted(log))}`);
  } finally {
    client.close();
  }
});

await test('useTask by id: a task with two inputs answered by the client\'s handler completes with its result', async () => {
  const log = [];
  const { client, waits } = countedClient(log);
  try {
    const task = await client.callToolAsTask('task_two_inputs', {});
    const seen = [];
    render(<StrictMode><TaskProbe client={client} task={task.taskId} seen={seen} /></StrictMode>);
    await waitFor(() => assert(text('tstatus') === 'completed', `status ${text('tstatus')}`), { timeout: 10_000 });
    assert(text('tresult') === 'Ada is 36 years old', `result ${text('tresult')}`);
    assert(seen.some((s) => s.status === 'input_required'), `statuses ${json([...new Set(seen.map((s) => s.status))])}`);
    assert(waits.n === 1, `waitForTask called ${waits.n} times`);
    assert(count(log, 'tasks/update') === 2, `tasks/update sent ${count(log, 'tasks/update')} times`);
    assert(abortedAfterWait(log).length === 0, `aborted: ${json(aborted(log))}`);
  } finally {
    client.close();
  }
});

await test('useTask: an answer the client refuses breaks the wait, not the task: status stays, error set', async () => {
  const log = [];
  const client = new McpClient(url, makeOptions(log, {
    onElicitation: async () => ({ action: 'accept', content: { wrong_field: 1 } }), // InputValidationError, nothing sent
  }));
  try {
    const task = await client.callToolAsTask('task_two_inputs', {});
    const seen = [];
    render(<StrictMode><TaskProbe client={client} task={task} seen={seen} /></StrictMode>);
    await waitFor(() => assert(text('terror') !== '', 'no error yet'), { timeout: 10_000 });
    assert(text('terror') === 'InputValidationError', `error ${text('terror')}`);
    const server = await client.getTask(task.taskId);
    assert(server.status === 'input_required', `server status ${server.status}`);
    assert(text('tstatus') === 'input_required', `hook status ${text('tstatus')} (the server says ${server.status})`);
    assert(!seen.some((s) => s.status === 'failed'), `statuses ${json([...new Set(seen.map((s) => s.status))])}`);
    await client.cancelTask(task.taskId);
  } finally {
    client.close();
  }
});

await test('useTask: a handler that throws breaks the wait, not the task; a task that fails is failed', async () => {
  const log = [];
  const client = new McpClient(url, makeOptions(log, {
    onElicitation: async () => { throw new TypeError('handler bug'); },
  }));
  try {
    const task = await client.callToolAsTask('task_two_inputs', {});
    const view = render(<StrictMode><TaskProbe client={client} task={task} /></StrictMode>);
    await waitFor(() => assert(text('terror') !== '', 'no error yet'), { timeout: 10_000 });
    assert(text('terror') === 'TypeError', `error ${text('terror')}`);
    assert(text('tstatus') === 'input_required', `hook status ${text('tstatus')}`);
    await client.cancelTask(task.taskId);
    view.unmount();
    // The server's own failure: status failed, the task's JSON-RPC error.
    const failing = await client.callToolAsTask('task_fail', {});
    render(<StrictMode><TaskProbe client={client} task={failing} /></StrictMode>);
    await waitFor(() => assert(text('tstatus') === 'failed', `status ${text('tstatus')}`), { timeout: 10_000 });
    await waitFor(() => assert(text('terror') === 'McpError', `error ${text('terror')}`), { timeout: 10_000 });
  } finally {
    client.close();
  }
});

await test('useTask: unmount stops the wait (no poll after it), the task keeps running', async () => {
  const log = [];
  const { client } = countedClient(log);
  try {
    const task = await client.callToolAsTask('task_slow', { ms: 15_000 });
    const view = render(<StrictMode><TaskProbe client={client} task={task} /></StrictMode>);
    await waitFor(() => assert(text('tmessage') === 'working slowly', 'working'), { timeout: 10_000 });
    view.unmount();
    await tick(50);
    const polls = count(log, 'tasks/get');
    await tick(1500);
    assert(count(log, 'tasks/get') === polls, `polling went on after unmount (${polls} -> ${count(log, 'tasks/get')})`);
    const now = await client.getTask(task.taskId);
    assert(now.status === 'working', `task status after unmount ${now.status}`);
    await client.cancelTask(task.taskId);
  } finally {
    client.close();
  }
});

await test('the example app (tests/env/react-app/App.jsx): server, tools, a task run to its structured result', async () => {
  const log = [];
  const options = makeOptions(log);
  render(<StrictMode><App url={url} options={options} /></StrictMode>);
  await waitFor(() => assert(text('status') === 'ready', `status ${text('status')}`), { timeout: 10_000 });
  assert(text('server') === 'MCP test server', `server ${text('server')}`);
  fireEvent.click(screen.getByText('task_structured'));
  await waitFor(() => assert(screen.queryByTestId('task-result')?.textContent === '{"label":"temperature","value":21.5,"unit":"C"}',
    `result ${screen.queryByTestId('task-result')?.textContent}`), { timeout: 10_000 });
  assert(text('task-status') === 'completed', `task status ${text('task-status')}`);
  assert(count(log, 'server/discover') === 1, `server/discover sent ${count(log, 'server/discover')} times`);
  assert(abortedAfterWait(log).length === 0, `aborted: ${json(aborted(log))}`);
});

window.__done = true;
