// The context's visibility and network for the task scheduler (issue 13, "Visibility and
// network"). Feature-detected, never `window`: a document (pages) reports
// `visibilitychange`; a global with `navigator.onLine` (pages, workers) reports
// `online`/`offline`. Without a document the context counts as visible (workers, Node,
// edge runtimes); without `navigator.onLine`, as online: nothing changes there.

const g = globalThis;
const doc = () => (g.document && typeof g.document.addEventListener === 'function' ? g.document : null);
const net = () => !!g.navigator && typeof g.navigator.onLine === 'boolean' && typeof g.addEventListener === 'function';

/** The state now: 1 = hidden, 2 = offline, 4 = no document (a worker: no dialog is preferred there). */
export function presence() {
  const d = doc();
  return (d ? (d.visibilityState === 'hidden' ? 1 : 0) : 4) | (net() && g.navigator.onLine === false ? 2 : 0);
}

/** Calls `onChange()` on every change; returns the function that removes the listeners. */
export function watchPresence(onChange) {
  const d = doc();
  const n = net();
  const report = () => onChange();
  if (d) d.addEventListener('visibilitychange', report);
  if (n) {
    g.addEventListener('online', report);
    g.addEventListener('offline', report);
  }
  return () => {
    if (d) d.removeEventListener('visibilitychange', report);
    if (n) {
      g.removeEventListener('online', report);
      g.removeEventListener('offline', report);
    }
  };
}
