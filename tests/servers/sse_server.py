"""A 2024-11-05 HTTP+SSE MCP server (the official Python SDK's `sse_app`), for the
client's oldest-era tests.

    python tests/servers/sse_server.py --port 0   # prints: READY http://127.0.0.1:<port>/sse

GET /sse opens the event stream whose first event, `endpoint`, names the POST URL
(/messages/?session_id=...); every response, notification and server request arrives as a
`message` event. Tools: `echo {text}`, `add {a, b}`, `ask_name` (an elicitation server
request), `progress {steps}` (notifications/progress). CORS is the test server's.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402

from modern_server import CORSMiddleware  # noqa: E402


class NameForm(BaseModel):
    name: str


def build() -> MCPServer[Any]:
    mcp: MCPServer[Any] = MCPServer("mcp-wasm-client-sse-test-server")

    @mcp.tool()
    def echo(text: str) -> str:
        """Echoes the text."""
        return text

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Adds two integers."""
        return a + b

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        """Asks the person's name with an elicitation request."""
        r = await ctx.elicit("What is your name?", NameForm)
        if r.action == "accept" and r.data is not None:
            return f"Hello, {r.data.name}!"
        return f"No name ({r.action})."

    @mcp.tool()
    async def progress(ctx: Context, steps: int = 3) -> str:
        """Reports progress `steps` times."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
            await asyncio.sleep(0.05)
        return f"{steps} steps"

    return mcp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    mcp = build()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    app = CORSMiddleware(mcp.sse_app(transport_security=security, host=args.host))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, access_log=False, log_config=None)
    server = uvicorn.Server(config)

    async def run() -> None:
        serve = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if serve.done():
                await serve
                raise SystemExit("server did not start")
            await asyncio.sleep(0.01)
        print(f"READY http://{args.host}:{port}/sse", flush=True)
        await serve

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: None)
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
