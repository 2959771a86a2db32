#!/usr/bin/env bash
# The benchmarks, in one command: size, per-call cost, start-up, large results, many
# tasks, SSE parsing; our client against the official TypeScript client and raw fetch,
# in Node and headless Chromium, on this machine. Prints every figure and rewrites the
# generated part of BENCHMARKS.md (a full run only; QUICK=1 is a smoke run).
# About 40 minutes on a slow 2-core machine; settings (ROUNDS, N, WARMUPS, TASK_MS, ONLY, QUICK, ...)
# in bench/run.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '\033[1;34m[bench]\033[0m %s\n' "$*"; }

scripts/setup.sh
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  scripts/build.sh
  log "building the bench package (cargo feature bench) into bench/out/pkg-bench"
  bench/build-bench-pkg.sh
fi
node bench/run.mjs
# Tasks across tabs, hidden pages and reloads (issue 13): counted by the server; printed
# only (BENCHMARKS.md "Tasks across reloads and tabs" quotes a run).
node bench/lifecycle.mjs
