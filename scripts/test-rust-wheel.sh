#!/usr/bin/env bash
# The plugin author's path end to end (examples/rust-wheel, docs/guide-rust-plugin.md):
#
#   scripts/test-rust-wheel.sh WORK RUNTIME
#
# builds the example's wheel (pip wheel: scikit-build-core runs CMake, which
# runs cargo build --release; no build isolation, so scikit-build-core comes
# from scripts/install-deps.sh and nothing is downloaded for the build; cargo
# reuses CARGO_TARGET_DIR, default the workspace's target/), installs it in a
# fresh venv WORK/venv with the plain apache-tvm-ffi wheel from PyPI, pytest
# and mypy, and runs the example's tests there twice: on the wheel's runtime,
# then on RUNTIME (xffi's drop-in libtvm_ffi.so) through the overlay of
# scripts/tvm-ffi-on-xffi.sh, built from the venv's tvm_ffi in WORK/overlay.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 WORK RUNTIME" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
runtime=$(realpath "$2")
[ -f "$runtime" ] || { echo "$0: the runtime $2 does not exist (build the drop-in first)" >&2; exit 1; }
example=$root/examples/rust-wheel
# The venv's pins: apache-tvm-ffi and pytest as scripts/install-deps.sh pins them.
pins=(apache-tvm-ffi==0.1.15.post2 pytest==9.2.0 mypy==2.4.1)

rm -rf "$work/dist" "$work/venv"
echo "building the wheel of $example"
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} CARGO_BUILD_JOBS=${XFFI_JOBS:-2} \
  python3 -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" "$example"
wheels=("$work"/dist/mykernels-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "$0: expected one wheel in $work/dist" >&2; exit 1; }
echo "built $(basename "${wheels[0]}")"

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "${wheels[0]}" "${pins[@]}"

# From WORK, so that nothing of the source tree is importable: the tests see
# the installed package only.
cd "$work"
tests=(-m pytest -q -p no:cacheprovider "$example/tests")
echo "the example's tests on the apache-tvm-ffi wheel's runtime"
env -u PYTHONPATH MYKERNELS_RUNTIME=wheel "$work/venv/bin/python" "${tests[@]}"

echo "the example's tests on xffi's runtime ($runtime, through the overlay)"
PATH="$work/venv/bin:$PATH" bash "$root/scripts/tvm-ffi-on-xffi.sh" --runtime "$runtime" "$work/overlay"
PYTHONPATH="$work/overlay" MYKERNELS_RUNTIME=xffi "$work/venv/bin/python" "${tests[@]}"
