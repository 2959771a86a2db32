// WebDriver BiDi (https://w3c.github.io/webdriver-bidi/) for what classic WebDriver lacks and
// a test needs: request interception (Playwright's context.route, tests/e2e/dialog.mjs's
// URL-consent flow). Firefox's geckodriver has it (a session made with `webSocketUrl: true`);
// WebKitWebDriver 2.50 does not (the shim then says NOT RUN).
//
// The WebSocket is a small client of its own (RFC 6455: the handshake, text frames masked
// out, unmasked in, fragments, ping/pong, close): Node 20 has no WebSocket without a flag,
// and the one message kind BiDi uses does not justify a dependency.
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

/** Opens `url` (ws://): `{ send(text), close(), onmessage: (text) => {} }`. */
function websocket(url) {
  const u = new URL(url);
  const key = randomBytes(16).toString('base64');
  const socket = net.connect(Number(u.port || 80), u.hostname);
  socket.setNoDelay(true);
  const ws = {
    onmessage: () => {},
    onclose: () => {},
    send: (text) => socket.write(frame(1, Buffer.from(text, 'utf8'))),
    close: () => { try { socket.write(frame(8, Buffer.alloc(0))); } catch { /* gone */ } socket.end(); },
  };
  let buf = Buffer.alloc(0);
  let open = false;
  let parts = [];
  return new Promise((ok, fail) => {
    socket.on('error', (e) => (open ? ws.onclose(e) : fail(e)));
    socket.on('close', () => ws.onclose());
    socket.on('connect', () => {
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        if (!/^HTTP\/1\.1 101/.test(head) || !head.toLowerCase().includes(accept.toLowerCase())) {
          socket.destroy();
          fail(new Error(`WebSocket handshake refused: ${head.split('\r\n')[0]}`));
          return;
        }
        open = true;
        buf = buf.subarray(end + 4);
        ok(ws);
      }
      for (;;) {
        if (buf.length < 2) return;
        const fin = (buf[0] & 0x80) !== 0;
        const op = buf[0] & 0x0f;
        const masked = (buf[1] & 0x80) !== 0;
        let len = buf[1] & 0x7f;
        let at = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
        const mask = masked ? buf.subarray(at, at + 4) : null;
        if (masked) at += 4;
        if (buf.length < at + len) return;
        const payload = Buffer.from(buf.subarray(at, at + len));
        if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
        buf = buf.subarray(at + len);
        if (op === 9) socket.write(frame(10, payload));
        else if (op === 8) socket.end();
        else if (op === 1 || op === 0) {
          parts.push(payload);
          if (fin) {
            const text = Buffer.concat(parts).toString('utf8');
            parts = [];
            ws.onmessage(text);
          }
        }
      }
    });
  });
}

/** A client frame: FIN, `op`, masked payload. */
function frame(op, payload) {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | op, 0x80 | n])
    : n < 65536 ? Buffer.from([0x80 | op, 0x80 | 126, n >> 8, n & 0xff])
      : Buffer.concat([Buffer.from([0x80 | op, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
  return Buffer.concat([head, mask, body]);
}

/** A BiDi connection: `send(method, params)` → result; `on(event, fn)` after `subscribe`. */
export class Bidi {
  static async connect(url) {
    const b = new Bidi(await websocket(url));
    return b;
  }
  constructor(ws) {
    this.ws = ws;
    this.next = 0;
    this.waiting = new Map();
    this.handlers = new Map();
    ws.onmessage = (text) => {
      let msg;
      try { msg = JSON.parse(text); } catch { return; }
      if (msg.id !== undefined && this.waiting.has(msg.id)) {
        const w = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        if (msg.type === 'error') w.fail(new Error(`${w.method}: ${msg.error}: ${msg.message}`));
        else w.ok(msg.result);
      } else if (msg.method) {
        for (const fn of this.handlers.get(msg.method) ?? []) fn(msg.params);
      }
    };
    ws.onclose = () => {
      for (const w of this.waiting.values()) w.fail(new Error(`${w.method}: the BiDi connection closed`));
      this.waiting.clear();
    };
  }
  send(method, params = {}) {
    const id = ++this.next;
    return new Promise((ok, fail) => {
      this.waiting.set(id, { ok, fail, method });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }
  on(event, fn) {
    if (!this.handlers.has(event)) this.handlers.set(event, []);
    this.handlers.get(event).push(fn);
  }
  close() {
    this.ws.close();
  }
}
