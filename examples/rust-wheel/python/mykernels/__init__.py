"""mykernels: gain kernels written in Rust, a tvm-ffi plugin built with xffi.

Importing the package loads the plugin (the library next to this file) into
the process's tvm-ffi runtime, which registers the type ``mykernels.Gain``;
the class below binds to it, and the plugin's functions are module functions.
The type stubs (``__init__.pyi``) are generated from the plugin's reflection
by ``stubgen.py`` in the example's folder.
"""

import sys
from pathlib import Path

import tvm_ffi

_LIBRARY_NAME = {"win32": "mykernels.dll", "darwin": "libmykernels.dylib"}.get(sys.platform, "libmykernels.so")
_LIB = tvm_ffi.load_module(str(Path(__file__).with_name(_LIBRARY_NAME)))

scale = _LIB["scale"]
parse_threads = _LIB["parse_threads"]
unity_gain = _LIB["unity_gain"]


@tvm_ffi.register_object("mykernels.Gain")
class Gain(tvm_ffi.Object):
    """A gain stage: multiplies every sample by ``factor`` (``mykernels.Gain``, defined in Rust)."""


__all__ = ["Gain", "parse_threads", "scale", "unity_gain"]
