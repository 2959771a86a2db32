#!/usr/bin/env bash
# Where the wasm bytes go: the release wasm as shipped (wasm-bindgen, wasm-opt -Oz) but
# with its function names kept (-g), grouped by crate / module of ours with twiggy.
# Uses the release build scripts/build.sh left in target/ (run that first).
# Writes bench/out/size-profile.txt (and prints it). twiggy: `cargo install twiggy`.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v twiggy >/dev/null || cargo install twiggy
# MODERN=1: the modern-only build (pkg/modern/, feature `legacy` off) that scripts/build.sh keeps
# beside it.
SUFFIX=''
[ "${MODERN:-0}" = 1 ] && SUFFIX=_modern
# WASM=… OUT=…: another release wasm, into another directory (bench/tools/wasm-calls.mjs
# on the bench package: WASM=target/bench-pkg/wasm32-unknown-unknown/release/mcp_wasm_client.wasm
# OUT=bench/out/size-profile-bench, after bench/build-bench-pkg.sh).
W=${WASM:-${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/mcp_wasm_client$SUFFIX.wasm}
D=${OUT:-bench/out/size-profile}
rm -rf "$D" && mkdir -p "$D"
wasm-bindgen --target web --keep-debug --out-dir "$D" --out-name m "$W"
# The passes of scripts/build.sh (its inlining limit shapes the functions), names kept.
. scripts/wasm-opt.sh
node_modules/.bin/wasm-opt "${WASM_OPT_PASSES[@]}" -g "$D/m_bg.wasm" -o "$D/named.wasm"
twiggy top -n 1000000 --format json "$D/named.wasm" > "$D/top.json"
twiggy top -n 40 "$D/named.wasm" > "$D/top.txt"
node bench/tools/wasm-size-groups.mjs "$D/top.json" | tee "$D.txt"
echo; echo "top 40 items: $D/top.txt"
