#!/usr/bin/env bash
# The size budgets: fails when the gzip -9 size of the shipped client (pkg/: the .wasm plus
# the JS glue as esbuild bundles it for a minimal app) exceeds bench/size-budget.json's
# maxGzipBytes, or the modern entry's (pkg/modern/) exceeds its modernMaxGzipBytes.
# Fast: measures the pkg/ already built (scripts/build.sh), builds nothing.
# Policy: the budget only goes down; raising it needs a written reason in the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node bench/size.mjs --check
