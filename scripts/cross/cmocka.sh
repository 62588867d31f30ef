#!/usr/bin/env bash
# Builds cmocka for a cross target from Debian's source package and installs
# it into PREFIX, so a cross build of the xffi suite finds it with pkg-config
# (PKG_CONFIG_LIBDIR=PREFIX/lib/pkgconfig).
#   Usage: scripts/cross/cmocka.sh TOOLCHAIN_FILE PREFIX [extra cmake args...]
# The source is fetched once (deb-src is enabled if it is not) and kept under
# the build root (XFFI_BUILD_ROOT, default build/) in cross/cmocka/; an install
# into PREFIX is reused while its stamp names the same toolchain file and args.
# Idempotent, like scripts/install-deps.sh.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 TOOLCHAIN_FILE PREFIX [extra cmake args...]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
toolchain=$(realpath "$1")
prefix=$(realpath -m "$2")
shift 2
build_root=$(realpath -m "${XFFI_BUILD_ROOT:-$root/build}")
work=$build_root/cross/cmocka
stamp=$prefix/.xffi-cmocka-stamp
want="$toolchain $*"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

source "$(dirname "${BASH_SOURCE[0]}")/_install.sh"
# apt and dpkg may be busy with another install on the same machine.
apt_retry() {
  local i
  for i in $(seq 1 60); do
    if cross_sudo env DEBIAN_FRONTEND=noninteractive "$@"; then return 0; fi
    echo "apt is busy or failed; retrying in 10 s ($i/60)" >&2
    sleep 10
  done
  return 1
}

# dpkg-source (dpkg-dev) unpacks the source package.
if ! command -v dpkg-source >/dev/null; then
  apt_retry apt-get install -y -qq --no-install-recommends dpkg-dev >/dev/null
fi

src=$work/src
if [ ! -f "$src/CMakeLists.txt" ]; then
  mkdir -p "$work/download"
  # Enable the source lines of the configured Debian archives once.
  if ! (cd "$work/download" && apt-get source --print-uris -qq cmocka >/dev/null 2>&1); then
    list=/etc/apt/sources.list.d/xffi-deb-src.sources
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types:.*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | cross_sudo tee "$list" >/dev/null
    else
      grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        cross_sudo tee /etc/apt/sources.list.d/xffi-deb-src.list >/dev/null
    fi
    apt_retry apt-get update -qq
  fi
  rm -rf "$work/download" && mkdir -p "$work/download"
  (cd "$work/download" && apt-get source --download-only -qq cmocka >"$work/download.log" 2>&1) || { cat "$work/download.log"; exit 1; }
  dsc=$(ls "$work/download"/cmocka_*.dsc | head -n 1)
  rm -rf "$src"
  dpkg-source --no-check -x "$dsc" "$src" >/dev/null
fi

build=$work/build-$(basename "$toolchain" .cmake)
rm -rf "$build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
  -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF -DPICKY_DEVELOPER=OFF "$@" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$build" -j "${XFFI_JOBS:-2}" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
cmake --install "$build" >/dev/null
echo "$want" >"$stamp"
