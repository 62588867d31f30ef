#!/usr/bin/env bash
# Cross builds and their test suites, in one step: runs every
# scripts/cross/<target>.sh (not cmocka.sh, the helper that builds cmocka for
# a target, nor the _*.sh files the targets share). Each installs what it
# needs, builds xffi, runs the cmocka suite and the tour, and prints
#   cross <target>: builds yes|no, tests N passed M failed, tour identical yes|no
# This script repeats those lines at the end and fails if any target failed.
# Usage: scripts/test-cross.sh [target...] (default: every target).
set -uo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for script in scripts/cross/*.sh; do
    name=$(basename "$script" .sh)
    case $name in cmocka | _*) continue ;; esac
    targets+=("$name")
  done
fi
summary=()
failed=()
for target in "${targets[@]}"; do
  echo "--- cross target $target"
  start=$SECONDS
  log=$(mktemp)
  bash "scripts/cross/$target.sh" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summary+=("$(grep -E '^cross [^ ]+: ' "$log")" "  ($target: $((SECONDS - start)) s)")
  rm -f "$log"
  [ $status -eq 0 ] || failed+=("$target")
done
echo
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "cross targets failed: ${failed[*]}"
  exit 1
fi
