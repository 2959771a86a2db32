"""Smoke test of modern_server.py with plain http.client and 2026-07-28 requests.

    /path/to/venv/bin/python tests/servers/smoke_test.py [-v]

Starts the server (`--port 0`), waits for its READY line, runs the checks,
stops the server by PID with SIGTERM and verifies that it exited. Exits
non-zero when any check fails. Prints `N passed, M failed` last.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROTOCOL_VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
CAPS_FULL: dict[str, Any] = {
    "elicitation": {"form": {}, "url": {}},
    "sampling": {},
    "roots": {},
    "extensions": {TASKS: {}},
}
VERBOSE = "-v" in sys.argv


class CheckFailed(AssertionError):
    pass


def check(cond: Any, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


# ------------------------------------------------------------------------------- HTTP client


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: str, messages: list[dict[str, Any]]) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.messages = messages  # every JSON-RPC message received (SSE: notifications then the response)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def final(self) -> dict[str, Any]:
        for msg in reversed(self.messages):
            if "id" in msg and ("result" in msg or "error" in msg):
                return msg
        raise CheckFailed(f"no JSON-RPC response in HTTP {self.status} body: {self.body[:300]!r}")

    @property
    def result(self) -> dict[str, Any]:
        msg = self.final
        check("result" in msg, f"expected a result, got {json.dumps(msg)[:300]}")
        return msg["result"]

    @property
    def error(self) -> dict[str, Any]:
        msg = self.final
        check("error" in msg, f"expected an error, got {json.dumps(msg)[:300]}")
        return msg["error"]

    @property
    def notifications(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if "method" in m and "id" not in m]


def sse_events(resp: http.client.HTTPResponse) -> Iterator[str]:
    """Yield the data of each SSE event (comment lines are skipped). Handles CRLF and LF line endings."""
    data: list[str] = []
    while True:
        raw = resp.readline()
        if not raw:
            if data:
                yield "\n".join(data)
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.next_id = 0

    def meta(self, caps: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": CAPS_FULL if caps is None else caps,
            "io.modelcontextprotocol/clientInfo": {"name": "smoke-test", "version": "0.1.0"},
        }
        meta.update(extra)
        return meta

    def headers_for(self, method: str, params: dict[str, Any]) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
            "Mcp-Method": method,
        }
        if method in ("tools/call", "prompts/get"):
            headers["Mcp-Name"] = params["name"]
        elif method == "resources/read":
            headers["Mcp-Name"] = params["uri"]
        elif method.startswith("tasks/"):
            headers["Mcp-Name"] = params["taskId"]
        return headers

    def open(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 10,
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, int]:
        self.next_id += 1
        params = dict(params or {})
        params["_meta"] = meta if meta is not None else self.meta()
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        all_headers = self.headers_for(method, params)
        all_headers.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request("POST", "/mcp", json.dumps(body), all_headers)
        return conn, conn.getresponse(), self.next_id

    def call(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Response:
        conn, resp, _ = self.open(method, params, **kw)
        try:
            headers = {k.lower(): v for k, v in resp.getheaders()}
            messages: list[dict[str, Any]] = []
            if headers.get("content-type", "").startswith("text/event-stream"):
                chunks = []
                for data in sse_events(resp):
                    chunks.append(data)
                    messages.append(json.loads(data))
                body = "\n".join(chunks)
            else:
                body = resp.read().decode("utf-8")
                if headers.get("content-type", "").startswith("application/json") and body:
                    messages.append(json.loads(body))
            if VERBOSE:
                print(f"    {method} -> {resp.status} {headers.get('content-type')} {body[:200]}")
            return Response(resp.status, headers, body, messages)
        finally:
            conn.close()

    def http(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Response:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            payload = None if body is None else (body if isinstance(body, str) else json.dumps(body))
            conn.request(method, path, payload, headers or {})
            resp = conn.getresponse()
            text = resp.read().decode("utf-8")
            headers_out = {k.lower(): v for k, v in resp.getheaders()}
            messages = []
            if headers_out.get("content-type", "").startswith("application/json") and text:
                parsed = json.loads(text)
                messages = [parsed] if isinstance(parsed, dict) else []
            return Response(resp.status, headers_out, text, messages)
        finally:
            conn.close()

    def debug(self, path: str) -> Any:
        return json.loads(self.http("GET", path).body)

    def poll_task(self, task_id: str, until: Callable[[dict[str, Any]], bool], timeout: float = 5) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            task = self.call("tasks/get", {"taskId": task_id}).result
            if until(task):
                return task
            if time.monotonic() > deadline:
                raise CheckFailed(f"task {task_id} did not reach the expected state: {json.dumps(task)[:300]}")
            time.sleep(max(task.get("pollIntervalMs") or 100, 20) / 1000)


# ------------------------------------------------------------------------------- checks


def t_discover(c: Client) -> None:
    r = c.call("server/discover")
    check(r.status == 200, f"status {r.status}")
    res = r.result
    check(res["resultType"] == "complete", "resultType")
    check(PROTOCOL_VERSION in res["supportedVersions"], "supportedVersions")
    check(TASKS in res["capabilities"].get("extensions", {}), "tasks extension not advertised")
    check(res["capabilities"]["tools"].get("listChanged") is True, "tools.listChanged")
    check(isinstance(res.get("ttlMs"), int) and res.get("cacheScope") in ("public", "private"), "cache hints")
    check(res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "serverInfo")


def t_tools_list(c: Client) -> None:
    res = c.call("tools/list").result
    names = [t["name"] for t in res["tools"]]
    for name in ("echo", "add", "bad_output", "region_query", "ask_name", "task_two_inputs", "task_fail", "task_slow"):
        check(name in names, f"tool {name} missing from tools/list")
    region = next(t for t in res["tools"] if t["name"] == "region_query")
    check(region["inputSchema"]["properties"]["region"].get("x-mcp-header") == "Region", "x-mcp-header")
    check(isinstance(res.get("ttlMs"), int) and res.get("cacheScope"), "tools/list cache hints")


def t_echo(c: Client) -> None:
    r = c.call("tools/call", {"name": "echo", "arguments": {"text": "hello smoke"}})
    check(r.status == 200 and r.content_type.startswith("application/json"), f"{r.status} {r.content_type}")
    res = r.result
    check(res["resultType"] == "complete" and res["content"] == [{"type": "text", "text": "hello smoke"}], str(res))


def t_header_checks(c: Client) -> None:
    r = c.call("tools/call", {"name": "echo", "arguments": {"text": "x"}}, headers={"Mcp-Name": "other"})
    check(r.status == 400 and r.error["code"] == -32020, f"Mcp-Name mismatch: {r.status} {r.body[:200]}")
    r = c.call("tools/call", {"name": "region_query", "arguments": {"region": "eu-west", "query": "q"}})
    check(r.status == 400 and r.error["code"] == -32020, "missing Mcp-Param-Region must be -32020")
    r = c.call(
        "tools/call",
        {"name": "region_query", "arguments": {"region": "eu-west", "query": "q"}},
        headers={"Mcp-Param-Region": "eu-west"},
    )
    payload = json.loads(r.result["content"][0]["text"])
    check(payload["matched"] is True and payload["header"] == "eu-west", str(payload))
    r = c.call("tools/list", meta={"io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION})
    check(r.status == 400 and r.error["code"] == -32602, "missing clientCapabilities must be 400/-32602")
    r = c.call("nope/nope")
    check(r.status == 404 and r.error["code"] == -32601, "unknown method must be 404/-32601")


def t_ask_name(c: Client) -> None:
    args = {"name": "ask_name", "arguments": {}}
    first = c.call("tools/call", args).result
    check(first["resultType"] == "input_required", f"expected input_required: {first}")
    (key, request), = first["inputRequests"].items()
    check(request["method"] == "elicitation/create", str(request))
    check("name" in request["params"]["requestedSchema"]["properties"], "schema has name")
    state = first["requestState"]
    retry = dict(args, inputResponses={key: {"action": "accept", "content": {"name": "Ada"}}}, requestState=state)
    done = c.call("tools/call", retry).result
    check(done["resultType"] == "complete" and done["content"][0]["text"] == "Hello, Ada!", str(done))
    declined = dict(args, inputResponses={key: {"action": "decline"}}, requestState=state)
    text = c.call("tools/call", declined).result["content"][0]["text"]
    check("declined" in text, text)
    tampered = dict(retry, requestState=state[:-4] + "AAAA")
    r = c.call("tools/call", tampered)
    check(r.status == 400 and r.error["code"] == -32602, "tampered requestState must be -32602")


def t_task_two_inputs(c: Client) -> None:
    created = c.call("tools/call", {"name": "task_two_inputs", "arguments": {}}).result
    check(created["resultType"] == "task", f"expected a task: {created}")
    for field in ("taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"):
        check(field in created, f"CreateTaskResult lacks {field}")
    check(created["createdAt"].endswith("Z"), "createdAt in UTC")
    tid = created["taskId"]
    task = c.poll_task(tid, lambda t: t["status"] == "input_required")
    check(task["resultType"] == "complete" and list(task["inputRequests"]) == ["name"], str(task))
    ack = c.call("tasks/update", {"taskId": tid, "inputResponses": {
        "name": {"action": "accept", "content": {"name": "Ada"}}, "unknown-key": {"action": "cancel"}}}).result
    check(ack == {"resultType": "complete", "_meta": ack.get("_meta")}, f"empty ack expected: {ack}")
    task = c.poll_task(tid, lambda t: t["status"] == "input_required" and "age" in t.get("inputRequests", {}))
    check("name" not in task["inputRequests"], "answered key must not be presented again")
    c.call("tasks/update", {"taskId": tid, "inputResponses": {"age": {"action": "accept", "content": {"age": 36}}}})
    # An answer to an already answered key is ignored (still acked).
    c.call("tasks/update", {"taskId": tid, "inputResponses": {"age": {"action": "accept", "content": {"age": 99}}}})
    task = c.poll_task(tid, lambda t: t["status"] in ("completed", "failed", "cancelled"))
    check(task["status"] == "completed", str(task))
    check(task["result"]["content"][0]["text"] == "Ada is 36 years old", str(task["result"]))
    stats = c.debug("/debug/tasks")[tid]
    check(stats["answers"] == {"name": 1, "unknown-key": 1, "age": 2} and stats["updates"] == 3, str(stats))
    check(stats["gets"] >= 3, str(stats))


def t_task_fail(c: Client) -> None:
    tid = c.call("tools/call", {"name": "task_fail", "arguments": {}}).result["taskId"]
    task = c.poll_task(tid, lambda t: t["status"] in ("completed", "failed", "cancelled"))
    check(task["status"] == "failed", str(task))
    check(task["error"] == {"code": -32603, "message": "deliberate failure"}, str(task["error"]))


def t_task_cancel(c: Client) -> None:
    tid = c.call("tools/call", {"name": "task_slow", "arguments": {"ms": 10_000}}).result["taskId"]
    check(c.call("tasks/get", {"taskId": tid}).result["status"] == "working", "task_slow working")
    ack = c.call("tasks/cancel", {"taskId": tid}).result
    check(ack["resultType"] == "complete", str(ack))
    task = c.poll_task(tid, lambda t: t["status"] != "working", timeout=3)
    check(task["status"] == "cancelled", str(task))


def t_task_errors(c: Client) -> None:
    r = c.call("tasks/get", {"taskId": "00000000-0000-4000-8000-000000000000"})
    check(r.status == 400 and r.error["code"] == -32602, f"unknown task: {r.status} {r.body[:200]}")
    no_ext = c.meta(caps={})
    r = c.call("tasks/get", {"taskId": "00000000-0000-4000-8000-000000000000"}, meta=no_ext)
    check(r.error["code"] == -32021, "tasks/* without the extension must be -32021")
    check(TASKS in r.error["data"]["requiredCapabilities"]["extensions"], str(r.error))
    r = c.call("tools/call", {"name": "task_two_inputs", "arguments": {}}, meta=no_ext)
    check(r.error["code"] == -32021, "task-only tool without the extension must be -32021")
    r = c.call("tools/call", {"name": "task_quick", "arguments": {}}, meta=no_ext)
    check(r.result["resultType"] == "complete", "task_quick runs inline without the extension")


def t_task_lost_ack_and_ttl(c: Client) -> None:
    tid = c.call("tools/call", {"name": "task_lost_ack", "arguments": {}}).result["taskId"]
    c.poll_task(tid, lambda t: t["status"] == "input_required")
    answer = {"confirm": {"action": "accept", "content": {"ok": True}}}
    r = c.call("tasks/update", {"taskId": tid, "inputResponses": answer})
    check(r.status == 502 and not r.messages, f"first update must lose its ack: {r.status}")
    r = c.call("tasks/update", {"taskId": tid, "inputResponses": answer})
    check(r.status == 200 and r.result["resultType"] == "complete", "second update acked")
    task = c.poll_task(tid, lambda t: t["status"] == "completed")
    check(task["result"]["content"][0]["text"] == "confirmed: True", str(task))
    created = c.call("tools/call", {"name": "task_short_ttl", "arguments": {}}).result
    check(created["ttlMs"] == 500, str(created))
    deadline = time.monotonic() + 3
    while True:
        r = c.call("tasks/get", {"taskId": created["taskId"]})
        if "error" in r.final:
            check(r.error["code"] == -32602, str(r.error))
            break
        check(time.monotonic() < deadline, "short-TTL task never expired")
        time.sleep(0.1)


def t_progress_sse(c: Client) -> None:
    meta = c.meta(progressToken="p-1", **{"io.modelcontextprotocol/logLevel": "info"})
    r = c.call("tools/call", {"name": "progress", "arguments": {"steps": 3, "delay_ms": 20}}, meta=meta)
    check(r.content_type.startswith("text/event-stream"), f"progress must stream: {r.content_type}")
    progress = [n["params"]["progress"] for n in r.notifications if n["method"] == "notifications/progress"]
    logs = [n for n in r.notifications if n["method"] == "notifications/message"]
    check(progress == [1, 2, 3], str(progress))
    check(len(logs) == 3 and all(n["params"]["level"] == "info" for n in logs), "info logs only")
    check(r.result["content"][0]["text"] == "done 3 steps", "final result last")
    plain = c.call("tools/call", {"name": "progress", "arguments": {"steps": 2, "delay_ms": 1}})
    check(plain.content_type.startswith("application/json"), "no token, no logLevel -> plain JSON")


def t_listen(c: Client) -> None:
    conn, resp, listen_id = c.open(
        "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, timeout=10
    )
    check(resp.getheader("content-type", "").startswith("text/event-stream"), "listen streams")
    events = sse_events(resp)
    ack = json.loads(next(events))
    check(ack["method"] == "notifications/subscriptions/acknowledged", str(ack))
    check(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen_id, str(ack))
    got: list[dict[str, Any]] = []

    def read() -> None:
        for data in events:
            got.append(json.loads(data))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    c.call("tools/call", {"name": "add_tool", "arguments": {"name": "smoke_dyn"}})
    c.call("tools/call", {"name": "remove_tool", "arguments": {"name": "smoke_dyn"}})
    deadline = time.monotonic() + 3
    while sum(m.get("method") == "notifications/tools/list_changed" for m in got) < 2:
        check(time.monotonic() < deadline, f"list_changed not received: {got}")
        time.sleep(0.02)
    check(c.http("POST", "/debug/close-listeners").status == 200, "close listeners")
    reader.join(3)
    conn.close()
    check(not reader.is_alive(), "listen stream not ended by the server")
    final = got[-1]
    check(final.get("id") == listen_id and final["result"]["resultType"] == "complete", f"graceful end: {final}")


def t_abort(c: Client) -> None:
    # http.client waits for the response headers, so the request goes out on a raw socket that is then closed.
    c.next_id += 1
    body = json.dumps({"jsonrpc": "2.0", "id": c.next_id, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 5000}, "_meta": c.meta()}}).encode()
    headers = c.headers_for("tools/call", {"name": "slow"})
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    raw = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{c.port}\r\n{head}Content-Length: {len(body)}\r\n\r\n").encode()
    sock = socket.create_connection(("127.0.0.1", c.port), timeout=5)
    sock.sendall(raw + body)
    deadline = time.monotonic() + 3
    while not any(e["event"] == "slow_started" for e in c.debug("/debug/events")):
        check(time.monotonic() < deadline, "slow never started")
        time.sleep(0.02)
    sock.close()
    while not any(e["event"] == "slow_cancelled" for e in c.debug("/debug/events")):
        check(time.monotonic() < deadline, "closing the connection did not cancel the handler")
        time.sleep(0.02)


def t_cors(c: Client) -> None:
    r = c.http("OPTIONS", "/mcp", headers={
        "Origin": "http://127.0.0.1:9999",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,mcp-protocol-version,mcp-method,mcp-name,"
                                          "mcp-param-region,authorization",
    })
    check(r.status in (200, 204), f"preflight status {r.status}")
    check(r.headers.get("access-control-allow-origin") == "http://127.0.0.1:9999", "allow-origin echo")
    allowed = {h.strip().lower() for h in r.headers.get("access-control-allow-headers", "").split(",")}
    for h in ("*", "content-type", "accept", "authorization", "mcp-protocol-version", "mcp-method", "mcp-name",
              "mcp-param-region", "mcp-session-id", "last-event-id"):
        check(h in allowed, f"Access-Control-Allow-Headers lacks {h}: {allowed}")
    check("POST" in r.headers.get("access-control-allow-methods", ""), "allow-methods")
    expose = r.headers.get("access-control-expose-headers", "").lower()
    check("www-authenticate" in expose and "mcp-session-id" in expose, "expose-headers")
    r = c.call("tools/list", headers={"Origin": "http://127.0.0.1:9999"})
    check(r.status == 200 and r.headers.get("access-control-allow-origin") == "http://127.0.0.1:9999",
          "cross-origin POST allowed (DNS-rebinding protection admits localhost origins of any port)")


def t_debug_log(c: Client) -> None:
    log = c.debug("/debug/log")
    check(isinstance(log, list) and log, "debug log empty")
    retries = [e for e in log if e["method"] == "tools/call" and "inputResponses" in (e["body"]["params"] or {})]
    check(retries, "the ask_name retry is in the log")
    entry = retries[0]
    check(entry["headers"]["mcp-method"] == "tools/call" and entry["headers"]["mcp-name"] == "ask_name", "headers")
    check(entry["headers"]["mcp-protocol-version"] == PROTOCOL_VERSION, "version header")
    check('"requestState"' in entry["rawBody"] and entry["id"] == entry["body"]["id"], "raw body recorded")
    check(entry["status"] == 200 and entry["completed"] is True, str({k: entry[k] for k in ("status", "completed")}))
    preflights = [e for e in log if e["httpMethod"] == "OPTIONS"]
    check(preflights and preflights[-1]["status"] == 204, "preflight recorded")
    aborted = [e for e in log if (e["body"] or {}).get("params", {}).get("name") == "slow"]
    check(aborted and aborted[-1]["clientDisconnected"] is True, "client disconnect recorded")
    check(c.http("POST", "/debug/reset").status == 200, "reset")
    check(c.debug("/debug/log") == [], "reset clears the log")


CHECKS: list[tuple[str, Callable[[Client], None]]] = [
    ("server/discover advertises the tasks extension", t_discover),
    ("tools/list", t_tools_list),
    ("tools/call echo", t_echo),
    ("header validation (Mcp-Name, Mcp-Param-*, _meta, 404)", t_header_checks),
    ("ask_name MRTR round trip", t_ask_name),
    ("task_two_inputs via tasks/get + tasks/update", t_task_two_inputs),
    ("task_fail", t_task_fail),
    ("tasks/cancel on task_slow", t_task_cancel),
    ("task errors (-32602, -32021)", t_task_errors),
    ("task_lost_ack and task_short_ttl", t_task_lost_ack_and_ttl),
    ("progress + logging over SSE", t_progress_sse),
    ("subscriptions/listen list_changed", t_listen),
    ("abort cancels the handler", t_abort),
    ("CORS preflight from http://127.0.0.1:9999", t_cors),
    ("debug log", t_debug_log),
]


# ------------------------------------------------------------------------------- main


def start_server(stderr_file: Any) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "modern_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=stderr_file,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []

    def read_line() -> None:
        lines.append(proc.stdout.readline())  # type: ignore[union-attr]

    reader = threading.Thread(target=read_line, daemon=True)
    reader.start()
    reader.join(10)
    line = lines[0].strip() if lines else ""
    if not line.startswith("READY http://127.0.0.1:") or not line.endswith("/mcp"):
        proc.kill()
        raise RuntimeError(f"server did not print READY within 10 s (got {line!r})")
    port = int(line.split(":")[2].split("/")[0])
    return proc, port


def stop_server(proc: subprocess.Popen[str]) -> tuple[bool, str]:
    os.kill(proc.pid, signal.SIGTERM)
    try:
        rc = proc.wait(timeout=8)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return False, "did not exit within 8 s of SIGTERM (killed)"
    return rc == 0, f"exit status {rc}"


def main() -> int:
    started = time.monotonic()
    passed = failed = 0
    with tempfile.TemporaryFile(mode="w+") as stderr_file:
        try:
            proc, port = start_server(stderr_file)
        except Exception as exc:
            print(f"FAIL start: {exc}")
            stderr_file.seek(0)
            print(stderr_file.read()[-3000:])
            print("0 passed, 1 failed")
            return 1
        print(f"server pid {proc.pid} on port {port}")
        client = Client(port)
        try:
            for name, fn in CHECKS:
                t0 = time.monotonic()
                try:
                    fn(client)
                except Exception as exc:
                    failed += 1
                    print(f"FAIL {name}: {exc}")
                    if VERBOSE or not isinstance(exc, CheckFailed):
                        traceback.print_exc()
                else:
                    passed += 1
                    print(f"ok   {name} ({time.monotonic() - t0:.2f} s)")
        finally:
            t0 = time.monotonic()
            ok, detail = stop_server(proc)
            if ok:
                passed += 1
                print(f"ok   SIGTERM shutdown ({detail}, {time.monotonic() - t0:.2f} s)")
            else:
                failed += 1
                print(f"FAIL SIGTERM shutdown: {detail}")
            if failed or VERBOSE:
                stderr_file.seek(0)
                print("---- server stderr (tail) ----")
                print(stderr_file.read()[-4000:])
    print(f"total {time.monotonic() - started:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
