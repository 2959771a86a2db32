# Sourced by scripts/build.sh and bench/build-bench-pkg.sh: how the shipped wasm's std is
# built. The prebuilt std of the wasm32 target keeps, at every panic site (unwrap, indexing,
# RefCell borrows, arithmetic overflow checks in std), the panic message, its file/line
# `Location` and the formatting machinery to print them, although on wasm32-unknown-unknown
# nothing ever prints them: a panic ends in the `unreachable` trap either way. Rebuilding
# std (the rust-src component, added by scripts/setup.sh) lets us drop all of that:
#   -Zbuild-std=std,panic_abort                 std compiled with our profile (opt-level z, LTO)
#   -Zbuild-std-features=optimize_for_size      std's smaller algorithm variants
#   -Cpanic=immediate-abort                     a panic is the trap at once: no message, no hook
#   -Zlocation-detail=none                      no file/line/column constants for #[track_caller]
# Measured on 24b37a0 (BENCHMARKS.md "Size work"): wasm 563,027 -> 511,080 B, gzip -9
# 241,727 -> 219,619 B (-22.1 KB); a cold build of the crate and its dependencies takes
# ~63 s instead of ~45 s (std is compiled too), a warm one is unchanged.
# These are unstable flags; RUSTC_BOOTSTRAP=1 lets the STABLE toolchain take them (no nightly
# needed). Behaviour is unchanged: the engine never panics on peer input (DEVELOPERS.md), and
# a panic was already an uncaught `RuntimeError: unreachable` with nothing printed.
# -Zfmt-debug=none was measured too and saves nothing (no `{:?}` is reachable in the shipped
# code), so it is not used. RUSTC_BOOTSTRAP=1 also switches rustc to v0 symbol mangling
# (nightly's default), seen in the glue's closure-shim names; -Csymbol-mangling-version=legacy
# measured 492 B gzip more in all (wasm layout), so it is left at that.
WASM_RUSTFLAGS="${RUSTFLAGS:-} -Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
WASM_STD_ARGS=(-Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size)
