#!/usr/bin/env bash
# The Rust part of the test command: every crate's tests and doctests, the
# cross-language ownership tests, layout, container, type registration,
# error sharing, reference-count limit, List sharing, tensor size, derive, structural,
# serde (feature serde) and tensor (owned, ndarray, dlpark) tests under
# valgrind (fails on any invalid access or definite/indirect leak), and the
# packaging check. Run from anywhere; honours CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
export XFFI_REQUIRE_TVM_FFI=${XFFI_REQUIRE_TVM_FFI:-1} # the tvm-ffi interop test must build, not vanish
# The network is used once, here, with generous retries; everything after
# runs offline from what this fetched, so a registry hiccup fails (if at all)
# at an obvious place rather than in the middle of packaging.
CARGO_NET_RETRY=${CARGO_NET_RETRY:-10} cargo fetch --locked
export CARGO_NET_OFFLINE=true
cargo test --workspace --jobs 2
# The optional features (off by default), in one build: serde, and the
# tensor features half, ndarray and dlpark; their own tests and doctests.
xffi_features=serde,half,ndarray,dlpark
cargo test -p xffi --features "$xffi_features" --jobs 2
if command -v valgrind >/dev/null; then
  # The same test binaries again (no rebuild), each started by cargo through
  # the valgrind runner, set for this one command: the integration tests whose
  # memory crosses into C. Not under valgrind, as before: the doctests (each a
  # program of its own, built by rustdoc), lib unit tests, benches,
  # deep_release (10^5 nested Dicts, a stack-depth test) and target_plan (no
  # C). cargo fails on a named test target that does not exist, so none drops
  # out unnoticed.
  valgrind_tests=(cross layout containers dlpack oom module tvm_interop type_registration error_sharing
    ref_count_limit list_sharing tensor_numel derive structural)
  scripts/cargo-valgrind.sh test --workspace --jobs 2 "${valgrind_tests[@]/#/--test=}" -- --test-threads=2
  scripts/cargo-valgrind.sh test -p xffi --features "$xffi_features" --jobs 2 --test=serde_graph \
    --test=tensor_owned --test=tensor_ndarray --test=tensor_dlpark -- --test-threads=2
else
  echo "valgrind not found: memory checks of the cross-language tests skipped" >&2
fi
"$root/rust/scripts/package-check.sh"
