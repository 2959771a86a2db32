// The context's visibility and network for the task scheduler (issue 13, "Visibility and
// network"). Feature-detected, never `window`: a document (pages) reports
// `visibilitychange`; a global with `navigator.onLine` (pages, workers) reports
// `online`/`offline`. Without a document the context counts as visible (workers, Node,
// edge runtimes); without `navigator.onLine`, as online: nothing changes there.
// `onChange(hidden, online)` is called once now and on every change; the returned
// function removes the listeners.

export function watchPresence(onChange) {
  const g = globalThis;
  const doc = g.document && typeof g.document.addEventListener === 'function' ? g.document : null;
  const nav = g.navigator;
  const net = !!nav && typeof nav.onLine === 'boolean' && typeof g.addEventListener === 'function';
  const report = () => onChange(!!doc && doc.visibilityState === 'hidden', !(net && nav.onLine === false));
  if (doc) doc.addEventListener('visibilitychange', report);
  if (net) {
    g.addEventListener('online', report);
    g.addEventListener('offline', report);
  }
  report();
  return () => {
    if (doc) doc.removeEventListener('visibilitychange', report);
    if (net) {
      g.removeEventListener('online', report);
      g.removeEventListener('offline', report);
    }
  };
}
