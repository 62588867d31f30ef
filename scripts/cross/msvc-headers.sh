#!/usr/bin/env bash
# The MSVC story, for the public headers: every header under include/xffi is
# compiled alone with clang targeting x86_64-pc-windows-msvc (MSVC's ABI and
# its Microsoft extensions), as C11 and as C++14, as a DLL user and with
# XFFI_STATIC; then again with __clang__ undefined, which is how MSVC itself
# takes the headers' compiler checks, and the preprocessed text of the xffi
# headers in that mode must hold no GNU extension (__attribute__, __builtin_*,
# __atomic_*, __typeof__, __extension__, __int128, inline asm).
# MSVC's C runtime headers are not installable here: mingw-w64's stand in for
# them (only <string.h> is used beyond the compiler's own headers).
# Prints one summary line (there is no tour to run):
#   cross msvc-headers: builds yes|no, tests N passed M failed, tour identical n/a
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build_root=$(realpath -m "${XFFI_BUILD_ROOT:-$root/build}")
work=$build_root/cross/msvc-headers
builds=no passed=0 failed=0
summary() { echo "cross msvc-headers: builds $builds, tests $passed passed $failed failed, tour identical n/a"; }
trap summary EXIT

source scripts/cross/_install.sh
cross_install || exit 1
crt=/usr/x86_64-w64-mingw32/include
[ -f "$crt/string.h" ] || { echo "no Windows C runtime headers at $crt"; exit 1; }
builds=yes
mkdir -p "$work"

msvc() { clang --target=x86_64-pc-windows-msvc -Wall -Wextra -pedantic -Werror -I"$root/include" -idirafter "$crt" "$@"; }
check() { # description, command...
  local what=$1
  shift
  if "$@" >"$work/check.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $what"
    head -20 "$work/check.log"
  fi
}
gnu_free() { # the preprocessed xffi part of probe file $1 (MSVC's view) has no GNU extension
  msvc -U__clang__ -E "${@:2}" "$1" |
    awk '/^# [0-9]+ "/ { file = $3; next }
         file ~ /include\/xffi\// && /__attribute__|__builtin_|__atomic_|__typeof__|__extension__|__int128|__asm__|(^|[^A-Za-z0-9_])asm[ (]/ {
           print file ": " $0; bad = 1 }
         END { exit bad }'
}

for h in $(cd include && find xffi -name '*.h' | sort); do
  probe=$work/$(echo "$h" | tr '/.' '__')
  printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$probe.c"
  cp "$probe.c" "$probe.cpp"
  for flavour in "" -DXFFI_STATIC; do
    check "$h as C11 $flavour" msvc -std=c11 -fsyntax-only $flavour "$probe.c"
    check "$h as C++14 $flavour" msvc -x c++ -std=c++14 -fsyntax-only $flavour "$probe.cpp"
    check "$h as C11, MSVC's branches $flavour" msvc -U__clang__ -std=c11 -fsyntax-only $flavour "$probe.c"
    check "$h as C++14, MSVC's branches $flavour" msvc -U__clang__ -x c++ -std=c++14 -fsyntax-only $flavour "$probe.cpp"
  done
  check "$h holds no GNU extension in MSVC's view (C)" gnu_free "$probe.c" -std=c11
  check "$h holds no GNU extension in MSVC's view (C++)" gnu_free "$probe.cpp" -x c++ -std=c++14
done
echo "msvc-headers: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
