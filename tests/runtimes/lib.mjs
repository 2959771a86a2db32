// Starting the real runtimes, shared by tests/runtimes/run.mjs and bench/edge.mjs.
import { execFile, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OUT, ROOT } from '../e2e/lib.mjs';

export { OUT, ROOT };
export const BIN = join(ROOT, 'node_modules/.bin');
/** A runtime's binary: $DENO, $BUN, $WORKERD when set, else the pinned npm package's. */
export const bin = (name) => process.env[name.toUpperCase()] || join(BIN, name);
const execFileP = promisify(execFile);

/**
 * Deno's command line for `script` (args after it): no prompts, no remote imports, no config
 * or lockfile discovery, network only to the MCP server's host:port, reads only `reads`.
 */
export async function denoCommand(script, args, mcpUrl, reads) {
  const dir = join(OUT, 'runtimes/deno-dir');
  await mkdir(dir, { recursive: true });
  return {
    cmd: bin('deno'),
    args: ['run', '--no-prompt', '--no-remote', '--no-config', '--no-lock', '--no-npm',
      `--allow-net=${new URL(mcpUrl).host}`, `--allow-read=${reads.join(',')}`, script, ...args],
    env: { ...process.env, DENO_DIR: dir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  };
}

export function bunCommand(script, args) {
  return { cmd: bin('bun'), args: [script, ...args], env: { ...process.env, NO_COLOR: '1', BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' } };
}

/** Runs a command, resolves with its stdout; rejects with its stderr's tail on failure. */
export async function runCommand({ cmd, args, env }, timeout = 60_000) {
  try {
    const { stdout } = await execFileP(cmd, args, { env, cwd: ROOT, timeout, maxBuffer: 16 << 20 });
    return stdout;
  } catch (e) {
    const why = e.code === 'ENOENT' ? `${cmd} not found (npm packages not installed?)`
      : e.killed ? `timed out after ${timeout} ms` : `exit ${e.code}`;
    throw new Error(`${why}: ${String(e.stderr || e.message).trim().split('\n').slice(-8).join(' | ')}`);
  }
}

// workerd processes still running when this process exits are killed (by their PID).
const live = new Set();
process.on('exit', () => {
  for (const c of live) {
    try { c.kill('SIGKILL'); } catch { /* gone */ }
  }
});

/**
 * Starts workerd on `config`, a config.capnp or a wrangler.json(c) (a free loopback port for
 * its `http` socket, reported through --control-fd; `env` adds environment variables). Resolves with { url, pid, stop(), stderr() } once it listens.
 */
export function startWorkerd(config = join(ROOT, 'tests/runtimes/workerd/config.capnp'), extra = [], env = {}) {
  const child = spawn(bin('workerd'), ['serve', config, '--socket-addr', 'http=127.0.0.1:0', '--control-fd', '3', ...extra], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: { ...process.env, ...env },
  });
  let err = '';
  child.stdout.on('data', (d) => { err += d; });
  child.stderr.on('data', (d) => { err += d; });
  const stop = () => new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => { stop(); fail(new Error(`workerd did not listen within 20 s: ${err.trim()}`)); }, 20_000);
    let control = '';
    child.stdio[3].on('data', (d) => {
      control += d;
      for (const line of control.split('\n')) {
        try {
          const m = JSON.parse(line);
          if (m.event === 'listen' && m.socket === 'http') {
            clearTimeout(timer);
            ok({ url: `http://127.0.0.1:${m.port}`, pid: child.pid, stop, stderr: () => err });
            return;
          }
        } catch { /* a partial line */ }
      }
    });
    child.on('error', (e) => { clearTimeout(timer); fail(new Error(`workerd could not start: ${e.message}`)); });
    child.on('exit', (code, sig) => {
      clearTimeout(timer);
      fail(new Error(`workerd exited (${code ?? sig}) before listening: ${err.trim().split('\n').slice(-8).join(' | ')}`));
    });
  });
}
