#!/usr/bin/env bash
# The measurements behind BENCHMARKS.md, in one run: writes the generated pair
# as raw 420 files (`vkssim bench --write-yuv`, 22 frames each) for 1080p and
# 4K at 8 and 10 bits, then times `vkssim bench` on them (read from the page
# cache every repetition) with the default staging path, direct upload into
# device memory, and one frame in flight; the built-in in-memory default; and
# libvmaf's `vmaf` CLI against `vkssim score` (tools/bench-vs-vmaf.sh).
#
#   tools/bench-matrix.sh [SCRATCH_DIR]
#
# Environment: VKSSIM (default target/release/vkssim), VMAF (see
# bench-vs-vmaf.sh). Each bench prints one JSON object after a `### ` line
# naming its command.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${VKSSIM:-$top/target/release/vkssim}
D=${1:-/tmp/vkssim-bench}
mkdir -p "$D"
"$B" devices
for g in "3840 2160 8" "3840 2160 10" "1920 1080 8" "1920 1080 10"; do
  set -- $g
  "$B" bench --write-yuv "$D/p${1}x${2}b$3" --frames 22 -w "$1" -h "$2" -b "$3" >/dev/null
done
# Page cache warm: the files were just written.
row() {
  echo "### vkssim bench $*"
  timeout 45 "$B" bench "$@" --json || echo "### (failed: $?)"
}
files() { echo "-r $D/p$1x$2b$3_ref.yuv -d $D/p$1x$2b$3_dist.yuv -w $1 -h $2 -b $3"; }
row --frames 22
row --frames 22 -w 1920 -h 1080
k8=$(files 3840 2160 8)
h8=$(files 1920 1080 8)
k10=$(files 3840 2160 10)
h10=$(files 1920 1080 10)
row $k8 --frames 22
row $k8 --frames 202 --no-cpu
row $k8 --frames 202 --no-cpu --upload direct
row $k8 --frames 42 --no-cpu --frames-in-flight 1
row $k10 --frames 202 --no-cpu
row $k10 --frames 202 --no-cpu --upload direct
row $h8 --frames 22
row $h8 --frames 602 --no-cpu
row $h8 --frames 602 --no-cpu --upload direct
row $h8 --frames 102 --no-cpu --frames-in-flight 1
row $h10 --frames 602 --no-cpu
row $h10 --frames 602 --no-cpu --upload direct
echo "### bench-vs-vmaf 1080p 8-bit, all cores"
timeout 60 "$top/tools/bench-vs-vmaf.sh" "$D/p1920x1080b8_ref.yuv" "$D/p1920x1080b8_dist.yuv" 22 -w 1920 -h 1080 -p 420 -b 8
echo "### bench-vs-vmaf 4K 8-bit, all cores"
timeout 90 "$top/tools/bench-vs-vmaf.sh" "$D/p3840x2160b8_ref.yuv" "$D/p3840x2160b8_dist.yuv" 22 -w 3840 -h 2160 -p 420 -b 8
echo "### bench-vs-vmaf 1080p 8-bit, vmaf on 1 thread"
THREADS=1 REPEAT=1 timeout 60 "$top/tools/bench-vs-vmaf.sh" "$D/p1920x1080b8_ref.yuv" "$D/p1920x1080b8_dist.yuv" 22 -w 1920 -h 1080 -p 420 -b 8
echo "### bench-vs-vmaf 4K 8-bit, vmaf on 1 thread"
THREADS=1 REPEAT=1 timeout 60 "$top/tools/bench-vs-vmaf.sh" "$D/p3840x2160b8_ref.yuv" "$D/p3840x2160b8_dist.yuv" 22 -w 3840 -h 2160 -p 420 -b 8
