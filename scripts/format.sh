#!/usr/bin/env bash
# Formats the code: the C code (every tracked .c and .h file: library,
# headers, tests, fuzz targets, benchmarks, examples) with clang-format and
# .clang-format, the Rust crates with cargo fmt (rustfmt.toml).
#   scripts/format.sh          rewrite what is not formatted
#   scripts/format.sh --check  change nothing: show what would change, and
#                              exit 1 if anything would
# CLANG_FORMAT names the clang-format binary (default clang-format). The style
# was fitted with clang-format 14 (Debian 12); another major version may
# format some lines differently, so the check says which version it ran.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=apply
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || { echo "$clang_format not found (scripts/install-deps.sh installs it)"; exit 1; }

# Files not written by hand, kept as their generator writes them: the header
# cbindgen makes from examples/mixed/xffi-capi (the mixed step checks it is
# exactly cbindgen's output).
vendored=(bindings/xffi_capi.h)
mapfile -t c_files < <(git ls-files -- '*.c' '*.h' | grep -v -x -F -f <(printf '%s\n' "${vendored[@]}" ""))

status=0
if [ "$mode" = apply ]; then
  "$clang_format" -i --style=file "${c_files[@]}" || status=1
  cargo fmt --all || status=1
  exit $status
fi

echo "$("$clang_format" --version)"
unformatted=0 changed_lines=0
for f in "${c_files[@]}"; do
  if ! out=$(diff -u --label "$f" --label "$f (clang-format)" "$f" <("$clang_format" --style=file "$f")); then
    printf '%s\n' "$out"
    unformatted=$((unformatted + 1))
    # Lines of the file that would change: the diff's "-" lines but its header.
    changed_lines=$((changed_lines + $(printf '%s\n' "$out" | grep -c '^-') - 1))
  fi
done
if [ "$unformatted" -gt 0 ]; then
  echo "clang-format: $unformatted of ${#c_files[@]} C files not formatted ($changed_lines lines would change; diffs above)."
  echo "Run scripts/format.sh to format them."
  status=1
else
  echo "clang-format: all ${#c_files[@]} C files formatted"
fi
if cargo fmt --all --check; then
  echo "cargo fmt: all Rust crates formatted"
else
  echo "cargo fmt: not formatted (diff above); run scripts/format.sh"
  status=1
fi
exit $status
