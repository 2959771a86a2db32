#!/usr/bin/env bash
# Builds the benchmark package (cargo feature `bench`: src/web/bench.rs hooks) into
# bench/out/pkg-bench/ as scripts/build.sh builds pkg/ (release, std rebuilt for size,
# wasm-bindgen --target web, Binaryen's passes of scripts/wasm-opt.sh) but in its own target
# directory, so pkg/ and its build cache are left alone. Never shipped. Not done here: the
# short names between glue and wasm (scripts/short-names.mjs) and the two strip flags, which
# change names and tool sections, not the code the benches run. Until the fortieth session
# this ran `wasm-opt -Oz` alone, so the SSE parse figures before it measured a parser
# optimized differently from the shipped one (BENCHMARKS.md, that session).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}/bench-pkg
. scripts/wasm-std.sh
. scripts/wasm-opt.sh
CARGO_TARGET_DIR=$TARGET RUSTC_BOOTSTRAP=1 RUSTFLAGS="$WASM_RUSTFLAGS" cargo build --quiet --lib --release --features bench --target wasm32-unknown-unknown "${WASM_STD_ARGS[@]}"
OUT=bench/out/pkg-bench
rm -rf "$OUT" && mkdir -p "$OUT"
wasm-bindgen --target web --out-dir "$OUT" --out-name mcp_wasm_client "$TARGET/wasm32-unknown-unknown/release/mcp_wasm_client.wasm"
node_modules/.bin/wasm-opt "${WASM_OPT_PASSES[@]}" "$OUT/mcp_wasm_client_bg.wasm" -o "$OUT/mcp_wasm_client_bg.wasm"
echo "bench package ready: $OUT"
