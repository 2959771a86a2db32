# Shared by smoke.sh and long.sh (sourced). Installs cargo-fuzz when missing and sets up
# the stable toolchain for it. Not meant to be run on its own.
#
# cargo-fuzz passes `-Z` flags (sanitizer, coverage) to rustc; stable rustc accepts them
# with RUSTC_BOOTSTRAP=1, so no nightly toolchain is needed (a CI machine has only
# stable and cannot fetch another). Sanitizer: AddressSanitizer (cargo-fuzz's default);
# FUZZ_SANITIZER=none turns it off (faster; the crate itself has no `unsafe`).

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$FUZZ_DIR")"
TARGETS=(sse json jsonrpc results headers schema engine)
CARGO_FUZZ_VERSION="0.13.2"
export RUSTC_BOOTSTRAP=1
FUZZ_SANITIZER="${FUZZ_SANITIZER:-address}"
FUZZ_JOBS="${FUZZ_JOBS:-2}"

log() { printf '\033[1;34m[fuzz]\033[0m %s\n' "$*"; }

ensure_cargo_fuzz() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    log "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes cold)"
    cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
  fi
}

# Per-target libFuzzer options. -timeout: an input that takes longer is a finding (a
# hang); -rss_limit_mb / -malloc_limit_mb: more memory is a finding (an OOM).
target_flags() {
  local t="$1"
  local max_len=4096
  case "$t" in engine | schema) max_len=8192 ;; esac
  echo "-max_len=$max_len -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1"
}

build_targets() {
  log "building fuzz targets (sanitizer: $FUZZ_SANITIZER)"
  (cd "$REPO_DIR" && cargo fuzz build --sanitizer "$FUZZ_SANITIZER" --fuzz-dir fuzz)
}

# run_target <name> <libFuzzer stop flag> <log file>: fuzzes from the seeds, keeping new
# inputs in fuzz/corpus/<name> (git-ignored); a crash lands in fuzz/artifacts/<name>/.
run_target() {
  local t="$1" stop="$2" logf="$3"
  mkdir -p "$FUZZ_DIR/corpus/$t" "$FUZZ_DIR/artifacts/$t"
  # Inputs that once failed (tests/regressions/<t>/) seed the run too.
  local extra=()
  [ -d "$REPO_DIR/tests/regressions/$t" ] && extra=("tests/regressions/$t")
  # shellcheck disable=SC2046
  (cd "$REPO_DIR" && cargo fuzz run --sanitizer "$FUZZ_SANITIZER" --fuzz-dir fuzz "$t" \
    "fuzz/corpus/$t" "fuzz/seeds/$t" "${extra[@]}" -- $(target_flags "$t") "$stop" \
    -artifact_prefix="fuzz/artifacts/$t/") >"$logf" 2>&1
}

# The final stats of a run: "<execs> <seconds>" ("?" for what the log does not say, e.g.
# after a crash or a kill). Never fails.
stats_of() {
  local logf="$1"
  local runs secs
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$logf" 2>/dev/null | grep -Eo '[0-9]+$' | tail -1 || true)
  secs=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$logf" 2>/dev/null | grep -Eo 'in [0-9]+' | grep -Eo '[0-9]+' | tail -1 || true)
  echo "${runs:-?} ${secs:-?}"
}

# run_pool <libFuzzer stop flag> <log tag> <target...>: fuzzes the targets, FUZZ_JOBS at a
# time, each logging to fuzz/logs/<tag>-<target>.log; as each run ends (whichever first,
# bash >= 5.1 `wait -n -p`) calls `finished <target> <exit code> <log>`, which the calling
# script defines.
run_pool() {
  local stop="$1" tag="$2" t pid rc
  shift 2
  local -A target_of=()
  _finish_one() {
    if wait -n -p pid; then rc=0; else rc=$?; fi
    t="${target_of[$pid]}"
    unset "target_of[$pid]"
    finished "$t" "$rc" "$FUZZ_DIR/logs/$tag-$t.log"
  }
  for t in "$@"; do
    log "$t: $stop (log: fuzz/logs/$tag-$t.log)"
    run_target "$t" "$stop" "$FUZZ_DIR/logs/$tag-$t.log" &
    target_of[$!]="$t"
    if [ "${#target_of[@]}" -ge "$FUZZ_JOBS" ]; then _finish_one; fi
  done
  while [ "${#target_of[@]}" -gt 0 ]; do _finish_one; done
}
