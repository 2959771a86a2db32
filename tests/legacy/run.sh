#!/usr/bin/env bash
# Legacy eras against real servers: @modelcontextprotocol/server-everything (2025-11-25), the
# Python SDK (pinned 2025-11-25, and auto → 2026-07-28) and a 2024-11-05 HTTP+SSE server.
# Needs a built pkg/. Starts the servers on free ports and stops them by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE=${NODE:-node}
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
free_port() { "$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_ready() { # <file> → the READY url
  for _ in $(seq 200); do grep -q '^READY ' "$1" 2>/dev/null && { sed -n 's/^READY //p' "$1" | head -1; return 0; }; sleep 0.05; done
  echo "server did not start: $(cat "$1")" >&2; return 1
}
mkdir -p test-output/legacy
EV_PORT=$(free_port)
PORT=$EV_PORT "$NODE" node_modules/.bin/mcp-server-everything streamableHttp >test-output/legacy/everything.log 2>&1 &
pids+=($!)
.venv/bin/python tests/servers/modern_server.py --port 0 >test-output/legacy/python.out 2>test-output/legacy/python.log &
pids+=($!)
.venv/bin/python tests/servers/sse_server.py --port 0 >test-output/legacy/sse.out 2>test-output/legacy/sse.log &
pids+=($!)
for _ in $(seq 200); do grep -q "listening on port $EV_PORT" test-output/legacy/everything.log 2>/dev/null && break; sleep 0.05; done
PY=$(wait_ready test-output/legacy/python.out)
SSE=$(wait_ready test-output/legacy/sse.out)
"$NODE" tests/legacy/run.mjs "http://127.0.0.1:$EV_PORT/mcp" "$PY" "$SSE" "$@"
