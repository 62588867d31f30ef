#!/usr/bin/env bash
# The Rust part of the test command: every crate's tests and doctests, the
# cross-language ownership tests, layout, container, type registration,
# error sharing, reference-count limit, List sharing and tensor size tests under
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
if command -v valgrind >/dev/null; then
  # Re-list the test binaries cargo just built (no rebuild).
  bins=$(cargo test --workspace --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"] in ("cross","layout","containers","dlpack","oom","module","tvm_interop","type_registration","error_sharing","ref_count_limit","list_sharing","tensor_numel"):
        print(m["executable"])')
  # All twelve must be found: an empty list would pass without checking anything.
  [ "$(echo "$bins" | grep -c .)" -eq 12 ] || { echo "expected the 12 valgrind test binaries, found: $bins" >&2; exit 1; }
  for b in $bins; do
    echo "valgrind: $b"
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-possibly-lost=no -q "$b" --test-threads=2
  done
else
  echo "valgrind not found: memory checks of the cross-language tests skipped" >&2
fi
"$root/rust/scripts/package-check.sh"
