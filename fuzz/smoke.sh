#!/usr/bin/env bash
# A short fuzz smoke over every target (for the test command). Idempotent: installs
# cargo-fuzz if missing; the build is cached in fuzz/target.
#
#   fuzz/smoke.sh                   # 30 s per target, two at a time (~1.5 min + build)
#   FUZZ_SECONDS=120 fuzz/smoke.sh  # longer
#   FUZZ_TARGETS="sse engine" fuzz/smoke.sh
#
# Exits non-zero when a target crashes, panics, hangs (> 10 s on one input) or runs out
# of memory; the input is in fuzz/artifacts/<target>/ and the log in fuzz/logs/.
# To keep it as a regression test: copy it to tests/regressions/<target>/ (then
# `cargo test --test fuzz_regressions` replays it). See RELIABILITY.md.
set -euo pipefail
source "$(dirname "$0")/common.sh"
FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
read -r -a selected <<<"${FUZZ_TARGETS:-${TARGETS[*]}}"

start=$(date +%s)
ensure_cargo_fuzz
build_targets
mkdir -p "$FUZZ_DIR/logs"

failed=()
finished() {
  local t="$1" rc="$2" logf="$3" runs secs
  if [ "$rc" = 0 ]; then
    read -r runs secs < <(stats_of "$logf") || true
    log "$t: ok, $runs executions in $secs s"
  else
    log "$t: FAILED (log: fuzz/logs/smoke-$t.log)"
    grep -E '^(==[0-9]+==|thread .* panicked|SUMMARY|artifact_prefix|Test unit written)' \
      "$logf" | head -20 || true
    failed+=("$t")
  fi
}
run_pool "-max_total_time=$FUZZ_SECONDS" smoke "${selected[@]}"

log "smoke done in $(($(date +%s) - start)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  log "failed: ${failed[*]}"
  exit 1
fi
