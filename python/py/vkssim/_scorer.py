"""vkssim.Scorer: frames made in Python, scored as they come."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from . import _native, _options
from ._native import Interrupted
from ._result import Result


class Scorer:
    """A streaming scorer for frames of one geometry, made in Python.

    ::

        with vkssim.Scorer(1920, 1080, features=("float_ssim", "psnr"), chroma="420") as s:
            for ref, dist in pairs:          # (y, cb, cr) tuples of 2-d arrays
                s.submit(ref, dist)
                for frame in s.ready():      # results back so far, in order
                    print(frame["frameNum"], frame["float_ssim"])
            for frame in s:                  # the rest, waiting for them
                ...
        print(s.result().pooled)

    ``submit`` copies the planes (uint8, or uint16 for ``bitdepth`` 10, 12,
    16; 2-d ``(height, width)``; luma alone, or a tuple ``(luma, Cb, Cr)``
    when ``chroma`` is ``"420"``, ``"422"`` or ``"444"``) into the engine
    and returns the pair's frame number; it blocks, with the GIL released,
    while the engine's queue is full. Results come back in submission
    order, as dicts keyed by ``frameNum`` (the frame number the library
    gives each result) and libvmaf's output names.
    With a ``model`` (its scores, e.g. ``vmaf``) or the ``motion`` feature
    (``integer_motion2``), a frame's values need the next frame's: its
    result comes back once the next pair's is in, and the last one when
    the stream ends. Waiting (iterating, :meth:`flush`, :meth:`result`,
    :meth:`close`) with only such a result left ends the stream; a pair
    submitted after that starts a new one (its first frame has no previous
    frame, as a new run).

    A Scorer is for one thread at a time: a call while another thread's is
    under way raises :class:`vkssim.Error` (give each thread its own, or
    hand the pairs to one thread). Ctrl-C skips no result: see
    :meth:`__iter__`.

    Unlike :func:`vkssim.score` it runs no VMAF model unless ``model`` names
    one: it scores ``features`` (float_ssim by default).
    Options as :func:`vkssim.score`'s: ``features``, ``model``,
    ``motion_version``, ``backend``, ``device``, ``threads``, ``precision``, ``upload``,
    ``frames_in_flight``.
    """

    def __init__(
        self,
        width: int,
        height: int,
        bitdepth: int = 8,
        features: Union[str, Iterable[str]] = ("float_ssim",),
        *,
        chroma: Optional[str] = None,
        model: Optional[Union[str, Iterable[str]]] = None,
        motion_version: Optional[str] = None,
        backend: str = "auto",
        device: Optional[Union[int, str, Iterable[int]]] = None,
        threads: Optional[int] = None,
        precision: Optional[Union[int, str]] = None,
        upload: Optional[str] = None,
        frames_in_flight: Optional[int] = None,
    ) -> None:
        options = dict(
            features=features,
            # None: no model (an empty list; the native side's unset is the
            # default model).
            model=[] if model is None else _options.once(model),
            motion_version=motion_version,
            backend=backend,
            device=device,
            threads=threads,
            precision=precision,
            upload=upload,
            frames_in_flight=frames_in_flight,
        )
        self._chroma = chroma is not None
        self._native = _native.Scorer(
            _options.integer(width, "width"),
            _options.integer(height, "height"),
            _options.integer(bitdepth, "bitdepth"),
            options,
            chroma,
        )

    def submit(self, reference: Any, distorted: Any) -> int:
        """Queues one pair; returns its frame number (0, 1, ...).

        A plane that is not one the scorer takes raises :class:`vkssim.InputError`
        or :class:`vkssim.GeometryError`, and so does a sample above the bit
        depth (naming the plane, the sample and its value): the pair is not
        queued and takes no frame number, and the scorer goes on (the next
        frame's motion compares against the last pair queued)."""
        ref = _options.planes(reference, "reference", 2)
        dist = _options.planes(distorted, "distorted", 2)
        one = (lambda p: p if len(p) > 1 else p[0])
        return self._native.submit(one(ref), one(dist))

    def ready(self) -> List[Dict[str, float]]:
        """The results back so far and not yet handed out, in order (no
        waiting). Ctrl-C raises :class:`vkssim.Interrupted` and hands out
        nothing: the next call gives these results."""
        try:
            return self._native.take_ready()
        except KeyboardInterrupt:
            # Landed in the call or as it returned: the results are put
            # back first in line.
            self._native.restore()
            raise self._interrupted() from None

    def __iter__(self) -> Iterator[Dict[str, float]]:
        """The results not yet handed out, in order, waiting for the pairs
        in flight; ends when every pair submitted has been handed out.

        Ctrl-C while it waits raises :class:`vkssim.Interrupted` (its
        ``result`` holds every frame scored so far, in order) and skips
        nothing: the frame finished as it came is not handed out, and
        iterating again goes on from it."""
        while True:
            try:
                frame = self._native.next(True)
            except KeyboardInterrupt:
                # Landed in the wait (the frame stays first in line) or as
                # next returned (it is put back).
                self._native.restore()
                raise self._interrupted() from None
            if frame is None:
                return
            yield frame

    def flush(self) -> None:
        """Waits for every pair in flight (Ctrl-C raises
        :class:`vkssim.Interrupted` with the frames scored so far)."""
        try:
            self._native.flush()
        except KeyboardInterrupt:
            raise self._interrupted() from None

    def result(self) -> Result:
        """Every frame scored, after waiting for the pairs in flight: the
        same :class:`Result` as :func:`vkssim.score` gives (its files are
        the command line's)."""
        self.flush()
        return Result(self._native.report())

    @property
    def in_flight(self) -> int:
        """Pairs submitted whose results have not come back."""
        return self._native.in_flight

    @property
    def submitted(self) -> int:
        """Pairs submitted."""
        return self._native.submitted

    @property
    def backend(self) -> str:
        """What scores: ``cpu (N threads)`` or the Vulkan device."""
        return self._native.backend

    def close(self) -> None:
        """Waits for the pairs in flight and releases the engine."""
        self._native.close()

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        if kind is None:
            self.close()
        else:
            try:
                self.close()
            except Exception:
                pass

    def _interrupted(self) -> Interrupted:
        result = Result(self._native.report())
        e = Interrupted(f"interrupted: {len(result)} frames were scored before it (in this exception's result)")
        e.result = result
        return e
