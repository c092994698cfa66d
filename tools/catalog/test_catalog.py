#!/usr/bin/env python3
"""The catalog runner's test: catalog.py on a new local Ray instance (2 CPUs,
CPU backend) over small generated clips, its table checked against single
`vkssim score --json` runs.

This module owns the test: the clips (deterministic raw YUV and Y4M made here,
no ffmpeg), the catalog CSV (a ladder run as one task, with an input error
in it; Y4M, 10-bit raw, extra_args, a task that crashes once, one that always
crashes, a refused extra_args), and the checks. Run it with the Python that has `ray`
(tools/run-tests.sh makes that venv); VKSSIM names the binary (default
target/release/vkssim). It prints `catalog: N passed, N failed` last and exits
non-zero on a failure.
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
VKSSIM = Path(os.environ.get("VKSSIM", ROOT / "target/release/vkssim")).resolve()
W, H = 64, 48


def planes(seed: int, frames: int, maximum: int) -> list[list[int]]:
    """`frames` frames of 4:2:0 samples (luma then both chroma planes)."""
    rng = random.Random(seed)
    size = W * H + 2 * (W // 2) * (H // 2)
    out = []
    for _ in range(frames):
        # Smooth gradients plus noise: SSIM well inside (0, 1).
        out.append([min(maximum, (i % W) * maximum // W // 2 + rng.randrange(maximum // 2))
                    for i in range(size)])
    return out


def distort(frames: list[list[int]], seed: int, amount: int, maximum: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[min(maximum, max(0, s + rng.randrange(-amount, amount + 1))) for s in f]
            for f in frames]


def raw(frames: list[list[int]], bitdepth: int) -> bytes:
    width = 1 if bitdepth == 8 else 2
    return b"".join(s.to_bytes(width, "little") for f in frames for s in f)


def y4m(frames: list[list[int]]) -> bytes:
    head = f"YUV4MPEG2 W{W} H{H} F25:1 Ip A1:1 C420jpeg\n".encode()
    return head + b"".join(b"FRAME\n" + bytes(f) for f in frames)


def make_clips(d: Path) -> None:
    ref8 = planes(1, 4, 255)
    (d / "a_ref.yuv").write_bytes(raw(ref8, 8))
    (d / "a_low.yuv").write_bytes(raw(distort(ref8, 2, 6, 255), 8))
    (d / "a_high.yuv").write_bytes(raw(distort(ref8, 3, 30, 255), 8))
    shutil.copy(d / "a_low.yuv", d / "flaky.yuv")
    shutil.copy(d / "a_low.yuv", d / "crash.yuv")
    # Their own references, so that each is a task of its own.
    shutil.copy(d / "a_ref.yuv", d / "f_ref.yuv")
    shutil.copy(d / "a_ref.yuv", d / "g_ref.yuv")
    refb = planes(4, 3, 255)
    (d / "b_ref.y4m").write_bytes(y4m(refb))
    (d / "b_dist.y4m").write_bytes(y4m(distort(refb, 5, 12, 255)))
    ref10 = planes(6, 3, 1023)
    (d / "c_ref10.yuv").write_bytes(raw(ref10, 10))
    (d / "c_dist10.yuv").write_bytes(raw(distort(ref10, 7, 40, 1023), 10))


RAW8 = {"width": str(W), "height": str(H), "pixel_format": "420", "bitdepth": "8"}
RAW10 = {**RAW8, "bitdepth": "10"}
# (reference, distorted, geometry, extra_args, expected status). Rows 0, 1
# and 5 are one ladder (one reference, the same geometry and extra_args).
ROWS = [
    ("a_ref.yuv", "a_low.yuv", RAW8, "", "ok"),
    ("a_ref.yuv", "a_high.yuv", RAW8, "", "ok"),
    ("a_ref.yuv", "a_high.yuv", RAW8, "--frame_cnt 2", "ok"),
    ("b_ref.y4m", "b_dist.y4m", {}, "", "ok"),
    ("c_ref10.yuv", "c_dist10.yuv", RAW10, "--precision max", "ok"),
    ("a_ref.yuv", "missing.yuv", RAW8, "", "error"),
    ("f_ref.yuv", "flaky.yuv", RAW8, "", "ok"),
    ("g_ref.yuv", "crash.yuv", RAW8, "", "failed"),
    ("a_ref.yuv", "a_low.yuv", RAW8, "-o elsewhere.json", "error"),
]
COLUMNS = ["reference", "distorted", "width", "height", "pixel_format", "bitdepth", "extra_args"]

# Logs each call, kills itself the first time it is given flaky.yuv, always
# exits 3 on crash.yuv, else runs the real vkssim.
WRAPPER = """#!/bin/sh
echo "$*" >> '{log}'
case "$*" in
  *crash.yuv*) echo "simulated crash" >&2; exit 3 ;;
  *flaky.yuv*) if [ ! -e '{mark}' ]; then : > '{mark}'; kill -9 $$; fi ;;
esac
exec '{vkssim}' "$@"
"""


def single_run(d: Path, row: tuple, out: Path) -> dict:
    """What a plain `vkssim score --json` of the row writes, parsed."""
    ref, dist, geometry, extra, _ = row
    cmd = [str(VKSSIM), "score", "-q", "-r", str(d / ref), "-d", str(d / dist),
           "--backend", "cpu", "--json", "-o", str(out)]
    for column, flag in (("width", "-w"), ("height", "-h"), ("pixel_format", "-p"),
                         ("bitdepth", "-b")):
        if column in geometry:
            cmd += [flag, geometry[column]]
    subprocess.run(cmd + extra.split(), check=True)
    return json.loads(out.read_text(), parse_float=str)


def main() -> int:
    d = Path(tempfile.mkdtemp(prefix="vkssim-catalog-"))
    try:
        return run(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run(d: Path) -> int:
    clips = d / "clips"
    clips.mkdir()
    make_clips(clips)
    with (clips / "catalog.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for ref, dist, geometry, extra, _ in ROWS:
            w.writerow([ref, dist] + [geometry.get(c, "") for c in COLUMNS[2:6]] + [extra])
    log, wrapper = d / "calls.log", d / "vkssim-wrapper"
    wrapper.write_text(WRAPPER.format(log=log, mark=d / "flaky.mark", vkssim=VKSSIM))
    wrapper.chmod(0o755)

    start = time.monotonic()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("catalog.py")), str(clips / "catalog.csv"),
         "--out-dir", str(d / "out"), "--address", "local", "--num-cpus", "2",
         "--vkssim", str(wrapper), "--max-retries", "1", "--parquet", "no"],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    seconds = time.monotonic() - start
    print(proc.stderr[-4000:], file=sys.stderr)
    with (d / "out/results.csv").open(newline="") as f:
        table = list(csv.DictReader(f))
    calls = log.read_text().splitlines()

    def count_calls(name: str) -> int:
        return sum(f"/{name} " in c for c in calls)

    checks: list[tuple[str, Callable[[], None]]] = []

    def check(name: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
        def add(f: Callable[[], None]) -> Callable[[], None]:
            checks.append((name, f))
            return f
        return add

    @check("exit status 1 (some rows not ok)")
    def _() -> None:
        assert proc.returncode == 1, proc.returncode

    @check("one table line per catalog row, in order, with the inputs as written")
    def _() -> None:
        assert [(r["row"], r["reference"], r["distorted"]) for r in table] == \
            [(str(n), ref, dist) for n, (ref, dist, *_) in enumerate(ROWS)], table

    @check("statuses")
    def _() -> None:
        assert [r["status"] for r in table] == [row[4] for row in ROWS], \
            [(r["status"], r["error"]) for r in table]

    @check("ok rows equal single vkssim runs (frames, mean, harmonic mean, min, per-frame)")
    def _() -> None:
        for n, row in enumerate(ROWS):
            if row[4] != "ok":
                continue
            r = table[n]
            single = single_run(clips, row, d / f"single-{n}.json")
            pooled = single["pooled_metrics"]["float_ssim"]
            assert r["frames"] == str(len(single["frames"])), (n, r)
            for key in ("mean", "harmonic_mean", "min"):
                assert r[key] == pooled[key], (n, key, r[key], pooled[key])
                assert float(r[key]) == float(pooled[key]), (n, key)
            assert r["per_frame_file"] == str(d / "out" / f"{n:05d}-{row[1]}.json"), r
            catalog_json = json.loads(Path(r["per_frame_file"]).read_text(), parse_float=str)
            assert catalog_json["frames"] == single["frames"], n
            assert catalog_json["pooled_metrics"] == single["pooled_metrics"], n
            assert r["error"] == "", r

    @check("ladder row with --frame_cnt 2 scored 2 frames; 10-bit row kept 17 digits")
    def _() -> None:
        assert table[2]["frames"] == "2" and table[1]["frames"] == "4", table[:3]
        assert len(table[4]["mean"].split(".")[1]) >= 15, table[4]

    @check("the ladder's rows (0, 1, 5) ran as one vkssim call with three -d")
    def _() -> None:
        ladder = [c for c in calls if "/a_low.yuv " in c and "/a_high.yuv " in c]
        assert len(ladder) == 1, calls
        assert "/missing.yuv " in ladder[0] and ladder[0].count(" -d ") == 3, ladder
        assert sum("/a_low.yuv " in c for c in calls) == 1, calls
        assert not list((d / "out").glob("ladder-*")), "a ladder output was not renamed"

    @check("input error reported once, with vkssim's message, not retried")
    def _() -> None:
        assert count_calls("missing.yuv") == 1, calls
        assert table[5]["error"].startswith("vkssim: error:"), table[5]
        assert "missing.yuv" in table[5]["error"], table[5]
        assert table[5]["per_frame_file"] == "", table[5]

    @check("a task killed once is retried and then scored")
    def _() -> None:
        assert count_calls("flaky.yuv") == 2, calls

    @check("a task that always crashes: 1 + max_retries attempts, then failed")
    def _() -> None:
        assert count_calls("crash.yuv") == 2, calls
        assert "exited with 3" in table[7]["error"], table[7]

    @check("extra_args setting the output refused without running vkssim")
    def _() -> None:
        assert "may not set -o" in table[8]["error"], table[8]
        assert not any("elsewhere.json" in c for c in calls), calls

    failed = 0
    for name, f in checks:
        try:
            f()
            print(f"catalog: ok: {name}")
        except AssertionError as e:
            failed += 1
            print(f"catalog: FAILED: {name}: {e}")
    print(f"catalog: driver run took {seconds:.1f} s")
    print(f"catalog: {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
