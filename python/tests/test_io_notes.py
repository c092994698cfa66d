"""Notes about the inputs (issue 29, item 6): files that declare different
colour ranges are scored as stored, with the command line's note on
standard error naming both."""

from __future__ import annotations

from pathlib import Path

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
    noted = vkssim.score(full, limited, ["psnr"], backend="cpu")
    err = capfd.readouterr().err
    assert f"the reference {full} is full range (XCOLORRANGE=FULL)" in err, err
    assert f"the distorted {limited} is limited range (XCOLORRANGE=LIMITED)" in err, err
    # Scored as stored: the same numbers as with no range declared.
    plain = vkssim.score(_y4m(tmp_path / "a.y4m", "", 1), _y4m(tmp_path / "b.y4m", "", 40), ["psnr"], backend="cpu")
    assert "range" not in capfd.readouterr().err
    assert noted.frames == plain.frames
