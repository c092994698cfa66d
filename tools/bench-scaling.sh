#!/usr/bin/env bash
# Where the time goes at high frame rates: page-cache read speed (cat), the
# Vulkan path from files with 1 to 12 reader threads, the in-memory ceiling
# (no file reads), and 10-bit direct uploads. Used for BENCHMARKS.md.
#
#   tools/bench-scaling.sh [SCRATCH_DIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${VKSSIM:-$top/target/release/vkssim}
D=${1:-/tmp/vkssim-bench}
mkdir -p "$D"
for g in "1920 1080 8" "1920 1080 10" "3840 2160 10"; do
  set -- $g
  "$B" bench --write-yuv "$D/p${1}x${2}b$3" --frames 22 -w "$1" -h "$2" -b "$3" >/dev/null
done
f=$D/p1920x1080b8_ref.yuv
echo "### cat (1 thread), $(stat -c %s "$f") bytes from the page cache"
s=$(date +%s%N); cat "$f" >/dev/null; e=$(date +%s%N)
awk "BEGIN { printf \"%.2f GB/s\n\", $(stat -c %s "$f") / ($e - $s) }"
echo "### cat x8 in parallel"
s=$(date +%s%N); for i in 1 2 3 4 5 6 7 8; do cat "$f" >/dev/null & done; wait; e=$(date +%s%N)
awk "BEGIN { printf \"%.2f GB/s\n\", 8 * $(stat -c %s "$f") / ($e - $s) }"
row() {
  echo "### vkssim bench $*"
  timeout 30 "$B" bench "$@" --no-cpu --json | grep -E '^  "(ms_per_frame|frames_per_second|read_threads|frames_in_flight|memory_path)"' | tr -d '\n'
  echo
}
h8="-r $D/p1920x1080b8_ref.yuv -d $D/p1920x1080b8_dist.yuv -w 1920 -h 1080"
for t in 1 2 4 8 12; do row $h8 --frames 602 --upload direct --read-threads $t; done
row $h8 --frames 602 --upload direct --read-threads 12 --frames-in-flight 64
row --frames 602 -w 1920 -h 1080 --upload direct
row --frames 602 -w 1920 -h 1080
row --frames 202 --upload direct
row --frames 202
row -r $D/p1920x1080b10_ref.yuv -d $D/p1920x1080b10_dist.yuv -w 1920 -h 1080 -b 10 --frames 602 --upload direct
row -r $D/p3840x2160b10_ref.yuv -d $D/p3840x2160b10_dist.yuv -w 3840 -h 2160 -b 10 --frames 202 --upload direct
