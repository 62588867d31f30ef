#!/usr/bin/env bash
# Installs what building and testing xffi needs on a fresh Debian machine
# (compilers, Rust, Python and cmake are assumed present). Idempotent: only
# what is missing is installed. Usage: scripts/install-deps.sh [tour|test]
set -euo pipefail
what=${1:-test}

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

debian_packages=(pkg-config ninja-build)
if [ "$what" = test ]; then
  # libclang-dev: bindgen (rust/xffi-systest) reads the headers through libclang.
  # g++: the C++ kernel of the one-runtime tests, and the JIT-built modules of
  # tvm-ffi's own suite (tests/peer; its sdist is fetched at test time by
  # tests/peer/run.py, hash-pinned, with pip, and its rust_static_init test
  # builds with cargo).
  debian_packages+=(libcmocka-dev clang libclang-rt-14-dev libclang-dev valgrind clang-format g++)
fi
missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$what" = test ]; then
  # The formatting and lint steps run cargo fmt and cargo clippy, the
  # rustup components rustfmt and clippy.
  if ! cargo fmt --version >/dev/null 2>&1; then
    echo "installing the Rust component rustfmt"
    rustup component add rustfmt
  fi
  if ! cargo clippy --version >/dev/null 2>&1; then
    echo "installing the Rust component clippy"
    rustup component add clippy
  fi
  # The tvm-ffi wheel carries the headers the layout tests compare against;
  # numpy is the real DLPack client of the tensor tests. Pinned, so a new
  # release on PyPI cannot change what CI tests against; a different version
  # already installed is replaced by the pinned one.
  python_pins=(apache-tvm-ffi==0.1.15.post2 numpy==2.4.6 pytest==9.2.0)
  python_packages=()
  for pin in "${python_pins[@]}"; do
    have=$(python3 -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin##*==}" ] || python_packages+=("$pin")
  done
  if [ ${#python_packages[@]} -gt 0 ]; then
    echo "installing Python packages: ${python_packages[*]}"
    python3 -m pip install -q "${python_packages[@]}"
  fi
fi
