#!/usr/bin/env python3
"""Writes the seed corpus fuzz/seeds/<target>/ from the spec examples in
tests/fixtures/spec/2026-07-28/examples (plus a few hand-written cases each).

Deterministic: run it again and the same files come out (names are content hashes).
Usage: python3 fuzz/make_seeds.py   (from anywhere)

The input formats are documented in fuzz/src/<target>.rs.
"""

import hashlib
import json
import os
import shutil
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "tests", "fixtures", "spec", "2026-07-28", "examples")
OUT = os.path.join(ROOT, "fuzz", "seeds")
SEP = b"\xff"


def examples():
    """(type name, file name, parsed JSON, raw bytes) for every example, sorted."""
    out = []
    for t in sorted(os.listdir(EXAMPLES)):
        d = os.path.join(EXAMPLES, t)
        for f in sorted(os.listdir(d)):
            raw = open(os.path.join(d, f), "rb").read()
            out.append((t, f, json.loads(raw), raw))
    return out


EX = examples()


def ex(type_name, index=0):
    return [e for e in EX if e[0] == type_name][index][2]


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


class Seeds:
    def __init__(self, target):
        self.dir = os.path.join(OUT, target)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.n = 0

    def add(self, data):
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(data)
        self.n += 1


# ---------------------------------------------------------------------------------- sse

def sse_seeds():
    s = Seeds("sse")
    msgs = [e[2] for e in EX if isinstance(e[2], dict) and "jsonrpc" in e[2]]
    for i, m in enumerate(msgs):
        body = b"event: message\ndata: " + compact(m) + b"\n\n"
        bound = [255, 200, 100, 40][i % 4]
        # [bound][n][lens...]: split in 3 chunks at varying points.
        s.add(bytes([bound, 2, 7 + i % 13, 1 + i % 5]) + body)
    streams = [
        b"\xef\xbb\xbfdata: bom\n\n",
        b"data: a\r\ndata: b\r\n\r\n",
        b"data: cr\rdata: only\r\r",
        b": keep-alive\n\nid: 42\nretry: 1500\ndata: {}\n\n",
        b"event: endpoint\ndata: /messages?session_id=abc\n\n",
        b"data\n\ndata:\n\ndata:  two spaces\n\n",
        b"id: \x00nul\ndata: x\n\nid\ndata: y\n\n",
        b"retry: 12x\nretry: 99999999999999999999999\ndata: z\n\n",
        b"data: unterminated",
        b"data: \xc3\x28 bad utf8\n\n",
        b"event: a\nevent: b\ndata: 1\ndata: 2\n\n",
        b"id: " + b"i" * 1100 + b"\ndata: long id\n\n",
    ]
    for i, st in enumerate(streams):
        s.add(bytes([255, 0]) + st)
        s.add(bytes([8 + i, 4, 1, 0, 2, 3]) + st)
    return s.n


# ------------------------------------------------------------------------------ jsonrpc

def jsonrpc_seeds():
    s = Seeds("jsonrpc")
    for _, _, v, raw in EX:
        if isinstance(v, dict) and "jsonrpc" in v:
            s.add(raw)
            s.add(compact(v))
    for extra in [
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
        b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}',
        b'{"jsonrpc":"2.0","id":1.5,"result":{}}',
        b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602.0,"message":null,"data":[1]}}',
        b'{"jsonrpc":"1.0","id":1,"result":{}}',
        b'{"jsonrpc":"2.0","method":"ping","id":"a","params":7}',
        b'[{"jsonrpc":"2.0","method":"x"}]',
    ]:
        s.add(extra)
    return s.n


# ------------------------------------------------------------------------------ results

T0 = "2025-11-25T10:30:00Z"


def task(tid="task-123", status="working", **kw):
    t = {"taskId": tid, "status": status, "createdAt": T0, "lastUpdatedAt": T0,
         "ttlMs": 3600000, "pollIntervalMs": 1000}
    t.update(kw)
    return t


def results_list():
    """Result payloads (not envelopes) the client decodes."""
    out = []
    for t, _, v, _ in EX:
        if t.endswith("Result") or t in ("InputRequests",):
            out.append(v)
        if isinstance(v, dict) and isinstance(v.get("result"), dict):
            out.append(v["result"])
    out += [
        dict(task(), resultType="task"),
        dict(task(status="completed"), resultType="complete",
             result={"content": [{"type": "text", "text": "done"}]}),
        dict(task(status="failed"), resultType="complete",
             error={"code": -32603, "message": "boom"}),
        dict(task(status="input_required"), resultType="complete",
             inputRequests=ex("InputRequiredResult")["inputRequests"]),
        dict(task(ttlMs=None, createdAt="2025-11-25T12:30:00.123+02:00")),
        {"task": task()},
        {"protocolVersion": "2025-11-25", "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}},
         "serverInfo": {"name": "old", "version": "1"}, "instructions": "hi"},
        {"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "x", "version": "0"}},
    ]
    return out


def results_seeds():
    s = Seeds("results")
    for v in results_list():
        s.add(compact(v))
    for ts in [T0, "2025-11-25t05:30:00.5-05:00", "0000-01-01T00:00:00+23:59",
               "9999-12-31T23:59:60Z", "2024-02-29 00:00:00.123456789Z"]:
        s.add(ts.encode())
    return s.n


# ------------------------------------------------------------------------------ headers

def headers_seeds():
    s = Seeds("headers")
    texts = [b"us-west1", "Hello, 世界".encode(), b" padded ", b"line1\nline2",
             b"=?base64?SGVsbG8=?=", b"=?base64?=", b"=?base64?!!?=", b"tab\there", b""]
    schemas = [
        {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "nested": {"type": "object", "properties": {
                "deep": {"type": "string", "x-mcp-header": "Deep"}}}}},
        {"type": "object", "properties": {"a": {"type": "array", "items": {"x-mcp-header": "A"}}}},
        {"type": "object", "properties": {"x-mcp-header": {"type": "string"}},
         "$defs": {"d": {"x-mcp-header": "D"}}},
        {"x-mcp-header": "Root"},
        {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Re gion"}}},
    ]
    for t, _, v, _ in EX:
        if t == "Tool":
            schemas.append(v["inputSchema"])
    args = [
        {"region": "us-west1", "count": 42, "flag": True, "nested": {"deep": "Hello, 世界"}},
        {"region": " padded\r\n", "count": 9007199254740992, "flag": None},
        {"region": ["x"], "count": 42.0},
        {"a": 1, "b": 2},
    ]
    for i, sc in enumerate(schemas):
        s.add(texts[i % len(texts)] + SEP + compact(sc) + SEP + compact(args[i % len(args)]))
    for t in texts:
        s.add(t)
    return s.n


# ------------------------------------------------------------------------------- schema

def schema_seeds():
    s = Seeds("schema")
    pairs = []
    tools = [e[2] for e in EX if e[0] == "Tool"]
    results = [e[2] for e in EX if e[0] == "CallToolResult"]
    for t in tools:
        for r in results:
            if "outputSchema" in t and "structuredContent" in r:
                pairs.append((t["outputSchema"], r["structuredContent"]))
    forms = [e[2] for e in EX if e[0] == "ElicitRequestFormParams"]
    answers = [e[2] for e in EX if e[0] == "ElicitResult"]
    for f in forms:
        for a in answers:
            pairs.append((f["requestedSchema"], a))
    for t in ("StringSchema", "NumberSchema", "BooleanSchema", "UntitledSingleSelectEnumSchema",
              "TitledSingleSelectEnumSchema", "UntitledMultiSelectEnumSchema",
              "TitledMultiSelectEnumSchema"):
        for e in EX:
            if e[0] == t:
                pairs.append(({"type": "object", "properties": {"f": e[2]}, "required": ["f"]},
                              {"action": "accept", "content": {"f": e[2].get("default", "x")}}))
    for e in EX:
        if e[0] in ("CreateMessageResult", "ListRootsResult"):
            pairs.append(({}, e[2]))
    pairs += [
        ({"$defs": {"n": {"type": "integer", "minimum": 0}}, "type": "object",
          "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"anyOf": [{"type": "string"}, {"const": 1}]}},
          "required": ["a"], "additionalProperties": False}, {"a": 3, "b": 1}),
        ({"type": "array", "prefixItems": [{"type": "string"}], "items": False,
          "uniqueItems": True, "contains": {"const": "x"}}, ["x"]),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"type": "null"}},
          "items": [{"$ref": "#/definitions/a"}], "additionalItems": False}, [None]),
        ({"oneOf": [{"multipleOf": 0.5}, {"maximum": 10, "exclusiveMinimum": 2}],
          "not": {"type": "boolean"}}, 3.5),
        ({"$id": "http://x/s", "$anchor": "top", "properties": {"r": {"$ref": "#top"}},
          "dependentRequired": {"a": ["b"]}, "propertyNames": {"maxLength": 3},
          "unevaluatedProperties": False, "if": {"required": ["a"]}, "then": {"minProperties": 2}},
         {"a": 1, "b": 2}),
        ({"$ref": "https://example.com/remote.json"}, {}),
    ]
    for sc, inst in pairs:
        s.add(b"\x00" + compact(sc) + SEP + compact(inst))
    patterns = [("^[a-z]+$", "hello"), ("(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
                ("^\\d{3}-\\d{4}$", "555-1234"), ("(?=.*\\d)(?!x)\\w{2,}?", "ab1"),
                ("[^\\s\\u00e9-\\u{1F600}]\\b.", "é😀 x"), ("(?<n>a|b)*c{2,}", "ababcc"),
                ("\\x41\\t\\0[\\]-]", "A\t\0]"), ("a{0,3000}", "aaa"), ("(", ""), ("\\1", "")]
    for p, t in patterns:
        s.add(b"\x01" + p.encode() + SEP + t.encode())
    for f, t in [("email", "user@example.com"), ("uri", "https://x.test/a?b#c"),
                 ("date", "2024-02-29"), ("date-time", T0), ("email", "a@b"),
                 ("uri", "not a uri"), ("ipv4", "1.2.3.4")]:
        s.add(b"\x02" + f.encode() + SEP + t.encode())
    urls = [ex("ElicitRequestURLParams")["url"], "HTTPS://MCP.Example.com:443/ui?x=1#f",
            "http://localhost:3000/cb", "http://[::1]:8080/x", "https://[2001:DB8::1]/",
            "https://xn--pple-43d.com/login", "https://аpple.com/", "https://example.com./",
            "https://user:pass@example.com/", "https://0x7f.0.0.1/", "https://exa\u202emple.com/",
            "https://a..b/", "https://example.com:99999/"]
    for u in urls:
        s.add(b"\x03" + u.encode())
    return s.n


# ------------------------------------------------------------------------------- engine

def blob(b):
    if isinstance(b, (dict, list)):
        b = compact(b)
    if isinstance(b, str):
        b = b.encode()
    b = b[:65535]
    return struct.pack("<H", len(b)) + b


def with_id(msg):
    """A JSON-RPC message with `"id":$ID` (the driver puts the request's id there)."""
    m = dict(msg)
    m["id"] = "__ID__"
    return compact(m).replace(b'"__ID__"', b"$ID")


def result_msg(result):
    return with_id({"jsonrpc": "2.0", "id": 0, "result": result})


# opcodes
START, HEAD, CHUNK, END, FAIL, REPLY, SSE, ANSWER, ADVANCE, DEADLINE, ABORT, CLOSE = range(12)
# issue 13 opcodes (only with cfg13: config2 & 3 == 3, then a third config byte)
RESTORE, HIDDEN, ONLINE, NOTICE, AUTH_ANSWER = range(12, 17)
# coordination across contexts (only with cfgp: the extension, config3 & 0xC0 == 0x80)
PEER_MSG, GRANT, PEER_VISIBLE = range(17, 20)
HELLO, BYE, OBS, KEYS, ANSWER_MSG, GONE, FLOOD = range(1, 8)
# start kinds
DISCOVER, REQUEST, LIST_ALL, CALL_TOOL, _, GET_TASK, UPDATE_TASK, CANCEL_TASK, LIST_TASKS, WAIT, _, LISTEN = range(12)
METHODS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list",
           "resources/read", "prompts/get", "completion/complete", "bogus/method"]
CT_JSON, CT_SSE = 0, 1
ST = {200: 0, 202: 3, 400: 5, 401: 6, 404: 7, 405: 8, 500: 11, 503: 13}


def cfg(version=0, tasks=False, form=False, url=False, sampling=False, roots=False,
        tight=False, b=0):
    a = version | (4 if tasks else 0) | (8 if form else 0) | (0x10 if url else 0) \
        | (0x20 if sampling else 0) | (0x40 if roots else 0) | (0x80 if tight else 0)
    return bytes([a, b])


def cfg13(version=0, tasks=False, form=False, persist=True, store_answers=True,
          hidden=0, auth=False, client_credentials=False):
    """A configuration with the issue-13 opcodes on: config2 & 3 == 3 (strict output
    validation, as 0), then the third byte. `hidden`: 0 60 s, 1 Infinity, 2 0, 3 1 s."""
    a = cfg(version, tasks=tasks, form=form)[0]
    c = (0 if persist else 4) | (0 if store_answers else 8) | (hidden << 4) \
        | (0x40 if auth else 0) | (0x80 if client_credentials else 0)
    return bytes([a, 3, c])


def cfgp(version=0, tasks=True, form=True, at_once=False, visible=True, oauth=False,
         hidden=0):
    """Coordination across contexts: the extension's third byte with client credentials
    and no OAuth (0x80), then the fourth: OAuth too, task locks granted at once, visible."""
    a = cfg(version, tasks=tasks, form=form)[0]
    e = (1 if oauth else 0) | (4 if at_once else 0) | (8 if visible else 0)
    return bytes([a, 3, 0x80 | (hidden << 4), e])


def pmsg(kind, fields=b"", frm=0, task=0, own=False, v2=False, tail=b""):
    """A message from another context (opcode 17): `frm` 0-2 ctx-a/b/c, 3 this context;
    `task` 0 the latest task locked; `fields` the template's (none when `own` replays
    the engine's own message of that type)."""
    m = kind | (8 if own else 0) | (0x10 if v2 else 0)
    if kind & 7 == FLOOD:
        return bytes([PEER_MSG, m]) + fields  # [n]: n + 1 hellos
    return bytes([PEER_MSG, m, frm | (task << 3)]) + fields + tail


def obs(status, at=0, ttl=0, later=False):
    """An `obs` template's byte: status 0 working, 1 input_required q, 2 k1 and q,
    3 completed, 4 failed, 5 cancelled, 7 the engine's own last; `at` 0 now, 1 1.5 s ago,
    2 none, 3 far ahead."""
    return bytes([status | (at << 3) | (ttl << 5) | (0x80 if later else 0)])


def keys(presenters=0, pending=0, acked=0):
    """A `keys` template: per key (q, k1, then keys asked), 2 bits: 1 this context,
    2 ctx-a, 3 ctx-b; `pending`/`acked` bit sets over the same keys."""
    return bytes([presenters, pending | (acked << 4)])


def head(status=200, ct=CT_JSON, pick=0, sid=False):
    flags = 4 if sid else 0
    return bytes([HEAD, pick, flags, ST[status], ct])


def reply(body, pick=0):
    return bytes([REPLY, pick]) + blob(body)


def sse(bodies, pick=0, end=True, ids=False):
    n = len(bodies) | (0x80 if end else 0) | (0x40 if ids else 0)
    return bytes([SSE, pick, n]) + b"".join(blob(x) for x in bodies)


def answer(k, sel, body=None):
    return bytes([ANSWER, k, sel]) + (blob(body) if sel % 10 == 9 else b"")


def call_tool(name_idx=0, as_task=False, opts=0, args=None, name=None, listed=True):
    """Starts a tool call and (unless `listed` is false: the list is cached or the era
    has none) answers the tools/list the engine sends first. The arguments go in as the
    shell passes them (`JSON.stringify`'s text, `ToolArguments::from_stringify`): the two
    bytes after the blob choose that (the target reads them since 7cf134d and 3779d36;
    seeds made before lacked them, and the bytes of the next step were read instead)."""
    n = bytes([name_idx]) if name is None else b"\xff" + blob(name)
    start = bytes([START, CALL_TOOL]) + n + bytes([1 if as_task else 0, opts]) + blob(args or {})
    start += bytes([0, 1])
    return start + (reply(result_msg(TOOLS_LIST)) if listed else b"")


# What tools/list answers before the first call (the engine lists tools first: it needs
# their x-mcp-header annotations and output schemas).
TOOLS_LIST = {"resultType": "complete", "ttlMs": 60000, "cacheScope": "public", "tools": [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {
        "text": {"type": "string", "x-mcp-header": "Text"},
        "n": {"type": "integer", "x-mcp-header": "N"}}}},
    {"name": "weather", "inputSchema": {"type": "object", "properties": {
        "location": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}},
                      "required": ["temperature"]},
     "execution": {"taskSupport": "optional"}},
    {"name": "t\u00e9l\u00e9", "inputSchema": {"type": "object"}},
    {"name": "slow", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
]}


def notif(method, params):
    return compact({"jsonrpc": "2.0", "method": method, "params": params})


def engine_seeds():
    s = Seeds("engine")
    modern = cfg()
    # Single requests answered with the spec's own responses, as JSON and as SSE.
    pairs = [("ListToolsResultResponse", 0), ("ListPromptsResultResponse", 1),
             ("ListResourcesResultResponse", 2), ("ListResourceTemplatesResultResponse", 3),
             ("ReadResourceResultResponse", 4), ("GetPromptResultResponse", 5),
             ("CompleteResultResponse", 6)]
    for t, m in pairs:
        body = with_id(ex(t))
        params = {"uri": "file:///a", "name": "p", "ref": {"type": "ref/prompt", "name": "p"},
                  "argument": {"name": "a", "value": "b"}}
        start = bytes([START, REQUEST, m, 0]) + blob(params)
        s.add(modern + start + reply(body) + bytes([CLOSE]))
        s.add(modern + start + sse([body], end=False) + bytes([ADVANCE, 7, CLOSE]))
    s.add(modern + bytes([START, DISCOVER, 0]) + reply(with_id(ex("DiscoverResultResponse")))
          + bytes([START, DISCOVER, 0, CLOSE]))
    # list_all over two pages.
    p1 = dict(ex("ListToolsResult"), nextCursor="c2")
    s.add(modern + bytes([START, LIST_ALL, 0, 0]) + reply(result_msg(p1))
          + reply(result_msg(ex("ListToolsResult"))))
    # Tool calls: plain, with output schema, errors.
    for r in [e[2] for e in EX if e[0] == "CallToolResult"]:
        s.add(modern + call_tool(1, args={"location": "NYC"}) + reply(result_msg(r)))
    for t in ("MethodNotFoundError", "InvalidParamsError", "InternalError",
              "UnsupportedProtocolVersionError", "MissingRequiredClientCapabilityError",
              "HeaderMismatchError", "ParseError"):
        s.add(modern + call_tool() + head(400) + bytes([CHUNK, 0]) + blob(with_id(ex(t)))
              + bytes([END, 0, CLOSE]))
    # Plain calls (`engine::core::plain`): after a first call listed the tools, calls of
    # "télé" (no x-mcp-header parameter, no outputSchema) take the short path; each later
    # event either ends one (a complete result) or hands it to the general path first.
    def tele():
        return call_tool(2, listed=False, args={"q": 1})

    done_r = result_msg(ex("CallToolResult", 3))
    s.add(modern + call_tool(2) + reply(done_r) + tele() + reply(done_r) + tele()
          + sse([done_r]) + tele() + tele() + reply(done_r, pick=1) + bytes([DEADLINE])
          + tele() + head(400) + bytes([CHUNK, 0]) + blob(with_id(ex("InvalidParamsError")))
          + bytes([END, 0]) + tele() + bytes([FAIL, 0, 0]) + tele() + bytes([ABORT, 0])
          + tele() + reply(with_id(ex("HeaderMismatchError"))) + reply(result_msg(TOOLS_LIST))
          + reply(done_r) + tele() + bytes([CLOSE]))
    mrtr_plain = cfg(form=True, url=True, sampling=True, roots=True)
    s.add(mrtr_plain + call_tool(2) + reply(done_r) + tele()
          + reply(result_msg(ex("InputRequiredResult", 0)))
          + answer(0, 9, {"action": "accept", "content": {"name": "octocat"}}) + answer(1, 4)
          + reply(done_r) + tele() + bytes([ADVANCE, 7, CLOSE]))
    s.add(cfg(tasks=True) + call_tool(2) + reply(done_r) + tele()
          + reply(result_msg(dict(task(), resultType="task"))) + bytes([DEADLINE])
          + reply(result_msg(dict(task(status="completed"), resultType="complete",
                                  result={"content": []}))) + tele() + tele() + bytes([CLOSE]))
    # Tools list with an output schema, then a call checked against it.
    tl = {"resultType": "complete", "tools": [ex("Tool", 5)], "ttlMs": 0}
    s.add(modern + bytes([START, REQUEST, 0, 0]) + blob({}) + reply(result_msg(tl))
          + call_tool(name=ex("Tool", 5)["name"], args={"location": "x"}, listed=False)
          + reply(result_msg(ex("CallToolResult", 2))))
    # MRTR: input_required, the host answers, the retry completes.
    ir = ex("InputRequiredResult", 0)
    mrtr = cfg(form=True, url=True, sampling=True, roots=True)
    s.add(mrtr + call_tool(1, opts=0x40) + reply(result_msg(ir))
          + answer(0, 9, {"action": "accept", "content": {"name": "octocat"}}) + answer(1, 4)
          + reply(result_msg(ex("CallToolResult", 3))) + bytes([CLOSE]))
    s.add(mrtr + call_tool(1) + reply(result_msg(ex("InputRequiredResult", 1)))
          + reply(result_msg(ex("CallToolResult", 3))))
    url_ir = {"resultType": "input_required", "inputRequests": {
        "k": {"method": "elicitation/create", "params": ex("ElicitRequestURLParams")},
        "r": {"method": "roots/list"}}}
    s.add(mrtr + call_tool(0) + sse([notif("notifications/progress",
                                          {"progressToken": 1, "progress": 1, "total": 2}),
                                    result_msg(url_ir)])
          + answer(0, 0) + answer(1, 5) + answer(1, 8) + bytes([DEADLINE]))
    # Progress on the request's own stream ($PT), then the result.
    s.add(modern + call_tool(0, opts=0x44)
          + sse([b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":$PT,"progress":1}}',
                 b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
                 result_msg(ex("CallToolResult", 3))]))
    # Tasks (2026-07-28 extension): created, polled, completed / input_required / failed.
    tcfg = cfg(tasks=True, form=True)
    done = dict(task(status="completed"), resultType="complete",
                result={"content": [{"type": "text", "text": "done"}]})
    needs = dict(task(status="input_required"), resultType="complete",
                 inputRequests={"q": ex("InputRequiredResult")["inputRequests"]["github_login"]})
    failed = dict(task(status="failed"), resultType="complete",
                  error={"code": -32603, "message": "boom"})
    s.add(tcfg + call_tool(1, as_task=True) + reply(result_msg(dict(task(), resultType="task")))
          + bytes([DEADLINE]) + reply(result_msg(dict(task(), resultType="complete")))
          + bytes([DEADLINE]) + reply(result_msg(needs)) + answer(0, 3)
          + reply(result_msg({"resultType": "complete"}))
          + bytes([DEADLINE]) + reply(result_msg(done)) + bytes([CLOSE]))
    s.add(tcfg + call_tool(1) + reply(result_msg(dict(task(), resultType="task")))
          + bytes([ADVANCE, 5]) + reply(result_msg(failed)))
    s.add(tcfg + bytes([START, WAIT, 0, 1, 0]) + reply(result_msg(done)))
    s.add(tcfg + bytes([START, GET_TASK, 4, 0]) + reply(result_msg(done))
          + bytes([START, CANCEL_TASK, 0, 0]) + reply(result_msg({}))
          + bytes([START, UPDATE_TASK, 0, 0]) + blob({"q": {"action": "decline"}})
          + reply(result_msg({}))
          + bytes([START, WAIT, 0x84, 0, 0]))
    s.add(tcfg + call_tool(1, as_task=True) + reply(result_msg(dict(task(), resultType="task")))
          + bytes([ABORT, 0]) + reply(result_msg({})))
    # subscriptions/listen: acknowledged, notifications, stream drop and re-listen.
    sub = b'"io.modelcontextprotocol/subscriptionId":$ID'
    ack = b'{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{' + sub + b'}}}'
    changed = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{' + sub + b'}}}'
    tnote = b'{"jsonrpc":"2.0","method":"notifications/tasks","params":' + compact(done)[:-1] + b',"_meta":{' + sub + b'}}}'
    s.add(modern + bytes([START, LISTEN, 0]) + sse([ack, changed], end=True)
          + bytes([DEADLINE]) + sse([ack], end=False) + bytes([CLOSE]))
    s.add(tcfg + bytes([START, LISTEN, 1]) + sse([ack, tnote], end=False)
          + bytes([START, WAIT, 0, 0, 0, ADVANCE, 8, CLOSE]))
    s.add(cfg(tight=True) + bytes([START, LISTEN, 0]) + bytes([FAIL, 0, 0, DEADLINE])
          + bytes([FAIL, 0, 0, DEADLINE, FAIL, 0, 0, DEADLINE]))
    # 2025-11-25 Streamable HTTP: initialize with a session id, initialized, requests.
    init25 = {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}, "tasks": {"list": {}, "requests": {"tools": {"call": {}}}}},
              "serverInfo": {"name": "old", "version": "1"}, "instructions": "hi"}
    legacy = cfg(version=2, tasks=True, form=True, sampling=True, roots=True)
    init_seq = (head(200, sid=True) + bytes([CHUNK, 0]) + blob(result_msg(init25))
                + bytes([END, 0]) + bytes([HEAD, 0, 0, ST[202], 5, END, 0]))
    s.add(legacy + bytes([START, REQUEST, 0, 0]) + blob({}) + init_seq
          + reply(result_msg(ex("ListToolsResult"))) + bytes([CLOSE]))
    server_req = b'{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":' + \
        compact(ex("ElicitRequestFormParams")) + b'}'
    tl = reply(result_msg(TOOLS_LIST))
    s.add(legacy + call_tool(1, listed=False) + init_seq + tl
          + sse([server_req, result_msg(ex("CallToolResult", 3))], end=False, ids=True)
          + answer(0, 3) + bytes([FAIL, 1, 0, DEADLINE, DEADLINE]))
    s.add(legacy + call_tool(1, as_task=True, listed=False) + init_seq + tl
          + reply(result_msg({"task": task()})) + bytes([DEADLINE])
          + reply(result_msg(task(status="completed"))) + reply(result_msg(ex("CallToolResult", 3)))
          + bytes([START, LIST_TASKS, 0, 1]) + reply(result_msg({"tasks": []})))
    s.add(legacy + bytes([START, DISCOVER, 0]) + head(404) + bytes([END, 0, CLOSE]))
    # Auto: probe refused, initialize, then the 2024-11-05 HTTP+SSE fallback.
    auto = cfg(version=1)
    s.add(auto + bytes([START, REQUEST, 1, 0]) + blob({}) + head(405) + bytes([END, 0])
          + init_seq + reply(result_msg({"prompts": []})))
    init24 = dict(init25, protocolVersion="2024-11-05")
    s.add(auto + bytes([START, REQUEST, 1, 0]) + blob({}) + head(405) + bytes([END, 0])
          + head(405) + bytes([END, 0]) + head(200, ct=CT_SSE)
          + bytes([CHUNK, 0]) + blob(b"event: endpoint\ndata: /messages?session_id=abc\n\n")
          + bytes([HEAD, 0, 0, ST[202], 5, END, 0])
          + bytes([CHUNK, 0]) + blob(b"event: message\ndata: " + result_msg(init24) + b"\n\n")
          + bytes([HEAD, 0, 0, ST[202], 5, END, 0])
          + bytes([HEAD, 0, 0, ST[202], 5, END, 0])
          + bytes([CHUNK, 0]) + blob(b"event: message\ndata: " + result_msg({"prompts": [2]}) + b"\n\n"))
    s.add(cfg(version=3) + bytes([START, REQUEST, 1, 0]) + blob({}) + head(200, ct=CT_SSE)
          + bytes([CHUNK, 0]) + blob(b"event: endpoint\ndata: https://evil.example/messages\n\n"))
    # Timeouts and a tight configuration.
    s.add(cfg(b=0x04) + call_tool() + bytes([ADVANCE, 3, DEADLINE, CLOSE]))
    s.add(cfg(tight=True, form=True) + call_tool(1) + sse([result_msg(ir)] * 3, end=False)
          + answer(0, 9, {"action": "accept", "content": {"name": "n"}}))
    engine13_seeds(s, done, needs)
    peers_seeds(s, done, needs)
    return s.n



def engine13_seeds(s, done, needs):
    """Issue 13: the task store's records, visibility, network, OAuth across contexts."""
    created = result_msg(dict(task(), resultType="task"))
    working = result_msg(dict(task(), resultType="complete"))
    octocat = answer(0, 9, {"action": "accept", "content": {"name": "octocat"}})
    # A task created (StoreTask), its record restored as written, with a byte changed,
    # under another task's key; hidden and visible; offline and online; then it ends.
    for c in (cfg13(tasks=True, form=True), cfg13(tasks=True, form=True, hidden=1),
              cfg13(tasks=True, form=True, hidden=3, store_answers=False)):
        s.add(c + call_tool(1) + reply(created)
              + bytes([RESTORE, 0, 0, RESTORE, 4, 0, 9, 0, 0x20, RESTORE, 0x08, 0, 1])
              + bytes([HIDDEN, 1]) + reply(working) + bytes([DEADLINE]) + reply(working)
              + bytes([HIDDEN, 0, ONLINE, 0, ADVANCE, 6, ONLINE, 1])
              + reply(result_msg(needs)) + octocat
              + bytes([ONLINE, 0]) + reply(result_msg({"resultType": "complete"}))
              + bytes([ONLINE, 1]) + reply(result_msg(done)) + bytes([CLOSE]))
    # Answers given offline wait; the record keeps them unless storeAnswers is off.
    for sa in (True, False):
        s.add(cfg13(tasks=True, form=True, store_answers=sa) + call_tool(1)
              + reply(created) + reply(result_msg(needs))
              + bytes([ONLINE, 0]) + octocat + bytes([RESTORE, 0, 0])
              + bytes([ADVANCE, 6, ONLINE, 1]) + reply(result_msg({"resultType": "complete"}))
              + reply(result_msg(done)) + bytes([DEADLINE]) + reply(result_msg(done)))
    # Records from templates (resumed after a reload), then a wait continues the task:
    # working, with input requests and a pending answer, expired, ended, newer, another
    # server's, any JSON.
    for t, u in ((0, 0), (0x49, 0), (0x41, 2), (0, 0x10), (2, 0), (0x20, 0), (0, 0x40),
                 (0x30, 0), (0x80, 0), (0, 0x80)):
        s.add(cfg13(tasks=True, form=True) + bytes([RESTORE, 3, t, u, 0])
              + bytes([START, WAIT, 0, 0, 0]) + reply(result_msg(needs)) + octocat
              + reply(result_msg({"resultType": "complete"})) + bytes([DEADLINE])
              + reply(result_msg(done)))
    s.add(cfg13(tasks=True) + bytes([RESTORE, 7]) + blob({"v": 1, "task": task()})
          + bytes([RESTORE, 0x17]) + blob([1, 2]) + blob("mcp-tasks/x")
          + bytes([START, WAIT, 0, 0, 0, ONLINE, 0, DEADLINE, ADVANCE, 10, DEADLINE]))
    # OAuth across contexts: a 401, discovery, the lock granted, storage read under it
    # (a stored token: no request), the call replayed; a notice reads the tokens again.
    prm = {"resource": "http://mcp.test/mcp", "authorization_servers": ["https://as.test"]}
    asm = {"issuer": "https://as.test", "authorization_endpoint": "https://as.test/authorize",
           "token_endpoint": "https://as.test/token", "response_types_supported": ["code"],
           "code_challenge_methods_supported": ["S256"]}
    tok = {"access_token": "at-new", "token_type": "Bearer", "expires_in": 3600,
           "refresh_token": "rt-new"}
    unauthorized = head(401)  # held: the engine cancels it and replays it later
    discovery = reply(prm) + reply(asm)
    for load in (1, 2, 0):
        # 1: a stored token is used; 2: an expired one is refreshed (token endpoint, save,
        # announce); 0: nothing stored: the person's step (random, authorize, callback).
        flow = unauthorized + discovery + bytes([AUTH_ANSWER, 0, AUTH_ANSWER, 0, 0])
        flow += bytes([AUTH_ANSWER, 0, load])
        if load == 2:
            flow += reply(tok)
        if load == 0:
            flow += bytes([AUTH_ANSWER, 0]) + bytes(range(48)) + bytes([AUTH_ANSWER, 0, 0])
            flow += reply(tok)
        s.add(cfg13(auth=True) + call_tool(0, listed=False) + flow
              + reply(result_msg(TOOLS_LIST)) + reply(result_msg(ex("CallToolResult", 3)))
              + bytes([NOTICE, 0, AUTH_ANSWER, 0, 1, NOTICE, 1]) + blob("k") + bytes([CLOSE]))
    # The lock never granted: abandoned at close(); client credentials.
    s.add(cfg13(auth=True) + call_tool(0, listed=False) + unauthorized + discovery
          + bytes([CLOSE]))
    s.add(cfg13(auth=True, client_credentials=True) + call_tool(0, listed=False)
          + unauthorized + discovery + bytes([AUTH_ANSWER, 0, AUTH_ANSWER, 0, 0])
          + bytes([AUTH_ANSWER, 0, 0]) + reply(tok) + reply(result_msg(TOOLS_LIST)))


def peers_seeds(s, done, needs):
    """Issue 13, coordination across contexts: leader and follower states, a takeover,
    answers forwarded, the other contexts' garbage, floods and departures."""
    working = result_msg(dict(task(), resultType="complete"))
    octo = {"action": "accept", "content": {"name": "octocat"}}
    octocat = answer(0, 9, octo)
    updated = reply(result_msg({"resultType": "complete"}))
    ctx_a_answers = pmsg(ANSWER_MSG, bytes([9 << 3]) + blob(octo))
    # Leader (alone: its lock granted at once), hidden: ctx-a says hello visible, the
    # question goes to ctx-a, whose answer the leader sends; then it polls to the end.
    lead = (cfgp(at_once=True, visible=False) + bytes([START, WAIT, 0, 0, 0])
            + pmsg(HELLO, b"\x01") + reply(result_msg(needs)))
    s.add(lead + ctx_a_answers + updated + bytes([DEADLINE]) + reply(result_msg(done))
          + bytes([CLOSE]))
    # ctx-a goes (its lock granted) before answering: the question comes back here.
    s.add(lead + bytes([GRANT, 0]) + octocat + updated + bytes([DEADLINE])
          + reply(result_msg(done)) + bytes([CLOSE]))
    # ctx-a says bye; this context is shown again; a flood of made-up contexts; garbage,
    # the engine's own messages replayed from ctx-b, a grant the shell never gives.
    s.add(lead + pmsg(BYE) + bytes([PEER_VISIBLE, 1]) + pmsg(FLOOD, bytes([199]), own=True)
          + pmsg(KEYS, own=True, frm=1) + pmsg(OBS, own=True, frm=1)
          + bytes([PEER_MSG, 0]) + blob('{"v":1,"t":"hello","from":"x","task":"task-123"')
          + bytes([DEADLINE]) + reply(working) + bytes([GRANT, 0x81, CLOSE]))
    # Follower (the lock stays with ctx-a): ctx-a's observation, then its assignment of
    # q to this context; the person answers here, the answer goes to ctx-a, which holds
    # it (pending) and reports it acknowledged; the task completes.
    follow = (cfgp() + bytes([START, WAIT, 0, 0, 0]) + pmsg(OBS, obs(1))
              + pmsg(KEYS, keys(presenters=1)) + octocat + pmsg(KEYS, keys(pending=1)))
    s.add(follow + pmsg(KEYS, keys(acked=1)) + pmsg(OBS, obs(3, later=True))
          + bytes([CLOSE]))
    # Takeover: ctx-a goes with the answer; this context gets the task's lock, polls
    # one interval after ctx-a's last observation, finds q still asked and sends it.
    s.add(follow + bytes([GRANT, 0, DEADLINE]) + reply(result_msg(needs)) + updated
          + bytes([DEADLINE]) + reply(result_msg(done)) + bytes([CLOSE]))
    # The leader's "not found" ends the wait; an expired TTL; a hidden follower; the
    # engine's own hello and answer replayed to it from ctx-a.
    s.add(cfgp(visible=False) + bytes([START, WAIT, 0, 0, 0]) + pmsg(OBS, obs(0))
          + pmsg(HELLO, own=True) + pmsg(GONE, b"\x02") + bytes([CLOSE]))
    s.add(cfgp() + bytes([START, WAIT, 0, 0, 0]) + pmsg(OBS, obs(2, ttl=1))
          + pmsg(KEYS, keys(presenters=0b0110)) + bytes([PEER_VISIBLE, 0])
          + answer(0, 9, octo) + pmsg(ANSWER_MSG, own=True, frm=0)
          + bytes([ADVANCE, 5, DEADLINE, CLOSE]))
    # Coordinated with OAuth across contexts too, and in a legacy era (no coordination).
    s.add(cfgp(at_once=True, oauth=True) + bytes([START, WAIT, 0, 0, 0]) + head(401)
          + bytes([CLOSE]))
    s.add(cfgp(version=2) + bytes([START, WAIT, 0, 0, 0]) + pmsg(OBS, obs(0))
          + bytes([CLOSE]))


def main():
    counts = {
        "sse": sse_seeds(),
        "jsonrpc": jsonrpc_seeds(),
        "results": results_seeds(),
        "headers": headers_seeds(),
        "schema": schema_seeds(),
        "engine": engine_seeds(),
    }
    for k, v in counts.items():
        print(f"{k}: {v} seeds")


if __name__ == "__main__":
    main()
