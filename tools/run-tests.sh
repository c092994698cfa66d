#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls exactly this): installs
# missing system packages, then checks formatting, lints (warnings are errors),
# builds the documentation (warnings are errors) and runs every test of the
# workspace, including the libvmaf parity tests and the Vulkan tests on the
# machine's Vulkan device (lavapipe on a machine without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-debian.sh

step() {
  echo "==> $*" >&2
  local t0=$SECONDS
  "$@"
  echo "==> done in $((SECONDS - t0)) s: $*" >&2
}

# `limited SECONDS COMMAND...`: COMMAND, killed (TERM, then KILL 30 s later)
# if it runs past SECONDS, with a line saying so: a hang (a package index
# that stops answering, a test that never returns) fails the run in minutes
# and names itself, instead of holding CI until its own limit.
# From a terminal, --foreground: the command stays in the terminal's process
# group, so Ctrl-C reaches it (a timeout then kills the command only, not
# what it started).
limited() {
  local limit=$1 rc=0 fg=()
  shift
  if [ -t 0 ]; then fg=(--foreground); fi
  timeout "${fg[@]}" -k 30 "$limit" "$@" || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "==> TIMED OUT after $limit s: $*" >&2
  fi
  return "$rc"
}

# `from_index COMMAND...`: a pip install from the package index, limited to
# 10 minutes and tried a second time if the first fails (an index that
# stalls or drops the connection); the tries are logged. The installs pass
# pip `--timeout 60` (seconds per connection attempt, which pip retries):
# an environment's PIP_DEFAULT_TIMEOUT may be minutes.
from_index() {
  limited 600 "$@" || {
    echo "==> retrying once: $*" >&2
    limited 600 "$@"
  }
}

step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets -- -D warnings
# The CLI turns the engine's `ffmpeg` feature on, so the workspace lints it
# with; the library alone builds without it (issue 19): lint that too, and
# the CLI without FFmpeg.
step cargo clippy -p vkssim --all-targets -- -D warnings
step cargo clippy -p vkssim-cli --all-targets --no-default-features -- -D warnings
RUSTDOCFLAGS=-Dwarnings step cargo doc --workspace --no-deps
# The library's public surface, as rustdoc documents it, against the committed
# list: a change of the API is deliberate (regenerate the list when it is).
public_api() {
  if ! python3 tools/public-api.py target/doc/vkssim | diff -u docs/public-api.txt -; then
    echo "the public API of vkssim changed; if that is meant, run: python3 tools/public-api.py target/doc/vkssim > docs/public-api.txt" >&2
    return 1
  fi
}
step public_api
# Release profile: measured on the 2-core development machine from a clean
# target/ after clippy, the release build plus test run took 333 s and 375 s
# against 526 s and 487 s for the dev profile (dev builds full debug info, and
# the parity tests run faster optimised). --no-fail-fast: every failing test
# binary is reported, not only the first.
# Every library and binary first: tests load the C API's libvkssim_capi.so and
# run target/release/vkssim, which `cargo test` alone does not always build.
step cargo build --workspace --release
step limited 2400 cargo test --workspace --release --no-fail-fast
# The Vulkan Video client (issue 10, feature vulkan-video: gpu-video, wgpu):
# linted, built, its CLI error tests run, and the example run with validation
# on two small streams made here. Lavapipe has no Vulkan Video: the example
# then says so and exits 77, reported as a skip (its exactness and speed are
# measured on the H200, BENCHMARKS.md). Measured on the 2-core development
# machine with the workspace already built: clippy 62 s, the example 157 s, the
# CLI test 72 s, the run 1 s (about 5 minutes more).
step cargo clippy -p vkssim -p vkssim-cli --all-targets --features vulkan-video -- -D warnings
step cargo build --release -p vkssim --example vulkan_video --features vulkan-video
step limited 900 cargo test --release -p vkssim-cli --features vulkan-video --test h264_input
vulkan_video_example() {
  local d=target/vulkan-video rc=0
  mkdir -p "$d"
  for crf in 18 36; do
    ffmpeg -v error -y -f lavfi -i testsrc2=size=192x108:rate=30 -frames:v 24 -pix_fmt yuv420p \
      -c:v libx264 -crf "$crf" -x264-params keyint=12:bframes=2 -f h264 "$d/crf$crf.h264" </dev/null
  done
  VKSSIM_VALIDATION=1 target/release/examples/vulkan_video "$d/crf18.h264" "$d/crf36.h264" || rc=$?
  if [ "$rc" = 77 ]; then
    echo "==> SKIPPED vulkan_video example: no Vulkan Video H.264 decode device on this machine" >&2
  elif [ "$rc" != 0 ]; then
    return "$rc"
  fi
}
step vulkan_video_example
# The Ray catalog runner (tools/catalog): its test on a local Ray instance, in
# a venv under target/ kept while requirements.txt is unchanged and ray imports.
catalog_test() {
  local venv=target/catalog-venv req=tools/catalog/requirements.txt
  if ! cmp -s "$req" "$venv/requirements.txt" || ! "$venv/bin/python" -c 'import ray' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    from_index "$venv/bin/pip" install -q --disable-pip-version-check --timeout 60 -r "$req"
    cp "$req" "$venv/requirements.txt"
  fi
  RAY_USAGE_STATS_ENABLED=0 limited 600 "$venv/bin/python" tools/catalog/test_catalog.py </dev/null
}
step catalog_test
# The Python package (python/, issue 20): `pip install ./python` into a venv
# under target/ (numpy, pytest, tqdm and maturin installed once, kept while
# python/pyproject.toml is unchanged), maturin building into the workspace's
# target folder so the crates built above are reused; then its pytest suite,
# which runs target/release/vkssim and libvmaf's vmaf as oracles.
python_test() {
  local venv=target/python-venv
  if ! cmp -s python/pyproject.toml "$venv/pyproject.toml" ||
    ! "$venv/bin/python" -c 'import numpy, pytest, tqdm, maturin' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    from_index "$venv/bin/pip" install -q --disable-pip-version-check --timeout 60 numpy pytest tqdm 'maturin>=1.5,<2'
    cp python/pyproject.toml "$venv/pyproject.toml"
  fi
  # --no-build-isolation: the venv's maturin, found on PATH.
  PATH="$PWD/$venv/bin:$PATH" CARGO_TARGET_DIR="$PWD/target" limited 1200 "$venv/bin/pip" install -q \
    --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./python
  # Each test's name as it starts (-v), every thread's stack if one test runs
  # past 120 s (faulthandler), and the run killed at 600 s (it takes seconds).
  (cd python && limited 600 "../$venv/bin/python" -m pytest -v -o faulthandler_timeout=120 tests </dev/null)
}
step python_test
