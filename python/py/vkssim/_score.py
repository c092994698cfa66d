"""vkssim.score(): files or numpy arrays, one distorted input or a ladder."""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Union

from . import _native, _options, _progress
from ._native import OptionError
from ._result import Result

#: The model ``score`` runs unless told otherwise, as ``vmaf`` and
#: ``vkssim score`` do.
DEFAULT_MODEL = "version=vmaf_v0.6.1"


def score(
    reference: Any,
    distorted: Any,
    features: Optional[Union[str, Iterable[str]]] = None,
    *,
    model: Optional[Union[str, Iterable[str]]] = DEFAULT_MODEL,
    motion_version: Optional[str] = None,
    width: Optional[int] = None,
    height: Optional[int] = None,
    pix_fmt: Optional[str] = None,
    bitdepth: Optional[int] = None,
    backend: str = "auto",
    device: Optional[Union[int, str, Iterable[int]]] = None,
    threads: Optional[int] = None,
    frame_skip_ref: Optional[int] = None,
    frame_skip_dist: Optional[int] = None,
    frame_cnt: Optional[int] = None,
    subsample: Optional[int] = None,
    allow_length_mismatch: bool = False,
    precision: Optional[Union[int, str]] = None,
    stream: Optional[Union[int, Sequence[int]]] = None,
    reference_stream: Optional[int] = None,
    decode_errors: Optional[str] = None,
    resize_distorted: Optional[str] = None,
    decode: Optional[str] = None,
    decode_threads: Optional[int] = None,
    upload: Optional[str] = None,
    frames_in_flight: Optional[int] = None,
    read_threads: Optional[int] = None,
    progress: Any = None,
) -> Union[Result, List[Result]]:
    """Scores ``distorted`` against ``reference``.

    Inputs are paths (Y4M, raw YUV with ``width``, ``height``, ``pix_fmt``
    and ``bitdepth``, or encoded files, as ``vkssim score`` reads them) or
    numpy arrays: uint8 (8-bit) or uint16 (with ``bitdepth`` 10, 12 or 16)
    luma of shape ``(frames, height, width)``, or a tuple ``(luma, Cb, Cr)``
    when a feature reads chroma (psnr by default). A list of distorted
    inputs is a ladder: one :class:`Result` per input, in order.

    By default it scores VMAF with libvmaf's default model, as ``vmaf -r R
    -d D`` and ``vkssim score -r R -d D`` do: ``result.scores["vmaf"]``.
    ``features``: vmaf's feature specs (None: none), computed beside the model
    (``"float_ssim"``, ``"psnr=enable_chroma=false"``,
    ``"float_ms_ssim=enable_lcs=true"``, and VMAF's extractors ``"vif"``,
    ``"adm"``, ``"motion"``), as ``--feature``. ``model``: a VMAF model in
    vmaf's ``-m/--model`` syntax (``"version=vmaf_v0.6.1"``, the default;
    ``"path=model.json:name=mine"``) or a list of them; its extractors and
    its scores (``vmaf``) come first, as ``vmaf -m`` writes them (VMAF runs
    on the CPU twin for now: with ``backend="vulkan"`` or a ``device`` it is
    an error). ``model=None`` runs no model, as ``-n``: only ``features``
    (``vkssim.score(r, d, "float_ssim", model=None)`` is the float_ssim-only
    run, which Vulkan scores); no model and no feature is an
    :class:`vkssim.OptionError`. ``motion_version``:
    ``"2.3.1"`` (the default) or ``"3.2.0"``, whose motion (and so the
    models' scores) and output names are libvmaf 3.2.0's, as the command
    line's ``--motion-version``.
    The other options are typed values with the meaning of the command
    line's flags of the same names
    (``backend`` is ``"auto"``, ``"vulkan"`` or ``"cpu"``; ``device`` an
    index, a list of them or ``"all"``; ``decode`` is ``"auto"``, ``"cpu"``
    or ``"gpu"``, and ``decode_threads`` each encoded input's decoder
    threads, 0 for libavcodec's count). ``stream`` is the distorted input's
    video stream (from 0; in a ladder one for every input, or a list with
    one per input), ``reference_stream`` the reference's; a Y4M or raw
    file has only stream 0. ``progress``: a callable
    ``progress(done, total)``, or True for a tqdm bar.

    Files that declare different colour ranges (a Y4M ``XCOLORRANGE``, an
    encoded stream's range) are scored as stored, as libvmaf does, with the
    command line's note on standard error naming both.

    An option of the wrong type, out of range or not one of its values
    raises :class:`vkssim.OptionError` (a ``ValueError``) naming the
    keyword: ``decode_threads=65: out of range (0 to 64)``.

    Raises a subclass of :class:`vkssim.Error` (with the frames scored
    before a mid-run error in its ``result``), and
    :class:`vkssim.Interrupted` on Ctrl-C. In a ladder every input is
    scored; when some fail, the first failure is raised with ``results``:
    a Result or the exception, per input.
    """
    options = dict(
        features=_options.once(features),
        # None: no model (an empty list; the native side's unset is the
        # default model).
        model=[] if model is None else _options.once(model),
        motion_version=motion_version,
        backend=backend,
        device=_options.once(device),
        threads=threads,
        upload=upload,
        frames_in_flight=frames_in_flight,
        read_threads=read_threads,
        precision=precision,
        frame_skip_ref=frame_skip_ref,
        frame_skip_dist=frame_skip_dist,
        frame_cnt=frame_cnt,
        subsample=subsample,
        allow_length_mismatch=allow_length_mismatch,
        width=width,
        height=height,
        pix_fmt=pix_fmt,
        bitdepth=bitdepth,
        stream=stream,
        reference_stream=reference_stream,
        decode_errors=decode_errors,
        resize_distorted=resize_distorted,
        decode=decode,
        decode_threads=decode_threads,
    )
    if isinstance(distorted, list):
        return _ladder(reference, distorted, options, progress)
    return _one(reference, distorted, dict(options, stream=_streams(stream, 1)[0]), progress)


def _streams(stream: Any, inputs: int) -> List[Optional[int]]:
    """Each distorted input's stream: ``stream`` for all, or one of a list
    per input (a list of another length is refused)."""
    if not isinstance(stream, (list, tuple)):
        return [stream] * inputs
    if len(stream) != inputs:
        raise OptionError(
            f"stream: {len(stream)} streams for {inputs} distorted input{'s' if inputs != 1 else ''}; "
            "give one stream for every input, or a list with one per input"
        )
    return list(stream)


def _ladder(reference: Any, distorted: list, options: dict, progress: Any) -> List[Result]:
    if not distorted:
        raise OptionError("distorted: an empty list (a ladder needs at least one input)")
    streams = _streams(options.get("stream"), len(distorted))
    results: List[Any] = []
    for d, stream in zip(distorted, streams):
        try:
            results.append(_one(reference, d, dict(options, stream=stream), progress))
        except _native.Error as e:
            results.append(e)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        first = failed[0]
        first.results = results
        raise first
    return results


def _one(reference: Any, distorted: Any, options: dict, progress: Any) -> Result:
    callback, bar = _progress.make(progress, "vkssim")
    try:
        if _options.is_path(reference) and _options.is_path(distorted):
            report = _native.score_files(
                _options.path_text(reference, "reference"),
                _options.path_text(distorted, "distorted"),
                options,
                callback,
            )
        elif _options.is_path(reference) or _options.is_path(distorted):
            raise OptionError("reference and distorted: both paths or both numpy arrays")
        else:
            # Every file option but bitdepth (arrays of uint16 need it).
            given = [k for k in _options.FILE if k != "bitdepth" and options.get(k) is not None]
            if given:
                raise OptionError(f"{', '.join(given)}: for files only (arrays have their shape and planes)")
            ref = _options.frames_planes(reference, "reference")
            dist = _options.frames_planes(distorted, "distorted")
            common = _options.pick(options, ("features", "model", "motion_version", *_options.ENGINE, *_options.SELECTION))
            report = _native.score_arrays(list(ref), list(dist), common, options.get("bitdepth"), callback)
        return Result(report)
    except BaseException as e:
        partial = getattr(e, "result", None)
        if partial is not None and not isinstance(partial, Result):
            e.result = Result(partial)
        elif isinstance(e, _native.Error) and partial is None:
            e.result = None  # it stopped before any frame
        raise
    finally:
        if bar is not None:
            bar.close()
