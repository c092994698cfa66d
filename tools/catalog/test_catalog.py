#!/usr/bin/env python3
"""The catalog runner's test: catalog.py on a new local Ray instance (2 CPUs,
CPU backend) over small generated clips, its table checked against single
`vkssim score --json` runs.

This module owns the test: the clips (deterministic raw YUV and Y4M made here,
no ffmpeg), the catalog CSV (a ladder run as one task, with an input error
in it; a ladder of a missing x.yuv and a truncated x.yuv2; Y4M, 10-bit raw,
extra_args, a task that crashes once, one that always crashes, a refused
extra_args, a flag vkssim refuses; VMAF rows: the model column's `default`,
a built-in version and a model file, a ladder of them, a bad model and a
model column that extra_args contradicts, their scores checked against
libvmaf's own `vmaf` CLI), a second catalog run with a short --timeout
(a FIFO nobody writes; a ladder whose simulated vkssim writes one input's
output and stalls; a ladder that the real vkssim scores but for a FIFO input
that a thread here feeds one frame and then stalls), the catalog reading (a
byte order mark, a duplicated column) and --timeout's values, and the checks.
Run it with the Python that has `ray` (tools/run-tests.sh makes that venv);
VKSSIM names the binary (default target/release/vkssim), VMAF_BIN libvmaf's
`vmaf` (default: the one libvmaf-sys builds under target/release). It prints
`catalog: N passed, N failed` last and exits non-zero on a failure.
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
VKSSIM = Path(os.environ.get("VKSSIM", ROOT / "target/release/vkssim")).resolve()
CATALOG = Path(__file__).with_name("catalog.py")
MODEL_JSON = ROOT / "engine/models/vmaf_v0.6.1.json"
W, H = 64, 48
# The timeout run's --timeout and --max-retries.
TIMEOUT, TIMEOUT_RETRIES = 5, 5


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
    # A ladder with a stream column per row (j_*).
    shutil.copy(d / "b_ref.y4m", d / "j_ref.y4m")
    shutil.copy(d / "b_dist.y4m", d / "j_dist.y4m")
    ref10 = planes(6, 3, 1023)
    (d / "c_ref10.yuv").write_bytes(raw(ref10, 10))
    (d / "c_dist10.yuv").write_bytes(raw(distort(ref10, 7, 40, 1023), 10))
    # A ladder of x.yuv (missing) and x.yuv2 (truncated: one path begins the other).
    shutil.copy(d / "a_ref.yuv", d / "e_ref.yuv")
    (d / "x.yuv2").write_bytes((d / "a_low.yuv").read_bytes()[:100])
    # The timeout run's: a FIFO nobody writes; a ladder (h_*) whose wrapper
    # writes h_done's output and stalls.
    os.mkfifo(d / "fifo.yuv")
    shutil.copy(d / "a_ref.yuv", d / "h_ref.yuv")
    shutil.copy(d / "a_low.yuv", d / "h_done.yuv")
    shutil.copy(d / "a_high.yuv", d / "h_stall.yuv")
    # And a ladder (i_*) for the real vkssim, its middle input a FIFO that
    # FifoFeeder gives i_stall_clip's header and first frame (of 4).
    refi = planes(8, 4, 255)
    (d / "i_ref.y4m").write_bytes(y4m(refi))
    (d / "i_low.y4m").write_bytes(y4m(distort(refi, 9, 6, 255)))
    (d / "i_high.y4m").write_bytes(y4m(distort(refi, 10, 30, 255)))
    (d / "i_stall_clip.y4m").write_bytes(y4m(distort(refi, 11, 12, 255)))
    os.mkfifo(d / "i_stall.y4m")
    # The VMAF rows' (k_*, m_*) and a model file.
    for src, dst in (("a_ref.yuv", "k_ref.yuv"), ("a_low.yuv", "k_low.yuv"), ("a_high.yuv", "k_high.yuv"),
                     ("c_ref10.yuv", "m_ref10.yuv"), ("c_dist10.yuv", "m_dist10.yuv")):
        shutil.copy(d / src, d / dst)
    shutil.copy(MODEL_JSON, d / "model.json")


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
    ("e_ref.yuv", "x.yuv", RAW8, "", "error"),
    ("e_ref.yuv", "x.yuv2", RAW8, "", "error"),
    ("b_ref.y4m", "b_dist.y4m", {}, "--bogus", "error"),
    # Stream columns: a ladder (12, 13) with a stream per row, the second one
    # that a Y4M lacks; the reference's stream 1, which a Y4M lacks.
    ("j_ref.y4m", "b_dist.y4m", {"stream": "0"}, "", "ok"),
    ("j_ref.y4m", "j_dist.y4m", {"stream": "1"}, "", "error"),
    ("b_ref.y4m", "b_dist.y4m", {"reference_stream": "1"}, "", "error"),
    # VMAF (model column): a ladder (15, 16) with the default model at full
    # precision; a built-in version at 10 bits; a model file named `mine`;
    # a model vkssim refuses; a model column and -n in extra_args.
    ("k_ref.yuv", "k_low.yuv", {**RAW8, "model": "default"}, "--precision max", "ok"),
    ("k_ref.yuv", "k_high.yuv", {**RAW8, "model": "default"}, "--precision max", "ok"),
    ("m_ref10.yuv", "m_dist10.yuv", {**RAW10, "model": "version=vmaf_v0.6.1"}, "", "ok"),
    ("k_ref.yuv", "k_high.yuv", {**RAW8, "model": "path=model.json:name=mine"}, "--precision max", "ok"),
    ("k_ref.yuv", "k_low.yuv", {**RAW8, "model": "version=vmaf_v9"}, "", "error"),
    ("k_ref.yuv", "k_low.yuv", {**RAW8, "model": "default"}, "-n", "error"),
]
# The VMAF rows libvmaf's vmaf scores too.
VMAF_ROWS = (15, 16, 17, 18)
# The timeout run's rows: a pair that stalls, a ladder whose first input is
# done before the (simulated) stall, and a ladder (rows 3 to 5, the real
# vkssim) whose middle input stalls after its first frame. Three tasks: the
# run's Ray instance has 3 CPUs, so that all of them run at once.
TIMEOUT_ROWS = [
    ("a_ref.yuv", "fifo.yuv", RAW8, "", "failed"),
    ("h_ref.yuv", "h_done.yuv", RAW8, "", "ok"),
    ("h_ref.yuv", "h_stall.yuv", RAW8, "", "failed"),
    ("i_ref.y4m", "i_low.y4m", {}, "", "ok"),
    ("i_ref.y4m", "i_stall.y4m", {}, "", "failed"),
    ("i_ref.y4m", "i_high.y4m", {}, "", "ok"),
]
TIMEOUT_CPUS = 3
# The stalled ladder's stand-in for what it starts (found by its command line).
STALL_SLEEP = "987.654"
COLUMNS = ["reference", "distorted", "width", "height", "pixel_format", "bitdepth", "stream",
           "reference_stream", "model", "extra_args"]

# Logs each call, kills itself the first time it is given flaky.yuv, always
# exits 3 on crash.yuv, on h_stall.yuv writes the ladder's first output (what
# vkssim does when that input is done: whole, by a rename) and stalls in a
# child that makes leak.mark if it outlives the timeout's kill by 2 s, else runs
# the real vkssim.
WRAPPER = """#!/bin/sh
echo "$*" >> '{log}'
case "$*" in
  *crash.yuv*) echo "simulated crash" >&2; exit 3 ;;
  *flaky.yuv*) if [ ! -e '{mark}' ]; then : > '{mark}'; kill -9 $$; fi ;;
  *h_stall.yuv*)
    prev=; for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
    first=$(printf %s "$out" | sed 's/{{index}}/0/')
    cp '{done_json}' "$first.part" && mv "$first.part" "$first"
    (sleep {leak_after}; : > '{leak}'; sleep {sleep}) </dev/null >/dev/null 2>&1 &
    wait; exit 0 ;;
esac
exec '{vkssim}' "$@"
"""


def model_flag(d: Path, geometry: dict) -> list[str]:
    """-m and the row's model (`default`: vmaf_v0.6.1; a path from `d`), or nothing."""
    model = geometry.get("model", "")
    if not model:
        return []
    if model == "default":
        return ["-m", "version=vmaf_v0.6.1"]
    return ["-m", model.replace("path=", f"path={d}/")]


def single_run(d: Path, row: tuple, out: Path, program: Path = VKSSIM, env: dict | None = None) -> dict:
    """What a plain `vkssim score --json` of the row writes, parsed (or, with
    `program` libvmaf's vmaf, what it writes for the same flags)."""
    ref, dist, geometry, extra, _ = row
    cmd = [str(program), "-q", "-r", str(d / ref), "-d", str(d / dist), "--json", "-o", str(out)]
    if program == VKSSIM:
        cmd[1:1] = ["score"]
        cmd += ["--backend", "cpu"] + extra.split()
        if not geometry.get("model") and not set(extra.split()) & {"--feature", "-m", "--model", "-n", "--no_prediction"}:
            cmd += ["-n", "--feature", "float_ssim"]
    else:
        cmd += ["--cpumask", "255"]
    for column, flag in (("width", "-w"), ("height", "-h"), ("pixel_format", "-p"),
                         ("bitdepth", "-b"), ("stream", "--stream"),
                         ("reference_stream", "--reference-stream")):
        if column in geometry:
            cmd += [flag, geometry[column]]
    subprocess.run(cmd + model_flag(d, geometry), check=True, env=env, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text(), parse_float=str)


def vmaf_oracle(d: Path) -> tuple[Path, dict]:
    """libvmaf's vmaf CLI ($VMAF_BIN, else the newest libvmaf-sys build) and
    the environment that makes it print every score with 17 significant
    digits (tests/c/vmaf_full_precision.c under LD_PRELOAD, built into `d`)."""
    found = sorted(ROOT.glob("target/release/build/libvmaf-sys-*/out/build/tools/vmaf"),
                   key=os.path.getmtime)
    vmaf = Path(os.environ.get("VMAF_BIN") or (found[-1] if found else "vmaf-not-built"))
    shim = d / "vmaf_full_precision.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                    str(ROOT / "tests/c/vmaf_full_precision.c")], check=True)
    return vmaf, {**os.environ, "LD_PRELOAD": str(shim)}


def score_name(row: tuple) -> str:
    """The output name of the row's model's score (`vmaf` unless it is named)."""
    model = row[2].get("model", "")
    return model.split("name=")[1] if "name=" in model else "vmaf"


def write_catalog(path: Path, rows: list[tuple], encoding: str = "utf-8") -> None:
    """A catalog CSV of `rows` (as ROWS has them)."""
    with path.open("w", newline="", encoding=encoding) as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for ref, dist, geometry, extra, _ in rows:
            w.writerow([ref, dist] + [geometry.get(c, "") for c in COLUMNS[2:-1]] + [extra])


def drive(catalog: Path, out: Path, *flags: str, limit: float = 600,
          cpus: int = 2) -> tuple[subprocess.CompletedProcess | None, float]:
    """catalog.py on `catalog` (a new local Ray instance of `cpus` CPUs), and
    the seconds it took; None when it ran past `limit` seconds."""
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, str(CATALOG), str(catalog), "--out-dir", str(out),
             "--address", "local", "--num-cpus", str(cpus), "--parquet", "no", *flags],
            env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start
    return proc, time.monotonic() - start


class FifoFeeder(threading.Thread):
    """Writes `data` into the FIFO `path` once a reader has opened it, then
    keeps its end open, writing nothing more, until stop(). It opens without
    blocking (retried until a reader is there), so that it cannot hang when
    nobody ever reads: `opened` says whether one did.

    `data` must fit the pipe's buffer (64 KiB on Linux): written at once, it
    is there whether or not the reader is still reading."""

    def __init__(self, path: Path, data: bytes) -> None:
        super().__init__(daemon=True)
        self.path, self.data = path, data
        self.opened = self.wrote = False
        self._ended = threading.Event()

    def run(self) -> None:
        while not self._ended.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                self._ended.wait(0.02)
                continue
            try:
                self.opened = True
                os.write(fd, self.data)
                self.wrote = True
                self._ended.wait()
            finally:
                os.close(fd)
            return

    def stop(self) -> None:
        self._ended.set()
        self.join(timeout=10)


def read_table(path: Path) -> list[dict[str, str]]:
    """A results table's rows; none when it was not written."""
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def running(needle: bytes) -> list[str]:
    """The processes whose command line has `needle`, as `pid: command`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes()
        except OSError:
            continue
        if needle in text:
            command = text.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{cmdline.parent.name}: {command}")
    return found


def load_catalog_module() -> Any:
    """catalog.py as a module (it imports ray only when it runs a catalog)."""
    spec = importlib.util.spec_from_file_location("catalog_under_test", CATALOG)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    write_catalog(clips / "catalog.csv", ROWS)
    done_json = d / "h_done-single.json"
    single_run(clips, TIMEOUT_ROWS[1], done_json)
    log, wrapper = d / "calls.log", d / "vkssim-wrapper"
    wrapper.write_text(WRAPPER.format(log=log, mark=d / "flaky.mark", vkssim=VKSSIM,
                                      done_json=done_json, sleep=STALL_SLEEP,
                                      leak=d / "leak.mark", leak_after=TIMEOUT + 2))
    wrapper.chmod(0o755)

    proc, seconds = drive(clips / "catalog.csv", d / "out", "--vkssim", str(wrapper),
                          "--max-retries", "1")
    assert proc is not None, "the catalog run did not end"
    print(proc.stderr[-4000:], file=sys.stderr)
    table = read_table(d / "out/results.csv")
    calls = log.read_text().splitlines()

    # The timeout run: its own catalog, log and Ray instance; i_stall.y4m's
    # header and first frame fed while it runs.
    write_catalog(clips / "timeout.csv", TIMEOUT_ROWS)
    log.rename(d / "calls-main.log")
    stall_clip = (clips / "i_stall_clip.y4m").read_bytes()
    first_frame_end = stall_clip.index(b"\n") + 1 + len(b"FRAME\n") + W * H * 3 // 2
    feeder = FifoFeeder(clips / "i_stall.y4m", stall_clip[:first_frame_end])
    feeder.start()
    try:
        t_proc, t_seconds = drive(clips / "timeout.csv", d / "out-timeout",
                                  "--vkssim", str(wrapper), "--timeout", str(TIMEOUT),
                                  "--max-retries", str(TIMEOUT_RETRIES),
                                  limit=(1 + TIMEOUT_RETRIES) * TIMEOUT + 120, cpus=TIMEOUT_CPUS)
    finally:
        feeder.stop()
    if t_proc is not None:
        print(t_proc.stderr[-3000:], file=sys.stderr)
    t_table = read_table(d / "out-timeout/results.csv")
    t_calls = log.read_text().splitlines() if log.exists() else []
    # What the timed-out runs left running, looked at once they are over.
    left = (running(str(clips / "fifo.yuv").encode()) + running(f"sleep\0{STALL_SLEEP}".encode())
            + running(str(clips / "i_stall.y4m").encode()))

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
            pools = single["pooled_metrics"]
            assert r["frames"] == str(len(single["frames"])), (n, r)
            for pool, prefix in (("float_ssim", ""), (score_name(row), "vmaf_")):
                for key in ("mean", "harmonic_mean", "min"):
                    column = f"{prefix}{key}".replace("vmaf_mean", "vmaf")
                    if pool not in pools:
                        assert r[column] == "", (n, column, r)
                        continue
                    assert r[column] == pools[pool][key], (n, column, r[column], pools[pool][key])
                    assert float(r[column]) == float(pools[pool][key]), (n, column)
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

    @check("ladder errors go to the input they name exactly (x.yuv missing, x.yuv2 truncated)")
    def _() -> None:
        missing, short = table[9], table[10]
        assert missing["error"].startswith(f"vkssim: error: scoring {clips / 'x.yuv'}: "), missing
        assert "No such file" in missing["error"], missing
        assert short["error"].startswith(f"vkssim: error: scoring {clips / 'x.yuv2'}: "), short
        assert "incomplete" in short["error"], short
        assert sum("/x.yuv " in c and "/x.yuv2 " in c for c in calls) == 1, calls

    @check("a flag vkssim refuses (exit 2): clap's error: line, not its last line")
    def _() -> None:
        assert table[11]["error"] == "error: unexpected argument '--bogus' found", table[11]

    @check("stream columns: a ladder's per row (--stream 0,1), the reference's (--reference-stream)")
    def _() -> None:
        ladder = [c for c in calls if "/j_dist.y4m " in c]
        assert len(ladder) == 1 and "/b_dist.y4m " in ladder[0], calls
        assert " --stream 0,1 " in ladder[0], ladder
        assert table[13]["error"].startswith(f"vkssim: error: scoring {clips / 'j_dist.y4m'}: "), table[13]
        assert "stream 1" in table[13]["error"], table[13]
        assert "b_ref.y4m" in table[14]["error"] and "stream 1" in table[14]["error"], table[14]
        assert any(" --reference-stream 1 " in c for c in calls), calls

    @check("VMAF rows: the model's pooled score is libvmaf's vmaf's, digit for digit "
           "(17 digits with --precision max)")
    def _() -> None:
        vmaf, full = vmaf_oracle(d)
        for n in VMAF_ROWS:
            row = ROWS[n]
            env = full if "--precision max" in row[3] else None
            want = single_run(clips, row, d / f"vmaf-{n}.json", vmaf, env)["pooled_metrics"][score_name(row)]
            got = (table[n]["vmaf"], table[n]["vmaf_harmonic_mean"], table[n]["vmaf_min"])
            assert got == (want["mean"], want["harmonic_mean"], want["min"]), (n, got, want)
            assert table[n]["mean"] == "", table[n]  # no float_ssim asked

    @check("VMAF rows: the ladder (15, 16) ran as one call with -m; a model file by its absolute path")
    def _() -> None:
        ladder = [c for c in calls if "/k_low.yuv " in c and "/k_high.yuv " in c]
        assert len(ladder) == 1 and " -m version=vmaf_v0.6.1 " in ladder[0], calls
        assert any(f" -m path={clips / 'model.json'}:name=mine " in c for c in calls), calls

    @check("VMAF rows: a model vkssim refuses, and a model column beside -n, are errors")
    def _() -> None:
        assert table[19]["error"].startswith("vkssim: error:") and "vmaf_v9" in table[19]["error"], table[19]
        assert "model column and a model flag" in table[20]["error"], table[20]

    @check("a catalog saved with a UTF-8 byte order mark is read")
    def _() -> None:
        bom = d / "bom.csv"
        write_catalog(bom, ROWS[:2], encoding="utf-8-sig")
        assert bom.read_bytes().startswith(b"\xef\xbb\xbfreference,"), bom.read_bytes()[:20]
        rows = load_catalog_module().read_catalog(bom)
        assert [(r["reference"], r["distorted"]) for r in rows] == \
            [(ref, dist) for ref, dist, *_ in ROWS[:2]], rows
        assert rows[0]["reference_path"] == str(d.resolve() / "a_ref.yuv"), rows[0]

    @check("a duplicated header column: exit 2 naming it, before any task")
    def _() -> None:
        dup = d / "dup.csv"
        dup.write_text("reference,distorted,distorted\na_ref.yuv,a_low.yuv,a_high.yuv\n")
        # /bin/false and no retries: an old runner that ran it ends soon.
        p, _ = drive(dup, d / "out-dup", "--vkssim", "/bin/false", "--max-retries", "0",
                     limit=120)
        assert p is not None, "did not end"
        assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
        assert "distorted more than once" in p.stderr, p.stderr[-2000:]
        assert not (d / "out-dup/results.csv").exists(), "it ran the catalog"

    @check("--timeout: default 3600 s, 0 (no limit) taken, negative refused (exit 2)")
    def _() -> None:
        catalog = load_catalog_module()
        base = ["c.csv", "--out-dir", str(d / "o")]
        assert catalog.parse_args(base).timeout == 3600, catalog.parse_args(base).timeout
        assert catalog.parse_args(base + ["--timeout", "0"]).timeout == 0
        assert catalog.parse_args(base + ["--timeout", "2.5"]).timeout == 2.5
        for bad in ("-1", "nan", "soon"):
            try:
                with contextlib.redirect_stderr(io.StringIO()):  # argparse's usage message
                    parsed = catalog.parse_args(base + [f"--timeout={bad}"])
            except SystemExit as e:
                assert e.code == 2, (bad, e.code)
            else:
                raise AssertionError(f"--timeout={bad} taken: {parsed.timeout}")

    @check(f"a stalled input (a FIFO nobody writes) times out: exit 1, failed, "
           f"'timed out after {TIMEOUT} s'")
    def _() -> None:
        assert t_proc is not None, f"the timeout run did not end in {t_seconds:.0f} s"
        assert t_proc.returncode == 1, (t_proc.returncode, t_proc.stderr[-2000:])
        assert len(t_table) == len(TIMEOUT_ROWS), t_table
        row = t_table[0]
        assert row["status"] == "failed", row
        assert f"timed out after {TIMEOUT} s" in row["error"], row
        assert row["per_frame_file"] == "", row
        assert TIMEOUT <= float(row["seconds"]) < TIMEOUT + 5, row

    @check(f"a timeout is not retried: one call each, the run well under "
           f"(1 + {TIMEOUT_RETRIES}) x {TIMEOUT} s")
    def _() -> None:
        for name in ("fifo.yuv", "h_stall.yuv", "i_stall.y4m"):
            assert sum(f"/{name} " in c for c in t_calls) == 1, (name, t_calls)
        assert t_seconds < (1 + TIMEOUT_RETRIES) * TIMEOUT, t_seconds

    @check("a timed-out run is killed with what it started: nothing left running")
    def _() -> None:
        assert not (d / "leak.mark").exists(), "the stalled wrapper's child outlived the kill"
        assert not left, left

    @check("a timed-out ladder: the input done before the stall is ok from its file, "
           "the other timed out (simulated vkssim)")
    def _() -> None:
        assert [r["status"] for r in t_table[:3]] == [row[4] for row in TIMEOUT_ROWS[:3]], t_table
        done, stalled = t_table[1], t_table[2]
        expected = json.loads(done_json.read_text(), parse_float=str)
        pooled = expected["pooled_metrics"]["float_ssim"]
        assert done["frames"] == str(len(expected["frames"])), done
        assert [done[k] for k in ("mean", "harmonic_mean", "min")] == \
            [pooled[k] for k in ("mean", "harmonic_mean", "min")], (done, pooled)
        assert done["per_frame_file"] == str(d / "out-timeout/00001-h_done.yuv.json"), done
        assert json.loads(Path(done["per_frame_file"]).read_text()) == \
            json.loads(done_json.read_text()), done
        assert f"timed out after {TIMEOUT} s" in stalled["error"], stalled
        assert not list((d / "out-timeout").glob("ladder-*")), "a ladder output was not renamed"

    @check("a timed-out ladder (real vkssim, a FIFO input fed one frame of 4, then stalled): "
           "the other inputs ok, equal to single runs; the FIFO's row timed out")
    def _() -> None:
        assert feeder.opened and feeder.wrote, "vkssim never opened i_stall.y4m"
        assert [r["status"] for r in t_table[3:]] == [row[4] for row in TIMEOUT_ROWS[3:]], \
            [(r["status"], r["error"]) for r in t_table[3:]]
        for n in (3, 5):
            r, row = t_table[n], TIMEOUT_ROWS[n]
            single = single_run(clips, row, d / f"single-timeout-{n}.json")
            pooled = single["pooled_metrics"]["float_ssim"]
            assert r["frames"] == str(len(single["frames"])) == "4", (n, r)
            assert [r[k] for k in ("mean", "harmonic_mean", "min")] == \
                [pooled[k] for k in ("mean", "harmonic_mean", "min")], (n, r, pooled)
            assert r["per_frame_file"] == str(d / "out-timeout" / f"{n:05d}-{row[1]}.json"), r
            catalog_json = json.loads(Path(r["per_frame_file"]).read_text(), parse_float=str)
            assert catalog_json["frames"] == single["frames"], n
            assert r["error"] == "", r
        stalled = t_table[4]
        assert f"timed out after {TIMEOUT} s" in stalled["error"], stalled
        assert stalled["per_frame_file"] == "", stalled
        ladder = [c for c in t_calls if "/i_stall.y4m " in c]
        assert len(ladder) == 1 and ladder[0].count(" -d ") == 3, t_calls
        assert sum("/i_low.y4m " in c or "/i_high.y4m " in c for c in t_calls) == 1, t_calls

    failed = 0
    for name, f in checks:
        try:
            f()
            print(f"catalog: ok: {name}")
        except Exception as e:  # an assertion, or what a check tripped on
            failed += 1
            why = e if isinstance(e, AssertionError) else f"{type(e).__name__}: {e}"
            print(f"catalog: FAILED: {name}: {why}")
    print(f"catalog: driver run took {seconds:.1f} s, the timeout run {t_seconds:.1f} s")
    print(f"catalog: {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
