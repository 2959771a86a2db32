#!/usr/bin/env bash
# Installs everything the build, the demo and the tests need. Idempotent: each step
# checks what is already there and skips it. See ../shared/docs/toolchain.md for why
# each pin is what it is.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

# 1. Rust wasm target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 1b. rustfmt and clippy (scripts/test.sh checks formatting and lints; a minimal rustup
#     profile lacks them).
# rust-src: scripts/build.sh rebuilds std for size (scripts/wasm-std.sh).
for component in rustfmt clippy rust-src; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    log "adding rustup component $component"
    rustup component add "$component"
  fi
done

# 2. wasm-bindgen CLI, pinned to the crate (trap 1: no --locked; trap 2: exact pin).
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes cold)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# 3. Headless Chromium + ChromeDriver (Debian packages; browser downloads by test tools fail here).
if [ "${SKIP_CHROMIUM:-0}" != 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  log "installing chromium and chromium-driver"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 4. npm packages (test harness, conformance suite, wasm-opt, bundlers, peers).
if [ ! -d node_modules ] || [ package.json -nt node_modules/.setup-stamp ] || [ package-lock.json -nt node_modules/.setup-stamp ]; then
  log "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  touch node_modules/.setup-stamp
fi

# 5. Python venv with the official MCP SDK (test and example servers).
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import mcp, importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  log "creating .venv with mcp==2.3.0"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r tests/servers/requirements.txt
fi

log "setup complete"
