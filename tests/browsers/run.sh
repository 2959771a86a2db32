#!/usr/bin/env bash
# The browser suites in Firefox ESR and WebKitGTK (issue 18), the two engines Playwright
# cannot drive here; Chromium runs the same suites in scripts/test.sh's own sections.
#
#   tests/browsers/run.sh [firefox] [webkit]        (default: both, in parallel; the
#                                                    timing-sensitive suites one at a time)
#
# Per engine: wasm; then dialog, console, sign-in and service worker (the two engines at the
# same time); then js, faults and lifecycle (one engine at a time: TIMING_LOCK, below). Each:
#   wasm   tests/wasm_browser.rs by wasm-bindgen-test-runner: Firefox through geckodriver
#          (GECKODRIVER, capabilities in a webdriver.json: the ESR binary; the runner adds
#          -headless), WebKit through WebKitWebDriver as the runner's SAFARIDRIVER under Xvfb
#          (the runner sends no capabilities to that driver; WebKitWebDriver then starts its
#          default browser, MiniBrowser --automation)
#   js     tests/js/suite.mjs by tests/browsers/run-js.mjs (W3C WebDriver, webdriver.mjs)
#   faults tests/faults/suite.mjs (fault injection) the same way, against tests/faults/server.mjs
#   lifecycle  tests/lifecycle/*.test.mjs, the same test bodies as in Chromium, with
#          BROWSER_ENGINE=<engine>: tests/e2e/lib.mjs's launchBrowser() then returns
#          playwright-shim.mjs (Playwright's API over WebDriver; what it emulates is said there:
#          offline by navigator.onLine and the offline/online events, hidden as the tests already
#          do, by document.visibilityState and visibilitychange); a test needing a Playwright
#          feature WebDriver lacks is printed NOT RUN with the reason
#   console tests/e2e/console.mjs, the agent console's flows against the example server, the
#          same way (BROWSER_ENGINE), after the dialog
#   sign-in tests/e2e/signin.mjs, the console's sign-in against oidc-provider, the same way;
#          addInitScript needs BiDi (Firefox): that flow is NOT RUN in WebKit, with the reason
#   service worker  tests/runtimes/run.mjs's module Service Worker scenario (RUNTIMES=service-worker)
#   dialog tests/e2e/dialog.mjs, the dialog's end-to-end flows, the same way (BROWSER_ENGINE;
#          the shim's locators, WebDriver element clicks, send keys and key actions); the flow
#          that needs request interception (context.route) runs in Firefox over WebDriver BiDi
#          and is printed NOT RUN with the reason in WebKit (WebKitWebDriver has no BiDi)
# and prints one line per engine: `<engine> <version>: N passed, M failed (wasm a/b, js c/d,
# faults e/f, lifecycle g/h [+ n not run], dialog i/j [+ n not run], console k/l, sign-in m/n [+ n not run], service worker 1/1)`.
# Outputs: test-output/browsers/<engine>-<suite>.log. Exits non-zero when a case failed or an
# engine could not run (it is printed as NOT RUN with the reason, never skipped silently).
#
# Servers: MCP_TEST_SERVER_URL (the JS suite's) and MCP_WASM_TEST_URL (the wasm tests', compiled
# into them: scripts/test.sh sets both); when unset, Python test servers are started here
# (the wasm one on MCP_WASM_TEST_PORT, default 38111) and stopped by PID on exit.
# Needs a built pkg/ (scripts/build.sh) and scripts/setup.sh's installs.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/test-output/browsers
mkdir -p "$OUT"
NODE=${NODE:-node}
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(firefox webkit)
[ -f pkg/index.js ] || { echo "pkg/ is not built: run scripts/build.sh first" >&2; exit 1; }

PIDS=()
cleanup() { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_server <name> <port>: a Python test server; sets SERVER_URL (not a $(...) call: the
# PID must reach PIDS in this shell, to be stopped on exit).
start_server() {
  local ready=$OUT/server-$1.ready i
  : >"$ready"
  .venv/bin/python tests/servers/modern_server.py --port "$2" >"$ready" 2>"$OUT/server-$1.log" &
  PIDS+=($!)
  for i in $(seq 300); do
    if grep -q '^READY ' "$ready"; then SERVER_URL=$(sed -n 's/^READY //p' "$ready" | head -1); return 0; fi
    sleep 0.1
  done
  echo "the $1 server was not ready within 30 s" >&2
  return 1
}
if [ -z "${MCP_TEST_SERVER_URL:-}" ]; then
  start_server js 0 || exit 1
  MCP_TEST_SERVER_URL=$SERVER_URL
fi
if [ -z "${MCP_WASM_TEST_URL:-}" ]; then
  port=${MCP_WASM_TEST_PORT:-38111}
  if (exec 5<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port (the wasm tests' server, compiled into them) is in use: set MCP_WASM_TEST_URL to a running test server or MCP_WASM_TEST_PORT to a free port" >&2
    exit 1
  fi
  start_server wasm "$port" || exit 1
  MCP_WASM_TEST_URL=$SERVER_URL
fi
export MCP_TEST_SERVER_URL MCP_WASM_TEST_URL
# The fault-injection server (tests/faults/server.mjs), for the fault suite.
"$NODE" tests/faults/server.mjs --port 0 >"$OUT/server-faults.ready" 2>"$OUT/server-faults.log" &
PIDS+=($!)
FAULT_URL=''
for _ in $(seq 100); do
  FAULT_URL=$(sed -n 's/^READY //p' "$OUT/server-faults.ready" | head -1)
  [ -n "$FAULT_URL" ] && break
  sleep 0.1
done
[ -n "$FAULT_URL" ] || { echo "the fault server did not start:" >&2; cat "$OUT/server-faults.log" >&2; exit 1; }

# The wasm test binary (built once; the two engines run it in parallel without cargo's lock).
WASM=$(cargo test --target wasm32-unknown-unknown --test wasm_browser --no-run 2>&1 | tee "$OUT/wasm-build.log" |
  sed -n 's/.*Executable .*(\(.*wasm_browser-[0-9a-f]*\.wasm\)).*/\1/p' | tail -1)
if [ -z "$WASM" ] || [ ! -f "$WASM" ]; then
  echo "building tests/wasm_browser.rs failed:" >&2
  tail -n 40 "$OUT/wasm-build.log" >&2
  exit 1
fi

cat >"$OUT/firefox-webdriver.json" <<EOF
{ "moz:firefoxOptions": { "binary": "${FIREFOX:-/usr/bin/firefox-esr}", "args": [] } }
EOF

# wasm_run <engine>: tests/wasm_browser.rs in the engine.
wasm_run() {
  case $1 in
    firefox)
      env -u CHROMEDRIVER -u SAFARIDRIVER GECKODRIVER="${GECKODRIVER:-$(command -v geckodriver)}" \
        WASM_BINDGEN_TEST_WEBDRIVER_JSON="$OUT/firefox-webdriver.json" wasm-bindgen-test-runner "$WASM" ;;
    webkit)
      xvfb-run -a env -u CHROMEDRIVER -u GECKODRIVER SAFARIDRIVER="${WEBKITWEBDRIVER:-/usr/bin/WebKitWebDriver}" \
        wasm-bindgen-test-runner "$WASM" ;;
  esac
}

# why_none <log>: the line of a run's log that says why it gave no result, for the "no result"
# line (CI keeps only the summary's tail, where that line is repeated, not the log).
why_none() {
  local w
  # The runner's own verdict first (a RETRY line before it holds an error too), then any error.
  w=$(grep -m1 -E 'run failed|did not run|did not finish' "$1" 2>/dev/null | cut -c1-220)
  [ -n "$w" ] || w=$(grep -m1 -E 'not ready|exited \(|Error|rror:' "$1" 2>/dev/null | cut -c1-220)
  printf '%s' "${w:-the log has no error line; its last line: $(tail -n 1 "$1" 2>/dev/null | cut -c1-160)}"
}

# engine <engine>: every suite in the engine; writes $OUT/<engine>.summary.
engine() {
  local e=$1 passed=0 failed=0 rc=0 parts=() version='' p f line k
  local -A part=()
  local why
  why=$("$NODE" --input-type=module -e "import { missing } from '$ROOT/tests/browsers/webdriver.mjs'; const w = missing('$e'); if (w) console.log(w);")
  if [ -n "$why" ]; then
    echo "$e: NOT RUN: $why" | tee "$OUT/$e.summary"
    return 1
  fi
  # wasm
  wasm_run "$e" >"$OUT/$e-wasm.log" 2>&1 || rc=1
  line=$(grep -E '^test result:' "$OUT/$e-wasm.log" | tail -1)
  p=$(sed -n 's/.* \([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
  if [ -z "$p" ]; then p=0; f=$((f + 1)); rc=1; echo "$e wasm: no test result (see ${OUT#"$ROOT"/}/$e-wasm.log): $(why_none "$OUT/$e-wasm.log")"; fi
  passed=$((passed + p)); failed=$((failed + ${f:-0})); part[wasm]="wasm $p/$((p + ${f:-0}))"
  [ "$rc" = 0 ] || { echo "$e wasm: FAILED"; grep -E 'FAIL|panicked|rror' "$OUT/$e-wasm.log" | head -20; }
  # The flows below (dialog, console, sign-in, service worker) have no timing bounds of their own
  # beyond waits of seconds: they hold TIMING_LOCK shared, so the two engines run them at the
  # same time, never beside a timing suite (js, faults, lifecycle: exclusive, after them). Both
  # engines reach them together, just after the wasm tests.
  # dialog: tests/e2e/dialog.mjs, the dialog's end-to-end flows (real clicks and keys through
  # WebDriver), the same bodies as in Chromium through playwright-shim.mjs; its own static server
  local drc=0 dn
  BROWSER_ENGINE=$e flock --shared "$TIMING_LOCK" "$NODE" tests/e2e/dialog.mjs >"$OUT/$e-dialog.log" 2>&1 || drc=1
  line=$(grep -E '^dialog tests: [0-9]+ passed, [0-9]+ failed' "$OUT/$e-dialog.log" | tail -1)
  p=$(sed -n 's/^dialog tests: \([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
  dn=$(sed -n 's/.* \([0-9]*\) not run.*/\1/p' <<<"$line")
  if [ -z "$p" ]; then p=0; f=1; drc=1; echo "$e dialog: no result (see ${OUT#"$ROOT"/}/$e-dialog.log): $(why_none "$OUT/$e-dialog.log")"; fi
  passed=$((passed + p)); failed=$((failed + f)); part[dialog]="dialog $p/$((p + f))$([ "${dn:-0}" = 0 ] || echo " + $dn not run")"
  grep -E '^NOT RUN' "$OUT/$e-dialog.log" || true
  grep -E '^\[shim\]' "$OUT/$e-dialog.log" | sort | uniq -c || true
  [ "$drc" = 0 ] || { echo "$e dialog: FAILED"; grep -E '^FAIL' "$OUT/$e-dialog.log" | head -20; rc=1; }
  # console: tests/e2e/console.mjs, the agent console's flows (www/) against the example
  # server, the same bodies as in Chromium through playwright-shim.mjs (its own servers)
  local crc=0
  BROWSER_ENGINE=$e flock --shared "$TIMING_LOCK" "$NODE" tests/e2e/console.mjs >"$OUT/$e-console.log" 2>&1 || crc=1
  p=$(grep -c '^PASS console:' "$OUT/$e-console.log" || true); f=$(grep -c '^FAIL console:' "$OUT/$e-console.log" || true)
  # A run that ended without a FAIL line but with an error (a crash) still fails.
  if [ "$crc" != 0 ] && [ "${f:-0}" = 0 ]; then f=1; echo "$e console: no result (see ${OUT#"$ROOT"/}/$e-console.log): $(why_none "$OUT/$e-console.log")"; fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); part[console]="console ${p:-0}/$((${p:-0} + ${f:-0}))"
  grep -E '^NOT RUN' "$OUT/$e-console.log" || true
  [ "$crc" = 0 ] || { echo "$e console: FAILED"; grep -E '^FAIL' "$OUT/$e-console.log" | head -20; rc=1; }
  # sign-in: tests/e2e/signin.mjs, the console's sign-in flows against the real authorization
  # server (oidc-provider), the same way; a flow needing what the engine's driver lacks
  # (addInitScript without BiDi: WebKit) is printed NOT RUN with the reason
  local src=0 sn
  BROWSER_ENGINE=$e flock --shared "$TIMING_LOCK" "$NODE" tests/e2e/signin.mjs >"$OUT/$e-signin.log" 2>&1 || src=1
  p=$(grep -c '^PASS sign-in:' "$OUT/$e-signin.log" || true); f=$(grep -c '^FAIL sign-in:' "$OUT/$e-signin.log" || true)
  sn=$(grep -c '^NOT RUN' "$OUT/$e-signin.log" || true)
  if [ "$src" != 0 ] && [ "${f:-0}" = 0 ]; then f=1; echo "$e sign-in: no result (see ${OUT#"$ROOT"/}/$e-signin.log): $(why_none "$OUT/$e-signin.log")"; fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  part[sign-in]="sign-in ${p:-0}/$((${p:-0} + ${f:-0}))$([ "${sn:-0}" = 0 ] || echo " + $sn not run")"
  grep -E '^NOT RUN' "$OUT/$e-signin.log" || true
  [ "$src" = 0 ] || { echo "$e sign-in: FAILED"; grep -E '^FAIL' "$OUT/$e-signin.log" | head -20; rc=1; }
  # service worker: tests/runtimes/run.mjs's module Service Worker scenario (the package in a
  # ServiceWorkerGlobalScope, answering the page's messages), the same way, its own MCP server
  local wrc=0
  BROWSER_ENGINE=$e RUNTIMES=service-worker MCP_TEST_SERVER_URL= flock --shared "$TIMING_LOCK" "$NODE" tests/runtimes/run.mjs >"$OUT/$e-service-worker.log" 2>&1 || wrc=1
  if grep -q '^PASS runtime service-worker' "$OUT/$e-service-worker.log"; then p=1; f=0; else p=0; f=1; fi
  [ "$wrc" = 0 ] || f=1
  passed=$((passed + p)); failed=$((failed + f)); part["service worker"]="service worker $p/1"
  [ "$f" = 0 ] || { echo "$e service worker: FAILED"; grep -E '^(FAIL|runtime)' "$OUT/$e-service-worker.log" | head -10; rc=1; }
  # js
  local jrc=0
  # The suite has timing cases (poll gaps): one engine at a time runs it (TIMING_LOCK).
  flock "$TIMING_LOCK" "$NODE" tests/browsers/run-js.mjs "$MCP_TEST_SERVER_URL" --engine "$e" >"$OUT/$e-js.log" 2>&1 || jrc=1
  line=$(grep -E "^$e [^ ]+: [0-9]+ passed" "$OUT/$e-js.log" | tail -1)
  version=$(sed -n "s/^$e \([^:]*\):.*/\1/p" <<<"$line")
  p=$(sed -n 's/^[^:]*: \([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
  if [ -z "$p" ]; then p=0; f=1; echo "$e js: no result (see ${OUT#"$ROOT"/}/$e-js.log): $(why_none "$OUT/$e-js.log")"; jrc=1; fi
  passed=$((passed + p)); failed=$((failed + f)); part[js]="js $p/$((p + f))"
  grep -E '^  XFAIL' "$OUT/$e-js.log" || true
  [ "$jrc" = 0 ] || { echo "$e js: FAILED"; grep -v -E '^  ok ' "$OUT/$e-js.log" | tail -40; rc=1; }
  # faults: tests/faults/suite.mjs against the fault server (tests/faults/server.mjs)
  local frc=0
  flock "$TIMING_LOCK" "$NODE" tests/browsers/run-js.mjs "$FAULT_URL" --engine "$e" --suite tests/faults/suite.mjs >"$OUT/$e-faults.log" 2>&1 || frc=1
  line=$(grep -E "^$e [^ ]+: [0-9]+ passed" "$OUT/$e-faults.log" | tail -1)
  p=$(sed -n 's/^[^:]*: \([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
  if [ -z "$p" ]; then p=0; f=1; echo "$e faults: no result (see ${OUT#"$ROOT"/}/$e-faults.log): $(why_none "$OUT/$e-faults.log")"; frc=1; fi
  passed=$((passed + p)); failed=$((failed + f)); part[faults]="faults $p/$((p + f))"
  grep -E '^  XFAIL' "$OUT/$e-faults.log" || true
  [ "$frc" = 0 ] || { echo "$e faults: FAILED"; grep -v -E '^  (ok|skip) ' "$OUT/$e-faults.log" | tail -40; rc=1; }
  # lifecycle: tests/lifecycle/*.test.mjs, the same bodies through playwright-shim.mjs
  local lp=0 lf=0 ln=0 lrc=0 t name
  for t in tests/lifecycle/*.test.mjs; do
    [ -e "$t" ] || continue
    name=$(basename "$t" .test.mjs)
    BROWSER_ENGINE=$e flock "$TIMING_LOCK" "$NODE" "$t" >"$OUT/$e-lifecycle-$name.log" 2>&1 || lrc=1
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/$e-lifecycle-$name.log" | tail -1)
    p=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
    if [ -z "$p" ]; then p=0; f=1; lrc=1; echo "$e lifecycle $name: no result (see ${OUT#"$ROOT"/}/$e-lifecycle-$name.log): $(why_none "$OUT/$e-lifecycle-$name.log")"; fi
    n=$(sed -n 's/.* \([0-9]*\) not run.*/\1/p' <<<"$line")
    lp=$((lp + p)); lf=$((lf + f)); ln=$((ln + ${n:-0}))
    grep -E '^NOT RUN' "$OUT/$e-lifecycle-$name.log" || true
    [ "$f" = 0 ] || { echo "$e lifecycle $name: FAILED"; grep -E '^FAIL' -A4 "$OUT/$e-lifecycle-$name.log" | head -40; }
  done
  passed=$((passed + lp)); failed=$((failed + lf)); part[lifecycle]="lifecycle $lp/$((lp + lf))${ln:+$([ "$ln" = 0 ] || echo " + $ln not run")}"
  [ "$lrc" = 0 ] || rc=1
  # A browser that did not start and was started again (webdriver.mjs startRetried), in any suite.
  grep -h -E '^RETRY' "$OUT/$e"-*.log 2>/dev/null || true
  for k in wasm js faults lifecycle dialog console sign-in "service worker"; do parts+=("${part[$k]}"); done
  local joined; joined=$(printf '%s, ' "${parts[@]}")
  echo "$e ${version:-?}: $passed passed, $failed failed (${joined%, })" | tee "$OUT/$e.summary"
  return $rc
}

# The engines run in parallel (two cores), except the timing-sensitive suites, which take
# this lock exclusively: on a loaded machine two browsers' timers and requests delay each other
# enough to fail the poll-gap bounds (seen in both engines when the JS suites overlapped). The
# UI flows take it shared: with each other, never beside a timing suite.
TIMING_LOCK=$OUT/.timing.lock
: >"$TIMING_LOCK"
status=0
# Firefox: one template profile for all the runs' sessions (tests/browsers/webdriver.mjs,
# firefoxTemplate: ~2.2 s less per session). When it cannot be made, each process makes its
# own (and fails there, with the reason, if Firefox cannot start).
if [[ " ${ENGINES[*]} " == *" firefox "* ]]; then
  export FIREFOX_PROFILE_TEMPLATE=$OUT/firefox-profile
  "$NODE" --input-type=module -e "
const { prepareFirefoxProfile, missing } = await import('$ROOT/tests/browsers/webdriver.mjs');
if (!missing('firefox')) await prepareFirefoxProfile(process.env.FIREFOX_PROFILE_TEMPLATE);
process.exit(0);" >"$OUT/firefox-profile.log" 2>&1 ||
    echo "firefox: the template profile could not be made (${OUT#"$ROOT"/}/firefox-profile.log); each run makes its own"
fi
declare -A JOB
for e in "${ENGINES[@]}"; do
  engine "$e" >"$OUT/$e.out" 2>&1 &
  JOB[$e]=$!
done
for e in "${ENGINES[@]}"; do
  wait "${JOB[$e]}" || status=1
  cat "$OUT/$e.out"
done
exit $status
