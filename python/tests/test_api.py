"""Ladders, the streaming Scorer, array layouts, progress and Ctrl-C."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

import vkssim
from conftest import comparable, make_clip


def test_a_ladder_gives_one_result_per_input_in_order(clips, tmp_path):
    clip = clips["420p8"]
    worse = make_clip(tmp_path, "worse", 176, 176, 5, "420", 8, seed=1, strength=4.0)
    assert np.array_equal(worse.ref[0], clip.ref[0])  # same reference content
    files = vkssim.score(clip.ref_y4m, [clip.dist_y4m, worse.dist_y4m], backend="cpu", features="float_ssim", model=None)
    arrays = vkssim.score(clip.ref, [clip.dist, worse.dist], ["float_ssim", "psnr"], backend="cpu", model=None)
    assert len(files) == len(arrays) == 2
    for k, d in enumerate([clip.dist_y4m, worse.dist_y4m]):
        alone = vkssim.score(clip.ref_y4m, d, backend="cpu", features="float_ssim", model=None)
        assert files[k].frames == alone.frames
    assert arrays[1].pooled["float_ssim"]["mean"] < arrays[0].pooled["float_ssim"]["mean"]
    assert [f["float_ssim"] for f in arrays[0].frames] == [f["float_ssim"] for f in files[0].frames]


def test_a_ladder_scores_every_input_and_raises_the_first_failure(clips, tmp_path):
    clip = clips["420p8"]
    with pytest.raises(vkssim.InputError) as info:
        vkssim.score(clip.ref_y4m, [clip.dist_y4m, tmp_path / "missing.y4m"], backend="cpu", features="float_ssim", model=None)
    results = info.value.results
    assert isinstance(results[0], vkssim.Result) and len(results[0]) == clip.frames
    assert results[1] is info.value


def test_the_streaming_scorer_equals_score(clips):
    clip = clips["420p8"]
    feats = ["float_ssim", "psnr"]
    whole = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", model=None)
    seen = []
    with vkssim.Scorer(clip.width, clip.height, features=feats, chroma="420", backend="cpu") as s:
        for i in range(clip.frames):
            n = s.submit(tuple(p[i] for p in clip.ref), tuple(p[i] for p in clip.dist))
            assert n == i
            seen += s.ready()
        seen += list(s)
        assert s.in_flight == 0 and s.submitted == clip.frames
        result = s.result()
    assert seen == whole.frames
    assert [f["frameNum"] for f in seen] == list(range(clip.frames))
    assert result.frames == whole.frames
    assert comparable(result.to_json()) == comparable(whole.to_json())


def test_the_scorer_refuses_planes_it_cannot_score(clips):
    clip = clips["422p10"]
    with vkssim.Scorer(clip.width, clip.height, 10, backend="cpu") as s:
        with pytest.raises(vkssim.InputError, match="uint16"):
            s.submit(clip.ref[0][0].astype(np.uint8), clip.dist[0][0].astype(np.uint8))
        with pytest.raises(vkssim.GeometryError, match="176x100 but the scorer takes 176x178"):
            s.submit(clip.ref[0][0][:100], clip.dist[0][0][:100])
        with pytest.raises(vkssim.InputError, match="a luma plane"):
            s.submit(tuple(p[0] for p in clip.ref), tuple(p[0] for p in clip.dist))
        with pytest.raises(vkssim.InputError, match="above 1023"):
            s.submit(np.full((178, 176), 4000, np.uint16), clip.dist[0][0])
        # A refused pair leaves the scorer usable.
        s.submit(clip.ref[0][0], clip.dist[0][0])
        assert len(list(s)) == 1


def test_array_layouts_give_the_same_scores(clips):
    clip = clips["444p8_odd"]
    ref, dist = clip.ref[0], clip.dist[0]
    base = vkssim.score(ref, dist, backend="cpu", features="float_ssim", model=None).frames
    read_only = ref.copy()
    read_only.flags.writeable = False
    assert vkssim.score(read_only, dist, backend="cpu", features="float_ssim", model=None).frames == base
    # Fortran order, a strided view and a byte-swapped copy are copied first.
    assert vkssim.score(np.asfortranarray(ref), dist, backend="cpu", features="float_ssim", model=None).frames == base
    wide = np.zeros((ref.shape[0], ref.shape[1], ref.shape[2] * 2), np.uint8)
    wide[:, :, ::2] = ref
    assert vkssim.score(wide[:, :, ::2], dist, backend="cpu", features="float_ssim", model=None).frames == base
    deep = clips["422p10"]
    swapped = deep.ref[0].astype(">u2")
    assert (vkssim.score(swapped, deep.dist[0], backend="cpu", bitdepth=10, features="float_ssim", model=None).frames
            == vkssim.score(deep.ref[0], deep.dist[0], backend="cpu", bitdepth=10, features="float_ssim", model=None).frames)
    # One 2-d frame is a clip of one frame.
    assert vkssim.score(ref[0], dist[0], backend="cpu", features="float_ssim", model=None).frames == base[:1]


def test_progress_is_called_with_done_and_total(clips):
    clip = clips["420p8"]
    calls = []
    vkssim.score(clip.ref_yuv, clip.dist_yuv, backend="cpu", progress=lambda d, t: calls.append((d, t)), **clip.raw(), features="float_ssim", model=None)
    assert calls[0] == (0, clip.frames) and calls[-1] == (clip.frames, clip.frames)
    calls.clear()
    vkssim.score(clip.ref, clip.dist, backend="cpu", progress=lambda d, t: calls.append((d, t)), features="float_ssim", model=None)
    assert calls[0] == (0, clip.frames) and calls[-1] == (clip.frames, clip.frames)


def test_progress_true_draws_a_tqdm_bar(clips, capsys):
    pytest.importorskip("tqdm")
    clip = clips["420p8"]
    vkssim.score(clip.ref, clip.dist, backend="cpu", progress=True, features="float_ssim", model=None)
    assert "frame" in capsys.readouterr().err


def _interrupt_at(n):
    def progress(done, total):
        if done == n:
            os.kill(os.getpid(), signal.SIGINT)
    return progress


@pytest.mark.parametrize("source", ["files", "arrays"])
def test_ctrl_c_raises_keyboard_interrupt_with_the_frames_so_far(clips, tmp_path, source):
    # A real SIGINT, delivered while the GIL is released: Python's handler
    # runs at the next frame and the run stops there.
    clip = make_clip(tmp_path, "long", 64, 48, 40, "420", 8)
    if source == "files":
        args = (clip.ref_yuv, clip.dist_yuv)
        kw = clip.raw()
    else:
        args, kw = (clip.ref[0], clip.dist[0]), {}
    # Python's own handler, whatever the run inherited: a process started with
    # SIGINT ignored (as background jobs of a script are) keeps it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            vkssim.score(*args, backend="cpu", threads=1, frames_in_flight=2, progress=_interrupt_at(2), **kw, features="float_ssim", model=None)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert isinstance(info.value, vkssim.Interrupted)
    partial = info.value.result
    assert isinstance(partial, vkssim.Result)
    assert 2 <= len(partial) < clip.frames
    whole = vkssim.score(*args, backend="cpu", **kw, features="float_ssim", model=None)
    assert partial.frames == whole.frames[: len(partial)]


def test_an_exception_in_progress_stops_the_run_and_is_raised(clips):
    clip = clips["420p8"]

    def progress(done, total):
        if done == 1:
            raise ValueError("enough")

    with pytest.raises(ValueError, match="enough") as info:
        vkssim.score(clip.ref, clip.dist, backend="cpu", threads=1, frames_in_flight=1, progress=progress, features="float_ssim", model=None)
    assert 1 <= len(info.value.result) < clip.frames


def test_to_pandas(clips):
    pd = pytest.importorskip("pandas")
    r = vkssim.score(clips["420p8"].ref, clips["420p8"].dist, ["float_ssim", "psnr"], backend="cpu", model=None)
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == r.metrics and len(df) == len(r)
