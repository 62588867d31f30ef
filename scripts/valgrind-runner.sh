#!/usr/bin/env bash
# A cargo runner (target.<triple>.runner): cargo starts each test binary as
#   scripts/valgrind-runner.sh BINARY ARGS...
# and this runs it under valgrind. The binary fails on any invalid access or
# use of uninitialised memory and on any definite or indirect leak ("possibly
# lost" blocks are neither counted nor printed). No suppressions are needed
# today; one, if ever, belongs in a file passed here with --suppressions, each
# entry with a comment saying why.
#
# scripts/cargo-valgrind.sh sets it for one cargo command; the mixed examples
# (scripts/test-mixed.sh) also run their programs through it.
set -euo pipefail
exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --show-possibly-lost=no -q "$@"
