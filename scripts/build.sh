#!/usr/bin/env bash
# Builds the npm package into pkg/: release wasm, wasm-bindgen (ES module), wasm-opt -Oz,
# the auto-initialising entry, types, package.json and README; and the same for the
# modern-only entry (cargo feature `legacy` off) into pkg/modern/ (`MODERN=0`: skip it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
log() { printf '\033[1;34m[build +%ss]\033[0m %s\n' "$SECONDS" "$*"; }

PROFILE=${PROFILE:-release}
# std rebuilt for size (scripts/wasm-std.sh says why and what it saves), and Binaryen's passes.
. scripts/wasm-std.sh
. scripts/wasm-opt.sh
# One wasm build into a directory: cargo (features $1) and wasm-bindgen; finish_wasm (below) does the
# rest. Both builds share the target dir: std and the dependencies are compiled once (their
# features do not change), only this crate is built (and linked with LTO) per feature set.
build_wasm() {
  local features=$1 out=$2
  log "cargo build --target wasm32-unknown-unknown --$PROFILE $features (std rebuilt for size)"
  # shellcheck disable=SC2086
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="$WASM_RUSTFLAGS" cargo build --quiet --lib --target wasm32-unknown-unknown --profile "$PROFILE" $features "${WASM_STD_ARGS[@]}"
  local wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$PROFILE/mcp_wasm_client.wasm"
  mkdir -p "$out"
  log "wasm-bindgen --target web -> $out"
  wasm-bindgen --target web --out-dir "$out" --out-name mcp_wasm_client "$wasm"
}
# finish_wasm <dir>: what follows in <dir> alone (wasm-opt, the import keys, the short names), so
# the modern entry's runs beside the default entry's cargo build (its LTO link is one thread).
finish_wasm() {
  local out=$1
  if [ "$PROFILE" = release ]; then
    log "wasm-opt ${WASM_OPT_PASSES[*]} (scripts/wasm-opt.sh says why each)"
    # The producers and target-features sections are only for tools: dropped after optimizing.
    node_modules/.bin/wasm-opt "${WASM_OPT_PASSES[@]}" --strip-producers --strip-target-features "$out/mcp_wasm_client_bg.wasm" -o "$out/mcp_wasm_client_bg.opt.wasm"
    mv "$out/mcp_wasm_client_bg.opt.wasm" "$out/mcp_wasm_client_bg.wasm"
  fi

  # wasm-bindgen keys the wasm's imports object by module once per directly linked import, so
  # a snippet module with several (src/web/js/contexts.js) appears as duplicate keys with the
  # same namespace object: valid JS, but bundlers warn about every one ("Duplicate key").
  # Keep the first of each.
  node -e '
const fs = require("fs"), f = process.argv[1], seen = new Set();
const out = fs.readFileSync(f, "utf8").split("\n").filter((l) => {
  const m = /^\s+("\.\/snippets\/[^"]+"): import\d+,$/.exec(l);
  if (!m) return true;
  if (seen.has(m[1])) return false;
  seen.add(m[1]);
  return true;
});
fs.writeFileSync(f, out.join("\n"));
' "$out/mcp_wasm_client.js"
  # Short names between the glue and the wasm (the script says why and what it checks).
  node scripts/short-names.mjs "$out" mcp_wasm_client
}

OUT=pkg
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
# The modern-only entry (mcp-wasm-client/modern: 2026-07-28 only, no `legacy` feature) first,
# so that the default build is the one left in the target dir (bench/profile-size.sh reads it;
# MODERN=1 there reads the copy kept beside it).
if [ "${MODERN:-1}" != 0 ]; then
  build_wasm --no-default-features "$OUT.tmp/modern"
  cp "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$PROFILE/mcp_wasm_client.wasm" \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$PROFILE/mcp_wasm_client_modern.wasm"
  finish_wasm "$OUT.tmp/modern" &
  MODERN_PID=$!
  # Should the default build fail, the script ends only after this: nothing left writing in pkg.tmp.
  trap 'wait' EXIT
  # Its entry files are the default entry's: they import their own glue by relative path.
  cp src/web/package/index.js src/web/package/index.d.ts src/web/package/load.js src/web/package/load.d.ts "$OUT.tmp/modern/"
fi
build_wasm "" "$OUT.tmp"
finish_wasm "$OUT.tmp"
if [ -n "${MODERN_PID:-}" ] && ! wait "$MODERN_PID"; then
  echo "build: the modern entry's wasm-opt or post-processing failed (above)" >&2
  exit 1
fi

cp src/web/package/index.js src/web/package/index.d.ts src/web/package/load.js src/web/package/load.d.ts "$OUT.tmp/"
# The framework entries: React hooks and the AI SDK adapter (their frameworks are optional peers).
cp src/web/package/react.js src/web/package/react.d.ts src/web/package/ai.js src/web/package/ai.d.ts "$OUT.tmp/"
[ -d src/web/package/dialog ] && cp -r src/web/package/dialog "$OUT.tmp/"
cp README.md "$OUT.tmp/README.md" 2>/dev/null || true
cp LICENSE "$OUT.tmp/LICENSE"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
node -e '
const [version] = process.argv.slice(1);
const fs = require("fs");
const files = fs.readdirSync(process.argv[2] || "pkg.tmp");
const pkg = {
  name: "mcp-wasm-client",
  version,
  description: "An MCP (Model Context Protocol 2026-07-28) client for browsers, workers, Node and edge runtimes: Rust compiled to WebAssembly.",
  license: "Apache-2.0",
  type: "module",
  main: "./index.js",
  module: "./index.js",
  types: "./index.d.ts",
  exports: {
    ".": { types: "./index.d.ts", default: "./index.js" },
    // 2026-07-28 only (no 2025-11-25 / 2024-11-05 eras): README "The modern entry".
    ...(fs.existsSync("pkg.tmp/modern") ? {
      "./modern": { types: "./modern/index.d.ts", default: "./modern/index.js" },
      "./modern/load": { types: "./modern/load.d.ts", default: "./modern/load.js" },
      "./modern/mcp_wasm_client_bg.wasm": "./modern/mcp_wasm_client_bg.wasm",
    } : {}),
    ...(fs.existsSync("pkg.tmp/dialog") ? { "./dialog": { types: "./dialog/index.d.ts", default: "./dialog/index.js" } } : {}),
    "./load": { types: "./load.d.ts", default: "./load.js" },
    "./react": { types: "./react.d.ts", default: "./react.js" },
    "./ai": { types: "./ai.d.ts", default: "./ai.js" },
    "./mcp_wasm_client_bg.wasm": "./mcp_wasm_client_bg.wasm",
    "./raw": { types: "./mcp_wasm_client.d.ts", default: "./mcp_wasm_client.js" },
    "./package.json": "./package.json"
  },
  files: ["*.js", "*.d.ts", "*.wasm", "snippets/", "dialog/", "modern/", "README.md", "LICENSE"],
  sideEffects: ["./index.js", "./modern/index.js"],
  // Only mcp-wasm-client/react imports react, only mcp-wasm-client/ai imports ai.
  peerDependencies: { react: ">=18", ai: ">=5" },
  peerDependenciesMeta: { react: { optional: true }, ai: { optional: true } },
  engines: { node: ">=20" },
  keywords: ["mcp", "model-context-protocol", "wasm", "browser", "client", "agent"]
};
fs.writeFileSync("pkg.tmp/package.json", JSON.stringify(pkg, null, 2) + "\n");
' "$VERSION"

rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
WASM_BYTES=$(stat -c %s "$OUT/mcp_wasm_client_bg.wasm")
GZ=$(gzip -9 -c "$OUT/mcp_wasm_client_bg.wasm" | wc -c)
log "pkg/ ready: wasm ${WASM_BYTES} B (${GZ} B gzip -9)"
if [ -f "$OUT/modern/mcp_wasm_client_bg.wasm" ]; then
  WASM_BYTES=$(stat -c %s "$OUT/modern/mcp_wasm_client_bg.wasm")
  GZ=$(gzip -9 -c "$OUT/modern/mcp_wasm_client_bg.wasm" | wc -c)
  log "pkg/modern/ ready: wasm ${WASM_BYTES} B (${GZ} B gzip -9)"
fi
