"""A real MCP 2026-07-28 test server on the official Python SDK (`mcp` 2.3.0), over Streamable HTTP.

    python tests/servers/modern_server.py --port 0

prints exactly one line `READY http://127.0.0.1:<port>/mcp` on stdout once it
accepts connections. SIGTERM/SIGINT shut it down (listen streams are ended
gracefully, in-flight requests get `--graceful-timeout` seconds).

What is here and why: see README.md beside this file. In short:

- the MCP endpoint is the SDK's own `MCPServer.streamable_http_app()` (SSE
  mode: the SDK answers `application/json` unless the handler emits a
  notification, then `text/event-stream`);
- tools/resources/prompts exercising every 2026-07-28 feature a browser client
  needs (MRTR through the SDK's `Resolve(Elicit/Sample/ListRoots)` and
  hand-rolled `InputRequiredResult`s, progress, logging, x-mcp-header,
  listen notifications, caching hints, output schemas);
- the Tasks extension (`tasks_ext.py`) on the SDK's Extension API;
- plain ASGI wrappers around the SDK app: permissive CORS for a page on
  another localhost port, a request recorder for `GET /debug/log`, and the
  lost-ack hook of `task_lost_ack`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import logging
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import uvicorn
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp.server.caching import CacheHint  # noqa: E402
from mcp.server.mcpserver import (  # noqa: E402
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from mcp.server.mcpserver.tools import Tool  # noqa: E402
from mcp.server.subscriptions import InMemorySubscriptionBus  # noqa: E402
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError  # noqa: E402
from mcp.shared.inbound import decode_header_value  # noqa: E402
from mcp_types import (  # noqa: E402
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    Icon,
    InputRequiredResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    TextContent,
)

from tasks_ext import TaskRun, TasksExtension, elicit_form  # noqa: E402

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
log = logging.getLogger("modern_server")

SERVER_NAME = "mcp-wasm-client-test-server"
SERVER_VERSION = "0.1.0"
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
ICON = Icon(src="data:image/png;base64," + base64.b64encode(PNG_1X1).decode(), mime_type="image/png", sizes=["1x1"])


# =============================================================================== debug state


class DebugState:
    """What the /debug endpoints expose. Touched only from the event loop thread."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.seq = 0
        self.base_url = ""
        self.touch_counts: dict[str, int] = {}

    def event(self, kind: str, **fields: Any) -> None:
        self.events.append({"event": kind, "time": time.time(), **fields})

    def reset(self) -> None:
        self.requests.clear()
        self.events.clear()


DEBUG = DebugState()


# =============================================================================== the tasks extension

tasks = TasksExtension()


@tasks.tool(
    task_only=False,
    structured_output=False,
    description="Completes after ~300 ms with a text result. Runs inline (no task) for a client that did not "
    "declare the tasks extension.",
)
async def task_quick(task: TaskRun) -> str:
    await anyio.sleep(0.3)
    return "quick task done"


@tasks.tool(
    structured_output=False,
    description="Asks a name (key 'name'), then an age (key 'age'), in two separate input_required phases; "
    "completes with 'N is A years old'.",
    required_capabilities={"elicitation": {"form": {}}},
)
async def task_two_inputs(task: TaskRun) -> str:
    await anyio.sleep(0.05)
    first = await task.ask(
        {"name": elicit_form("What is your name?", {"name": {"type": "string", "title": "Name"}}, ["name"])}
    )
    name = _accepted_field(first["name"], "name")
    if name is None:
        return f"No name given ({first['name'].get('action')})."
    await anyio.sleep(0.05)
    second = await task.ask(
        {"age": elicit_form(f"How old is {name}?", {"age": {"type": "integer", "minimum": 0}}, ["age"])}
    )
    age = _accepted_field(second["age"], "age")
    if age is None:
        return f"{name} did not give an age ({second['age'].get('action')})."
    return f"{name} is {age} years old"


@tasks.tool(
    stale_answered_keys=True,
    structured_output=False,
    required_capabilities={"elicitation": {"form": {}}},
    description="task_two_inputs on an eventually consistent server: an answered key stays listed in "
    "inputRequests while the task asks for the next one.",
)
async def task_two_inputs_stale(task: TaskRun) -> str:
    return await task_two_inputs(task)


@tasks.tool(structured_output=False, description="Fails with JSON-RPC error -32603 'deliberate failure' after ~200 ms.")
async def task_fail(task: TaskRun) -> str:
    await anyio.sleep(0.2)
    raise MCPError(code=-32603, message="deliberate failure")


@tasks.tool(
    structured_output=False, description="Works for `ms` milliseconds (default 10000) unless cancelled; then completes."
)
async def task_slow(task: TaskRun, ms: int = 10_000) -> str:
    task.set_status_message("working slowly")
    await anyio.sleep(ms / 1000)
    return f"slow task done after {ms} ms"


@tasks.tool(
    poll_interval_ms=500,
    structured_output=False,
    description="pollIntervalMs 500; works for `ms` milliseconds (default 10000), then completes (poll rates and "
    "takeover gaps across tabs, issue 13).",
)
async def task_paced(task: TaskRun, ms: int = 10_000) -> str:
    await anyio.sleep(ms / 1000)
    return f"paced task done after {ms} ms"


@tasks.tool(
    poll_interval_ms=200,
    structured_output=False,
    description="pollIntervalMs is 200, changes to 100 after ~400 ms; completes after ~900 ms.",
)
async def task_poll_change(task: TaskRun) -> str:
    await anyio.sleep(0.4)
    task.set_poll_interval(100)
    task.set_status_message("poll faster now")
    await anyio.sleep(0.5)
    return "poll interval changed from 200 to 100"


@tasks.tool(
    ttl_ms=500,
    structured_output=False,
    description="ttlMs 500; never finishes. After 500 ms the server forgets it (tasks/get -> -32602).",
)
async def task_short_ttl(task: TaskRun) -> str:
    await anyio.sleep_forever()
    return "unreachable"  # pragma: no cover


@tasks.tool(
    drop_first_update_response=True,
    structured_output=False,
    required_capabilities={"elicitation": {"form": {}}},
    description="Asks one input (key 'confirm'). The FIRST tasks/update for the task is applied but its HTTP "
    "response is replaced by a bare 502; later updates are acked normally.",
)
async def task_lost_ack(task: TaskRun) -> str:
    answer = await task.ask(
        {"confirm": elicit_form("Confirm?", {"ok": {"type": "boolean", "title": "OK"}}, ["ok"])}
    )
    return f"confirmed: {_accepted_field(answer['confirm'], 'ok')}"


@tasks.tool(
    hold_first_update_ms=6000,
    structured_output=False,
    required_capabilities={"elicitation": {"form": {}}},
    description="Asks one input (key 'name'). The FIRST tasks/update for the task is held 6 s before it is "
    "applied and answered; if the client goes away meanwhile it is dropped, never applied.",
)
async def task_held_update(task: TaskRun) -> str:
    answer = await task.ask({"name": elicit_form("What is your name?", {"name": {"type": "string"}}, ["name"])})
    return f"hello {_accepted_field(answer['name'], 'name')}"


class Measurement(BaseModel):
    label: str
    value: float
    unit: str


@tasks.tool(description="Completes with structuredContent matching its outputSchema {label, value, unit}.")
async def task_structured(task: TaskRun, label: str = "temperature") -> Measurement:
    await anyio.sleep(0.1)
    return Measurement(label=label, value=21.5, unit="C")


def _accepted_field(response: dict[str, Any], field: str) -> Any:
    if response.get("action") != "accept":
        return None
    return (response.get("content") or {}).get(field)


# =============================================================================== the server


@asynccontextmanager
async def lifespan(_: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    async with tasks.running():
        yield {}


def _cache_hints(list_ttl_ms: int) -> dict[str, CacheHint]:
    return {
        "server/discover": CacheHint(ttl_ms=60_000, scope="public"),
        "tools/list": CacheHint(ttl_ms=list_ttl_ms, scope="private"),
        "prompts/list": CacheHint(ttl_ms=list_ttl_ms, scope="private"),
        "resources/list": CacheHint(ttl_ms=list_ttl_ms, scope="private"),
        "resources/templates/list": CacheHint(ttl_ms=list_ttl_ms, scope="private"),
        "resources/read": CacheHint(ttl_ms=list_ttl_ms, scope="private"),
    }


BUS = InMemorySubscriptionBus()


def bad_output_tool() -> Tool:
    """A tool whose structuredContent violates its own outputSchema.

    `MCPServer` validates structured output against a schema derived from the
    return annotation; a hand-built schema with no output model is advertised
    but not validated (`FuncMetadata.convert_result`), which is how this lies.
    """

    def bad_output() -> CallToolResult:
        """Returns structuredContent {"sum": "not a number"} although outputSchema says sum is an integer."""
        return CallToolResult(
            content=[TextContent(type="text", text='{"sum": "not a number"}')],
            structured_content={"sum": "not a number"},
        )

    tool = Tool.from_function(bad_output, name="bad_output", structured_output=False)
    tool.fn_metadata.output_schema = {
        "type": "object",
        "properties": {"sum": {"type": "integer"}},
        "required": ["sum"],
    }
    return tool


def build_server(list_ttl_ms: int) -> MCPServer[Any]:
    server_info = {"name": SERVER_NAME, "version": SERVER_VERSION, "title": "MCP test server"}
    mcp: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title="MCP test server",
        description="Test server for mcp-wasm-client (MCP 2026-07-28)",
        version=SERVER_VERSION,
        instructions="Test server. Tools exercise MRTR, tasks, progress, logging and notifications.",
        icons=[ICON],
        tools=[bad_output_tool()],
        extensions=[tasks],
        lifespan=lifespan,
        cache_hints=_cache_hints(list_ttl_ms),
        subscriptions=BUS,
        middleware=[tasks.listen_middleware(BUS, server_info=server_info)],
        log_level="WARNING",
    )
    register_tools(mcp)
    register_resources(mcp)
    register_prompts(mcp)
    register_debug_routes(mcp)
    return mcp


# ------------------------------------------------------------------------------- tools


class NameForm(BaseModel):
    name: str = Field(title="Name", description="Your name")


class ColorForm(BaseModel):
    color: Literal["red", "green", "blue"] = Field(title="Color", description="Your favourite color")


class NumbersForm(BaseModel):
    a: float = Field(title="A")
    b: float = Field(title="B")
    c: float = Field(title="C")


class AddResult(BaseModel):
    sum: int


async def ask_name_resolver() -> Elicit[NameForm]:
    return Elicit("What is your name?", NameForm)


async def ask_color_resolver(name: Annotated[NameForm, Resolve(ask_name_resolver)]) -> Elicit[ColorForm]:
    return Elicit(f"{name.name}, what is your favourite color?", ColorForm)


async def ask_numbers_resolver() -> Elicit[NumbersForm]:
    return Elicit("Three numbers, please.", NumbersForm)


async def sampling_resolver(prompt: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=100,
        system_prompt="You are a test model. Answer briefly.",
    )


async def roots_resolver() -> ListRoots:
    return ListRoots()


DYNAMIC_TOOLS: set[str] = set()


def register_tools(mcp: MCPServer[Any]) -> None:
    @mcp.tool(structured_output=False, icons=[ICON])
    async def echo(text: str) -> str:
        """Returns `text` as a text content block."""
        return text

    @mcp.tool()
    async def add(a: int, b: int) -> AddResult:
        """Adds two integers; structuredContent {sum} matches the outputSchema."""
        return AddResult(sum=a + b)

    @mcp.tool(structured_output=False)
    async def region_query(
        region: Annotated[
            str,
            Field(description="Region (mirrored as Mcp-Param-Region)", json_schema_extra={"x-mcp-header": "Region"}),
        ],
        query: str,
        ctx: Context,
    ) -> str:
        """Reports the Mcp-Param-Region header it received and whether it matches `region`.

        The SDK validates Mcp-Param-* headers before the tool runs (a missing or
        different header is a 400 / -32020), so a call that gets here matched."""
        headers = ctx.headers or {}
        raw = headers.get("mcp-param-region")
        decoded = decode_header_value(raw)
        return json.dumps({"header": raw, "decoded": decoded, "region": region, "matched": decoded == region,
                           "query": query})

    @mcp.tool(structured_output=False)
    async def ask_name(name: Annotated[ElicitationResult[NameForm], Resolve(ask_name_resolver)]) -> str:
        """Asks the user's name via input_required (form elicitation) and greets them."""
        if isinstance(name, AcceptedElicitation):
            return f"Hello, {name.data.name}!"
        if isinstance(name, DeclinedElicitation):
            return "You declined to give your name."
        assert isinstance(name, CancelledElicitation)
        return "You cancelled the name request."

    @mcp.tool(structured_output=False)
    async def ask_twice(
        name: Annotated[NameForm, Resolve(ask_name_resolver)],
        color: Annotated[ColorForm, Resolve(ask_color_resolver)],
    ) -> str:
        """Two input_required rounds: first a name, then a color (enum red/green/blue)."""
        return f"{name.name} likes {color.color}"

    @mcp.tool(structured_output=False)
    async def ask_numbers(numbers: Annotated[NumbersForm, Resolve(ask_numbers_resolver)]) -> str:
        """Asks three numbers (form elicitation, type number) and answers them as a JSON array,
        as Python read them."""
        return json.dumps([numbers.a, numbers.b, numbers.c])

    @mcp.tool(structured_output=False)
    async def ask_url(ctx: Context) -> str | InputRequiredResult:
        """Asks a URL-mode elicitation (hand-rolled InputRequiredResult, requestState 'ask_url:1')."""
        answer = (ctx.input_responses or {}).get("authorize")
        if ctx.request_state == "ask_url:1" and isinstance(answer, ElicitResult):
            DEBUG.event("url_elicitation_answered", action=answer.action)
            if answer.action == "accept":
                return "URL flow completed."
            return f"URL flow {answer.action}d." if answer.action == "decline" else "URL flow cancelled."
        caps = ctx.client_capabilities
        if caps is None or caps.elicitation is None or caps.elicitation.url is None:
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message="ask_url needs the elicitation.url client capability",
                data={"requiredCapabilities": {"elicitation": {"url": {}}}},
            )
        url = f"{DEBUG.base_url}/debug/consent?flow=ask_url"
        return InputRequiredResult(
            input_requests={
                "authorize": ElicitRequest(
                    params=ElicitRequestURLParams(message="Open this page to authorize the test flow.", url=url)
                )
            },
            request_state="ask_url:1",
        )

    @mcp.tool(structured_output=False)
    async def ask_sampling(
        reply: Annotated[CreateMessageResult, Resolve(sampling_resolver)],
        prompt: str = "Say hello",
    ) -> str:
        """Asks the client's model (sampling/createMessage via input_required) and returns its text."""
        content = reply.content
        blocks = content if isinstance(content, list) else [content]
        text = " ".join(b.text for b in blocks if isinstance(b, TextContent))
        return f"model {reply.model} said: {text}"

    @mcp.tool(structured_output=False)
    async def ask_roots(roots: Annotated[ListRootsResult, Resolve(roots_resolver)]) -> str:
        """Asks roots/list via input_required and lists the root URIs (one per line)."""
        if not roots.roots:
            return "no roots"
        return "\n".join(str(r.uri) for r in roots.roots)

    @mcp.tool(structured_output=False)
    async def progress(ctx: Context, steps: int = 5, delay_ms: int = 50) -> str:
        """Sends notifications/progress (when _meta.progressToken is set) and notifications/message
        (when _meta io.modelcontextprotocol/logLevel asks) for each step, on an SSE response."""
        steps = max(0, min(steps, 1000))
        for i in range(1, steps + 1):
            await anyio.sleep(delay_ms / 1000)
            await ctx.report_progress(i, steps, f"step {i}/{steps}")
            await ctx.session.send_log_message(
                level="info", data=f"step {i} of {steps}", logger="progress", related_request_id=ctx.request_id
            )
            await ctx.session.send_log_message(
                level="debug", data={"step": i}, logger="progress", related_request_id=ctx.request_id
            )
        return f"done {steps} steps"

    @mcp.tool(structured_output=False)
    async def slow(ctx: Context, ms: int = 5000) -> str:
        """Sleeps `ms` milliseconds (for timeout and abort tests). A cancelled call is logged in /debug/events."""
        DEBUG.event("slow_started", requestId=ctx.request_id, ms=ms)
        try:
            await anyio.sleep(ms / 1000)
        except anyio.get_cancelled_exc_class():
            DEBUG.event("slow_cancelled", requestId=ctx.request_id)
            raise
        DEBUG.event("slow_finished", requestId=ctx.request_id)
        return f"slept {ms} ms"

    @mcp.tool(structured_output=False)
    async def add_tool(ctx: Context, name: str = "dynamic_tool") -> str:
        """Adds a tool named `name` at runtime and notifies listeners (notifications/tools/list_changed)."""
        if mcp._tool_manager.get_tool(name) is not None:  # noqa: SLF001 - no public lookup
            raise ToolError(f"tool {name!r} already exists")

        async def dynamic(text: str = "") -> str:
            return f"dynamic tool {name}: {text}"

        mcp.add_tool(dynamic, name=name, description=f"Dynamically added tool {name}", structured_output=False)
        DYNAMIC_TOOLS.add(name)
        await ctx.notify_tools_changed()
        return f"added {name}"

    @mcp.tool(structured_output=False)
    async def remove_tool(ctx: Context, name: str = "dynamic_tool") -> str:
        """Removes a tool added by add_tool and notifies listeners (notifications/tools/list_changed)."""
        if name not in DYNAMIC_TOOLS:
            raise ToolError(f"{name!r} is not a dynamically added tool")
        mcp.remove_tool(name)
        DYNAMIC_TOOLS.discard(name)
        await ctx.notify_tools_changed()
        return f"removed {name}"

    @mcp.tool(structured_output=False)
    async def touch_resource(ctx: Context, uri: str = "test://hello") -> str:
        """Sends notifications/resources/updated {uri} to listeners subscribed to `uri`
        (and bumps the counter shown by test://counter)."""
        DEBUG.touch_counts[uri] = DEBUG.touch_counts.get(uri, 0) + 1
        await ctx.notify_resource_updated(uri)
        return f"touched {uri}"

    @mcp.tool(structured_output=False)
    async def notify_list_changed(ctx: Context, kind: Literal["tools", "prompts", "resources"] = "tools") -> str:
        """Sends notifications/{kind}/list_changed to listeners without changing anything."""
        if kind == "tools":
            await ctx.notify_tools_changed()
        elif kind == "prompts":
            await ctx.notify_prompts_changed()
        else:
            await ctx.notify_resources_changed()
        return f"{kind} list_changed sent"

    @mcp.tool(structured_output=False)
    async def error_tool(mode: Literal["tool", "protocol", "crash"] = "tool", code: int = -32603) -> str:
        """mode=tool: isError result; mode=protocol: JSON-RPC error `code`; mode=crash: an unexpected
        exception (the SDK answers an isError result with a generic text)."""
        if mode == "tool":
            raise ToolError("deliberate tool error")
        if mode == "protocol":
            raise MCPError(code=code, message="deliberate protocol error", data={"mode": mode})
        raise RuntimeError("deliberate crash")


# ------------------------------------------------------------------------------- resources

ITEM_IDS = [str(i) for i in range(1, 26)]


def register_resources(mcp: MCPServer[Any]) -> None:
    @mcp.resource("test://hello", name="hello", title="Hello", description="A text resource", mime_type="text/plain")
    def hello() -> str:
        return "Hello, world!"

    @mcp.resource("test://blob", name="blob", description="A 1x1 PNG (blob resource)", mime_type="image/png")
    def blob() -> bytes:
        return PNG_1X1

    @mcp.resource("test://counter", name="counter", description="How often touch_resource ran", mime_type="text/plain")
    def counter() -> str:
        return json.dumps(DEBUG.touch_counts, sort_keys=True)

    @mcp.resource("test://items/{id}", name="item", description="Item by id (template)", mime_type="text/plain")
    def item(id: str) -> str:
        return f"Item {id}"

    @mcp.resource(
        "test://secret/{name}",
        name="secret",
        description="Asks for confirmation via input_required before it can be read",
        mime_type="text/plain",
    )
    async def secret(name: str, ctx: Context) -> str | InputRequiredResult:
        answer = (ctx.input_responses or {}).get("confirm")
        if ctx.request_state == "secret:1" and isinstance(answer, ElicitResult):
            if answer.action == "accept" and (answer.content or {}).get("confirm") is True:
                return f"The secret of {name} is 42."
            return f"Access to the secret of {name} was not confirmed ({answer.action})."
        _require_form_elicitation(ctx)
        return InputRequiredResult(
            input_requests={
                "confirm": ElicitRequest(
                    params=ElicitRequestFormParams(
                        message=f"Reveal the secret of {name}?",
                        requested_schema={
                            "type": "object",
                            "properties": {"confirm": {"type": "boolean", "title": "Reveal", "default": False}},
                            "required": ["confirm"],
                        },
                    )
                )
            },
            request_state="secret:1",
        )


def _require_form_elicitation(ctx: Context) -> None:
    caps = ctx.client_capabilities
    el = caps.elicitation if caps is not None else None
    if el is None or (el.form is None and el.url is not None):
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message="needs the elicitation (form) client capability",
            data={"requiredCapabilities": {"elicitation": {"form": {}}}},
        )


# ------------------------------------------------------------------------------- prompts

NAMES = ["Alice", "Alan", "Bob", "Carol", "Dave", "Eve", "Mallory", "Trent"]


def register_prompts(mcp: MCPServer[Any]) -> None:
    @mcp.prompt(title="Greeting")
    def greet(name: str) -> str:
        """Greets `name` (argument completion available)."""
        return f"Please greet {name} warmly."

    @mcp.prompt(title="Ask a topic")
    async def ask_topic(ctx: Context) -> str | InputRequiredResult:
        """Asks the topic via input_required before rendering."""
        answer = (ctx.input_responses or {}).get("topic")
        if ctx.request_state == "topic:1" and isinstance(answer, ElicitResult) and answer.action == "accept":
            topic = (answer.content or {}).get("topic")
            return f"Write a short poem about {topic}."
        if ctx.request_state == "topic:1" and isinstance(answer, ElicitResult):
            return "Write a short poem about anything."
        _require_form_elicitation(ctx)
        return InputRequiredResult(
            input_requests={
                "topic": ElicitRequest(
                    params=ElicitRequestFormParams(
                        message="Which topic?",
                        requested_schema={
                            "type": "object",
                            "properties": {"topic": {"type": "string", "title": "Topic"}},
                            "required": ["topic"],
                        },
                    )
                )
            },
            request_state="topic:1",
        )

    @mcp.completion()
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        prefix = argument.value.lower()
        if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "name":
            values = [n for n in NAMES if n.lower().startswith(prefix)]
            return Completion(values=values, total=len(values), has_more=False)
        if isinstance(ref, ResourceTemplateReference) and ref.uri == "test://items/{id}" and argument.name == "id":
            values = [i for i in ITEM_IDS if i.startswith(prefix)]
            return Completion(values=values[:10], total=len(values), has_more=len(values) > 10)
        return None


# ------------------------------------------------------------------------------- debug routes


def register_debug_routes(mcp: MCPServer[Any]) -> None:
    @mcp.custom_route("/debug/log", methods=["GET"])
    async def debug_log(request: Request) -> Response:
        return JSONResponse(DEBUG.requests)

    @mcp.custom_route("/debug/reset", methods=["POST"])
    async def debug_reset(request: Request) -> Response:
        DEBUG.reset()
        return JSONResponse({"ok": True})

    @mcp.custom_route("/debug/events", methods=["GET"])
    async def debug_events(request: Request) -> Response:
        return JSONResponse(DEBUG.events)

    @mcp.custom_route("/debug/tasks", methods=["GET"])
    async def debug_tasks(request: Request) -> Response:
        return JSONResponse(tasks.debug_tasks())

    @mcp.custom_route("/debug/close-listeners", methods=["POST"])
    async def debug_close_listeners(request: Request) -> Response:
        n = close_listen_streams(mcp)
        return JSONResponse({"closed": n})

    @mcp.custom_route("/debug/consent", methods=["GET"])
    async def debug_consent(request: Request) -> Response:
        DEBUG.event("consent_page_opened", query=dict(request.query_params))
        return HTMLResponse("<!doctype html><title>Consent</title><p>Test consent page. You may close this tab.</p>")


def close_listen_streams(mcp: MCPServer[Any]) -> int:
    """Gracefully end every open subscriptions/listen stream (final JSON-RPC response, then close)."""
    n = len(tasks._listen_streams)  # noqa: SLF001
    tasks.close_listen_streams()
    # The SDK's ListenHandler is created inside MCPServer; the lowlevel server is reached through a
    # private attribute because MCPServer exposes no accessor for it.
    entry = mcp._lowlevel_server.get_request_handler("subscriptions/listen")  # noqa: SLF001
    handler = getattr(entry, "handler", None)
    if handler is not None and hasattr(handler, "close"):
        n += len(getattr(handler, "_streams", ()))
        handler.close()
    return n


# =============================================================================== ASGI wrappers

ALLOW_HEADERS = [
    "*",
    "Content-Type",
    "Accept",
    "Authorization",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Session-Id",
    "Last-Event-ID",
]
EXPOSE_HEADERS = "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, Content-Type"


class CORSMiddleware:
    """Permissive CORS for a browser page on another origin.

    Preflights (OPTIONS with Access-Control-Request-Method) are answered 204 here
    for every path. `Access-Control-Allow-Headers: *` does not cover
    `Authorization` (and is literal in credentialed mode), so the list names the
    MCP headers explicitly and echoes every header the preflight asks for
    (which covers `Mcp-Param-*`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            requested = [h.strip() for h in headers.get("access-control-request-headers", "").split(",") if h.strip()]
            allow = list(ALLOW_HEADERS)
            seen = {h.lower() for h in allow}
            for h in requested:
                if h.lower() not in seen:
                    seen.add(h.lower())
                    allow.append(h)
            out = [
                (b"access-control-allow-origin", (origin or "*").encode("latin-1")),
                (b"access-control-allow-methods", b"POST, GET, DELETE, OPTIONS"),
                (b"access-control-allow-headers", ", ".join(allow).encode("latin-1")),
                (b"access-control-expose-headers", EXPOSE_HEADERS.encode()),
                (b"access-control-max-age", b"0"),
                (b"vary", b"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"),
                (b"content-length", b"0"),
            ]
            if origin:
                out.append((b"access-control-allow-credentials", b"true"))
            await send({"type": "http.response.start", "status": 204, "headers": out})
            await send({"type": "http.response.body", "body": b""})
            return
        if not origin:
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Any) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"access-control-allow-origin", origin.encode("latin-1")),
                    (b"access-control-allow-credentials", b"true"),
                    (b"access-control-expose-headers", EXPOSE_HEADERS.encode()),
                    (b"vary", b"Origin"),
                ]
                existing = {k.lower() for k, _ in message.get("headers", [])}
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [h for h in extra if h[0] not in existing]
            await send(message)

        await self.app(scope, receive, send_with_cors)


class RecorderMiddleware:
    """Records every HTTP request to the MCP path (any HTTP method) for `GET /debug/log`."""

    def __init__(self, app: Any, path: str = "/mcp") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        pending: list[Any] = []
        has_body = scope["method"] in ("POST", "PUT", "PATCH", "DELETE")
        if has_body:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    pending.append(message)
                    break
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
        raw = b"".join(chunks)
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            parsed = None
        raw_headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]]
        folded: dict[str, str] = {}
        for k, v in raw_headers:
            key = k.lower()
            folded[key] = f"{folded[key]}, {v}" if key in folded else v
        DEBUG.seq += 1
        entry: dict[str, Any] = {
            "seq": DEBUG.seq,
            "time": time.time(),
            "httpMethod": scope["method"],
            "path": scope.get("path"),
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": folded,
            "rawHeaders": raw_headers,
            "rawBody": text,
            "body": parsed,
            "method": parsed.get("method") if isinstance(parsed, dict) else None,
            "id": parsed.get("id") if isinstance(parsed, dict) else None,
            "status": None,
            "responseContentType": None,
            "completed": False,
            "clientDisconnected": False,
        }
        DEBUG.requests.append(entry)
        body_pending = has_body

        async def replay() -> Any:
            nonlocal body_pending
            if body_pending:
                body_pending = False
                return {"type": "http.request", "body": raw, "more_body": False}
            message = pending.pop(0) if pending else await receive()
            if message["type"] == "http.disconnect" and not entry["completed"]:
                entry["clientDisconnected"] = True
            return message

        async def record_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                for k, v in message.get("headers", []):
                    if k.lower() == b"content-type":
                        entry["responseContentType"] = v.decode("latin-1")
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                entry["completed"] = True
            await send(message)

        await self.app(scope, replay, record_send)


# =============================================================================== main


class Server(uvicorn.Server):
    """uvicorn, ending listen streams gracefully on SIGTERM/SIGINT before the graceful-shutdown wait."""

    mcp: MCPServer[Any] | None = None
    loop: asyncio.AbstractEventLoop | None = None

    def handle_exit(self, sig: int, frame: Any) -> None:
        if self.mcp is not None and self.loop is not None and not self.should_exit:
            self.loop.call_soon_threadsafe(close_listen_streams, self.mcp)
        super().handle_exit(sig, frame)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--list-ttl-ms", type=int, default=10_000, help="ttlMs of list and read results")
    parser.add_argument("--graceful-timeout", type=float, default=2.0, help="seconds in-flight requests get on SIGTERM")
    parser.add_argument(
        "--json-response",
        action="store_true",
        help="SDK JSON-response mode: every answer is application/json (progress/log notifications are dropped); "
        "subscriptions/listen still streams",
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)

    mcp = build_server(args.list_ttl_ms)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        # "null": a sandboxed iframe's opaque origin (tests/lifecycle/peers.test.mjs: Web
        # Locks refuse there). A loopback test server only.
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", "null"],
    )
    inner = mcp.streamable_http_app(transport_security=security, host=args.host, json_response=args.json_response)
    app = RecorderMiddleware(CORSMiddleware(tasks.asgi_lost_ack_middleware(inner)))

    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP
    # (base_events._set_nodelay), and accepted sockets inherit it. Without it Nagle held the
    # response body until the client's delayed ACK: ~50 ms per request from Firefox.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    port = sock.getsockname()[1]
    DEBUG.base_url = f"http://{args.host}:{port}"

    config = uvicorn.Config(
        app,
        log_level="info" if args.verbose else "warning",
        timeout_graceful_shutdown=args.graceful_timeout,
        lifespan="on",
        access_log=args.verbose,
        log_config=None,  # uvicorn's default config logs access lines to stdout; stdout carries only READY
    )
    server = Server(config)
    server.mcp = mcp

    async def run() -> None:
        server.loop = asyncio.get_running_loop()
        serve = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if serve.done():
                await serve
                raise SystemExit("server did not start")
            await asyncio.sleep(0.01)
        print(f"READY {DEBUG.base_url}/mcp", flush=True)
        await serve

    # uvicorn re-raises a captured SIGTERM after its graceful shutdown; a no-op handler turns that
    # into a normal exit (status 0) instead of death by signal.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: None)
        signal.signal(signal.SIGINT, lambda *_: None)
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
