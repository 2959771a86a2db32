#!/usr/bin/env bash
# Builds the benchmark package (cargo feature `bench`: src/web/bench.rs hooks) into
# bench/out/pkg-bench/, exactly as scripts/build.sh builds pkg/ (release, wasm-bindgen
# --target web, wasm-opt -Oz) but in its own target directory, so pkg/ and its build
# cache are left alone. Never shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}/bench-pkg
. scripts/wasm-std.sh
CARGO_TARGET_DIR=$TARGET RUSTC_BOOTSTRAP=1 RUSTFLAGS="$WASM_RUSTFLAGS" cargo build --quiet --lib --release --features bench --target wasm32-unknown-unknown "${WASM_STD_ARGS[@]}"
OUT=bench/out/pkg-bench
rm -rf "$OUT" && mkdir -p "$OUT"
wasm-bindgen --target web --out-dir "$OUT" --out-name mcp_wasm_client "$TARGET/wasm32-unknown-unknown/release/mcp_wasm_client.wasm"
node_modules/.bin/wasm-opt -Oz "$OUT/mcp_wasm_client_bg.wasm" -o "$OUT/mcp_wasm_client_bg.wasm"
echo "bench package ready: $OUT"
