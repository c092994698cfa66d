"""Type stubs of the vkssim package (see the module's docstring)."""

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

VERSION: str

Plane = npt.NDArray[Union[np.uint8, np.uint16]]
#: One input in memory: luma ``(frames, height, width)`` (or one 2-d frame),
#: or a tuple ``(luma, Cb, Cr)``.
Frames = Union[Plane, Tuple[Plane, Plane, Plane]]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Progress = Union[None, bool, Callable[[int, Optional[int]], Any]]
Frame = Dict[str, float]

class Error(Exception):
    """Every error vkssim raises."""
    result: Optional["Result"]

class InputError(Error, OSError):
    """An input cannot be read or is not what it claims (also an OSError)."""
class GeometryError(Error, ValueError):
    """Frames that cannot be scored together or at all (also a ValueError)."""
class LengthError(Error, ValueError):
    """Inputs of different lengths (also a ValueError)."""
class OptionError(Error, ValueError):
    """A refused option, naming its keyword: a value of the wrong type, out
    of range or not one of its values, options that cannot go together
    (also a ValueError)."""
class UnsupportedError(Error, ValueError):
    """A format or combination vkssim does not score (also a ValueError)."""
class DeviceError(Error, RuntimeError):
    """The Vulkan device cannot score (also a RuntimeError)."""

class Interrupted(KeyboardInterrupt):
    """Ctrl-C while scoring; ``result`` holds the frames scored before it."""
    result: "Result"

class Result:
    @property
    def frames(self) -> List[Frame]: ...
    @property
    def scores(self) -> Dict[str, npt.NDArray[np.float64]]:
        """``{output: values}``: one float64 array per output, in the order
        of :attr:`metrics`, values in frame order (the same fp64 values as
        :attr:`frames`)."""
    @property
    def pooled(self) -> Dict[str, Dict[str, float]]: ...
    @property
    def aggregate(self) -> Dict[str, float]: ...
    @property
    def metrics(self) -> List[str]: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def fps(self) -> float: ...
    def to_json(self) -> str: ...
    def to_xml(self) -> str: ...
    def to_csv(self) -> str: ...
    def to_sub(self) -> str: ...
    def to_pandas(self) -> Any: ...
    def __len__(self) -> int: ...

@overload
def score(
    reference: Union[PathLike, Frames],
    distorted: Union[PathLike, Frames],
    features: Optional[Union[str, Iterable[str]]] = ...,
    *,
    model: Optional[Union[str, Iterable[str]]] = ...,
    motion_version: Optional[str] = ...,
    width: Optional[int] = ...,
    height: Optional[int] = ...,
    pix_fmt: Optional[str] = ...,
    bitdepth: Optional[int] = ...,
    backend: str = ...,
    device: Optional[Union[int, str, Iterable[int]]] = ...,
    threads: Optional[int] = ...,
    frame_skip_ref: Optional[int] = ...,
    frame_skip_dist: Optional[int] = ...,
    frame_cnt: Optional[int] = ...,
    subsample: Optional[int] = ...,
    allow_length_mismatch: bool = ...,
    precision: Optional[Union[int, str]] = ...,
    stream: Optional[int] = ...,
    reference_stream: Optional[int] = ...,
    decode_errors: Optional[str] = ...,
    resize_distorted: Optional[str] = ...,
    decode: Optional[str] = ...,
    decode_threads: Optional[int] = ...,
    upload: Optional[str] = ...,
    frames_in_flight: Optional[int] = ...,
    read_threads: Optional[int] = ...,
    progress: Progress = ...,
) -> Result: ...
@overload
def score(
    reference: Union[PathLike, Frames],
    distorted: List[Union[PathLike, Frames]],
    features: Optional[Union[str, Iterable[str]]] = ...,
    *,
    model: Optional[Union[str, Iterable[str]]] = ...,
    motion_version: Optional[str] = ...,
    width: Optional[int] = ...,
    height: Optional[int] = ...,
    pix_fmt: Optional[str] = ...,
    bitdepth: Optional[int] = ...,
    backend: str = ...,
    device: Optional[Union[int, str, Iterable[int]]] = ...,
    threads: Optional[int] = ...,
    frame_skip_ref: Optional[int] = ...,
    frame_skip_dist: Optional[int] = ...,
    frame_cnt: Optional[int] = ...,
    subsample: Optional[int] = ...,
    allow_length_mismatch: bool = ...,
    precision: Optional[Union[int, str]] = ...,
    stream: Optional[Union[int, Sequence[int]]] = ...,
    reference_stream: Optional[int] = ...,
    decode_errors: Optional[str] = ...,
    resize_distorted: Optional[str] = ...,
    decode: Optional[str] = ...,
    decode_threads: Optional[int] = ...,
    upload: Optional[str] = ...,
    frames_in_flight: Optional[int] = ...,
    read_threads: Optional[int] = ...,
    progress: Progress = ...,
) -> List[Result]: ...

class Scorer:
    """A streaming scorer, for one thread at a time (a call while another
    thread's is under way raises :class:`Error`). Results carry their frame
    number (``frameNum``) from the library; Ctrl-C while iterating raises
    :class:`Interrupted` and skips no result (iterating again goes on from
    the frame finished as it came)."""
    def __init__(
        self,
        width: int,
        height: int,
        bitdepth: int = ...,
        features: Union[str, Iterable[str]] = ...,
        *,
        chroma: Optional[str] = ...,
        model: Optional[Union[str, Iterable[str]]] = ...,
        motion_version: Optional[str] = ...,
        backend: str = ...,
        device: Optional[Union[int, str, Iterable[int]]] = ...,
        threads: Optional[int] = ...,
        precision: Optional[Union[int, str]] = ...,
        upload: Optional[str] = ...,
        frames_in_flight: Optional[int] = ...,
    ) -> None: ...
    def submit(self, reference: Union[Plane, Tuple[Plane, Plane, Plane]], distorted: Union[Plane, Tuple[Plane, Plane, Plane]]) -> int: ...
    def ready(self) -> List[Frame]: ...
    def __iter__(self) -> Iterator[Frame]: ...
    def flush(self) -> None: ...
    def result(self) -> Result: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def submitted(self) -> int: ...
    @property
    def backend(self) -> str: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Scorer": ...
    def __exit__(self, kind: Any, value: Any, tb: Any) -> None: ...
