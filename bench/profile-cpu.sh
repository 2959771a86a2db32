#!/usr/bin/env bash
# Where per-call CPU goes in Node: runs bench/node/percall.mjs under `node --cpu-prof`
# for ours, the TS client and raw fetch (JSON answers, N calls per pattern) against the
# bench server, with our wasm's function names kept (wasm-bindgen --keep-debug,
# Binaryen's passes of scripts/wasm-opt.sh with -g: the same code as pkg/), and prints each profile's self time by area
# and its top functions. Uses the release build scripts/build.sh left in target/.
#   bench/profile-cpu.sh [N]        (default 3000)
#   CLIENTS="ours" WARMUP=5000 bench/profile-cpu.sh   (some clients; steady state after 5,000 calls)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3000}
WARMUP=${WARMUP:-200}
CLIENTS=${CLIENTS:-raw ours ts}
W=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/mcp_wasm_client.wasm
P=bench/out/prof
rm -rf "$P" && mkdir -p "$P/pkg"
wasm-bindgen --target web --keep-debug --out-dir "$P/pkg" --out-name mcp_wasm_client "$W"
. scripts/wasm-opt.sh
node_modules/.bin/wasm-opt "${WASM_OPT_PASSES[@]}" -g "$P/pkg/mcp_wasm_client_bg.wasm" -o "$P/pkg/mcp_wasm_client_bg.wasm"
cp src/web/package/index.js src/web/package/load.js "$P/pkg/"
cp -r bench/node bench/lib bench/clients "$P/"
sed -i "s#'../../pkg/#'../pkg/#g" "$P/clients/ours.js"
out=$(mktemp)
node bench/server.mjs 0 >"$out" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q '^READY ' "$out" && break; sleep 0.1; done
URL=$(sed -n 's/^READY //p' "$out")
TEMPLATE=$(node -e "
const { McpClient } = await import('./$P/pkg/index.js');
const c = new McpClient('$URL/json', { clientInfo: { name: 'bench', version: '1.0.0' } });
await c.callTool('echo', { text: 'hello from the benchmark' });
console.log(JSON.stringify(await (await fetch('$URL/__last')).json()));
process.exit(0);" --input-type=module)
for c in $CLIENTS; do
  rm -rf "$P/cpu-$c"
  node --cpu-prof --cpu-prof-dir="$P/cpu-$c" --cpu-prof-interval 50 --expose-gc "$P/node/percall.mjs" "$c" "$URL/json" "{\"n\":$N,\"warmup\":$WARMUP,\"template\":$TEMPLATE}" >/dev/null
  echo "=== $c ($N sequential + $N concurrent calls, after $WARMUP warm-up calls)"
  node bench/tools/cpuprof-summary.mjs "$P"/cpu-$c/*.cpuprofile 25 | grep -v '^ *[0-9.]* ms *0\.[0-4] %  native'
done
