# Sourced by scripts/build.sh, bench/build-bench-pkg.sh, bench/profile-size.sh and
# bench/profile-cpu.sh: Binaryen's passes for the shipped wasm, written once so that the
# bench package (the SSE parse bench, the lean probe) and the profiles run the code pkg/
# ships. Used as `node_modules/.bin/wasm-opt "${WASM_OPT_PASSES[@]}" in.wasm -o out.wasm`;
# the build adds --strip-producers --strip-target-features, the profiles -g.
#
# Two -Oz passes: the second finds what the first left (measured: -750 B gzip for the
# default entry, -553 B for the modern one; --converge and a third pass gave less).
# -ocimfs=20: a function with one caller is inlined into it only when it is small. By
# default Binaryen inlines every such function, whatever its size, which undid
# #[inline(never)] and made functions such as the constructor's 20 KB shim; Chromium
# compiles a wasm function whole on its first call, so the first call compiled all
# of it. With 20: -9.3 KB gzip for the default entry, and 21 % fewer bytes compiled on
# the way to the first listTools (BENCHMARKS.md, "the first call's path").
# -aimfs=4: functions of at most 4 of Binaryen's size units (the default is 2) are
# inlined wherever they are called: -390 B gzip for the default entry, +21 B for the
# modern one, and 6.5 % fewer wasm calls per callTool (bench/tools/wasm-calls.mjs);
# 3, 5, 6 and 8 measured too (BENCHMARKS.md, the twenty-fourth session).
# --low-memory-unused: the optimizer may fold `load (i32.add p C)` into `load offset=C p`
# (they differ only if p + C wraps past 4 GiB to an address below 1 KiB, and Rust never
# wraps a pointer); Emscripten passes it for the same reason.
# --reorder-functions-by-name, last: functions sorted by their (demangled) names, so the
# instantiations of one generic and the functions of one module sit next to each other
# and gzip's 32 KB window finds their likeness; LLVM's order scatters them. Function
# order has no meaning at run time. The two flags: -3,694 B gzip for the default entry,
# -3,134 B for the modern one (BENCHMARKS.md, the eighteenth session; orders by content
# likeness were measured too, and not kept).
# Measured and not kept: --flatten --rereloop and -Oz twice more after the two -Oz passes
# (Binaryen's relooper rebuilding every function's control flow) took 1,733 B gzip off the
# default entry with per-call cost level, but the SSE parser ran 4-8 % slower on small
# events and 5-35 % on a stream of large ones in Chromium (BENCHMARKS.md, the thirty-
# ninth session). A new pass is measured on the SSE parse bench too, not only per call.
# shellcheck disable=SC2034  # used by the scripts that source this file
WASM_OPT_PASSES=(--low-memory-unused -Oz -Oz -ocimfs=20 -aimfs=4 --reorder-functions-by-name)
