# The type stub of mykernels, generated from its plugin's reflection by
# examples/rust-wheel/stubgen.py: do not edit; run it again after changing the plugin.
from typing import Any

import tvm_ffi

__all__ = ['Gain', 'parse_threads', 'scale', 'unity_gain']

def parse_threads(_0: str, /) -> int:
    """The thread count written in `text` (spaces around it allowed); a
    RuntimeError for text that is not an integer, a ValueError below 1.
    """

def scale(_0: float, _1: float, /) -> float:
    """`x * k`."""

def unity_gain(_0: int, /) -> Gain:
    """A gain stage of `channels` channels with factor 1.0."""


class Gain(tvm_ffi.Object):
    """A gain stage: multiplies every sample by ``factor`` (``mykernels.Gain``, defined in Rust)."""
    # mykernels.Gain: its fields and methods as the runtime's reflection lists them
    @property
    def channels(self) -> int:
        """The number of channels (read-only)."""
    factor: float
    """The factor applied to each sample; any language may change it."""
    def __init__(self, _0: int, _1: float, /) -> None:
        """Makes a gain stage (Python's `Gain(channels, factor)`); a ValueError
        for fewer than one channel.
        """
    def apply(self, _0: float, /) -> float:
        """`x * factor`."""
    def describe(self) -> str:
        """A one-line summary, such as `2 channels x 1.5`."""
