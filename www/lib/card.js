// A live card for one tool call or task: status, statusMessage, progress, elapsed time,
// the TTL left for a task, a Cancel button, then the result or the error in words.

import { duration, h } from './dom.js';
import { callResult, errorWords, tree } from './render.js';

const STATUS_WORDS = {
  running: 'running',
  working: 'working',
  input_required: 'waiting for you',
  cancelling: 'cancelling…',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  stopped: 'stopped',
  error: 'error',
};

let calls = 0;

export class CallCard {
  /**
   * `args`: the arguments sent (`undefined` for a resumed task: the client keeps the task,
   * not its arguments). `resumed`: a task started before a reload or in another tab.
   */
  constructor(tool, args, { resumed = false } = {}) {
    this.tool = tool;
    this.started = Date.now();
    this.ended = null;
    this.task = null;
    this.onCancel = null;
    this.userCancelled = false;
    this.statusEl = h('span', { class: 'status' });
    this.kindEl = h('span', { class: 'kind', text: 'call' });
    this.messageEl = h('p', { class: 'status-message', hidden: true });
    this.progressEl = h('progress', { hidden: true, max: 1, 'aria-label': 'Progress' });
    this.progressText = h('span', { class: 'progress-text' });
    this.elapsedEl = h('span', { class: 'elapsed' });
    this.ttlEl = h('span', { class: 'ttl', hidden: true });
    this.idEl = h('span', { class: 'task-id', hidden: true });
    this.elsewhereEl = h('span', { class: 'tag elsewhere', hidden: true, text: 'polled by another tab' });
    this.cancelBtn = h('button', { type: 'button', class: 'cancel', text: 'Cancel', onclick: () => this.onCancel && this.onCancel() });
    this.resultEl = h('div', { class: 'result', 'aria-live': 'polite' });
    this.node = h('article', { class: 'card', 'aria-label': `${tool.title || tool.name}` },
      h('header', {}, h('h3', { text: tool.title || tool.name }), this.kindEl, this.statusEl),
      this.messageEl,
      h('div', { class: 'progress' }, this.progressEl, this.progressText),
      h('p', { class: 'meta' }, this.elapsedEl, this.ttlEl, this.idEl, this.elsewhereEl),
      args === undefined ? null
        : h('details', { class: 'args-sent' }, h('summary', { text: 'Arguments' }), h('pre', { text: JSON.stringify(args, null, 2) })),
      h('div', { class: 'actions' }, this.cancelBtn),
      this.resultEl);
    this.node.dataset.call = String(++calls);
    if (resumed) {
      this.node.dataset.resumed = 'true';
      this.kindEl.textContent = 'task (resumed)';
    }
    this.setStatus('running');
    this.tick();
  }

  get live() {
    return this.ended === null;
  }

  setStatus(status) {
    this.status = status;
    this.node.dataset.status = status;
    this.statusEl.textContent = STATUS_WORDS[status] || status;
  }

  setMessage(text) {
    this.messageEl.hidden = !text;
    this.messageEl.textContent = text || '';
  }

  /** `onProgress` of the call. */
  progress({ progress, total, message }) {
    this.progressEl.hidden = false;
    if (typeof total === 'number' && total > 0) {
      this.progressEl.max = total;
      this.progressEl.value = Math.min(progress, total);
      this.progressText.textContent = `${progress} / ${total}`;
    } else {
      this.progressEl.removeAttribute('value');
      this.progressText.textContent = `${progress}`;
    }
    if (message) this.setMessage(message);
  }

  /** The call turned out to be a task. */
  becameTask(task) {
    this.task = task;
    this.kindEl.textContent = this.node.dataset.resumed ? 'task (resumed)' : 'task';
    // A resumed task started before this page: its elapsed time counts from its creation.
    if (this.node.dataset.resumed && Number.isFinite(Date.parse(task.createdAt))) this.started = Date.parse(task.createdAt);
    this.idEl.hidden = false;
    this.idEl.textContent = `task ${task.taskId}`;
    this.update(task);
  }

  /** A task status seen by `waitForTask({ onStatus })`. */
  update(task) {
    this.task = task;
    if (this.status !== 'cancelling' || task.isTerminal) this.setStatus(task.status);
    this.setMessage(task.statusMessage);
    this.tick();
  }

  /** Another tab (or worker) polls this task for this page (`client.isPolledElsewhere`). */
  polledElsewhere(yes) {
    const show = Boolean(yes) && this.live;
    if (this.elsewhereEl.hidden === !show) return;
    this.elsewhereEl.hidden = !show;
    this.node.dataset.elsewhere = show ? 'true' : 'false';
  }

  cancelling() {
    this.userCancelled = true;
    this.setStatus('cancelling');
    this.cancelBtn.disabled = true;
  }

  note(text) {
    this.resultEl.append(h('p', { class: 'note', text }));
  }

  finish(status) {
    this.ended = Date.now();
    this.setStatus(status);
    // A finished task's last statusMessage is history; a failure or cancel is said in the result.
    const last = this.messageEl.textContent;
    this.setMessage(status === 'completed' && this.task && last ? `Last status: ${last}` : '');
    this.messageEl.classList.add('muted');
    this.cancelBtn.hidden = true;
    if (this.progressEl.hidden === false && status === 'completed') this.progressEl.value = this.progressEl.max;
    this.tick();
  }

  done(result) {
    this.finish(result && result.isError ? 'error' : 'completed');
    this.resultEl.replaceChildren(...callResult(result));
  }

  fail(err) {
    const name = err && err.name;
    // An abort the person did not ask for: the console disconnected (a new Connect).
    const stopped = name === 'AbortError' && !this.userCancelled;
    const status = stopped ? 'stopped'
      : name === 'TaskCancelledError' || name === 'AbortError' ? 'cancelled'
        : this.task ? 'failed' : 'error';
    this.finish(status);
    const words = stopped
      ? `Stopped: the console disconnected from this server${this.task ? '; the task may still be running there' : ''}.`
      : errorWords(err, { task: this.task !== null });
    const parts = [h('p', { class: status === 'cancelled' || stopped ? 'note' : 'error-text', text: words })];
    if (err && err.data !== undefined && status !== 'cancelled' && !stopped) {
      parts.push(h('details', { class: 'error-data' }, h('summary', { text: 'Details' }), tree(err.data, 'data')));
    }
    this.resultEl.replaceChildren(...parts);
  }

  /** Called by a timer: elapsed time and TTL left. */
  tick() {
    const end = this.ended ?? Date.now();
    this.elapsedEl.textContent = `${this.live ? 'Elapsed' : 'Took'} ${duration(end - this.started)}`;
    const t = this.task;
    if (t && typeof t.ttlMs === 'number' && this.live) {
      const left = Date.parse(t.createdAt) + t.ttlMs - Date.now();
      this.ttlEl.hidden = false;
      this.ttlEl.textContent = left > 0 ? `TTL ${duration(left)} left` : 'TTL passed';
    } else {
      this.ttlEl.hidden = true;
    }
  }
}
