// Per-test-case state of the fault server (server.mjs, mcp.mjs), keyed by the token in the
// URL, and the input-key counters behind GET /debug/counts.

export const STATES = new Map();

/** The state of one test case (created on first use). */
export function state(token) {
  let st = STATES.get(token);
  if (!st) {
    st = {
      token,
      calls: {}, // "method" and "tools/call <name>" → count
      tasks: new Map(),
      nextTask: 1,
      counts: {}, // taskId (or "mrtr") → key → {presented, answered}
      requests: [],
      consent: 0,
      abandoned: 0, // requests whose connection closed before their response ended
      listens: new Set(),
      seenIds: new Set(), // "method id" of requests already processed
    };
    STATES.set(token, st);
  }
  return st;
}

/** Counts a key `presented` (in an input_required answer the client received in full),
 *  `answered` (in an inputResponses the server processed, duplicates included), or
 *  `retransmitted` (in a request the server had processed already: the same JSON-RPC id
 *  delivered again by the transport, not sent again by the client). */
export function count(st, scope, key, what) {
  const s = (st.counts[scope] ??= {});
  const c = (s[key] ??= { presented: 0, answered: 0, retransmitted: 0 });
  c[what] += 1;
}
