#!/usr/bin/env bash
# The long run behind RELIABILITY.md: every target for at least FUZZ_RUNS executions
# (default 10 million), FUZZ_JOBS at a time (default 2, one per core here).
#
#   fuzz/long.sh                          # all targets, 10M executions each
#   FUZZ_RUNS=50000000 FUZZ_TARGETS="engine" fuzz/long.sh
#
# Logs: fuzz/logs/long-<target>.log (long-address-<target>.log with ASan); a summary
# table (target, executions, seconds, result) is printed as runs end and written to
# fuzz/logs/long-summary.txt (long-address-summary.txt). The corpus
# grows in fuzz/corpus/<target>/ (git-ignored) and is reused by the next run.
set -euo pipefail
# No sanitizer by default: 2-3x the executions per second, and the crate has no `unsafe`
# (Rust's own checks, debug assertions and overflow checks stay on). An AddressSanitizer
# pass over the same corpus: FUZZ_SANITIZER=address FUZZ_RUNS=1000000 fuzz/long.sh
: "${FUZZ_SANITIZER:=none}"
source "$(dirname "$0")/common.sh"
FUZZ_RUNS="${FUZZ_RUNS:-10000000}"
read -r -a selected <<<"${FUZZ_TARGETS:-${TARGETS[*]}}"

ensure_cargo_fuzz
build_targets
mkdir -p "$FUZZ_DIR/logs"
# Logs and summary are named after the sanitizer when there is one (long-address-*).
tag=long
[ "$FUZZ_SANITIZER" = none ] || tag="long-$FUZZ_SANITIZER"
summary="$FUZZ_DIR/logs/$tag-summary.txt"
{
  echo "# fuzz/long.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(nproc) cores)"
  echo "# $(rustc --version), cargo-fuzz $(cargo fuzz --version 2>/dev/null | awk '{print $2}'), sanitizer $FUZZ_SANITIZER, runs $FUZZ_RUNS"
} >"$summary"

status=0
finished() {
  local t="$1" rc="$2" logf="$3" result=ok runs secs
  if [ "$rc" != 0 ]; then result=FAILED; status=1; fi
  read -r runs secs < <(stats_of "$logf") || true
  printf '%-8s %12s execs %7s s  %s\n' "$t" "$runs" "$secs" "$result" | tee -a "$summary"
}
run_pool "-runs=$FUZZ_RUNS" "$tag" "${selected[@]}"
exit "$status"
