"""Inputs, third reliability round (issue 29): files that declare different
colour ranges are scored as stored, with the command line's note on
standard error naming both (item 6); a file cut short is an InputError
naming it and its last decoded frame, the frames before the cut in the
exception's result (item 5)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import vkssim


def _y4m(path: Path, tag: str, seed: int) -> Path:
    """A 3-frame 32x24 8-bit 4:2:0 Y4M clip, its header carrying ``tag``."""
    head = f"YUV4MPEG2 W32 H24 F25:1 Ip A1:1 C420jpeg {tag}".rstrip() + "\n"
    data = bytearray(head.encode())
    for i in range(3):
        data += b"FRAME\n"
        data += bytes((x * 7 + y * 5 + (seed + i) * 13) % 256 for y in range(24) for x in range(32))
        data += bytes([128]) * (2 * 16 * 12)
    path.write_bytes(bytes(data))
    return path


def test_different_declared_ranges_are_noted(tmp_path, capfd):
    full = _y4m(tmp_path / "full.y4m", "XCOLORRANGE=FULL", 1)
    limited = _y4m(tmp_path / "limited.y4m", "XCOLORRANGE=LIMITED", 40)
    noted = vkssim.score(full, limited, ["psnr"], backend="cpu", model=None)
    err = capfd.readouterr().err
    assert f"the reference {full} is full range (XCOLORRANGE=FULL)" in err, err
    assert f"the distorted {limited} is limited range (XCOLORRANGE=LIMITED)" in err, err
    # Scored as stored: the same numbers as with no range declared.
    plain = vkssim.score(_y4m(tmp_path / "a.y4m", "", 1), _y4m(tmp_path / "b.y4m", "", 40), ["psnr"], backend="cpu", model=None)
    assert "range" not in capfd.readouterr().err
    assert noted.frames == plain.frames


def test_a_file_cut_short_is_an_input_error(tmp_path):
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("no ffmpeg on PATH: tools/setup-debian.sh installs it (this test encodes its stream)")
    whole = tmp_path / "whole.mkv"
    p = subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                        "-frames:v", "50", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-qp", "12", str(whole)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    data = whole.read_bytes()
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(data[: len(data) // 2])
    for allow in (False, True):
        with pytest.raises(vkssim.InputError) as info:
            vkssim.score(whole, cut, ["psnr"], backend="cpu", allow_length_mismatch=allow, model=None)
        frames = info.value.result.frames
        assert 10 <= len(frames) < 50
        message = str(info.value)
        assert f"{cut}: the file is cut short" in message, message
        assert f"the last frame decoded is frame {len(frames) - 1}" in message, message
