#!/usr/bin/env python3
"""Scores a catalog of video pairs on a Ray cluster with `vkssim score`.

This module owns the catalog runner: reading the catalog CSV, turning each row
into one Ray task that runs `vkssim score --json -o <per-frame file>`, the
retry policy, and the results table (CSV, and Parquet when asked or when
pyarrow is importable). Ray schedules, places and retries the tasks; nothing
here pools processes.

Catalog CSV (UTF-8, with or without a byte order mark): a header row, then
one row per pair. Columns (each at most once):

    reference      required; path to the reference (.y4m, raw .yuv, ...)
    distorted      required; path to the distorted video
    width, height, pixel_format, bitdepth
                   optional; raw YUV geometry, passed as -w -h -p -b when set
    stream         optional; the distorted input's video stream (from 0),
                   passed as --stream (in a ladder, one per row: --stream
                   N,M,..., an empty cell counting as 0)
    reference_stream
                   optional; the reference's video stream, --reference-stream
    model          optional; a VMAF model in vmaf's -m syntax
                   (`version=vmaf_v0.6.1`, `path=model.json:name=mine`; a
                   relative path= is taken from the CSV's folder), or
                   `default` for libvmaf's default model (vmaf_v0.6.1),
                   passed as -m; its extractors run on the CPU twin (`auto`
                   picks it: a GPU task runs a model row with --backend
                   auto instead of vulkan)
    extra_args     optional; more `vkssim score` flags, split like a shell
                   line (e.g. "--frame_cnt 10 --precision max"); without
                   --feature, -m or -n, a row scores float_ssim alone
                   (-n --feature float_ssim)

A ladder (one reference, several encodes) is several rows with the same
reference, geometry columns, reference_stream, model and extra_args: they run as one
task, one
`vkssim score -r REF -d A -d B ...` that reads each reference frame once and,
on a GPU, uploads it once (a row of its own is a task of its own). An input
of a ladder that vkssim refuses is that row's error (vkssim's
`vkssim: error: scoring <that input's path>: ...` line); the other rows are
scored. Relative paths are taken from the CSV's folder and passed on as
absolute paths, so on a cluster the inputs must be at the same path on every
host (shared storage).

Each row's per-frame JSON goes to OUT_DIR/NNNNN-<distorted name>.json (NNNNN:
the row's index from 0). The table, OUT_DIR/results.csv unless --table says
otherwise, has one line per row in catalog order: row, reference, distorted
(as written in the CSV), status, frames, mean, harmonic_mean, min (the JSON's
pooled float_ssim, as written there; empty without float_ssim), vmaf,
vmaf_harmonic_mean, vmaf_min (the pooled mean, harmonic mean and min of the
model's score: `vmaf`, or the model column's `name=`; empty without a
model), per_frame_file, host, seconds, error.

Status: `ok`; `error` when vkssim refused the input (exit 1 with its
`vkssim: error:` line, or 2 with clap's `error:` line for a bad flag in
extra_args: deterministic, so reported and not retried); `failed` when the task
crashed (killed, another exit code, vkssim missing) on every one of its 1 +
--max-retries attempts (every row of a ladder task), or at once when vkssim
ran past --timeout seconds (default 3600; 0: no limit): the run is killed,
with anything it started, and not retried (a stalled input stalls again), its
error saying "timed out after N s". A row of a timed-out ladder whose output
vkssim had already written (each is written whole, when that input is done)
is `ok` from that file.

With GPUs in the cluster each task asks Ray for one GPU and runs vkssim on
the Vulkan device of the GPU index Ray gave it (`--device N`; Ray counts GPUs
as nvidia-smi does, which is assumed to be the order `vkssim devices` lists).
Without GPUs each task asks for --cpus-per-task CPUs and runs
`--backend cpu --threads N` with N the same number.

Exit status: 0 when every row is ok, 1 when a row is not, 2 for a bad catalog
or command line.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COLUMNS = ["reference", "distorted", "width", "height", "pixel_format", "bitdepth", "stream",
           "reference_stream", "model", "extra_args"]
RAW_FLAGS = [("width", "-w"), ("height", "-h"), ("pixel_format", "-p"), ("bitdepth", "-b")]
TABLE_COLUMNS = [
    "row", "reference", "distorted", "status", "frames", "mean", "harmonic_mean", "min",
    "vmaf", "vmaf_harmonic_mean", "vmaf_min", "per_frame_file", "host", "seconds", "error",
]
# The model column's value for libvmaf's default model.
DEFAULT_MODEL = ("default", "version=vmaf_v0.6.1")
# Flags the runner sets itself; a row's extra_args may not.
OWNED_FLAGS = {"-o", "--output", "--xml", "--json", "--csv", "--sub", "-r", "--reference",
               "-d", "--distorted"}
# Flags that pick what vkssim computes; without any, a row scores float_ssim.
METRIC_FLAGS = {"--feature", "-m", "--model", "-n", "--no_prediction", "--no-prediction"}
# vkssim's exit codes for an input it refuses: 1 (its "vkssim: error: ..."),
# 2 (a command-line error).
INPUT_ERROR_CODES = (1, 2)
# Seconds one vkssim run may take unless --timeout says otherwise.
DEFAULT_TIMEOUT = 3600.0


class CatalogError(Exception):
    """The catalog CSV cannot be used (reported before any task runs)."""


class TransientError(Exception):
    """A run that crashed rather than refused its input: Ray retries it."""


def read_catalog(path: Path) -> list[dict[str, str]]:
    """The catalog's rows, with reference and distorted made absolute."""
    base = path.resolve().parent
    # utf-8-sig: a byte order mark (as spreadsheets save CSV) is not part of
    # the first column's name.
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in reader.fieldnames or []]
        unknown = [h for h in header if h not in COLUMNS]
        if unknown or "reference" not in header or "distorted" not in header:
            raise CatalogError(
                f"{path}: the header must have reference and distorted, and only "
                f"{', '.join(COLUMNS)}; got {', '.join(header) or 'nothing'}")
        twice = [c for c in COLUMNS if header.count(c) > 1]
        if twice:
            raise CatalogError(f"{path}: the header has {', '.join(twice)} more than once")
        reader.fieldnames = header
        rows = []
        for n, raw in enumerate(reader):
            if None in raw:
                raise CatalogError(f"{path}: data row {n + 1} has more fields than the header")
            row = {k: (v or "").strip() for k, v in raw.items()}
            if not row["reference"] or not row["distorted"]:
                raise CatalogError(f"{path}: data row {n + 1} lacks reference or distorted")
            row["reference_path"] = str(base / row["reference"])
            row["distorted_path"] = str(base / row["distorted"])
            row["model_spec"] = model_spec(row.get("model", ""), base)
            rows.append(row)
    return rows


def model_spec(cell: str, base: Path) -> str:
    """The -m value of a model column: `default` is libvmaf's default model;
    a relative `path=` is made absolute from the CSV's folder `base`."""
    if cell == DEFAULT_MODEL[0]:
        return DEFAULT_MODEL[1]
    fields = []
    for field in cell.split(":") if cell else []:
        key, _, value = field.partition("=")
        if key == "path" and value and not os.path.isabs(value):
            field = f"path={base / value}"
        fields.append(field)
    return ":".join(fields)


def score_name(spec: str) -> str:
    """The output name of the model of -m `spec`: its `name=`, else vmaf."""
    names = [f.partition("=")[2] for f in spec.split(":") if f.startswith("name=")]
    return names[-1] if names and names[-1] else "vmaf"


def flag_name(arg: str) -> str:
    """`--threads=4` -> `--threads`."""
    return arg.split("=", 1)[0]


def stream_flags(row: dict[str, str], streams: list[str], extra: list[str]) -> list[str]:
    """--stream (one per distorted input: `streams`, an empty one counting
    as 0) and --reference-stream from the row's columns, when set; a column
    that extra_args sets too is refused."""
    out = []
    for flag, values in (("--stream", streams), ("--reference-stream", [row.get("reference_stream", "")])):
        if not any(values):
            continue
        if flag in {flag_name(a) for a in extra}:
            raise CatalogError(f"{flag} is set by both a column and extra_args")
        bad = [v for v in values if v and not v.isdigit()]
        if bad:
            raise CatalogError(f"{flag.lstrip('-')} {bad[0]!r} is not a stream number (0, 1, ...)")
        out += [flag, ",".join(v or "0" for v in values)]
    return out


def vkssim_command(vkssim: str, row: dict[str, str], out: str,
                   defaults: list[tuple[str, str]],
                   distorted: list[str] | None = None,
                   streams: list[str] | None = None) -> list[str]:
    """The `vkssim score` command line for one row (or, with `distorted` and
    their `streams`, for the ladder of those inputs against the row's
    reference, `out` then being an -o pattern); `defaults` are (flag, value)
    pairs that the row's extra_args override."""
    extra = shlex.split(row.get("extra_args", ""))
    owned = [a for a in extra if flag_name(a) in OWNED_FLAGS]
    if owned:
        raise CatalogError(f"extra_args may not set {', '.join(owned)}: the runner sets them")
    cmd = [vkssim, "score", "-q", "-r", row["reference_path"]]
    # The table reports float_ssim: scored alone (no VMAF model, which a
    # plain `vkssim score` runs, as vmaf does) unless the model column or
    # extra_args picks the metrics or models itself.
    if not row.get("model_spec") and not {flag_name(a) for a in extra} & METRIC_FLAGS:
        cmd += ["-n", "--feature", "float_ssim"]
    for d in distorted or [row["distorted_path"]]:
        cmd += ["-d", d]
    for column, flag in RAW_FLAGS:
        if row.get(column):
            cmd += [flag, row[column]]
    cmd += stream_flags(row, streams or [row.get("stream", "")], extra)
    set_by_row = {flag_name(a) for a in extra}
    if row.get("model_spec"):
        if set_by_row & {"-m", "--model", "-n", "--no_prediction", "--no-prediction"}:
            raise CatalogError("the model column and a model flag in extra_args: give one")
        cmd += ["-m", row["model_spec"]]
    for flag, value in defaults:
        if flag not in set_by_row:
            cmd += [flag, value]
    return cmd + extra + ["--json", "-o", out]


def ladder_key(row: dict[str, str]) -> tuple[str, ...]:
    """Rows with the same key run as one ladder task."""
    return (row["reference_path"], *(row.get(c, "") for c, _ in RAW_FLAGS),
            row.get("reference_stream", ""), row.get("model_spec", ""), row.get("extra_args", ""))


def pooled(json_path: str, model_score: str) -> dict[str, Any]:
    """Frames, the pooled float_ssim and the pooled `model_score` (the model's
    output) of a vkssim JSON file, numbers as written (empty when absent);
    a file with neither is unreadable (KeyError)."""
    with open(json_path) as f:
        doc = json.load(f, parse_float=str, parse_int=str)
    pools = doc["pooled_metrics"]
    if "float_ssim" not in pools and model_score not in pools:
        raise KeyError(f"neither float_ssim nor {model_score} is pooled")
    ssim, vmaf = pools.get("float_ssim", {}), pools.get(model_score, {})
    return {"frames": len(doc["frames"]), "mean": ssim.get("mean", ""),
            "harmonic_mean": ssim.get("harmonic_mean", ""), "min": ssim.get("min", ""),
            "vmaf": vmaf.get("mean", ""), "vmaf_harmonic_mean": vmaf.get("harmonic_mean", ""),
            "vmaf_min": vmaf.get("min", "")}


def run_vkssim(cmd: list[str], timeout: float | None) -> tuple[int, str] | None:
    """Runs `cmd` in a process group of its own: its exit status and standard
    error, or None when it ran past `timeout` seconds (None: no limit), the
    whole group then killed, so that nothing it started is left running."""
    with subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as proc:
        try:
            _, stderr = proc.communicate(timeout=timeout)
            return proc.returncode, stderr
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass  # a process that left the group holds the pipe; the child is dead
            return None


def lane_error(errors: list[str], distorted: str, lanes: list[str]) -> str | None:
    """The error of the ladder input `distorted` among vkssim's `errors`: its own
    (`vkssim: error: scoring <distorted>: ...`, the path exactly as passed; the
    longest such path when one lane's path begins another's), else the last one
    that names no lane (about the whole run), else None."""
    def lane(message: str) -> str | None:
        named = [d for d in lanes if message.startswith(f"vkssim: error: scoring {d}: ")]
        return max(named, key=len, default=None)

    owners = [lane(m) for m in errors]
    mine = [m for m, o in zip(errors, owners) if o == distorted]
    general = [m for m, o in zip(errors, owners) if o is None]
    return (mine or general or [None])[-1]


def score_task(cmd: list[str], outputs: list[tuple[str, str, str]], use_gpu: bool,
               timeout: float | None, model_score: str = "vmaf") -> list[dict[str, Any]]:
    """Runs one vkssim command inside a Ray task (the task's body): a pair, or a
    ladder. `outputs` has, per row, (the file vkssim writes, the row's
    per-frame file, the row's distorted path); gives each row's result.
    `timeout`: seconds the run may take (None: no limit); `model_score`: the
    name of the model's score in the output."""
    import ray  # the worker's own ray

    if use_gpu and "--device" not in map(flag_name, cmd):
        gpus = ray.get_gpu_ids()
        if gpus:
            cmd = cmd[:2] + ["--device", str(int(gpus[0]))] + cmd[2:]
    for written, final, _ in outputs:
        # A file an earlier attempt left must not pass for this one's.
        if written != final and os.path.exists(written):
            os.remove(written)
    start = time.monotonic()
    host = socket.gethostname()
    try:
        ran = run_vkssim(cmd, timeout)
    except OSError as e:
        raise TransientError(f"{host}: {e}") from None
    common = {"host": host, "seconds": f"{time.monotonic() - start:.3f}"}
    ladder = len(outputs) > 1
    if ran is None:
        # Not retried: a stalled input stalls again. A ladder's outputs that
        # vkssim wrote (whole, as each input finished) before the kill stand.
        stalled = {**common, "status": "failed",
                   "error": f"{host}: timed out after {timeout:g} s (vkssim killed; "
                            "a timeout is not retried)"}
        return [scored(written, final, common, host, model_score)
                if ladder and os.path.isfile(written) else dict(stalled)
                for written, final, _ in outputs]
    returncode, stderr = ran
    message = stderr.strip().splitlines()
    if returncode not in (0, *INPUT_ERROR_CODES) or (returncode and not message):
        tail = message[-1] if message else "no message"
        raise TransientError(f"{host}: vkssim exited with {returncode}: {tail}")
    # vkssim's own errors; else clap's (a bad flag, exit 2: its `error:` line,
    # not the usage and "--help" lines after it); else its last line.
    errors = ([m for m in message if m.startswith("vkssim: error:")]
              or [m for m in message if m.startswith("error:")] or message[-1:])
    lanes = [d for _, _, d in outputs]
    results = []
    for written, final, distorted in outputs:
        if returncode == 0 or (ladder and os.path.isfile(written)):
            results.append(scored(written, final, common, host, model_score))
            continue
        # A ladder names the input in each of its errors; a pair has one.
        error = lane_error(errors, distorted, lanes) if ladder else errors[-1]
        results.append({**common, "status": "error", "error": error or
                        f"vkssim exited with {returncode} and wrote no output for this input"})
    return results


def scored(written: str, final: str, common: dict[str, str], host: str,
           model_score: str) -> dict[str, Any]:
    """The `ok` result of the output file `written` that vkssim wrote, moved to
    the row's per-frame file `final` (`model_score`: the model's output name)."""
    try:
        if written != final:
            os.replace(written, final)
        return {**common, "status": "ok", **pooled(final, model_score)}
    except (OSError, ValueError, KeyError) as e:
        raise TransientError(f"{host}: unreadable output: {e}") from None


def write_tables(records: list[dict[str, Any]], table: Path, parquet: str) -> list[Path]:
    """Writes the CSV table and, unless `parquet` is no and when pyarrow imports, its
    Parquet twin beside it."""
    table.parent.mkdir(parents=True, exist_ok=True)
    with table.open("w", newline="") as f:
        writer = csv.DictWriter(f, TABLE_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)
    written = [table]
    if parquet == "no":
        return written
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return written

    def column(name: str, kind: Any, convert: Any) -> Any:
        values = [r.get(name) for r in records]
        return pa.array([convert(v) if v not in (None, "") else None for v in values], kind)

    floats = {"mean", "harmonic_mean", "min", "vmaf", "vmaf_harmonic_mean", "vmaf_min", "seconds"}
    ints = {"row", "frames"}
    arrays = [column(n, pa.float64(), float) if n in floats
              else column(n, pa.int64(), int) if n in ints
              else column(n, pa.string(), str) for n in TABLE_COLUMNS]
    path = table.with_suffix(".parquet")
    pq.write_table(pa.Table.from_arrays(arrays, names=TABLE_COLUMNS), path)
    return written + [path]


def seconds(text: str) -> float:
    """--timeout's value: a number of seconds, at least 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of seconds, 0 or more, is needed")
    return value


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Score a catalog CSV of video pairs on a Ray cluster with vkssim "
                    "(see the module docstring for the CSV and the table).")
    p.add_argument("catalog", type=Path, help="catalog CSV")
    p.add_argument("--out-dir", type=Path, required=True,
                   help="folder for the per-frame JSON files and the table (shared storage "
                        "on a cluster)")
    p.add_argument("--table", type=Path, help="results CSV (default OUT_DIR/results.csv)")
    p.add_argument("--parquet", choices=["auto", "yes", "no"], default="auto",
                   help="also write the table as .parquet: auto when pyarrow imports")
    p.add_argument("--address", default=os.environ.get("RAY_ADDRESS"),
                   help="Ray cluster to join (default $RAY_ADDRESS; `local` starts a new "
                        "local instance; unset: a running local cluster, else a new one)")
    p.add_argument("--num-cpus", type=int, help="CPUs of a new local instance")
    p.add_argument("--vkssim", default="vkssim",
                   help="vkssim binary as every host sees it (default: vkssim on PATH)")
    p.add_argument("--resources", choices=["auto", "gpu", "cpu"], default="auto",
                   help="tasks ask for one GPU, or CPUs; auto: GPUs when the cluster has any")
    p.add_argument("--cpus-per-task", type=int, default=1,
                   help="CPUs a task asks for (also vkssim's --threads without GPUs)")
    p.add_argument("--max-retries", type=int, default=3,
                   help="retries of a crashed task (an input error is never retried)")
    p.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds one vkssim run may take, 0 for no limit (default "
                        f"{DEFAULT_TIMEOUT:g}); one that runs past it is killed and its "
                        "rows failed, not retried")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        rows = read_catalog(args.catalog)
    except (OSError, CatalogError) as e:
        print(f"catalog: {e}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as e:
        print(f"catalog: {args.catalog}: not UTF-8 text ({e})", file=sys.stderr)
        return 2
    if args.parquet == "yes":
        try:
            import pyarrow  # noqa: F401  (checked before the run, used after it)
        except ImportError:
            print("catalog: --parquet yes needs pyarrow (pip install pyarrow)", file=sys.stderr)
            return 2
    out_dir = args.out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    table = (args.table or out_dir / "results.csv").resolve()

    import ray

    if args.address == "local":
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    else:
        ray.init(address=args.address, num_cpus=args.num_cpus if not args.address else None)
    use_gpu = args.resources == "gpu" or (
        args.resources == "auto" and ray.cluster_resources().get("GPU", 0) > 0)
    if use_gpu:
        options = {"num_gpus": 1, "num_cpus": args.cpus_per_task}
        defaults = [("--backend", "vulkan")]
    else:
        options = {"num_cpus": args.cpus_per_task}
        defaults = [("--backend", "cpu"), ("--threads", str(args.cpus_per_task))]
    task = ray.remote(score_task).options(
        max_retries=args.max_retries, retry_exceptions=[TransientError], **options)

    records: list[dict[str, Any]] = []
    ladders: dict[tuple[str, ...], list[int]] = {}
    for n, row in enumerate(rows):
        out = out_dir / f"{n:05d}-{Path(row['distorted']).name}.json"
        records.append({"row": n, "reference": row["reference"], "distorted": row["distorted"],
                        "per_frame_file": str(out)})
        try:
            vkssim_command(args.vkssim, row, str(out), defaults)
        except (CatalogError, ValueError) as e:
            records[n].update(status="error", error=f"catalog: {e}")
            print(f"catalog: row {n}: error {records[n]['error']}", file=sys.stderr)
            continue
        ladders.setdefault(ladder_key(row), []).append(n)
    print(f"catalog: {len(rows)} rows in {len(ladders)} tasks on "
          f"{'one GPU' if use_gpu else f'{args.cpus_per_task} CPU'} per task, "
          f"{ray.cluster_resources()}", file=sys.stderr)
    pending: dict[Any, list[int]] = {}
    for members in ladders.values():
        first = rows[members[0]]
        finals = [records[n]["per_frame_file"] for n in members]
        if len(members) == 1:
            cmd = vkssim_command(args.vkssim, first, finals[0], defaults)
            outputs = [(finals[0], finals[0], first["distorted_path"])]
        else:
            pattern = str(out_dir / f"ladder-{members[0]:05d}-{{index}}.json")
            distorted = [rows[n]["distorted_path"] for n in members]
            streams = [rows[n].get("stream", "") for n in members]
            cmd = vkssim_command(args.vkssim, first, pattern, defaults, distorted, streams)
            outputs = [(pattern.replace("{index}", str(k)), final, d)
                       for k, (final, d) in enumerate(zip(finals, distorted))]
        pending[task.remote(cmd, outputs, use_gpu, args.timeout or None,
                            score_name(first["model_spec"]))] = members

    done, submitted = 0, len(pending)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        members = pending.pop(ready[0])
        try:
            for n, result in zip(members, ray.get(ready[0])):
                records[n].update(result)
        except Exception as e:  # retries spent: Ray's error wraps the last cause
            cause = getattr(e, "cause", None) or e
            for n in members:
                records[n].update(status="failed", error=str(cause).strip().splitlines()[-1])
        done += 1
        for n in members:
            print(f"catalog: [{done}/{submitted}] row {n}: {records[n]['status']}"
                  f" {records[n].get('error', '')}".rstrip(), file=sys.stderr)
    for r in records:
        if r.get("status") != "ok":
            r["per_frame_file"] = ""
    written = write_tables(records, table, args.parquet)
    bad = sum(r["status"] != "ok" for r in records)
    print(f"catalog: {len(records) - bad} ok, {bad} not; table: "
          f"{', '.join(map(str, written))}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
