#!/usr/bin/env bash
# Installs what building and testing xffi needs on a fresh Debian machine
# (compilers, Rust, Python and cmake are assumed present). Idempotent: only
# what is missing is installed, the Debian packages of every named set in one
# apt-get install, the Python packages by pip at the same time.
#   scripts/install-deps.sh [SET...]   (default: test)
#     tour   building the library and the tour
#     test   every step of scripts/test.sh but the cross targets
#     cross  the cross targets (scripts/cross/*.sh): Debian's cross gcc and
#            libc of each Linux target, qemu-user, mingw-w64 and wine,
#            wasi-libc and lld, and wasmtime (PyPI)
# The pinned tool cbindgen is installed by scripts/test-mixed.sh --install-tools.
set -euo pipefail
[ $# -gt 0 ] || set -- test

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

debian_packages=(pkg-config ninja-build)
lean_packages=() # installed without their recommendations (see install_debian)
# Pinned, so a new release on PyPI cannot change what CI tests against; a
# different version already installed is replaced by the pinned one.
python_pins=()
rust_components=()
for set in "$@"; do
  case $set in
    tour) ;;
    test)
      # libclang-dev: bindgen (rust/xffi-systest) reads the headers through libclang.
      # g++: the C++ kernel of the one-runtime tests, and the JIT-built modules of
      # tvm-ffi's own suite (tests/peer; its sdist is fetched at test time by
      # tests/peer/run.py, hash-pinned, with pip, and its rust_static_init test
      # builds with cargo).
      debian_packages+=(libcmocka-dev clang libclang-rt-14-dev libclang-dev valgrind clang-format g++)
      # The tvm-ffi wheel carries the headers the layout tests compare against;
      # numpy is the real DLPack client of the tensor tests.
      python_pins+=(apache-tvm-ffi==0.1.15.post2 numpy==2.4.6 pytest==9.2.0)
      # The wheel step builds examples/rust-wheel, and the clients step the sdist's
      # examples/python_packaging wheel, with scikit-build-core, without build isolation.
      python_pins+=(scikit-build-core==1.1.2)
      # The formatting and lint steps run cargo fmt and cargo clippy.
      rust_components+=(rustfmt:fmt clippy:clippy)
      ;;
    cross)
      # Linux targets (scripts/cross/_linux.sh: gcc-TRIPLE, libc6-dev-ARCH-cross,
      # qemu-user; dpkg-dev unpacks cmocka's source package, scripts/cross/cmocka.sh),
      # i686 also with clang; Windows (mingw.sh: the cross gcc, wine64; msvc-headers.sh:
      # clang and mingw-w64's C runtime headers); wasm32-wasi (wasm32.sh).
      lean_packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
        gcc-i686-linux-gnu libc6-dev-i386-cross qemu-user dpkg-dev clang
        gcc-mingw-w64-x86-64-posix mingw-w64-x86-64-dev wine64
        lld-14 wasi-libc libclang-rt-14-dev-wasm32)
      # The WASI runtime of wasm32.sh (scripts/cross/wasi-run.py).
      python_pins+=(wasmtime==50.0.1)
      ;;
    *)
      echo "install-deps.sh: unknown set '$set'; the sets are: tour test cross" >&2
      exit 2
      ;;
  esac
done

install_python() {
  local pin have wanted=()
  for pin in "${python_pins[@]}"; do
    have=$(python3 -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin##*==}" ] || wanted+=("$pin")
  done
  [ ${#wanted[@]} -gt 0 ] || return 0
  echo "installing Python packages: ${wanted[*]}"
  python3 -m pip install -q "${wanted[@]}"
}

missing_of() { # PACKAGE...: prints those not installed
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# One apt-get update, then one install of the missing packages (two when
# both kinds are missing: the cross set goes without recommendations, since
# wine64's alone are some 80 packages of fonts, GStreamer and video drivers
# that no test uses). apt and dpkg may be busy with another install on the
# same machine: retried, 60 times 10 s apart.
install_debian() {
  local missing lean i
  mapfile -t missing < <(missing_of "${debian_packages[@]}")
  mapfile -t lean < <(missing_of "${lean_packages[@]}")
  [ ${#missing[@]} -gt 0 ] || [ ${#lean[@]} -gt 0 ] || return 0
  echo "installing Debian packages: ${missing[*]}${missing[*]:+${lean[*]:+ }}${lean[*]}"
  for i in $(seq 1 60); do
    if sudo_if_needed apt-get update -qq &&
      { [ ${#missing[@]} -eq 0 ] ||
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; } &&
      { [ ${#lean[@]} -eq 0 ] ||
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
          "${lean[@]}" >/dev/null; }; then
      return 0
    fi
    echo "apt is busy or failed; retrying in 10 s ($i/60)" >&2
    sleep 10
  done
  return 1
}

# pip needs nothing apt installs: both download at once.
python_status=0
if [ ${#python_pins[@]} -gt 0 ]; then
  install_python &
  python_job=$!
fi
debian_status=0
install_debian || debian_status=$?
if [ ${#python_pins[@]} -gt 0 ]; then
  wait "$python_job" || python_status=$?
fi
[ "$debian_status" -eq 0 ] || { echo "installing the Debian packages failed" >&2; exit 1; }
[ "$python_status" -eq 0 ] || { echo "installing the Python packages failed" >&2; exit 1; }

for entry in "${rust_components[@]}"; do
  component=${entry%%:*} command=${entry##*:}
  if ! cargo "$command" --version >/dev/null 2>&1; then
    echo "installing the Rust component $component"
    rustup component add "$component"
  fi
done
