#!/usr/bin/env python3
"""Issue 20's overhead figure: 4K frames handed to vkssim.Scorer.submit as
numpy arrays against `vkssim score` on the same frames in files.

    python tools/bench-python.py [--frames 24] [--repeat 3] [--backend cpu] [--dir target/bench-python]

Writes a 3840x2160 8-bit 4:2:0 pair of raw YUV files (moving gradients and a
noisy copy; kept under --dir), then alternates REPEAT times: the CLI
(`--backend B --json`; its fps figure: first read to last result) and the
package (the luma planes already in memory as numpy arrays; time from the
first submit to the last result, the same span), both float_ssim. Prints
each run and the medians. Run with the venv that has the package installed
and after `cargo build --release -p vkssim-cli`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

import vkssim

W, H = 3840, 2160


def make(path: Path, frames: int, seed: int, noise: float) -> None:
    if path.exists() and path.stat().st_size == frames * W * H * 3 // 2:
        return
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    chroma = np.full(W * H // 2, 128, np.uint8).tobytes()
    with open(path, "wb") as f:
        for t in range(frames):
            base = 128 + 70 * np.sin((x + 8 * t) / 31.0) * np.cos((y - 5 * t) / 17.0)
            if noise:
                base += rng.normal(0, noise, base.shape).astype(np.float32)
            f.write(np.clip(base, 0, 255).astype(np.uint8).tobytes())
            f.write(chroma)


def luma(path: Path, frames: int) -> np.ndarray:
    raw = np.fromfile(path, np.uint8).reshape(frames, W * H * 3 // 2)
    return np.ascontiguousarray(raw[:, : W * H].reshape(frames, H, W))


def cli(vkssim_bin: Path, ref: Path, dist: Path, out: Path, backend: str) -> float:
    subprocess.run([str(vkssim_bin), "score", "-n", "--feature", "float_ssim", "-r", str(ref), "-d", str(dist), "-w", str(W), "-h", str(H),
                    "-p", "420", "-b", "8", "--backend", backend, "-q", "--json", "-o", str(out)], check=True)
    return json.loads(out.read_text())["fps"]


def python(ref: np.ndarray, dist: np.ndarray, backend: str) -> float:
    with vkssim.Scorer(W, H, backend=backend) as s:
        t0 = time.perf_counter()
        for i in range(ref.shape[0]):
            s.submit(ref[i], dist[i])
        n = len(list(s))
        elapsed = time.perf_counter() - t0
    assert n == ref.shape[0]
    return n / elapsed


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--frames", type=int, default=24)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--backend", default="cpu")
    p.add_argument("--dir", default="target/bench-python")
    p.add_argument("--vkssim", default="target/release/vkssim")
    a = p.parse_args()
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    ref, dist = d / f"ref_{a.frames}.yuv", d / f"dist_{a.frames}.yuv"
    make(ref, a.frames, 1, 0.0)
    make(dist, a.frames, 2, 6.0)
    r, dd = luma(ref, a.frames), luma(dist, a.frames)
    # Same scores both ways (the first run of each).
    # float_ssim alone (no VMAF model), as the Scorer and the CLI runs here.
    want = vkssim.score(ref, dist, "float_ssim", model=None, width=W, height=H, pix_fmt="420", bitdepth=8,
                        backend=a.backend, frame_cnt=2)
    got = vkssim.score(r[:2], dd[:2], "float_ssim", model=None, backend=a.backend)
    assert want.frames == got.frames
    runs_cli, runs_py = [], []
    for k in range(a.repeat):
        runs_cli.append(cli(Path(a.vkssim), ref, dist, d / "out.json", a.backend))
        runs_py.append(python(r, dd, a.backend))
        print(f"run {k + 1}: cli {runs_cli[-1]:.2f} fps, Scorer.submit {runs_py[-1]:.2f} fps", flush=True)
    mc, mp = statistics.median(runs_cli), statistics.median(runs_py)
    print(f"median over {a.repeat}: cli {mc:.2f} fps, Scorer.submit {mp:.2f} fps: {100 * mp / mc:.1f}% of the CLI")


if __name__ == "__main__":
    main()
