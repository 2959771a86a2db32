// subscriptions/listen under faults: a dropped stream is listened to again (with back-off),
// notifications keep coming, and the subscription ends cleanly.
import { test, ok, eq, text, until, stillWorks, withTimeout } from '../harness.mjs';

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
