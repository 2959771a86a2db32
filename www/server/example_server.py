"""The example MCP server bundled with the agent console (MCP 2026-07-28, official Python SDK `mcp` 2.3.0).

    .venv/bin/python www/server/example_server.py --port 0

prints exactly one line `READY http://127.0.0.1:<port>/mcp` on stdout once it
accepts connections; SIGTERM/SIGINT stop it. `scripts/demo.sh` starts it.

Its tools show everything the client does, one feature each:

| tool                  | what it shows                                                        |
|-----------------------|----------------------------------------------------------------------|
| `say_hello`           | a quick call (string, enum and boolean arguments)                    |
| `convert_temperature` | structured output (`outputSchema` + `structuredContent`)             |
| `book_table`          | a form elicitation in a round trip (MRTR `input_required`)           |
| `connect_calendar`    | a URL-mode elicitation (consent, then a page opens in a new tab)     |
| `draft_reply`         | sampling: the server asks the client's "model" (a person here)       |
| `index_documents`     | progress notifications on a plain call (cancel = abort the request)  |
| `render_chart`        | an image result; its `values` (array of numbers) needs the JSON editor|
| `deploy_release`      | a task: statusMessage changes, asks the person twice                 |
| `import_spreadsheet`  | a task that fails with a message                                     |
| `render_video`        | a slow task worth cancelling                                         |

The tasks extension (`io.modelcontextprotocol/tasks`) is `tests/servers/tasks_ext.py`,
imported; CORS (permissive for loopback page origins) is the test server's middleware.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import logging
import signal
import socket
import struct
import sys
import threading
import warnings
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import uvicorn
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "servers"))

from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample  # noqa: E402
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError  # noqa: E402
from mcp_types import (  # noqa: E402
    INTERNAL_ERROR,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    ImageContent,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)

from modern_server import CORSMiddleware  # noqa: E402  (permissive CORS for loopback origins)
from tasks_ext import TaskRun, TasksExtension, elicit_form  # noqa: E402

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

SERVER_NAME = "mcp-wasm-client-example"
SERVER_VERSION = "1.0.0"
BASE_URL = ""  # set in main(): http://127.0.0.1:<port>

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


# =============================================================================== plain tools


class Temperature(BaseModel):
    value: float = Field(description="The converted temperature")
    unit: Literal["C", "F", "K"] = Field(description="Its unit")
    formula: str = Field(description="How it was computed")


GREETINGS = {"en": "Hello", "fr": "Bonjour", "de": "Hallo", "es": "Hola"}


def _to_kelvin(value: float, unit: str) -> float:
    return {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}[unit]


def _from_kelvin(kelvin: float, unit: str) -> float:
    return {"C": kelvin - 273.15, "F": (kelvin - 273.15) * 9 / 5 + 32, "K": kelvin}[unit]


BOOKING_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "guests": {"type": "integer", "title": "Guests", "description": "How many people", "minimum": 1,
                   "maximum": 12, "default": 2},
        "date": {"type": "string", "format": "date", "title": "Date", "description": "YYYY-MM-DD"},
        "time": {"type": "string", "title": "Time", "oneOf": [
            {"const": "18:00", "title": "Early evening (18:00)"},
            {"const": "19:30", "title": "Evening (19:30)"},
            {"const": "21:00", "title": "Late (21:00)"},
        ], "default": "19:30"},
        "seating": {"type": "string", "title": "Seating", "enum": ["inside", "terrace", "bar"]},
        "diet": {"type": "array", "title": "Dietary needs", "description": "Pick any that apply", "maxItems": 3,
                 "items": {"anyOf": [
                     {"const": "vegetarian", "title": "Vegetarian"},
                     {"const": "vegan", "title": "Vegan"},
                     {"const": "gluten-free", "title": "Gluten-free"},
                     {"const": "nut-allergy", "title": "Nut allergy"},
                 ]}},
        "email": {"type": "string", "format": "email", "title": "Email", "description": "For the confirmation"},
        "reminder": {"type": "boolean", "title": "Send me a reminder", "default": True},
        "notes": {"type": "string", "title": "Notes", "maxLength": 200},
    },
    "required": ["guests", "date", "time", "email"],
}


async def draft_resolver(message: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Draft a short, kind reply to: {message}"))],
        max_tokens=200,
        system_prompt="You write short, friendly replies.",
    )


def register_tools(mcp: MCPServer[Any]) -> None:
    @mcp.tool(title="Say hello", annotations=READ_ONLY, structured_output=False)
    async def say_hello(
        name: Annotated[str, Field(description="Who to greet")] = "world",
        language: Annotated[Literal["en", "fr", "de", "es"], Field(description="Language of the greeting")] = "en",
        excited: Annotated[bool, Field(description="Add an exclamation mark")] = False,
    ) -> str:
        """Greets someone at once: the quickest tool here."""
        return f"{GREETINGS[language]}, {name}{'!' if excited else '.'}"

    @mcp.tool(title="Convert a temperature", annotations=READ_ONLY)
    async def convert_temperature(
        value: Annotated[float, Field(description="The temperature to convert")] = 21.5,
        from_unit: Annotated[Literal["C", "F", "K"], Field(description="Unit of `value`")] = "C",
        to_unit: Annotated[Literal["C", "F", "K"], Field(description="Unit of the result")] = "F",
    ) -> Temperature:
        """Converts between Celsius, Fahrenheit and Kelvin. The answer is structured content checked against
        the tool's outputSchema."""
        result = round(_from_kelvin(_to_kelvin(value, from_unit), to_unit), 2)
        return Temperature(value=result, unit=to_unit, formula=f"{value} {from_unit} -> {result} {to_unit}")

    @mcp.tool(title="Book a table (asks you)", structured_output=False)
    async def book_table(
        ctx: Context,
        restaurant: Annotated[str, Field(description="Where to book")] = "Chez Wasm",
    ) -> str | InputRequiredResult:
        """Asks for the booking details with a form (a round trip: the server answers input_required and the
        client retries with your answer). Try every kind of field, or decline."""
        answer = (ctx.input_responses or {}).get("booking")
        if ctx.request_state == "book_table:1" and isinstance(answer, ElicitResult):
            if answer.action == "decline":
                return f"No table booked at {restaurant}: you declined."
            if answer.action != "accept":
                return f"Booking at {restaurant} cancelled: the form was closed."
            c = answer.content or {}
            diet = ", ".join(c.get("diet") or []) or "none"
            reminder = "a reminder will be sent" if c.get("reminder") else "no reminder"
            notes = f' Notes: "{c["notes"]}".' if c.get("notes") else ""
            return (f"Booked {restaurant} for {c.get('guests')} on {c.get('date')} at {c.get('time')}, "
                    f"seating {c.get('seating') or 'any'}, dietary needs: {diet}. Confirmation to {c.get('email')}; "
                    f"{reminder}.{notes}")
        _require_elicitation(ctx, "form")
        return InputRequiredResult(
            input_requests={
                "booking": ElicitRequest(
                    params=ElicitRequestFormParams(message=f"Booking details for {restaurant}",
                                                   requested_schema=BOOKING_FORM)
                )
            },
            request_state="book_table:1",
        )

    @mcp.tool(title="Connect your calendar (opens a page)", structured_output=False)
    async def connect_calendar(ctx: Context) -> str | InputRequiredResult:
        """Asks you to open a page of this server in a new tab (URL-mode elicitation: the client shows the URL
        and its domain, and opens it only after you agree)."""
        answer = (ctx.input_responses or {}).get("connect")
        if ctx.request_state == "connect_calendar:1" and isinstance(answer, ElicitResult):
            if answer.action == "accept":
                return "You agreed to open the calendar page. (A demo: nothing was connected.)"
            if answer.action == "decline":
                return "You declined to open the calendar page."
            return "The calendar request was cancelled."
        _require_elicitation(ctx, "url")
        return InputRequiredResult(
            input_requests={
                "connect": ElicitRequest(
                    params=ElicitRequestURLParams(
                        message="Open this page to connect your calendar.",
                        url=f"{BASE_URL}/example/connect-calendar?state=demo",
                    )
                )
            },
            request_state="connect_calendar:1",
        )

    @mcp.tool(title="Draft a reply (asks the model)", structured_output=False)
    async def draft_reply(
        reply: Annotated[CreateMessageResult, Resolve(draft_resolver)],
        message: Annotated[str, Field(description="The message to answer")] = "Can we move our meeting to Friday?",
    ) -> str:
        """Asks the client's model for a draft (sampling). In the console, you are the model: you write or edit
        the reply before it is sent back."""
        blocks = reply.content if isinstance(reply.content, list) else [reply.content]
        text = " ".join(b.text for b in blocks if isinstance(b, TextContent))
        return f"Draft by {reply.model}: {text}"

    @mcp.tool(title="Index documents (progress)", annotations=READ_ONLY, structured_output=False)
    async def index_documents(
        ctx: Context,
        documents: Annotated[int, Field(description="How many documents", ge=1, le=200)] = 20,
        delay_ms: Annotated[int, Field(description="Time per document in ms", ge=0, le=5000)] = 300,
    ) -> str:
        """A plain call that reports progress for each document; cancelling it aborts the request."""
        for i in range(1, documents + 1):
            await anyio.sleep(delay_ms / 1000)
            await ctx.report_progress(i, documents, f"Indexed document {i} of {documents}")
        return f"Indexed {documents} documents."

    @mcp.tool(title="Render a bar chart (image)", annotations=READ_ONLY)
    async def render_chart(
        values: Annotated[list[float], Field(description="Bar heights (0-100)", min_length=1, max_length=24)],
        color: Annotated[Literal["teal", "orange", "purple"], Field(description="Bar color")] = "teal",
    ) -> CallToolResult:
        """Draws the values as a PNG bar chart. `values` is an array of numbers, which a simple form cannot
        show: the console offers a JSON editor for it."""
        png = bar_chart_png([max(0.0, min(100.0, v)) for v in values], COLORS[color])
        return CallToolResult(
            content=[
                ImageContent(type="image", data=base64.b64encode(png).decode(), mime_type="image/png"),
                TextContent(type="text", text=f"A {color} bar chart of {len(values)} values."),
            ]
        )


def _require_elicitation(ctx: Context, mode: Literal["form", "url"]) -> None:
    caps = ctx.client_capabilities
    el = caps.elicitation if caps is not None else None
    ok = el is not None and (el.url is not None if mode == "url" else (el.form is not None or el.url is None))
    if not ok:
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"this tool needs the elicitation ({mode}) client capability",
            data={"requiredCapabilities": {"elicitation": {mode: {}}}},
        )


# =============================================================================== task tools

tasks = TasksExtension()

REGIONS = {"eu-west": "Europe (Ireland)", "us-east": "US East (Virginia)", "ap-south": "Asia Pacific (Mumbai)"}


@tasks.tool(
    title="Deploy a release (task, asks twice)",
    structured_output=False,
    ttl_ms=15 * 60_000,
    poll_interval_ms=250,
    required_capabilities={"elicitation": {"form": {}}},
    description="Runs as a task: builds and tests the release (the status message says what it is doing), asks "
    "you which regions to deploy to, deploys, then asks you to confirm the go-live.",
)
async def deploy_release(
    task: TaskRun,
    version: Annotated[str, Field(description="The version to deploy")] = "1.4.0",
    environment: Annotated[Literal["staging", "production"], Field(description="Where to")] = "staging",
) -> str:
    for message in (f"Building {version}…", f"Running 128 tests on {version}…"):
        task.set_status_message(message)
        await anyio.sleep(0.8)
    task.set_status_message("Waiting for you: which regions?")
    first = (await task.ask({
        "regions": elicit_form(
            f"Tests passed. Deploy {version} to {environment} in which regions?",
            {
                "regions": {"type": "array", "title": "Regions", "minItems": 1,
                            "items": {"anyOf": [{"const": k, "title": v} for k, v in REGIONS.items()]},
                            "default": ["eu-west"]},
                "strategy": {"type": "string", "title": "Strategy", "enum": ["rolling", "blue-green"],
                             "default": "rolling"},
            },
            ["regions", "strategy"],
        )
    }))["regions"]
    if first.get("action") != "accept":
        return f"Deployment of {version} stopped before it started: you chose {first.get('action')}."
    regions = list((first.get("content") or {}).get("regions") or [])
    strategy = (first.get("content") or {}).get("strategy", "rolling")
    for region in regions:
        task.set_status_message(f"Deploying {version} to {region} ({strategy})…")
        await anyio.sleep(0.8)
    task.set_status_message("Waiting for you: go live?")
    second = (await task.ask({
        "go_live": elicit_form(
            f"{version} is deployed to {', '.join(regions)}. Switch traffic to it now?",
            {
                "confirm": {"type": "boolean", "title": "Switch traffic now", "default": False},
                "note": {"type": "string", "title": "Release note", "maxLength": 120},
            },
            ["confirm"],
        )
    }))["go_live"]
    content = second.get("content") or {}
    if second.get("action") != "accept" or not content.get("confirm"):
        return f"{version} is deployed to {', '.join(regions)} but traffic was NOT switched."
    task.set_status_message("Switching traffic…")
    await anyio.sleep(0.6)
    note = f' Note: "{content["note"]}".' if content.get("note") else ""
    return f"{version} is live in {environment} ({', '.join(regions)}, {strategy}).{note}"


@tasks.tool(
    title="Import a spreadsheet (task that fails)",
    structured_output=False,
    description="Runs as a task that reads rows for a moment, then fails with a readable error message.",
)
async def import_spreadsheet(
    task: TaskRun,
    file: Annotated[str, Field(description="The file to import")] = "customers.csv",
) -> str:
    for rows in (100, 250, 400):
        task.set_status_message(f"Reading {file}: {rows} rows…")
        await anyio.sleep(0.4)
    raise MCPError(code=INTERNAL_ERROR, message=f"Row 412 of {file} has 3 columns instead of 5; nothing was imported.")


@tasks.tool(
    title="Render a video (slow task, cancel me)",
    structured_output=False,
    ttl_ms=10 * 60_000,
    poll_interval_ms=500,
    description="A slow task (a minute by default) that reports which frame it renders. Worth cancelling.",
)
async def render_video(
    task: TaskRun,
    seconds: Annotated[int, Field(description="How long it takes", ge=1, le=600)] = 60,
) -> str:
    frames = seconds * 30
    for second in range(seconds):
        done = second * 30
        task.set_status_message(f"Rendering frame {done} of {frames} ({done * 100 // frames}%)")
        await anyio.sleep(1)
    return f"Rendered {frames} frames."


# =============================================================================== images


COLORS = {"teal": (0, 128, 128), "orange": (230, 126, 34), "purple": (142, 68, 173)}


def bar_chart_png(values: list[float], rgb: tuple[int, int, int], width: int = 240, height: int = 120) -> bytes:
    """A tiny PNG encoder (zlib + struct): white background, one bar per value, a baseline."""
    n = len(values)
    slot = width / n
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            i = min(int(x / slot), n - 1)
            left = x - i * slot
            bar_top = height - 4 - int(values[i] / 100 * (height - 12))
            inside = slot * 0.15 <= left <= slot * 0.85 and bar_top <= y < height - 4
            pixel = rgb if inside else ((60, 60, 60) if y == height - 4 else (255, 255, 255))
            row.extend(pixel)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + \
        chunk(b"IEND", b"")


# =============================================================================== the server


@asynccontextmanager
async def lifespan(_: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    async with tasks.running():
        yield {}


def build_server() -> MCPServer[Any]:
    mcp: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title="MCP example server",
        description="The example server of the mcp-wasm-client agent console",
        version=SERVER_VERSION,
        instructions="A demo server: every tool shows one thing an MCP client does (quick calls, structured "
        "output, questions to the person, progress, images, and tasks).",
        extensions=[tasks],
        lifespan=lifespan,
        log_level="WARNING",
    )
    register_tools(mcp)

    @mcp.custom_route("/example/connect-calendar", methods=["GET"])
    async def connect_page(request: Request) -> Response:
        return HTMLResponse(
            "<!doctype html><meta charset=utf-8><title>Connect your calendar</title>"
            "<body style='font-family:system-ui;max-width:40rem;margin:3rem auto'>"
            "<h1>Connect your calendar</h1><p>This is the example server's page for the URL-mode elicitation "
            "demo. Nothing is connected; you may close this tab.</p></body>"
        )

    return mcp


def main(argv: list[str] | None = None) -> int:
    global BASE_URL
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--graceful-timeout", type=float, default=1.0, help="seconds in-flight requests get on SIGTERM")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)

    mcp = build_server()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    app = CORSMiddleware(mcp.streamable_http_app(transport_security=security, host=args.host))

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    BASE_URL = f"http://{args.host}:{sock.getsockname()[1]}"

    server = uvicorn.Server(uvicorn.Config(
        app,
        log_level="info" if args.verbose else "warning",
        timeout_graceful_shutdown=args.graceful_timeout,
        lifespan="on",
        access_log=args.verbose,
        log_config=None,  # stdout carries only the READY line
    ))

    async def run() -> None:
        serve = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if serve.done():
                await serve
                raise SystemExit("server did not start")
            await asyncio.sleep(0.01)
        print(f"READY {BASE_URL}/mcp", flush=True)
        await serve

    # uvicorn re-raises a captured SIGTERM after its graceful shutdown; a no-op handler turns that into a
    # normal exit (status 0).
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: None)
        signal.signal(signal.SIGINT, lambda *_: None)
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
