"""Memory that stays flat over repeated calls (issue 29, item 3): the
demuxer releases each packet it reads, so scoring an encoded pair again and
again in one process does not grow the process by the packets read."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import vkssim


def _rss_kib() -> int:
    """This process's resident set size now (VmRSS), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    pytest.fail("no VmRSS line in /proc/self/status")


@pytest.fixture(scope="module")
def noise_pair(tmp_path_factory):
    """Two 100-frame 320x240 FFV1 streams of noise in Matroska: each packet
    is about 115 KB, so one call reads about 23 MB of packets."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("no ffmpeg on PATH: tools/setup-debian.sh installs it (this test encodes its streams)")
    d = tmp_path_factory.mktemp("noise")
    out = []
    for seed in (1, 2):
        path = d / f"noise{seed}.mkv"
        src = f"testsrc2=size=320x240:rate=25,noise=alls=80:allf=t:all_seed={seed}"
        p = subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", src, "-frames:v", "100",
                            "-pix_fmt", "yuv420p", "-c:v", "ffv1", str(path)],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr
        out.append(path)
    return out


def test_repeated_score_calls_keep_memory_flat(noise_pair):
    ref, dist = noise_pair
    rss = []
    for _ in range(6):
        result = vkssim.score(ref, dist, ["psnr"], backend="cpu", model=None)
        assert len(result.frames) == 100
        rss.append(_rss_kib())
    # From the 2nd call to the 6th: 4 calls, about 92 MB of packets read.
    grown = rss[5] - rss[1]
    assert grown < 16 * 1024, f"RSS after each call (KiB): {rss}; grew {grown} KiB from the 2nd to the 6th"
