"""Encoded files in, decoded in-process by FFmpeg's libraries: the scores
equal those of the same streams decoded by the ``ffmpeg`` command line
(``-fps_mode passthrough``) and read as Y4M, whatever the decoder's thread
count; the decoding options are checked as the command line checks them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import vkssim

FEATURES = ["float_ssim", "psnr"]


def _ffmpeg() -> str:
    found = shutil.which("ffmpeg")
    if found is None:
        pytest.fail("no ffmpeg on PATH: tools/setup-debian.sh installs it (these tests encode their streams)")
    return found


def _run(args) -> None:
    p = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"{args} failed ({p.returncode}): {p.stderr}"


@pytest.fixture(scope="module")
def encoded(clips, tmp_path_factory):
    """The 176x176 8-bit 4:2:0 pair encoded by x264 with B-frames (the
    reference in MKV at CRF 20, the distorted in MP4 at CRF 40), and each
    stream decoded back by the ffmpeg command line into Y4M."""
    ffmpeg = _ffmpeg()
    clip = clips["420p8"]
    d = tmp_path_factory.mktemp("encoded")
    out = {}
    for role, src, crf, ext in (("ref", clip.ref_y4m, 20, "mkv"), ("dist", clip.dist_y4m, 40, "mp4")):
        stream = d / f"{role}.{ext}"
        _run([ffmpeg, "-v", "error", "-y", "-i", str(src), "-c:v", "libx264", "-preset", "veryfast",
              "-crf", str(crf), "-bf", "3", "-pix_fmt", "yuv420p", str(stream)])
        decoded = d / f"{role}_decoded.y4m"
        _run([ffmpeg, "-v", "error", "-y", "-i", str(stream), "-fps_mode", "passthrough",
              "-f", "yuv4mpegpipe", str(decoded)])
        out[role] = (stream, decoded)
    return out, clip.frames


@pytest.mark.parametrize("decode_threads", [None, 1, 3])
def test_encoded_files_equal_their_ffmpeg_decoded_y4m(encoded, decode_threads):
    streams, frames = encoded
    (ref, ref_y4m), (dist, dist_y4m) = streams["ref"], streams["dist"]
    from_streams = vkssim.score(ref, dist, FEATURES, backend="cpu", decode="cpu", decode_threads=decode_threads, model=None)
    from_y4m = vkssim.score(ref_y4m, dist_y4m, FEATURES, backend="cpu", model=None)
    assert len(from_streams.frames) == frames
    # Every value, fp64 for fp64.
    assert from_streams.frames == from_y4m.frames
    assert from_streams.pooled == from_y4m.pooled
    assert from_streams.aggregate == from_y4m.aggregate


def test_decoding_options_are_checked(encoded, clips):
    streams, _ = encoded
    ref, dist = streams["ref"][0], streams["dist"][0]
    with pytest.raises(vkssim.OptionError, match=r"^decode_threads=65: out of range \(0 to 64\)$"):
        vkssim.score(ref, dist, backend="cpu", decode_threads=65, features="float_ssim", model=None)
    with pytest.raises(vkssim.OptionError, match=r"^decode='elsewhere': expected 'auto', 'cpu' or 'gpu'$"):
        vkssim.score(ref, dist, backend="cpu", decode="elsewhere", features="float_ssim", model=None)
    clip = clips["420p8"]
    with pytest.raises(vkssim.OptionError, match="decode_threads: for files only"):
        vkssim.score(clip.ref, clip.dist, backend="cpu", decode_threads=2, features="float_ssim", model=None)


def test_a_missing_stream_is_an_input_error_naming_it(encoded):
    streams, _ = encoded
    ref = streams["ref"][0]
    with pytest.raises(vkssim.InputError, match="stream 1") as info:
        vkssim.score(ref, ref, backend="cpu", stream=1, features="float_ssim", model=None)
    assert str(Path(ref)) in str(info.value)
