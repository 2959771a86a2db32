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

declare -A target_of=()
failed=()
# Waits for whichever run ends first (bash >= 5.1) and reports it.
finish_one() {
  local pid t
  if wait -n -p pid; then rc=0; else rc=$?; fi
  t="${target_of[$pid]}"
  unset "target_of[$pid]"
  if [ "$rc" = 0 ]; then
    read -r runs secs < <(stats_of "$FUZZ_DIR/logs/smoke-$t.log") || true
    log "$t: ok, $runs executions in $secs s"
  else
    log "$t: FAILED (log: fuzz/logs/smoke-$t.log)"
    grep -E '^(==[0-9]+==|thread .* panicked|SUMMARY|artifact_prefix|Test unit written)' \
      "$FUZZ_DIR/logs/smoke-$t.log" | head -20 || true
    failed+=("$t")
  fi
}

for t in "${selected[@]}"; do
  log "$t: fuzzing for ${FUZZ_SECONDS}s"
  run_target "$t" "-max_total_time=$FUZZ_SECONDS" "$FUZZ_DIR/logs/smoke-$t.log" &
  target_of[$!]="$t"
  if [ "${#target_of[@]}" -ge "$FUZZ_JOBS" ]; then finish_one; fi
done
while [ "${#target_of[@]}" -gt 0 ]; do finish_one; done

log "smoke done in $(($(date +%s) - start)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  log "failed: ${failed[*]}"
  exit 1
fi
