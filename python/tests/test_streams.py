"""Streams chosen per input (issue 29, item 4): ``stream=`` is the distorted
input's video stream (in a ladder one for all, or a list with one per
input), ``reference_stream=`` the reference's; each scores as that stream
extracted by the ``ffmpeg`` command line."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import vkssim

FEATURES = ["float_ssim", "psnr"]


def _run(args) -> None:
    p = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"{args} failed ({p.returncode}): {p.stderr}"


@pytest.fixture(scope="module")
def two_streams(clips, tmp_path_factory):
    """An MP4 whose video stream 0 is another picture of another size and
    whose stream 1 is the distorted clip encoded by x264; that stream 1 as
    the ffmpeg command line decodes it (Y4M); and the reference Y4M."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("no ffmpeg on PATH: tools/setup-debian.sh installs it (these tests encode their streams)")
    clip = clips["420p8"]
    d = tmp_path_factory.mktemp("streams")
    mp4 = d / "two.mp4"
    _run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=25:duration=1",
          "-i", str(clip.dist_y4m), "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-crf", "30",
          "-pix_fmt", "yuv420p", str(mp4)])
    one = d / "stream1.y4m"
    _run([ffmpeg, "-v", "error", "-y", "-i", str(mp4), "-map", "0:v:1", "-fps_mode", "passthrough",
          "-f", "yuv4mpegpipe", str(one)])
    return clip.ref_y4m, mp4, one


def test_stream_selects_the_distorted_inputs_stream(two_streams):
    ref, mp4, one = two_streams
    got = vkssim.score(ref, mp4, FEATURES, backend="cpu", stream=1, model=None)
    want = vkssim.score(ref, one, FEATURES, backend="cpu", model=None)
    assert len(got.frames) > 0
    # Every value, fp64 for fp64.
    assert got.frames == want.frames
    assert got.pooled == want.pooled


def test_reference_stream_selects_the_references_stream(two_streams):
    ref, mp4, one = two_streams
    got = vkssim.score(mp4, ref, FEATURES, backend="cpu", reference_stream=1, model=None)
    want = vkssim.score(one, ref, FEATURES, backend="cpu", model=None)
    assert got.frames == want.frames
    # A Y4M has only stream 0: asking it for stream 1 names it.
    with pytest.raises(vkssim.InputError, match="stream 1") as info:
        vkssim.score(ref, mp4, FEATURES, backend="cpu", reference_stream=1, stream=1, model=None)
    assert str(ref) in str(info.value)


def test_a_ladder_takes_a_stream_per_input(two_streams):
    ref, mp4, one = two_streams
    want = vkssim.score(ref, one, FEATURES, backend="cpu", model=None)
    results = vkssim.score(ref, [mp4, one], FEATURES, backend="cpu", stream=[1, 0], model=None)
    assert [r.frames for r in results] == [want.frames, want.frames]
    with pytest.raises(vkssim.OptionError, match="3 streams for 2 distorted inputs"):
        vkssim.score(ref, [mp4, one], FEATURES, backend="cpu", stream=[1, 0, 0], model=None)
