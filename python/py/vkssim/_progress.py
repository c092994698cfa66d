"""``progress=``: a callback ``progress(done, total)`` (``total`` None when
not known), or tqdm's bar with ``progress=True`` when tqdm is installed."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Tuple

Callback = Callable[[int, Optional[int]], Any]


def make(progress: Any, desc: str) -> Tuple[Optional[Callback], Any]:
    """The callback for ``progress`` and the bar to close after the run."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            warnings.warn("progress=True shows a bar when tqdm is installed (pip install tqdm)", stacklevel=3)
            return None, None
        bar = tqdm(desc=desc, unit="frame", leave=False)

        def update(done: int, total: Optional[int]) -> None:
            if total is not None and bar.total != total:
                bar.total = total
                bar.refresh()
            bar.update(done - bar.n)

        return update, bar
    if callable(progress):
        return progress, None
    raise TypeError(f"progress must be None, a bool or a callable(done, total), not {type(progress).__name__}")
