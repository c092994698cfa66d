"""Per-frame scores of several features, plotted with matplotlib to a PNG.

    python plot_scores.py REF DIST [-w W -h H -p 420 -b 8] [--out scores.png]

REF and DIST are anything ``vkssim score`` reads (Y4M, raw YUV with the
geometry flags, encoded files). Without them, a pair is made here: moving
gradients and a distorted copy whose damage grows over the clip.
Needs matplotlib (pip install matplotlib).
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import vkssim  # noqa: E402

FEATURES = ("float_ssim", "float_ms_ssim", "psnr=enable_chroma=false")


def generated(frames: int = 30, h: int = 180, w: int = 320):
    """Reference luma and a distorted copy, noise growing frame by frame."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:h, 0:w]
    ref = np.stack([128 + 60 * np.sin((x + 4 * t) / 9.0) * np.cos(y / 13.0) for t in range(frames)])
    noise = rng.standard_normal(ref.shape) * np.linspace(1, 12, frames)[:, None, None]
    dist = ref + noise
    return ref.clip(0, 255).astype(np.uint8), dist.clip(0, 255).astype(np.uint8)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                add_help=False)
    p.add_argument("reference", nargs="?")
    p.add_argument("distorted", nargs="?")
    p.add_argument("-w", "--width", type=int)
    p.add_argument("-h", "--height", type=int)
    p.add_argument("-p", "--pix-fmt")
    p.add_argument("-b", "--bitdepth", type=int)
    p.add_argument("--backend", default="auto")
    p.add_argument("--out", default="scores.png")
    p.add_argument("--help", action="help")
    a = p.parse_args()
    if a.reference and a.distorted:
        result = vkssim.score(a.reference, a.distorted, FEATURES, width=a.width, height=a.height,
                              pix_fmt=a.pix_fmt, bitdepth=a.bitdepth, backend=a.backend, progress=True,
                              model=None)
        title = f"{a.distorted} against {a.reference}"
    else:
        ref, dist = generated()
        result = vkssim.score(ref, dist, FEATURES, backend=a.backend, progress=True, model=None)
        title = "generated pair: noise growing over the clip"

    frames = [f["frameNum"] for f in result.frames]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    for name in ("float_ssim", "float_ms_ssim"):
        top.plot(frames, [f[name] for f in result.frames],
                 label=f"{name} (mean {result.pooled[name]['mean']:.4f})")
    top.set_ylabel("SSIM")
    top.legend()
    bottom.plot(frames, [f["psnr_y"] for f in result.frames], color="tab:green",
                label=f"psnr_y (mean {result.pooled['psnr_y']['mean']:.2f} dB)")
    bottom.set_ylabel("dB")
    bottom.set_xlabel("frame")
    bottom.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"{a.out}: {len(frames)} frames, {result.width}x{result.height}")


if __name__ == "__main__":
    main()
