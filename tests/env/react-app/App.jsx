// An example agent UI with `mcp-wasm-client/react`: the server's name and live tool list
// (useMcpClient), a tool run as a task whose status, result and cancel button come from
// useTask. Bundled by esbuild for tests/frameworks/react.mjs, which renders it in headless
// Chromium against the test server; main.jsx mounts it in a page (index.html).
import { useState } from 'react';
import { useMcpClient, useTask } from 'mcp-wasm-client/react';

function TaskPanel({ client, task }) {
  const { status, statusMessage, result, error, cancel } = useTask(client, task);
  const text = result?.structuredContent !== undefined
    ? JSON.stringify(result.structuredContent)
    : result?.content?.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
  return (
    <section aria-label="task">
      <p data-testid="task-status">{status ?? 'starting'}{statusMessage ? `: ${statusMessage}` : ''}</p>
      {text !== undefined && <p data-testid="task-result">{text}</p>}
      {error && <p role="alert" data-testid="task-error">{error.name}: {error.message}</p>}
      {(status === 'working' || status === 'input_required') && <button type="button" onClick={() => cancel()}>Cancel</button>}
    </section>
  );
}

/** `options` must keep its identity across renders (a constant or useMemo): it keys the client. */
export function App({ url, options }) {
  const { client, status, error, serverInfo, tools, refresh } = useMcpClient(url, options);
  const [task, setTask] = useState(null);
  const [startError, setStartError] = useState(null);

  const run = async (name) => {
    setStartError(null);
    try {
      setTask(await client.callToolAsTask(name, {}));
    } catch (e) {
      setStartError(e);
    }
  };

  return (
    <main>
      <h1 data-testid="server">{serverInfo ? serverInfo.title ?? serverInfo.name : url}</h1>
      <p data-testid="status">{status}</p>
      {error && <p role="alert" data-testid="error">{error.name}: {error.message}</p>}
      <button type="button" onClick={() => refresh()}>Refresh</button>
      <ul aria-label="tools">
        {tools.map((tool) => (
          <li key={tool.name}>
            <button type="button" disabled={status !== 'ready'} onClick={() => run(tool.name)} title={tool.description}>
              {tool.name}
            </button>
          </li>
        ))}
      </ul>
      {startError && <p role="alert">{startError.name}: {startError.message}</p>}
      {task && <TaskPanel client={client} task={task} />}
    </main>
  );
}
