#!/usr/bin/env bash
# The main job: builds pkg/, starts the bundled example MCP server, serves the agent
# console (www/) on http://127.0.0.1:<port>/ and prints the URL. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
PORT=${PORT:-8080}
MCP_PORT=${MCP_PORT:-0}
SERVER=${EXAMPLE_SERVER:-tests/servers/modern_server.py}
[ -f www/server/example_server.py ] && SERVER=${EXAMPLE_SERVER:-www/server/example_server.py}

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 1; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

out=$(mktemp)
.venv/bin/python "$SERVER" --port "$MCP_PORT" >"$out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^READY ' "$out" && break; sleep 0.1; done
MCP_URL=$(sed -n 's/^READY //p' "$out" | head -1)
[ -n "$MCP_URL" ] || { echo "the example server did not start" >&2; exit 1; }

wout=$(mktemp)
node www/serve.mjs "$PORT" "$MCP_URL" >"$wout" &
pids+=($!)
for _ in $(seq 100); do grep -q '^READY ' "$wout" && break; sleep 0.1; done
CONSOLE=$(sed -n 's/^READY //p' "$wout" | head -1)
[ -n "$CONSOLE" ] || { echo "the console server did not start (is port $PORT free? set PORT=...)" >&2; exit 1; }
echo
echo "  MCP example server: $MCP_URL"
echo "  Agent console:      $CONSOLE"
echo
echo "Open the console in a browser. Ctrl-C stops both."
wait
