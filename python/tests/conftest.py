"""Fixtures: the workspace's ``vkssim`` and libvmaf's ``vmaf`` command lines
(built by cargo under target/), and small generated clips, written as raw
YUV and Y4M files beside their numpy planes."""

from __future__ import annotations

import glob
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def _binary(env: str, pattern: str) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    found = sorted(glob.glob(str(TARGET / pattern)), key=os.path.getmtime)
    if not found:
        pytest.fail(f"no {pattern} under {TARGET}: build the workspace first (cargo build --release)")
    return Path(found[-1])


@pytest.fixture(scope="session")
def vkssim_bin() -> Path:
    """``target/release/vkssim`` (or $VKSSIM_BIN)."""
    return _binary("VKSSIM_BIN", "release/vkssim")


@pytest.fixture(scope="session")
def vmaf_bin() -> Path:
    """The ``vmaf`` command line libvmaf-sys builds (or $VMAF_BIN)."""
    return _binary("VMAF_BIN", "release/build/libvmaf-sys-*/out/build/tools/vmaf")


@pytest.fixture(scope="session")
def full_precision_shim(tmp_path_factory) -> Path:
    """tests/c/vmaf_full_precision.c built: under LD_PRELOAD, vmaf writes
    every score with 17 significant digits (what --precision max writes)."""
    out = tmp_path_factory.mktemp("shim") / "vmaf_full_precision.so"
    src = ROOT / "tests/c/vmaf_full_precision.c"
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", "-o", str(out), str(src)], check=True)
    return out


@dataclass
class Clip:
    """A reference and a distorted clip: numpy planes and files."""

    width: int
    height: int
    bitdepth: int
    pix_fmt: str
    ref: Tuple[np.ndarray, np.ndarray, np.ndarray]
    dist: Tuple[np.ndarray, np.ndarray, np.ndarray]
    ref_yuv: Path
    dist_yuv: Path
    ref_y4m: Path
    dist_y4m: Path

    @property
    def frames(self) -> int:
        return self.ref[0].shape[0]

    def raw(self) -> dict:
        """The keyword options that describe the raw files."""
        return dict(width=self.width, height=self.height, pix_fmt=self.pix_fmt, bitdepth=self.bitdepth)

    def raw_flags(self) -> List[str]:
        return ["-w", str(self.width), "-h", str(self.height), "-p", self.pix_fmt, "-b", str(self.bitdepth)]


def _content(rng, frames: int, h: int, w: int, peak: int) -> np.ndarray:
    """Moving gradients and texture, in [0, peak]."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    out = []
    for t in range(frames):
        v = 0.5 + 0.25 * np.sin((x + 3 * t) / 7.0) * np.cos((y - 2 * t) / 11.0) + 0.2 * (x / w)
        v += 0.05 * rng.standard_normal((h, w))
        out.append(np.clip(v, 0, 1) * peak)
    return np.array(out)


def _distort(rng, planes: np.ndarray, peak: int, strength: float) -> np.ndarray:
    """Quantised and noisy, as an encode might leave it."""
    step = max(1, int(peak * strength / 16))
    q = np.round(planes / step) * step + rng.normal(0, peak * strength / 64, planes.shape)
    return np.clip(q, 0, peak)


def _chroma_size(w: int, h: int, pix_fmt: str) -> Tuple[int, int]:
    return {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h)}[pix_fmt]


def _y4m_header(w: int, h: int, pix_fmt: str, bitdepth: int) -> bytes:
    if bitdepth == 8:
        c = "420jpeg" if pix_fmt == "420" else pix_fmt
    else:
        c = f"{pix_fmt}p{bitdepth}"
    return f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C{c}\n".encode()


def _write(path_yuv: Path, path_y4m: Path, planes, pix_fmt: str, bitdepth: int) -> None:
    y, cb, cr = planes
    n, h, w = y.shape
    with open(path_yuv, "wb") as raw, open(path_y4m, "wb") as y4m:
        y4m.write(_y4m_header(w, h, pix_fmt, bitdepth))
        for i in range(n):
            frame = b"".join(p[i].astype("<u2" if bitdepth > 8 else "u1").tobytes() for p in (y, cb, cr))
            raw.write(frame)
            y4m.write(b"FRAME\n" + frame)


def make_clip(directory: Path, name: str, w: int, h: int, frames: int, pix_fmt: str, bitdepth: int,
              seed: int = 1, strength: float = 1.0, dist_frames: int | None = None) -> Clip:
    rng = np.random.default_rng(seed)
    peak = (1 << bitdepth) - 1
    dtype = np.uint8 if bitdepth == 8 else np.uint16
    cw, ch = _chroma_size(w, h, pix_fmt)
    ref = tuple(_content(rng, frames, hh, ww, peak) for (ww, hh) in ((w, h), (cw, ch), (cw, ch)))
    dist = tuple(_distort(rng, p, peak, strength) for p in ref)
    ref = tuple(np.round(p).astype(dtype) for p in ref)
    dist = tuple(np.round(p).astype(dtype) for p in dist)
    if dist_frames is not None:
        dist = tuple(p[:dist_frames] for p in dist)
    paths = [directory / f"{name}_{role}.{ext}" for role in ("ref", "dist") for ext in ("yuv", "y4m")]
    _write(paths[0], paths[1], ref, pix_fmt, bitdepth)
    _write(paths[2], paths[3], dist, pix_fmt, bitdepth)
    return Clip(w, h, bitdepth, pix_fmt, ref, dist, paths[0], paths[2], paths[1], paths[3])


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> dict:
    """The corpus: 8-bit 4:2:0 and 10-bit 4:2:2 at 176x176 (float_ms_ssim's
    smallest), and an odd-sized 8-bit 4:4:4 one, 4 or 5 frames each."""
    d = tmp_path_factory.mktemp("clips")
    return {
        "420p8": make_clip(d, "420p8", 176, 176, 5, "420", 8, seed=1),
        "422p10": make_clip(d, "422p10", 176, 178, 4, "422", 10, seed=2),
        "444p8_odd": make_clip(d, "444p8", 67, 45, 4, "444", 8, seed=3, strength=3.0),
    }


def comparable(text: str) -> List[str]:
    """A score file's lines but the version and fps ones (which name the
    program and its speed)."""
    skip = ('"version"', '"fps"', "<VMAF version=", "<fyi fps=")
    return [l for l in text.splitlines() if not l.strip().startswith(skip)]


def run_cli(program: Path, args: List[str], out: Path, env: dict | None = None) -> str:
    """Runs ``program args -o out`` and returns the file it wrote."""
    p = subprocess.run([str(program), *args, "-o", str(out)], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, f"{program} {args} failed ({p.returncode}): {p.stderr}"
    return out.read_text()
