"""Keyword options into the command line's flags (the native side parses
them with the command line's own parser, so values are checked, and
refused with its messages, exactly as ``vkssim score`` checks them)."""

from __future__ import annotations

import numbers
import os
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._native import InputError, OptionError

#: Engine options, shared by score() and Scorer: keyword -> flag.
ENGINE_FLAGS = {
    "backend": "--backend",
    "device": "--device",
    "threads": "--threads",
    "upload": "--upload",
    "frames_in_flight": "--frames-in-flight",
    "read_threads": "--read-threads",
    "precision": "--precision",
}

#: Frame selection (files and arrays).
SELECTION_FLAGS = {
    "frame_skip_ref": "--frame_skip_ref",
    "frame_skip_dist": "--frame_skip_dist",
    "frame_cnt": "--frame_cnt",
    "subsample": "--subsample",
}

#: What only files have: raw geometry and decoding.
FILE_FLAGS = {
    "width": "--width",
    "height": "--height",
    "pix_fmt": "--pixel_format",
    "bitdepth": "--bitdepth",
    "stream": "--stream",
    "reference_stream": "--reference-stream",
    "decode_errors": "--decode-errors",
    "resize_distorted": "--resize-distorted",
    "decode": "--decode",
    "decode_threads": "--decode-threads",
}


def flags(options: dict, table: dict) -> List[str]:
    """``--flag=value`` for each option of ``table`` that is set (None is
    unset). Every one takes a value: True or False is refused (as ``0``,
    ``False`` would be taken for a number, or for unset)."""
    out = []
    for key, flag in table.items():
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, (bool, np.bool_)):
            raise OptionError(f"{key}={value!r}: this option takes a value, not True or False")
        if isinstance(value, (list, tuple)):
            out.append(f"{flag}={','.join(str(v) for v in value)}")
        else:
            out.append(f"{flag}={value}")
    return out


def feature_flags(features: Union[str, Iterable[str]]) -> List[str]:
    """``--feature=SPEC`` per feature (vmaf's ``name=opt=val:opt=val``)."""
    if isinstance(features, str):
        features = (features,)
    features = list(features)
    if not features:
        raise OptionError("features: name at least one (float_ssim, psnr, float_ms_ssim)")
    for f in features:
        if not isinstance(f, str):
            raise OptionError(f"features: {f!r} is not a string such as 'psnr=enable_chroma=false'")
    return [f"--feature={f}" for f in features]


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
    """``a`` as a C-contiguous, native-endian uint8 or uint16 array of
    ``ndim`` dimensions (a copy only when it is not one already); a list is
    refused, as is any other dtype (no silent conversion of values)."""
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
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
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
