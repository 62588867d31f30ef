#!/usr/bin/env bash
# Windows x86-64: builds libxffi (DLL and static library), the cmocka suite and
# the tour with Debian's mingw-w64 cross compiler and runs them under wine.
# The tests link the static library (XFFI_STATIC); test_module loads plugin
# DLLs as Modules through the DLL. Prints one summary line:
#   cross mingw: builds yes|no, tests N passed M failed, tour identical yes|no
# Build trees: XFFI_BUILD_ROOT (default build/)/cross/. Idempotent installs.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/cross/_install.sh
cross_target_begin mingw
cross_install || exit 1
mkdir -p "$work"
toolchain=$root/cmake/toolchains/mingw.cmake
bash scripts/cross/cmocka.sh "$toolchain" "$prefix" || { echo "building cmocka for mingw failed"; exit 1; }

# One 64-bit wine prefix of our own; the runtime DLLs the test programs need
# (cmocka, libxffi for test_module, winpthreads) are found through WINEPATH.
export WINEDEBUG=-all WINEARCH=win64 WINEPREFIX=$work/wineprefix
gcc_dlls=$(dirname "$(x86_64-w64-mingw32-gcc-posix -print-libgcc-file-name)")
export WINEPATH="$prefix/bin;$work/build;$gcc_dlls;/usr/x86_64-w64-mingw32/lib"
[ -d "$WINEPREFIX" ] || { /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1 || true; }

cross_build_suite "$toolchain" || exit 1

# The DLL a vendor ships must need nothing beyond the system's DLLs.
imports=$(x86_64-w64-mingw32-objdump -p "$work/build/libxffi.dll" | sed -n 's/^\s*DLL Name: //p' | tr '\n' ' ')
echo "libxffi.dll imports: $imports"
for dll in $imports; do
  case "${dll,,}" in
    kernel32.dll | msvcrt.dll | ucrtbase.dll | api-ms-win-*) ;;
    *) echo "libxffi.dll needs $dll beside it"; builds=no ;;
  esac
done

cross_ctest
[ $status -ne 0 ] && sed -n '/Output from these tests/,$p;/FAILED/,+20p' "$work/ctest.log" | head -80

# The tour's output must match the Linux x86-64 build's, byte for byte
# (line ends aside: the Windows C runtime writes CRLF to a pipe).
reference=$(cross_reference_tour) && cp "$reference" "$work/tour-native.txt"
/usr/lib/wine/wine64 "$work/build/examples/tour.exe" 2>"$work/tour.err" | tr -d '\r' >"$work/tour.txt"
if [ -s "$work/tour-native.txt" ] && cmp -s "$work/tour-native.txt" "$work/tour.txt"; then
  tour=yes
else
  diff "$work/tour-native.txt" "$work/tour.txt" | head -20
fi

[ "$builds" = yes ] && [ $status -eq 0 ] && [ "$failed" -eq 0 ] && [ "$tour" = yes ]
