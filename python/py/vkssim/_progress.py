"""``progress=``: a callback ``progress(done, total)`` (``total`` None when not
known), or tqdm's bar with ``progress=True`` when tqdm is installed."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Tuple

Callback = Callable[[int, Optional[int]], Any]


class _Bar:
    """A tqdm bar, made at the first call (when the total is known)."""

    def __init__(self, tqdm: Any, desc: str) -> None:
        self._tqdm, self._desc, self.bar = tqdm, desc, None

    def __call__(self, done: int, total: Optional[int]) -> None:
        if self.bar is None:
            self.bar = self._tqdm(desc=self._desc, unit="frame", total=total, leave=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def make(progress: Any, desc: str) -> Tuple[Optional[Callback], Any]:
    """The callback for ``progress`` and the bar to close after the run (or
    None)."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            warnings.warn("progress=True shows a bar when tqdm is installed (pip install tqdm)", stacklevel=3)
            return None, None
        bar = _Bar(tqdm, desc)
        return bar, bar
    if callable(progress):
        return progress, None
    raise TypeError(f"progress must be None, a bool or a callable(done, total), not {type(progress).__name__}")
