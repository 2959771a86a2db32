#!/usr/bin/env bash
# Installs cargo-fuzz when missing and builds every fuzz target into fuzz/target: the first
# steps of smoke.sh and long.sh, on their own. scripts/test.sh runs this in the background at
# the lowest CPU priority from its start, so that the fuzz smoke at its end finds the targets
# built (smoke.sh then builds again, which is a no-op when this finished, and reports any
# build error itself).
set -euo pipefail
source "$(dirname "$0")/common.sh"
ensure_cargo_fuzz
build_targets
