"""Compares two generated stub files (tvm_ffi.stub's output for the same
library): prints "stubs equal", or the first differing lines and exits 1.

  same_stubs.py REFERENCE OTHER"""
import difflib
import sys

reference, other = (open(path).read().splitlines() for path in sys.argv[1:3])
if reference == other:
    print("stubs equal")
else:
    print("\n".join(list(difflib.unified_diff(reference, other, sys.argv[1], sys.argv[2], lineterm=""))[:40]))
    sys.exit(1)
