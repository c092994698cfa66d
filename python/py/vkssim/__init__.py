"""vkssim: libvmaf's VMAF (its integer vif, adm and motion and its models),
float_ssim, psnr and float_ms_ssim, bit for bit, on Vulkan GPUs or on the
exact CPU twin.

Files (everything the ``vkssim`` command line reads: Y4M, raw YUV with
``width``/``height``/``pix_fmt``/``bitdepth``, encoded files) or numpy
arrays in; per-frame and pooled scores out, keyed by libvmaf's feature
names, and the command line's XML, JSON and CSV files::

    import vkssim
    v = vkssim.score("ref.y4m", "dist.y4m")   # VMAF (vmaf_v0.6.1), as vmaf -r R -d D
    v.pooled["vmaf"]["mean"]
    r = vkssim.score("ref.y4m", "dist.y4m", features=("float_ssim", "psnr"), model=None)  # alone
    r.pooled["float_ssim"]["mean"]
    r.scores["float_ssim"]              # a float64 numpy array, one value a frame
    open("scores.json", "w").write(r.to_json())

Frames made in Python go through a streaming :class:`Scorer`. Options are
typed values; a refused one raises :class:`OptionError` naming its keyword.
Errors are subclasses of :class:`Error` and of the builtin of their kind:
:class:`InputError` is an ``OSError``; :class:`OptionError`,
:class:`GeometryError`, :class:`LengthError` and :class:`UnsupportedError`
are ``ValueError``; :class:`DeviceError` is a ``RuntimeError``. Ctrl-C
during a run raises
:class:`Interrupted` (a ``KeyboardInterrupt``) whose ``result`` holds the
frames scored before it.
"""

from ._native import (
    VERSION,
    DeviceError,
    Error,
    GeometryError,
    InputError,
    Interrupted,
    LengthError,
    OptionError,
    UnsupportedError,
)
from ._result import Result
from ._score import score
from ._scorer import Scorer

__all__ = [
    "score",
    "Scorer",
    "Result",
    "Error",
    "InputError",
    "GeometryError",
    "LengthError",
    "OptionError",
    "UnsupportedError",
    "DeviceError",
    "Interrupted",
    "VERSION",
]
