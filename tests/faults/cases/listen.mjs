// subscriptions/listen under faults: a dropped stream is listened to again (with back-off),
// notifications keep coming, and the subscription ends cleanly.
import { InvalidResultError } from '../../../pkg/index.js';
import { test, ok, eq, text, until, stillWorks, withTimeout, rejects } from '../harness.mjs';

test('listen stream cut after a notification → re-listened after listenBackoffMs; notifications keep coming', { scenarios: ['listen-drop'] }, async ({ client, debug }) => {
  const c = client('listen-drop', { limits: { listenBackoffMs: 50 } });
  const heard = [];
  const reconnects = [];
  const sub = await c.listen({ toolsListChanged: true }, (m) => heard.push(m), { onReconnect: (i) => reconnects.push(i) });
  eq(sub.acknowledged, { toolsListChanged: true }, 'acknowledged');
  const first = sub.subscriptionId;
  const it = sub[Symbol.asyncIterator]();
  eq((await withTimeout(it.next(), 3000, 'first notification')).value?.method, 'notifications/tools/list_changed', 'first');
  eq((await withTimeout(it.next(), 3000, 'second notification')).value?.method, 'notifications/tools/list_changed', 'second (after the re-listen)');
  eq(sub.reconnects, 1, 'reconnects');
  eq([reconnects[0]?.attempt, reconnects[0]?.delayMs], [1, 50], 'onReconnect (attempt, delayMs)');
  ok(typeof reconnects[0]?.reason === 'string' && reconnects[0].reason.length > 0, 'onReconnect reason');
  ok(sub.subscriptionId !== first, 'a new subscription id after the re-listen');
  eq(heard.length, 2, 'callback calls');
  eq((await debug('state')).calls['subscriptions/listen'], 2, 'listen requests');
  sub.close();
  await withTimeout(sub.closed, 3000, 'closed');
  eq((await it.next()).done, true, 'iterator done');
  await until(async () => (await debug('state')).listens === 0, 3000, 'the server sees the stream closed');
  await stillWorks(c);
});

test('listen(): an answer or a malformed acknowledgement instead of the acknowledgement → InvalidResultError, no handler asked', { scenarios: ['listen-odd-ack'] }, async ({ client }) => {
  // The acknowledgement is the first message, and its `notifications` a filter (schema
  // SubscriptionsAcknowledgedNotification): what `sub.acknowledged` promises the host.
  const asked = [];
  const forms = {
    result: /answered before the server acknowledged/,
    'input-required': /answered before the server acknowledged/,
    missing: /has no notifications/,
    array: /notifications is not an object/,
    string: /notifications is not an object/,
    boolean: /toolsListChanged must be a boolean/,
    ids: /taskIds must be an array of strings/,
  };
  for (const [form, message] of Object.entries(forms)) {
    const c = client('listen-odd-ack', { onElicitation: async () => { asked.push(form); return { action: 'decline' }; } }, { form }, `-${form}`);
    await rejects(withTimeout(c.listen({ toolsListChanged: true }), 5000, `listen (${form})`), InvalidResultError, { message });
    await stillWorks(c);
  }
  eq(asked, [], 'no handler asked');
});

test('listen() with a callback: the iterator keeps the latest 1,000 unread; without one, every notification', { scenarios: ['listen-flood'] }, async ({ client }) => {
  const count = 3000;
  const c = client('listen-flood', {}, { count });
  const heard = [];
  const sub = await c.listen({ toolsListChanged: true }, (m, p) => heard.push(p?.seq));
  await until(async () => heard.length === count, 10000, `the callback hears ${count}`);
  eq(heard[0], 0, 'the callback heard the first');
  const it = sub[Symbol.asyncIterator]();
  eq((await withTimeout(it.next(), 3000, 'first unread')).value?.params?.seq, count - 1000, 'the iterator starts at the latest 1,000');
  sub.close();
  let left = 0;
  while (!(await withTimeout(it.next(), 3000, 'the rest')).done) left += 1;
  eq(left, 999, 'the rest of the latest 1,000, then done');

  const d = client('listen-flood', {}, { count }, '-b');
  const all = await d.listen({ toolsListChanged: true });
  const seqs = [];
  for await (const n of all) {
    seqs.push(n.params?.seq);
    if (seqs.length === count) break;
  }
  eq([seqs.length, seqs[0], seqs[count - 1]], [count, 0, count - 1], 'without a callback, every one in order');
});
