"""Keyword options and inputs, checked before the native side takes them.

The options go to the native side as they are, keyword to value: it reads
each one as a typed value (type, range and choices checked there, each
error an :class:`OptionError` naming the keyword, as
``decode_threads=65: out of range (0 to 64)``) and resolves them with the
command line's own checks, whose messages name keywords, never flags."""

from __future__ import annotations

import numbers
import os
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ._native import InputError, OptionError

#: Engine options, shared by score() and Scorer.
ENGINE = ("backend", "device", "threads", "upload", "frames_in_flight", "read_threads", "precision")

#: Frame selection (files and arrays).
SELECTION = ("frame_skip_ref", "frame_skip_dist", "frame_cnt", "subsample", "allow_length_mismatch")

#: What only files have: raw geometry and decoding.
FILE = (
    "width",
    "height",
    "pix_fmt",
    "bitdepth",
    "stream",
    "reference_stream",
    "decode_errors",
    "resize_distorted",
    "decode",
    "decode_threads",
)


def once(value: Any) -> Any:
    """``value``, an iterator read into a list (a ladder reads the options
    once per input); anything else as it is (the native side checks it)."""
    if isinstance(value, (str, bytes, np.ndarray)) or not hasattr(value, "__next__"):
        return value
    return list(value)


def pick(options: dict, keys: Sequence[str]) -> dict:
    """The options of ``keys`` in ``options``."""
    return {k: options[k] for k in keys if k in options}


def is_path(x: Any) -> bool:
    """Whether ``x`` names a file (str, bytes or os.PathLike)."""
    return isinstance(x, (str, bytes, os.PathLike))


def path_text(x: Any, role: str) -> str:
    """The path ``x`` (the ``role`` input's) as text; a NUL byte, which no
    file name holds, is refused with the path shown escaped (``\\x00``)."""
    text = os.fsdecode(os.fspath(x))
    if "\0" in text:
        raise InputError(f"the {role} path {text!r} contains a NUL byte, which no file name can")
    return text


def integer(value: Any, name: str) -> int:
    """``value`` (the argument ``name``) as an int that fits 32 unsigned
    bits; a bool, a float, a string or a value out of range is refused,
    naming the argument."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise OptionError(f"{name}={value!r}: expected an integer, got {type(value).__name__}")
    if not 0 <= int(value) <= _U32_MAX:
        raise OptionError(f"{name}={value!r}: out of range (0 to {_U32_MAX})")
    return int(value)


_U32_MAX = 2**32 - 1


_SAMPLE_TYPES = (np.dtype(np.uint8), np.dtype(np.uint16))
_PLANE_NAMES = ("luma", "Cb", "Cr")


def plane(a: Any, what: str, ndim: int) -> np.ndarray:
    """``a`` as a native-endian uint8 or uint16 array of ``ndim``
    dimensions (a copy only when it is byte-swapped); a list is refused, as
    is any other dtype (no silent conversion of values). Its strides are
    the native side's: it reads rows through their row stride in place,
    and copies only what it cannot read so (samples of a row not
    adjacent)."""
    if not isinstance(a, np.ndarray):
        raise InputError(f"{what}: expected a numpy array, got {type(a).__name__}")
    if a.dtype.newbyteorder("=") not in _SAMPLE_TYPES:
        raise InputError(
            f"{what}: samples must be uint8 (8-bit) or uint16 (10, 12, 16-bit), got {a.dtype}; "
            "convert with .astype() if the values are in range"
        )
    if a.ndim != ndim:
        shape = "(frames, height, width)" if ndim == 3 else "(height, width)"
        raise InputError(f"{what}: expected {ndim} dimensions {shape}, got shape {a.shape}")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def planes(x: Any, role: str, ndim: int) -> Tuple[np.ndarray, ...]:
    """The planes of one input: an array (luma) or a tuple (luma, Cb, Cr),
    each checked by :func:`plane`."""
    if isinstance(x, tuple):
        if len(x) not in (1, 3):
            raise InputError(f"the {role}: expected luma or (luma, Cb, Cr), got a tuple of {len(x)}")
        items: Sequence[Any] = x
    else:
        items = (x,)
    out = tuple(plane(a, f"the {role}'s {_PLANE_NAMES[k]} plane", ndim) for k, a in enumerate(items))
    if len({a.dtype for a in out}) > 1:
        raise InputError(f"the {role}: its planes differ in dtype ({', '.join(str(a.dtype) for a in out)})")
    return out


def frames_planes(x: Any, role: str) -> Tuple[np.ndarray, ...]:
    """Planes of a whole input: ``(frames, height, width)`` each (a 2-d
    array is one frame)."""
    items = x if isinstance(x, tuple) else (x,)
    items = tuple(a[np.newaxis] if isinstance(a, np.ndarray) and a.ndim == 2 else a for a in items)
    return planes(items, role, 3)


def optional_int(x: Optional[int]) -> Optional[int]:
    return None if x is None else int(x)
