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

# The tools built from crates.io (the wasm-bindgen CLI, geckodriver) compile in the background
# while the Debian, npm and Python packages below download and install (network and disk
# bound); they are waited for at the end. Their output goes to a log, printed if they fail.
BG_DIR=$(mktemp -d)
BG_PIDS=()
BG_NAMES=()
# A step that fails ends the script: the builds still running go with it.
trap 'for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
background() {
  local name=$1
  shift
  "$@" >"$BG_DIR/$name.log" 2>&1 &
  BG_PIDS+=($!)
  BG_NAMES+=("$name")
}
# apt-get update once for the apt steps below.
APT_UPDATED=0
apt_install() {
  local SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  [ "$APT_UPDATED" = 1 ] || { $SUDO apt-get update -qq; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# 2. wasm-bindgen CLI, pinned to the crate (trap 1: no --locked; trap 2: exact pin).
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION in the background (about 2 minutes cold)"
  background wasm-bindgen-cli cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# 3. Headless Chromium + ChromeDriver (Debian packages; browser downloads by test tools fail here).
if [ "${SKIP_CHROMIUM:-0}" != 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  log "installing chromium and chromium-driver"
  apt_install chromium chromium-driver
fi

# 3b. Firefox ESR + geckodriver, WebKitGTK + WebKitWebDriver (MiniBrowser) + Xvfb: the other
#     two engines the browser suites run in (tests/browsers/, issue 18). Debian packages at
#     pinned versions (browser downloads by test tools fail here); geckodriver is built from
#     crates.io (measured: apt ~45 s; geckodriver 9m43s on 2 cores shared with other builds,
#     less on an idle machine). SKIP_ENGINES=1 skips both (the suites then print each
#     engine as not installed and fail).
FIREFOX_ESR_VERSION=153.8.0esr-1~deb12u1
WEBKITGTK_VERSION=2.50.6-1~deb12u2
XVFB_VERSION=2:21.1.7-3+deb12u13
GECKODRIVER_VERSION=0.37.1
if [ "${SKIP_ENGINES:-0}" != 1 ]; then
  pkgs=()
  for p in "firefox-esr=$FIREFOX_ESR_VERSION" "webkit2gtk-driver=$WEBKITGTK_VERSION" \
    "libwebkit2gtk-4.1-0=$WEBKITGTK_VERSION" "xvfb=$XVFB_VERSION" xauth; do
    name=${p%%=*} want=${p#*=}
    have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
    if [ "$name" = "$want" ]; then # unpinned (xauth: whatever xvfb-run needs)
      [ "${have%% *}" = install ] || pkgs+=("$name")
    elif [ "$have" != "install ok installed $want" ]; then
      pkgs+=("$p")
    fi
  done
  if [ "$(geckodriver --version 2>/dev/null | awk 'NR==1{print $2}')" != "$GECKODRIVER_VERSION" ]; then
    # --debug: it only relays WebDriver commands to Firefox, so an unoptimised build serves the
    # suites as well, and builds in 95 s instead of 153 s (2 idle cores, crates downloaded).
    log "installing geckodriver $GECKODRIVER_VERSION in the background (a minute or two cold)"
    background geckodriver cargo install geckodriver --version "$GECKODRIVER_VERSION" --locked --debug
  fi
  if [ ${#pkgs[@]} -gt 0 ]; then
    log "installing ${pkgs[*]}"
    apt_install --no-install-recommends "${pkgs[@]}"
  fi
fi

# 4. npm packages (test harness, conformance suite, wasm-opt, bundlers, peers).
# A node_modules that is a symlink (a worktree sharing another checkout's packages) is never
# reinstalled through: `npm ci` would empty the directory the link points to.
if [ -L node_modules ]; then
  log "node_modules is a symlink ($(readlink node_modules)): npm packages left as they are"
elif [ ! -d node_modules ] || [ package.json -nt node_modules/.setup-stamp ] || [ package-lock.json -nt node_modules/.setup-stamp ]; then
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

# The background builds.
for i in "${!BG_PIDS[@]}"; do
  if wait "${BG_PIDS[$i]}"; then
    log "${BG_NAMES[$i]} installed"
  else
    echo "setup: installing ${BG_NAMES[$i]} failed:" >&2
    tail -40 "$BG_DIR/${BG_NAMES[$i]}.log" >&2
    exit 1
  fi
done
rm -rf "$BG_DIR"

log "setup complete"
