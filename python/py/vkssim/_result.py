"""Result: the scores of one run, and the command line's files of them."""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np


class Result:
    """The scores of one run (one distorted input).

    ``frames``: one dict per frame, ``{"frameNum": n, "float_ssim": ...}``,
    keyed by libvmaf's output names; ``scores``: the same values as numpy
    columns, ``{output: float64 array}`` in frame order; ``pooled``: ``{output: {"min", "max",
    "mean", "harmonic_mean"}}`` as libvmaf pools them; ``aggregate``: the
    values reported once per run (``apsnr_y``, ...). ``to_json()``,
    ``to_xml()`` and ``to_csv()`` give the text of the file that ``vkssim
    score`` writes with ``--json``, ``--xml``, ``--csv`` for the same run
    (their ``fps`` figure is this run's).
    """

    def __init__(self, report: Any) -> None:
        self._report = report
        self._frames: List[Dict[str, float]] | None = None
        self._scores: Dict[str, np.ndarray] | None = None

    @property
    def frames(self) -> List[Dict[str, float]]:
        """One dict per frame scored: ``frameNum`` and each output."""
        if self._frames is None:
            self._frames = self._report.frames()
        return self._frames

    @property
    def scores(self) -> Dict[str, np.ndarray]:
        """``{output: values}``: one float64 array per output, in the files'
        order (:attr:`metrics`), its values in frame order, the same fp64
        values as :attr:`frames` bit for bit."""
        if self._scores is None:
            self._scores = self._report.scores()
        return self._scores

    @property
    def pooled(self) -> Dict[str, Dict[str, float]]:
        """``{output: {"min", "max", "mean", "harmonic_mean"}}``."""
        return self._report.pooled()

    @property
    def aggregate(self) -> Dict[str, float]:
        """The values reported once for the run (``apsnr_*``), by name."""
        return self._report.aggregate()

    @property
    def metrics(self) -> List[str]:
        """The output names, in the files' order."""
        return list(self._report.metrics)

    @property
    def width(self) -> int:
        """Luma width."""
        return self._report.width

    @property
    def height(self) -> int:
        """Luma height."""
        return self._report.height

    @property
    def fps(self) -> float:
        """Frames read per second of scoring."""
        return self._report.fps

    def to_json(self) -> str:
        """The command line's ``--json`` file."""
        return self._report.render("json")

    def to_xml(self) -> str:
        """The command line's ``--xml`` file (libvmaf's default format)."""
        return self._report.render("xml")

    def to_csv(self) -> str:
        """The command line's ``--csv`` file."""
        return self._report.render("csv")

    def to_sub(self) -> str:
        """The command line's ``--sub`` file (one subtitle line per frame)."""
        return self._report.render("sub")

    def to_pandas(self) -> Any:
        """The frames as a ``pandas.DataFrame`` indexed by ``frameNum``
        (needs pandas)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("Result.to_pandas needs pandas (pip install pandas)") from e
        return pandas.DataFrame(self.frames, columns=["frameNum", *self.metrics]).set_index("frameNum")

    def __len__(self) -> int:
        return len(self._report)

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v['mean']:.6f}" for k, v in self.pooled.items())
        return f"<vkssim.Result {len(self)} frames {self.width}x{self.height}: {means}>"
