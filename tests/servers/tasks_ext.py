"""The MCP Tasks extension (`io.modelcontextprotocol/tasks`) on the Python SDK's Extension API.

Spec: shared/spec/2026-07-28/ext-tasks/specification/draft/tasks.md (SEP-2663).

The `mcp` 2.3.0 SDK ships no implementation of this extension (its `mcp_types`
task models are the 2025-11-25 core-experimental ones: `tasks/result`,
`notifications/tasks/status`, nested `task`). This module builds it on the
SDK's public extension surface:

- `Extension.tools()` / `ToolBinding`: task tools are listed by `tools/list`
  like any tool, with an input schema (and output schema) derived by the SDK
  from the worker's signature.
- `Extension.intercept_tool_call`: a `tools/call` for a task tool from a
  client that declared the extension in
  `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` is answered
  with a flat `CreateTaskResult` (`resultType: "task"`); the work runs in the
  background.
- `Extension.methods()` / `MethodBinding`: `tasks/get`, `tasks/update`,
  `tasks/cancel`.
- `Extension.settings()`: advertised by the SDK under
  `server/discover` -> `capabilities.extensions["io.modelcontextprotocol/tasks"]`.

Two things the Extension API cannot express are offered as separate,
optional pieces:

- `notifications/tasks` over `subscriptions/listen` (`notifications.taskIds`):
  `MethodBinding` refuses spec methods and the SDK's `ListenHandler` only
  knows the core event kinds, so `TasksExtension.listen_middleware()` returns
  a server middleware (`MCPServer(middleware=[...])`) that serves listen
  requests carrying `taskIds` (and passes every other listen request to the
  SDK's handler).
- Dropping the HTTP response of a `tasks/update` (to test a client's handling
  of a lost acknowledgement): `TasksExtension.asgi_lost_ack_middleware(app)`.

A task tool is an async function whose first parameter receives a `TaskRun`
(the handle for asking input, changing the poll interval, ...) and whose other
parameters are the tool's arguments::

    tasks = TasksExtension()

    @tasks.tool()
    async def slow_job(task: TaskRun, ms: int = 1000) -> str:
        await anyio.sleep(ms / 1000)
        return "done"

    answers = await task.ask({"name": elicit_form("Your name?", {...})})

Return values are converted by the SDK exactly as for a normal tool (text,
structured output validated against the output schema, or a `CallToolResult`).
Raising `MCPError` fails the task with that JSON-RPC error; any other exception
fails it with -32603.

The worker tasks run in a task group opened by `TasksExtension.running()`,
which the server must enter (typically from its lifespan).
"""

from __future__ import annotations

import copy
import inspect
import logging
import time
import typing
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio
import anyio.abc
import anyio.streams.memory
from mcp_types import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    SERVER_INFO_META_KEY,
    CallToolRequestParams,
    CallToolResult,
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    RequestParams,
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
    TextContent,
)
from mcp_types import Notification as _Notification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ToolBinding
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata, func_metadata
from mcp.server.subscriptions import SUBSCRIPTION_ID_META_KEY, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import decode_header_value
from mcp.shared.subscriptions import ServerEvent, event_matches, event_to_notification

__all__ = [
    "TASKS_EXTENSION_ID",
    "TaskRun",
    "TaskTool",
    "TasksExtension",
    "elicit_form",
    "elicit_url",
]

logger = logging.getLogger(__name__)

TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks"

DEFAULT_TTL_MS = 600_000
DEFAULT_POLL_INTERVAL_MS = 100

TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})


# --------------------------------------------------------------------------- helpers


def iso_utc(epoch: float) -> str:
    """ISO 8601 / RFC 3339 UTC timestamp with millisecond precision and a `Z` suffix."""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def elicit_form(message: str, properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """An embedded `elicitation/create` request in form mode (a bare `{method, params}` object)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}


def elicit_url(message: str, url: str) -> dict[str, Any]:
    """An embedded `elicitation/create` request in URL mode."""
    return {"method": "elicitation/create", "params": {"mode": "url", "message": message, "url": url}}


def client_declared_extension(ctx: ServerRequestContext[Any, Any], identifier: str = TASKS_EXTENSION_ID) -> bool:
    """Whether this request declared `identifier`. Handshake-era (2025) connections never count: a task
    result cannot be delivered on them (the SDK's 2025 result sieve rejects `resultType: "task"`)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_capabilities
    declared = capabilities.extensions if capabilities is not None else None
    return bool(declared) and identifier in declared  # type: ignore[operator]


def missing_capability(required: Mapping[str, Any], message: str) -> MCPError:
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=message,
        data={"requiredCapabilities": copy.deepcopy(dict(required))},
    )


def require_tasks_extension(ctx: ServerRequestContext[Any, Any]) -> None:
    if not client_declared_extension(ctx):
        raise missing_capability(
            {"extensions": {TASKS_EXTENSION_ID: {}}},
            f"Missing required client capability: extension {TASKS_EXTENSION_ID!r}",
        )


def _capabilities_satisfied(ctx: ServerRequestContext[Any, Any], required: Mapping[str, Any]) -> bool:
    """Whether the request's declared client capabilities cover `required` (elicitation/sampling/roots only)."""
    caps = ctx.session.client_capabilities
    if caps is None:
        return not required
    for key, value in required.items():
        if key == "elicitation":
            el = caps.elicitation
            if el is None:
                return False
            wants = value or {}
            # A bare `elicitation: {}` means form mode only.
            form_ok = el.form is not None or el.url is None
            if "form" in wants and not form_ok:
                return False
            if "url" in wants and el.url is None:
                return False
        elif key == "sampling":
            if caps.sampling is None:
                return False
        elif key == "roots":
            if caps.roots is None:
                return False
        elif key == "extensions":
            declared = caps.extensions or {}
            if any(ext not in declared for ext in (value or {})):
                return False
    return True


def _required_for_request(request: Mapping[str, Any]) -> dict[str, Any]:
    method = request.get("method")
    if method == "elicitation/create":
        mode = (request.get("params") or {}).get("mode", "form")
        return {"elicitation": {mode: {}}}
    if method == "sampling/createMessage":
        return {"sampling": {}}
    if method == "roots/list":
        return {"roots": {}}
    return {}


_RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    "elicitation/create": ElicitResult,
    "sampling/createMessage": CreateMessageResult,
    "roots/list": ListRootsResult,
}


# --------------------------------------------------------------------------- wire params


class TaskIdParams(RequestParams):
    """Params of `tasks/get` and `tasks/cancel`."""

    model_config = ConfigDict(extra="allow")
    task_id: str = Field(alias="taskId")


class TaskUpdateParams(TaskIdParams):
    """Params of `tasks/update`. Values are validated per outstanding key, unknown keys are ignored."""

    input_responses: dict[str, Any] = Field(alias="inputResponses")


class _TasksNotification(_Notification[dict[str, Any], str]):
    """`notifications/tasks`: the params are a full DetailedTask plus `_meta`."""

    method: str = "notifications/tasks"


# --------------------------------------------------------------------------- task state


@dataclass
class TaskStats:
    """Per-task counters for tests (`GET /debug/tasks`)."""

    tool: str
    status: str = "working"
    answers: dict[str, int] = field(default_factory=dict)
    """How many `tasks/update` requests carried each input key (duplicates and late answers included)."""
    updates: int = 0
    gets: int = 0
    cancels: int = 0
    dropped_update_responses: int = 0
    held_updates: int = 0
    dropped_held_updates: int = 0
    issued_keys: list[str] = field(default_factory=list)
    expired: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "status": "expired" if self.expired else self.status,
            "answers": dict(self.answers),
            "updates": self.updates,
            "gets": self.gets,
            "cancels": self.cancels,
            "droppedUpdateResponses": self.dropped_update_responses,
            "heldUpdates": self.held_updates,
            "droppedHeldUpdates": self.dropped_held_updates,
            "issuedKeys": list(self.issued_keys),
        }


class TaskRecord:
    """The durable state of one task (in memory)."""

    def __init__(self, task_id: str, tool: TaskTool, ttl_ms: int | None, poll_interval_ms: int | None) -> None:
        now = time.time()
        self.task_id = task_id
        self.tool = tool
        self.status = "working"
        self.status_message: str | None = None
        self.created_at = now
        self.last_updated_at = now
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.input_requests: dict[str, dict[str, Any]] = {}
        self.stale_requests: dict[str, dict[str, Any]] = {}
        """Answered requests still listed (`stale_answered_keys`)."""
        self.issued_keys: set[str] = set()
        self.answers: dict[str, dict[str, Any]] = {}
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.cancel_scope = anyio.CancelScope()
        self.done = anyio.Event()
        self.input_arrived = anyio.Event()
        self.drop_next_update_response = tool.drop_first_update_response
        self.hold_next_update_ms = tool.hold_first_update_ms
        self.stats = TaskStats(tool=tool.name)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def expired(self, now: float | None = None) -> bool:
        if self.ttl_ms is None:
            return False
        return (now if now is not None else time.time()) >= self.created_at + self.ttl_ms / 1000

    def task_fields(self) -> dict[str, Any]:
        """The plain `Task` fields (what `CreateTaskResult` carries besides `resultType`)."""
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        out["createdAt"] = iso_utc(self.created_at)
        out["lastUpdatedAt"] = iso_utc(self.last_updated_at)
        out["ttlMs"] = self.ttl_ms
        if self.poll_interval_ms is not None:
            out["pollIntervalMs"] = self.poll_interval_ms
        return out

    def detailed(self) -> dict[str, Any]:
        """A DetailedTask: `Task` plus `inputRequests` / `result` / `error` by status."""
        out = self.task_fields()
        if self.status == "input_required":
            out["inputRequests"] = copy.deepcopy({**self.stale_requests, **self.input_requests})
        elif self.status == "completed" and self.result is not None:
            out["result"] = copy.deepcopy(self.result)
        elif self.status == "failed" and self.error is not None:
            out["error"] = copy.deepcopy(self.error)
        return out


class TaskRun:
    """What a task tool's worker receives as its first argument."""

    def __init__(self, ext: TasksExtension, record: TaskRecord | None) -> None:
        self._ext = ext
        self._record = record

    @property
    def task_id(self) -> str | None:
        """The task id, or `None` when the tool runs inline (client without the extension)."""
        return self._record.task_id if self._record is not None else None

    @property
    def is_task(self) -> bool:
        return self._record is not None

    async def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """Move the task to `input_required` with `requests` and wait until every key is answered.

        Keys must be unique over the task's lifetime. Returns the raw responses
        (`ElicitResult` / `CreateMessageResult` / `ListRootsResult` objects as sent).
        """
        record = self._record
        if record is None:
            raise missing_capability(
                {"extensions": {TASKS_EXTENSION_ID: {}}},
                "This tool needs client input and can only run as a task",
            )
        reused = [key for key in requests if key in record.issued_keys]
        if reused:
            raise RuntimeError(f"input request keys must be unique over a task's lifetime: {reused}")
        for key, request in requests.items():
            record.issued_keys.add(key)
            record.stats.issued_keys.append(key)
            record.input_requests[key] = copy.deepcopy(dict(request))
        keys = list(requests)
        self._ext._set_status(record, "input_required")
        while any(key not in record.answers for key in keys):
            record.input_arrived = anyio.Event()
            await record.input_arrived.wait()
        return {key: record.answers[key] for key in keys}

    def set_poll_interval(self, ms: int | None) -> None:
        if self._record is not None:
            self._record.poll_interval_ms = ms
            self._ext._touch(self._record)

    def set_ttl(self, ms: int | None) -> None:
        if self._record is not None:
            self._record.ttl_ms = ms
            self._ext._touch(self._record)

    def set_status_message(self, message: str | None) -> None:
        if self._record is not None:
            self._record.status_message = message
            self._ext._touch(self._record)


@dataclass
class TaskTool:
    """A tool that is answered with a task when the client declared the extension."""

    name: str
    fn: Callable[..., Awaitable[Any]]
    title: str | None = None
    description: str | None = None
    task_only: bool = True
    """Without the extension on the request: `True` -> -32021; `False` -> run inline and return the result."""
    ttl_ms: int | None = DEFAULT_TTL_MS
    poll_interval_ms: int | None = DEFAULT_POLL_INTERVAL_MS
    required_capabilities: Mapping[str, Any] | None = None
    """Client capabilities (besides the extension) the task needs, checked at `tools/call` -> -32021."""
    drop_first_update_response: bool = False
    """Test hook: the first `tasks/update` for each task is applied but its HTTP response is dropped
    (needs `TasksExtension.asgi_lost_ack_middleware`)."""
    stale_answered_keys: bool = False
    """Test hook: answered requests stay listed in `inputRequests` while the task asks for
    others (the acknowledgement is eventually consistent, tasks.md "Task Update Requests")."""
    hold_first_update_ms: int = 0
    """Test hook: the first `tasks/update` for each task is held this long before it is applied
    and answered; dropped (never applied) if the client goes away meanwhile (needs
    `TasksExtension.asgi_lost_ack_middleware`)."""
    structured_output: bool | None = None
    """As `MCPServer.tool(structured_output=...)`: None auto-detects from the return annotation."""
    stub: Callable[..., Any] = field(init=False)
    metadata: FuncMetadata = field(init=False)

    def __post_init__(self) -> None:
        self.stub = _tool_stub(self.fn, self.name, self.description)
        self.metadata = func_metadata(self.stub, structured_output=self.structured_output)


def _tool_stub(fn: Callable[..., Any], name: str, description: str | None) -> Callable[..., Any]:
    """A function with the worker's signature minus the `TaskRun` parameter, for the SDK's schema derivation."""
    sig = inspect.signature(fn, eval_str=True)
    params = list(sig.parameters.values())
    if not params:
        raise TypeError(f"task tool {name!r}: the first parameter must receive the TaskRun")
    hints = typing.get_type_hints(fn, include_extras=True)

    async def stub(**kwargs: Any) -> Any:  # pragma: no cover - never called: the interceptor answers first
        raise RuntimeError(f"task tool {name!r} was called without the tasks interceptor")

    stub.__signature__ = sig.replace(parameters=params[1:])  # type: ignore[attr-defined]
    stub.__annotations__ = {k: v for k, v in hints.items() if k != params[0].name}
    stub.__name__ = name
    stub.__qualname__ = name
    stub.__doc__ = description if description is not None else fn.__doc__
    return stub


# --------------------------------------------------------------------------- the extension


TaskListener = Callable[[str, dict[str, Any]], None]


class TasksExtension(Extension):
    """`io.modelcontextprotocol/tasks` for `MCPServer(extensions=[...])`."""

    identifier = TASKS_EXTENSION_ID

    def __init__(
        self,
        tools: Sequence[TaskTool] = (),
        *,
        check_mcp_name_header: bool = True,
        cancel_wait_seconds: float = 1.0,
    ) -> None:
        self._tools: dict[str, TaskTool] = {}
        for tool in tools:
            self.add_task_tool(tool)
        self._tasks: dict[str, TaskRecord] = {}
        self._stats: dict[str, TaskStats] = {}
        self._listeners: dict[object, TaskListener] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self.check_mcp_name_header = check_mcp_name_header
        self.cancel_wait_seconds = cancel_wait_seconds
        self._listen_streams: set[anyio.streams.memory.MemoryObjectSendStream[Any]] = set()

    # ---- registration ---------------------------------------------------------------

    def add_task_tool(self, tool: TaskTool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"task tool {tool.name!r} already registered")
        self._tools[tool.name] = tool

    def tool(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        task_only: bool = True,
        ttl_ms: int | None = DEFAULT_TTL_MS,
        poll_interval_ms: int | None = DEFAULT_POLL_INTERVAL_MS,
        required_capabilities: Mapping[str, Any] | None = None,
        drop_first_update_response: bool = False,
        hold_first_update_ms: int = 0,
        stale_answered_keys: bool = False,
        structured_output: bool | None = None,
    ) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]:
        """Decorator registering a task tool. Must run before the extension is given to `MCPServer`."""

        def decorator(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            self.add_task_tool(
                TaskTool(
                    name=name or fn.__name__,
                    fn=fn,
                    title=title,
                    description=description,
                    task_only=task_only,
                    ttl_ms=ttl_ms,
                    poll_interval_ms=poll_interval_ms,
                    required_capabilities=required_capabilities,
                    drop_first_update_response=drop_first_update_response,
                    hold_first_update_ms=hold_first_update_ms,
                    stale_answered_keys=stale_answered_keys,
                    structured_output=structured_output,
                )
            )
            return fn

        return decorator

    # ---- Extension API ---------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        return [
            ToolBinding(
                fn=t.stub,
                kwargs={
                    "name": t.name,
                    "title": t.title,
                    "description": t.description,
                    "structured_output": t.structured_output,
                },
            )
            for t in self._tools.values()
        ]

    def methods(self) -> Sequence[MethodBinding]:
        # Served at 2026-07-28 only: a handshake-era request for them is METHOD_NOT_FOUND.
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)
        return [
            MethodBinding("tasks/get", TaskIdParams, self._handle_get, protocol_versions=modern),
            MethodBinding("tasks/update", TaskUpdateParams, self._handle_update, protocol_versions=modern),
            MethodBinding("tasks/cancel", TaskIdParams, self._handle_cancel, protocol_versions=modern),
        ]

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        tool = self._tools.get(params.name)
        if tool is None:
            return await call_next(ctx)
        declared = client_declared_extension(ctx)
        if not declared and tool.task_only:
            raise missing_capability(
                {"extensions": {TASKS_EXTENSION_ID: {}}},
                f"Tool {tool.name!r} runs only as a task: declare the {TASKS_EXTENSION_ID!r} extension",
            )
        if tool.required_capabilities and not _capabilities_satisfied(ctx, tool.required_capabilities):
            raise missing_capability(
                tool.required_capabilities, f"Tool {tool.name!r} needs client capabilities the request did not declare"
            )
        try:
            arguments = tool.metadata.validate_arguments(dict(params.arguments or {}))
        except ValidationError as exc:
            return CallToolResult(
                content=[TextContent(type="text", text=f"Error executing tool {tool.name}: {exc}")], is_error=True
            )
        if not declared:
            # The server decides per request; without the extension this tool runs inline.
            return await self._run_inline(tool, arguments)
        return self._create_task(tool, arguments).task_fields() | {"resultType": "task"}

    # ---- lifecycle -------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TasksExtension]:
        """Open the task group task workers run in (enter from the server lifespan)."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._sweep_expired)
            try:
                yield self
            finally:
                self.close_listen_streams()
                self._tg = None
                tg.cancel_scope.cancel()

    async def _sweep_expired(self) -> None:
        while True:
            await anyio.sleep(0.1)
            now = time.time()
            for record in list(self._tasks.values()):
                if record.expired(now):
                    self._forget(record)

    # ---- task state ------------------------------------------------------------------

    def _create_task(self, tool: TaskTool, arguments: dict[str, Any]) -> TaskRecord:
        if self._tg is None:
            raise MCPError(code=INTERNAL_ERROR, message="Tasks are not running (TasksExtension.running() not entered)")
        record = TaskRecord(str(uuid.uuid4()), tool, tool.ttl_ms, tool.poll_interval_ms)
        self._tasks[record.task_id] = record
        self._stats[record.task_id] = record.stats
        self._tg.start_soon(self._run_task, record, arguments)
        return record

    async def _run_task(self, record: TaskRecord, arguments: dict[str, Any]) -> None:
        tool = record.tool
        outcome: tuple[str, dict[str, Any]] | None = None
        try:
            with record.cancel_scope:
                try:
                    value = await tool.fn(TaskRun(self, record), **arguments)
                    converted = tool.metadata.convert_result(value)
                    result = converted.model_dump(by_alias=True, mode="json", exclude_none=True)
                    outcome = ("completed", result)
                except MCPError as exc:
                    outcome = ("failed", exc.error.model_dump(by_alias=True, mode="json", exclude_none=True))
                except Exception:
                    logger.exception("task %s (%s) crashed", record.task_id, tool.name)
                    outcome = ("failed", {"code": INTERNAL_ERROR, "message": "Internal error"})
        finally:
            if not record.terminal:
                if outcome is None:
                    record.status_message = "The task was cancelled."
                    self._set_status(record, "cancelled")
                elif outcome[0] == "completed":
                    record.result = outcome[1]
                    self._set_status(record, "completed")
                else:
                    record.error = outcome[1]
                    record.status_message = str(outcome[1].get("message", "failed"))
                    self._set_status(record, "failed")
            record.done.set()

    async def _run_inline(self, tool: TaskTool, arguments: dict[str, Any]) -> CallToolResult:
        value = await tool.fn(TaskRun(self, None), **arguments)
        return tool.metadata.convert_result(value)  # type: ignore[return-value]

    def _set_status(self, record: TaskRecord, status: str) -> None:
        if record.terminal:
            return
        record.status = status
        record.stats.status = status
        self._touch(record)

    def _touch(self, record: TaskRecord) -> None:
        record.last_updated_at = time.time()
        if record.task_id in self._tasks:
            snapshot = record.detailed()
            for listener in list(self._listeners.values()):
                try:
                    listener(record.task_id, snapshot)
                except Exception:  # fan-out boundary
                    logger.exception("task listener raised")

    def _forget(self, record: TaskRecord) -> None:
        """TTL elapsed: cancel the work and delete the task (tasks/get then answers -32602)."""
        self._tasks.pop(record.task_id, None)
        record.stats.expired = True
        record.cancel_scope.cancel()

    def _lookup(self, task_id: str) -> TaskRecord:
        record = self._tasks.get(task_id)
        if record is not None and record.expired():
            self._forget(record)
            record = None
        if record is None:
            raise MCPError(code=INVALID_PARAMS, message="Failed to retrieve task: Task not found")
        return record

    def subscribe(self, listener: TaskListener) -> Callable[[], None]:
        """Register `listener(task_id, detailed_task)` for every state change; returns unsubscribe."""
        token = object()
        self._listeners[token] = listener
        return lambda: self._listeners.pop(token, None)  # type: ignore[return-value]

    def known(self, task_id: str) -> bool:
        try:
            self._lookup(task_id)
        except MCPError:
            return False
        return True

    def debug_tasks(self) -> dict[str, Any]:
        """`{taskId: {status, answers: {key: count}, updates, gets, ...}}` for every task ever created."""
        return {task_id: stats.to_json() for task_id, stats in self._stats.items()}

    # ---- request handlers --------------------------------------------------------------

    def _check_routing_header(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> None:
        """Over HTTP, `Mcp-Name` MUST equal `params.taskId` (tasks.md, Routing Headers); the SDK checks it
        only for tools/call, prompts/get and resources/read, so the extension checks it here."""
        if not self.check_mcp_name_header:
            return
        headers = getattr(ctx.request, "headers", None)
        if headers is None:
            return
        if decode_header_value(headers.get("mcp-name")) != task_id:
            raise MCPError(code=HEADER_MISMATCH, message="mcp-name header does not match the request body's 'taskId'")

    def _prelude(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> TaskRecord:
        require_tasks_extension(ctx)
        self._check_routing_header(ctx, params.task_id)
        return self._lookup(params.task_id)

    async def _handle_get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        record = self._prelude(ctx, params)
        record.stats.gets += 1
        return {"resultType": "complete", **record.detailed()}

    async def _handle_update(self, ctx: ServerRequestContext[Any, Any], params: TaskUpdateParams) -> dict[str, Any]:
        record = self._prelude(ctx, params)
        record.stats.updates += 1
        accepted: dict[str, dict[str, Any]] = {}
        for key, response in params.input_responses.items():
            record.stats.answers[key] = record.stats.answers.get(key, 0) + 1
            request = record.input_requests.get(key)
            if request is None or record.terminal:
                continue  # unknown, already answered or superseded: ignored (tasks.md, Task Update Requests)
            model = _RESPONSE_MODELS.get(str(request.get("method")))
            if not isinstance(response, dict):
                raise MCPError(code=INVALID_PARAMS, message=f"inputResponses[{key!r}] must be an object")
            if model is not None:
                try:
                    model.model_validate(response, by_name=False)
                except ValidationError:
                    raise MCPError(
                        code=INVALID_PARAMS,
                        message=f"inputResponses[{key!r}] is not a valid {request.get('method')} result",
                    ) from None
            accepted[key] = response
        for key, response in accepted.items():
            answered = record.input_requests.pop(key, None)
            if record.tool.stale_answered_keys and answered is not None:
                record.stale_requests[key] = answered
            record.answers[key] = response
        if accepted:
            if not record.input_requests:
                self._set_status(record, "working")
            else:
                self._touch(record)
            record.input_arrived.set()
        return {"resultType": "complete"}

    async def _handle_cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        record = self._prelude(ctx, params)
        record.stats.cancels += 1
        if not record.terminal:
            record.cancel_scope.cancel()
            # Cooperative and eventually consistent; waiting briefly makes the next tasks/get deterministic.
            with anyio.move_on_after(self.cancel_wait_seconds):
                await record.done.wait()
        return {"resultType": "complete"}

    # ---- lost-ack test hook ------------------------------------------------------------

    def take_dropped_update(self, task_id: str) -> bool:
        """True (once per task) when this `tasks/update`'s HTTP response is to be dropped."""
        record = self._tasks.get(task_id)
        if record is None or not record.drop_next_update_response:
            return False
        record.drop_next_update_response = False
        record.stats.dropped_update_responses += 1
        return True

    def take_held_update(self, task_id: str) -> int:
        """How long (ms) to hold this `tasks/update` before applying it (once per task; 0: not held)."""
        record = self._tasks.get(task_id)
        if record is None or not record.hold_next_update_ms:
            return 0
        ms, record.hold_next_update_ms = record.hold_next_update_ms, 0
        record.stats.held_updates += 1
        return ms

    def dropped_held_update(self, task_id: str) -> None:
        record = self._tasks.get(task_id)
        if record is not None:
            record.stats.dropped_held_updates += 1

    def asgi_lost_ack_middleware(self, app: Any, path: str = "/mcp") -> Any:
        """ASGI wrapper: the first `tasks/update` of a task whose tool has `drop_first_update_response`
        is passed to `app` (so it is applied) but the client gets `502` with no JSON-RPC body."""
        return _LostAckMiddleware(app, self, path)

    # ---- subscriptions/listen with taskIds -----------------------------------------------

    def listen_middleware(self, bus: SubscriptionBus, server_info: Mapping[str, Any] | None = None) -> Any:
        """A server middleware serving `subscriptions/listen` requests whose filter has `taskIds`.

        Other listen requests go to the SDK's handler. The stream sends the
        acknowledgement (echoing the accepted `taskIds`: those that exist), then
        one `notifications/tasks` with the current DetailedTask of each accepted
        task, then a `notifications/tasks` on every change, plus the core
        list-changed/updated events the filter asked for.
        """
        return _TaskListenMiddleware(self, bus, dict(server_info) if server_info else None)

    def close_listen_streams(self) -> None:
        """End every task-aware listen stream gracefully (final JSON-RPC response, then close)."""
        for stream in list(self._listen_streams):
            stream.close()


# --------------------------------------------------------------------------- ASGI / middleware pieces


class _LostAckMiddleware:
    def __init__(self, app: Any, ext: TasksExtension, path: str) -> None:
        self.app = app
        self.ext = ext
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        drop = False
        hold_ms = 0
        task_id = None
        try:
            import json

            decoded = json.loads(body)
            if isinstance(decoded, dict) and decoded.get("method") == "tasks/update":
                task_id = (decoded.get("params") or {}).get("taskId")
                if isinstance(task_id, str):
                    drop = self.ext.take_dropped_update(task_id)
                    hold_ms = 0 if drop else self.ext.take_held_update(task_id)
        except (ValueError, RecursionError, AttributeError):
            pass
        if hold_ms and isinstance(task_id, str):
            # Held: not applied yet; a client that goes away meanwhile never has it applied.
            gone = False
            with anyio.move_on_after(hold_ms / 1000):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        gone = True
                        break
            if gone:
                self.ext.dropped_held_update(task_id)
                logger.info("dropped a held tasks/update: the client went away (held-update test hook)")
                return
        if not drop:
            await self.app(scope, replay, send)
            return

        async def swallow(message: Any) -> None:
            return None

        await self.app(scope, replay, swallow)
        logger.info("dropped the response of a tasks/update (lost-ack test hook)")
        await send(
            {
                "type": "http.response.start",
                "status": 502,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": b"simulated lost response (test hook)", "more_body": False})


class _TaskListenMiddleware:
    def __init__(self, ext: TasksExtension, bus: SubscriptionBus, server_info: dict[str, Any] | None) -> None:
        self.ext = ext
        self.bus = bus
        self.server_info = server_info

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "subscriptions/listen":
            return await call_next(ctx)
        raw = (ctx.params or {}).get("notifications")
        if not isinstance(raw, dict) or "taskIds" not in raw:
            return await call_next(ctx)
        require_tasks_extension(ctx)
        try:
            params = SubscriptionsListenRequestParams.model_validate(ctx.params, by_name=False)
        except ValidationError:
            raise MCPError(code=INVALID_PARAMS, message="Invalid subscriptions/listen params") from None
        task_ids = raw.get("taskIds")
        if not isinstance(task_ids, list) or not all(isinstance(t, str) for t in task_ids):
            raise MCPError(code=INVALID_PARAMS, message="notifications.taskIds must be an array of strings")
        subscription_id = ctx.request_id
        if subscription_id is None:
            raise MCPError(code=INVALID_PARAMS, message="subscriptions/listen requires a request id")

        accepted = [t for t in dict.fromkeys(task_ids) if self.ext.known(t)]
        requested = params.notifications
        honored = SubscriptionFilter(
            tools_list_changed=True if requested.tools_list_changed else None,
            prompts_list_changed=True if requested.prompts_list_changed else None,
            resources_list_changed=True if requested.resources_list_changed else None,
            resource_subscriptions=list(requested.resource_subscriptions) if requested.resource_subscriptions else None,
            taskIds=accepted,
        )
        honored_uris = frozenset(honored.resource_subscriptions or ())
        accepted_set = frozenset(accepted)
        meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: subscription_id}

        send, recv = anyio.create_memory_object_stream[tuple[str, Any]](1024)

        def deliver_event(event: ServerEvent) -> None:
            if event_matches(honored, honored_uris, event):
                _offer(send, ("event", event))

        def deliver_task(task_id: str, snapshot: dict[str, Any]) -> None:
            if task_id in accepted_set:
                _offer(send, ("task", snapshot))

        unsubscribe_bus = self.bus.subscribe(deliver_event)
        unsubscribe_tasks = self.ext.subscribe(deliver_task)
        self.ext._listen_streams.add(send)
        try:
            await ctx.session.send_notification(
                SubscriptionsAcknowledgedNotification(
                    params=SubscriptionsAcknowledgedNotificationParams(notifications=honored, _meta=meta)
                ),
                related_request_id=subscription_id,
            )
            for task_id in accepted:
                record = self.ext._tasks.get(task_id)
                if record is not None:
                    await self._send_task(ctx, subscription_id, meta, record.detailed())
            async for kind, item in recv:
                if kind == "event":
                    await ctx.session.send_notification(
                        event_to_notification(item, meta), related_request_id=subscription_id
                    )
                else:
                    await self._send_task(ctx, subscription_id, meta, item)
        finally:
            unsubscribe_bus()
            unsubscribe_tasks()
            self.ext._listen_streams.discard(send)
            send.close()
            recv.close()
        result_meta: dict[str, Any] = dict(meta)
        if self.server_info is not None:
            result_meta[SERVER_INFO_META_KEY] = copy.deepcopy(self.server_info)
        return {"resultType": "complete", "_meta": result_meta}

    async def _send_task(
        self, ctx: ServerRequestContext[Any, Any], subscription_id: Any, meta: dict[str, Any], snapshot: dict[str, Any]
    ) -> None:
        params = dict(snapshot)
        params["_meta"] = dict(meta)
        await ctx.session.send_notification(
            _TasksNotification(method="notifications/tasks", params=params),  # type: ignore[arg-type]
            related_request_id=subscription_id,
        )


def _offer(send: anyio.streams.memory.MemoryObjectSendStream[tuple[str, Any]], item: tuple[str, Any]) -> None:
    try:
        send.send_nowait(item)
    except anyio.ClosedResourceError:
        pass
    except anyio.WouldBlock:
        logger.warning("task listen stream backlog full; ending the stream")
        send.close()
