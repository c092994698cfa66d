"""Issue 26, item 6: keyword options are typed values (an error names the
keyword and its value, never a command-line flag); results as numpy
columns; strided arrays read in place through their row stride; exceptions
that also derive from the builtins."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import vkssim

U32 = 2**32 - 1

# (keywords, the start of the message): one per keyword and class of error
# (type, range, unknown value), every one refused before an input is read.
REFUSED = [
    # Counts: a bool, a float or a string is no integer; each range is the
    # command line's.
    (dict(threads=True), "threads=True: expected an integer, got bool"),
    (dict(threads=2.0), "threads=2.0: expected an integer, got float"),
    (dict(threads="2"), "threads='2': expected an integer, got str"),
    (dict(threads=1025), "threads=1025: out of range (0 to 1024)"),
    (dict(threads=-1), "threads=-1: out of range (0 to 1024)"),
    (dict(read_threads=257), "read_threads=257: out of range (0 to 256)"),
    (dict(frames_in_flight=1025), "frames_in_flight=1025: out of range (0 to 1024)"),
    (dict(decode_threads=65), "decode_threads=65: out of range (0 to 64)"),
    (dict(decode_threads=np.float32(3)), f"decode_threads={np.float32(3)!r}: expected an integer, got float32"),
    (dict(frame_skip_ref=-1), "frame_skip_ref=-1: out of range (0 or more)"),
    (dict(frame_skip_dist=1.5), "frame_skip_dist=1.5: expected an integer, got float"),
    (dict(frame_cnt=2**64), f"frame_cnt={2**64}: out of range (0 or more)"),
    (dict(subsample=np.True_), f"subsample={np.True_!r}: expected an integer, got {type(np.True_).__name__}"),
    (dict(width=U32 + 1), f"width={U32 + 1}: out of range (0 to {U32})"),
    (dict(height="48"), "height='48': expected an integer, got str"),
    (dict(bitdepth=-8), f"bitdepth=-8: out of range (0 to {U32})"),
    (dict(stream=-1), f"stream=-1: out of range (0 to {U32})"),
    (dict(reference_stream=0.0), "reference_stream=0.0: expected an integer, got float"),
    (dict(precision=41), "precision=41: out of range (0 to 40)"),
    (dict(precision="lots"), "precision='lots': expected a number of digits (0 to 40) or 'max'"),
    (dict(precision=False), "precision=False: expected an integer, got bool"),
    # Words: unknown values and values of another type.
    (dict(backend="gpu"), "backend='gpu': expected 'auto', 'vulkan' or 'cpu'"),
    (dict(backend=1), "backend=1: expected a string ('auto', 'vulkan' or 'cpu'), got int"),
    (dict(upload="dma"), "upload='dma': expected 'auto', 'direct' or 'staging'"),
    (dict(decode="elsewhere"), "decode='elsewhere': expected 'auto', 'cpu' or 'gpu'"),
    (dict(decode_errors="ignore"), "decode_errors='ignore': expected 'error' or 'conceal'"),
    (dict(resize_distorted="cubic"), "resize_distorted='cubic': expected 'bicubic', 'bilinear', "),
    (dict(pix_fmt="yuv420p"), "pix_fmt='yuv420p': expected '420', '422', '444', "),
    (dict(pix_fmt=420), "pix_fmt=420: expected a string ("),
    (dict(allow_length_mismatch=1), "allow_length_mismatch=1: expected True or False, got int"),
    # The device: an index, a list of them or "all".
    (dict(device="gpu"), "device='gpu': expected a device index, a list of them, or 'all'"),
    (dict(device=[]), "device=[]: name at least one device index, or 'all'"),
    (dict(device=[0, -1]), f"device=-1: out of range (0 to {U32})"),
    (dict(device=0.5), "device=0.5: expected an integer, got float"),
    (dict(device=list(range(65))), "device=[0, 1, "),
    # Features: specs, at least one, each once.
    (dict(features=3), "features=3: expected a feature spec ('NAME') or a list of them, got int"),
    (dict(features=["psnr", 1]), "features: 1 is not a string such as 'NAME=OPTION=VALUE'"),
    (dict(features=[]), "features: name at least one"),
    (dict(features="vmaf"), "features: 'vmaf': "),
    (dict(features=["psnr", "psnr=enable_chroma=false"]), "features: 'psnr=enable_chroma=false': psnr is already requested"),
    # Options that cannot go together: named as keywords too.
    (dict(backend="cpu", device=[0, 2]), "device=[0, 2] picks a Vulkan device, and backend='cpu' scores on the CPU twin"),
]


def _keyword_error(info, start):
    e = info.value
    assert str(e).startswith(start), str(e)
    assert "--" not in str(e), str(e)
    assert isinstance(e, ValueError)


@pytest.mark.parametrize("options,start", REFUSED, ids=[f"{next(iter(o))}-{k}" for k, (o, _) in enumerate(REFUSED)])
def test_each_keyword_error_names_the_keyword(clips, options, start):
    clip = clips["420p8"]
    options = dict(options)
    features = options.pop("features", "float_ssim")
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.score(clip.ref_y4m, clip.dist_y4m, features, **options, model=None)
    _keyword_error(info, start)


def test_arrays_and_the_scorer_name_keywords_too(clips):
    clip = clips["420p8"]
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.score(clip.ref, clip.dist, backend="cpu", threads=4096, features="float_ssim", model=None)
    _keyword_error(info, "threads=4096: out of range (0 to 1024)")
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.score(clip.ref[0], clip.dist[0], backend="cpu", bitdepth=2.5, features="float_ssim", model=None)
    _keyword_error(info, "bitdepth=2.5: expected an integer, got float")
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.Scorer(clip.width, clip.height, backend="gpu")
    _keyword_error(info, "backend='gpu': expected 'auto', 'vulkan' or 'cpu'")
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.Scorer(clip.width, clip.height, features=["psnr", None])
    _keyword_error(info, "features: None is not a string")


def test_typed_values_are_taken(clips):
    # numpy integers count as integers; an iterator of features is read once
    # (a ladder reads the options per input); precision takes "max" or digits.
    clip = clips["420p8"]
    base = vkssim.score(clip.ref_y4m, clip.dist_y4m, ["float_ssim", "psnr"], backend="cpu", frame_cnt=3, model=None)
    same = vkssim.score(clip.ref_y4m, [clip.dist_y4m, clip.dist_y4m], iter(["float_ssim", "psnr"]),
                        backend="cpu", frame_cnt=np.uint8(3), threads=np.int64(2), precision="max", model=None)
    assert [r.frames for r in same] == [base.frames, base.frames]


def test_run_time_messages_name_keywords(clips):
    clip = clips["420p8"]
    with pytest.raises(vkssim.Error) as info:
        vkssim.score(clip.ref_y4m, clip.dist_y4m, backend="cpu", frame_skip_ref=100, features="float_ssim", model=None)
    message = str(info.value)
    assert f"(5 less frame_skip_ref=100)" in message and "--" not in message, message
    with pytest.raises(vkssim.OptionError) as info:
        vkssim.score(clip.ref_y4m, clip.dist_y4m, backend="cpu", decode="gpu", features="float_ssim", model=None)
    message = str(info.value)
    assert message.startswith(("decode='gpu'", "backend='cpu'")) and "--decode" not in message, message


def _bits(values):
    return np.asarray(values, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("source", ["files", "arrays"])
def test_scores_are_numpy_columns_with_the_frames_bits(clips, source):
    clip = clips["420p8"]
    feats = ["float_ssim", "psnr", "float_ms_ssim"]
    if source == "files":
        r = vkssim.score(clip.ref_y4m, clip.dist_y4m, feats, backend="cpu", frame_skip_ref=1, frame_skip_dist=1, model=None)
    else:
        r = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", subsample=2, model=None)
    assert list(r.scores) == r.metrics
    assert len(r.metrics) == 5  # float_ssim, psnr_y, psnr_cb, psnr_cr, float_ms_ssim
    for name, column in r.scores.items():
        assert isinstance(column, np.ndarray) and column.dtype == np.float64 and column.ndim == 1
        assert len(column) == len(r.frames) > 0
        assert np.array_equal(_bits(column), _bits([f[name] for f in r.frames]))


def test_the_scorers_result_has_columns(clips):
    clip = clips["420p8"]
    with vkssim.Scorer(clip.width, clip.height, features="psnr", chroma="420", backend="cpu") as s:
        for i in range(clip.frames):
            s.submit(tuple(p[i] for p in clip.ref), tuple(p[i] for p in clip.dist))
        r = s.result()
    assert list(r.scores) == ["psnr_y", "psnr_cb", "psnr_cr"]
    assert np.array_equal(_bits(r.scores["psnr_cb"]), _bits([f["psnr_cb"] for f in r.frames]))


def _padded(planes, pad_rows=3, pad_cols=29, offset=5):
    """Each plane inside a larger zeroed array: a view whose rows are a
    longer row stride apart than its width (not C-contiguous)."""
    out = []
    for p in planes:
        n, h, w = p.shape
        big = np.zeros((n, h + pad_rows, w + pad_cols + offset), p.dtype)
        big[:, :h, offset:offset + w] = p
        view = big[:, :h, offset:offset + w]
        assert not view.flags.c_contiguous and view.strides[1] > w * p.itemsize
        out.append(view)
    return tuple(out)


def _every_other_frame(planes):
    """Each plane as every other frame of an array twice as long."""
    out = []
    for p in planes:
        twice = np.zeros((2 * p.shape[0],) + p.shape[1:], p.dtype)
        twice[::2] = p
        out.append(twice[::2])
    return tuple(out)


@pytest.mark.parametrize("name,bitdepth", [("420p8", None), ("422p10", 10), ("444p8_odd", None)])
def test_strided_arrays_score_as_their_contiguous_copies(clips, name, bitdepth):
    clip = clips[name]
    feats = ["float_ssim", "psnr"]
    kw = dict(backend="cpu", bitdepth=bitdepth)
    base = vkssim.score(clip.ref, clip.dist, feats, **kw, model=None)
    for make in (_padded, _every_other_frame):
        ref, dist = make(clip.ref), make(clip.dist)
        got = vkssim.score(ref, dist, feats, **kw, model=None)
        assert got.frames == base.frames
        for m in base.metrics:
            assert np.array_equal(_bits(got.scores[m]), _bits(base.scores[m])), m
    # One frame at a time through the Scorer: the same values.
    ref, dist = _padded(clip.ref), _padded(clip.dist)
    with vkssim.Scorer(clip.width, clip.height, bitdepth or 8, feats, chroma=clip.pix_fmt, backend="cpu") as s:
        for i in range(clip.frames):
            s.submit(tuple(p[i] for p in ref), tuple(p[i] for p in dist))
        assert s.result().frames == base.frames


def test_broadcast_arrays_score_as_their_copies(clips):
    # One frame repeated (a frame stride of 0) is read in place; a row of one
    # sample repeated (a column stride of 0) is copied first: both score as
    # their contiguous copies.
    clip = clips["444p8_odd"]
    frame, dist = clip.ref[0][0], clip.dist[0]
    n, h, w = dist.shape
    repeated = np.broadcast_to(frame, (n, h, w))
    assert repeated.strides[0] == 0
    columns = np.broadcast_to(frame[:, :1], (n, h, w))
    assert columns.strides[2] == 0
    for a in (repeated, columns):
        got = vkssim.score(a, dist, backend="cpu", features="float_ssim", model=None)
        assert got.frames == vkssim.score(np.ascontiguousarray(a), dist, backend="cpu", features="float_ssim", model=None).frames


def _traced_peak(run):
    """The most memory Python's allocator and numpy's (both traced by
    tracemalloc; the native engine's own allocations are not) held while
    ``run()`` ran, beyond what was held before."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_a_strided_array_is_not_copied():
    # numpy reports every array it allocates to tracemalloc: a copy of the
    # view (as np.ascontiguousarray makes for a layout the library cannot
    # read in place) shows in the peak, reading it in place does not.
    rng = np.random.default_rng(7)
    n, h, w = 6, 360, 640
    big = rng.integers(0, 256, (n, h + 8, w + 64), dtype=np.uint8)
    view = big[:, 4:4 + h, 32:32 + w]
    dist = np.ascontiguousarray(view[::-1])
    assert not view.flags.c_contiguous
    in_place = _traced_peak(lambda: vkssim.score(view, dist, backend="cpu", threads=1, features="float_ssim", model=None))
    assert in_place < view.nbytes // 8, (in_place, view.nbytes)
    # The measure sees a copy: every other sample of a row is not a layout
    # the library reads, so that one is copied.
    wide = np.repeat(view, 2, axis=2)[:, :, ::2]
    copied = _traced_peak(lambda: vkssim.score(wide, dist, backend="cpu", threads=1, features="float_ssim", model=None))
    assert copied >= view.nbytes, (copied, view.nbytes)
    assert (vkssim.score(view, dist, backend="cpu", features="float_ssim", model=None).frames
            == vkssim.score(np.ascontiguousarray(view), dist, backend="cpu", features="float_ssim", model=None).frames
            == vkssim.score(wide, dist, backend="cpu", features="float_ssim", model=None).frames)


def test_exceptions_derive_from_the_builtins(clips, tmp_path):
    assert issubclass(vkssim.InputError, OSError)
    for cls in (vkssim.OptionError, vkssim.GeometryError, vkssim.LengthError, vkssim.UnsupportedError):
        assert issubclass(cls, ValueError), cls
    assert issubclass(vkssim.DeviceError, RuntimeError)
    for cls in (vkssim.InputError, vkssim.OptionError, vkssim.GeometryError, vkssim.LengthError,
                vkssim.UnsupportedError, vkssim.DeviceError):
        assert issubclass(cls, vkssim.Error) and cls.__module__ == "vkssim", cls
    clip = clips["420p8"]
    with pytest.raises(ValueError, match="backend='gpu'"):
        vkssim.score(clip.ref, clip.dist, backend="gpu", features="float_ssim", model=None)
    with pytest.raises(OSError, match="missing.y4m") as info:
        vkssim.score(tmp_path / "missing.y4m", clip.dist_y4m, backend="cpu", features="float_ssim", model=None)
    assert isinstance(info.value, vkssim.InputError) and info.value.result is None
    with pytest.raises(ValueError, match="reference and distorted differ"):
        vkssim.score(clip.ref[0], clip.dist[0][:, :40], backend="cpu", features="float_ssim", model=None)
    with pytest.raises(ValueError, match="allow_length_mismatch=True"):
        vkssim.score(clip.ref, tuple(p[:3] for p in clip.dist), backend="cpu", features="float_ssim", model=None)
    with pytest.raises(ValueError):
        vkssim.score(clip.ref_yuv, clip.dist_yuv, backend="cpu", width=176, height=176, pix_fmt="420", bitdepth=9, features="float_ssim", model=None)
    with pytest.raises(RuntimeError, match="device=99"):
        vkssim.score(clip.ref[0], clip.dist[0], backend="vulkan", device=99, features="float_ssim", model=None)
