#!/usr/bin/env bash
# Writes an overlay that runs the installed tvm_ffi Python package on xffi's
# runtime (issue 15; layout and reasons in docs/one-runtime/peer-suite.md
# §3.4 and docs/tvm-ffi.md):
#
#   scripts/tvm-ffi-on-xffi.sh [--runtime FILE | --wheel-runtime] OUTDIR
#   PYTHONPATH=OUTDIR python3 -c "import tvm_ffi"
#
# OUTDIR/tvm_ffi/ is a real directory whose entries are symlinks to the
# installed package's, except lib/: there libtvm_ffi.so is a copy of the
# runtime (xffi's drop-in, built here in XFFI_BUILD_ROOT/dropin, default
# build/dropin) and libtvm_ffi_testing.so links to the wheel's testing
# library, which the package's core loads through its $ORIGIN/lib RUNPATH.
# A shadow dist-info (the wheel's METADATA, a RECORD naming only those two
# files) makes the package's library search (libinfo: the distribution's
# RECORD first) pick OUTDIR's libtvm_ffi.so; PYTHONPATH puts it before
# site-packages. The core needs libtvm_ffi.so by SONAME, so it binds to the
# runtime the package loaded, and only that one is mapped.
#
#   --runtime FILE    use FILE as the runtime instead of building xffi's
#   --wheel-runtime   use a copy of the wheel's own libtvm_ffi.so: the
#                     overlay's mechanics alone, which change no test outcome
#
# OUTDIR is replaced if it holds an earlier overlay (marked by
# OUTDIR/.tvm-ffi-on-xffi); any other non-empty OUTDIR is refused.
set -euo pipefail
usage() { echo "usage: $0 [--runtime FILE | --wheel-runtime] OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
runtime=""
wheel_runtime=0
while [ $# -gt 1 ]; do
  case $1 in
    --runtime) runtime=$2; shift 2 ;;
    --wheel-runtime) wheel_runtime=1; shift ;;
    *) usage ;;
  esac
done
[ $# -eq 1 ] || usage
out=$1

# The installed package (never an overlay already on PYTHONPATH).
read -r pkg dist version < <(env -u PYTHONPATH python3 - <<'PY'
import importlib.metadata as md, importlib.util, os
spec = importlib.util.find_spec("tvm_ffi")
dist = md.distribution("apache-tvm-ffi")
print(os.path.dirname(spec.origin), dist._path, dist.version)
PY
) || { echo "the apache-tvm-ffi wheel is not installed (scripts/install-deps.sh test)" >&2; exit 1; }
for f in lib/libtvm_ffi.so lib/libtvm_ffi_testing.so; do
  [ -f "$pkg/$f" ] || { echo "the installed tvm_ffi has no $f ($pkg)" >&2; exit 1; }
done

if [ "$wheel_runtime" = 1 ]; then
  runtime=$pkg/lib/libtvm_ffi.so
elif [ -z "$runtime" ]; then
  build=${XFFI_BUILD_ROOT:-$root/build}/dropin
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXFFI_BUILD_TESTS=OFF \
    -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_EXAMPLES=OFF -DXFFI_TVM_FFI_DROPIN=ON >/dev/null
  cmake --build "$build" -j "${XFFI_JOBS:-2}" --target xffi_tvm_ffi >/dev/null
  runtime=$build/libtvm_ffi.so
fi
[ -f "$runtime" ] || { echo "no runtime library at $runtime" >&2; exit 1; }
soname=$(readelf -d "$runtime" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libtvm_ffi.so ] || { echo "$runtime has SONAME '$soname', not libtvm_ffi.so" >&2; exit 1; }

if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  [ -f "$out/.tvm-ffi-on-xffi" ] || { echo "$out is not empty and holds no earlier overlay: refusing to replace it" >&2; exit 1; }
  rm -rf "$out"
fi
mkdir -p "$out/tvm_ffi/lib"
out=$(cd "$out" && pwd)
for entry in "$pkg"/* "$pkg"/.[!.]*; do
  name=$(basename "$entry")
  case $name in lib | __pycache__ | '.[!.]*') continue ;; esac
  ln -s "$entry" "$out/tvm_ffi/$name"
done
cp "$runtime" "$out/tvm_ffi/lib/libtvm_ffi.so"
ln -s "$pkg/lib/libtvm_ffi_testing.so" "$out/tvm_ffi/lib/libtvm_ffi_testing.so"
info=$out/$(basename "$dist")
mkdir -p "$info"
cp "$dist/METADATA" "$info/METADATA"
printf 'tvm_ffi/lib/libtvm_ffi.so,,\ntvm_ffi/lib/libtvm_ffi_testing.so,,\n' >"$info/RECORD"
printf 'runtime %s\npackage %s %s\n' "$runtime" "$pkg" "$version" >"$out/.tvm-ffi-on-xffi"
echo "overlay of tvm_ffi $version on $runtime in $out"
