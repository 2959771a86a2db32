// One person, one dialog at a time: every question (elicitation or sampling) waits here
// for its turn, so a second question while one is open is queued, never lost. A question
// that becomes moot while it waits (its signal fires) is skipped.

let chain = Promise.resolve();
let waiting = 0;
const listeners = new Set();

/** Called with the number of questions waiting (not counting the open one). */
export function onWaitingChange(fn) {
  listeners.add(fn);
}

function changed() {
  for (const fn of listeners) fn(waiting);
}

/**
 * Runs `open()` when every earlier question is answered. When `signal` fired meanwhile,
 * `skipped()` is returned instead and `open` is never called.
 */
export function inTurn(signal, open, skipped) {
  waiting += 1;
  changed();
  const turn = chain.then(() => {
    waiting -= 1;
    changed();
    return signal && signal.aborted ? skipped() : open();
  });
  chain = turn.catch(() => {});
  return turn;
}
