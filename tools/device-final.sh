#!/usr/bin/env bash
# Issue 28's closing run on the H200 (after tools/round-bundle.sh with
# BEFORE_BIN set; carry .gl and .gl-metrics): exactness (tools/vmaf-device-
# exact.sh, then VTESTS, default vk_metrics, api, api_temporal,
# api_shared_derived and api_shared, under validation), the
# before/after rows (tools/device-ab-rows.sh, BINS, default "vkssim
# vkssim-before"), device-resident 4K and 1080p VMAF pairs (and with
# device_resident_bench-before in .gl-metrics/bin, the same before), three
# whole 2-frame 4K `score` runs and
# libvmaf 2.3.1 on the host's 16 threads (4K 8-bit VMAF, twice), and the
# per-pass GPU times of 4K and 1080p 8-bit VMAF (VKSSIM_TIME_EACH_PASS=1).
# AB=0 leaves out the rows, QUICK=0 the per-pass times (to fit one call).
set -u
export OUT=${OUT:-/tmp}
timeout 300 bash tools/vmaf-device-exact.sh >$OUT/exact.log 2>&1; cat $OUT/vmaf/summary.txt
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
for t in ${VTESTS:-vk_metrics api api_temporal api_shared_derived api_shared}; do
  VKSSIM_VALIDATION=1 timeout 120 .gl-metrics/bin/$t --test-threads 4 >$OUT/$t.log 2>&1
  echo "$t (validation on): exit $? $(grep -h 'test result' $OUT/$t.log)"
done
[ "${AB:-1}" = 0 ] || BINS="${BINS:-vkssim vkssim-before}" timeout 420 bash tools/device-ab-rows.sh 2>&1 | tee $OUT/ab.txt
. "$(dirname "$0")/bench-device-common.sh"
for b in device_resident_bench device_resident_bench-before; do
  [ -x $X/$b ] || continue
  echo "$b 4K VMAF: $(timeout 60 $X/$b --vmaf --frames 2000 --reps 3 2>&1 | grep 'per pair')"
  echo "$b 1080p VMAF: $(timeout 60 $X/$b --vmaf --width 1920 --height 1080 --frames 4000 --reps 3 2>&1 | grep 'per pair')"
done
clip 3840 2160 8
for k in 1 2 3; do
  a=$(date +%s.%N); $X/vkssim score "${io[@]}" --frame_cnt 2 -q -o $D/s.xml; b=$(date +%s.%N)
  echo "whole 2-frame 4K score run $k: $(awk -v a=$a -v b=$b 'BEGIN { printf "%.3f", b - a }') s"
done
for k in 1 2; do
  a=$(date +%s.%N); $X/vmaf "${io[@]}" --threads 16 --frame_cnt 2 -q -o /dev/null >/dev/null 2>&1; b=$(date +%s.%N)
  $X/vmaf "${io[@]}" --threads 16 --frame_cnt 22 -q -o /dev/null >/dev/null 2>&1; c=$(date +%s.%N)
  echo "libvmaf 2.3.1 AVX2 16 threads 4K 8-bit VMAF run $k: $(awk -v a=$a -v b=$b -v c=$c 'BEGIN { printf "%.1f", 20 / ((c - b) - (b - a)) }') frames/s"
done
[ "${QUICK:-1}" = 0 ] || BINS=vkssim PROFILE=vkssim GREP=. timeout 100 bash tools/device-quick.sh | grep -v " VMAF:"
# The lines that must not be lost when a caller keeps only the output's
# tail: exactness and the tests under validation, again.
echo "== summary: exactness $(grep -c 'identical' $OUT/exact.log) identical, $(grep -ci 'differ' $OUT/exact.log) differ"
for t in ${VTESTS:-vk_metrics api api_temporal api_shared_derived api_shared}; do
  echo "== summary: $t (validation on): $(grep -h 'test result' $OUT/$t.log 2>/dev/null || echo 'no result')"
done
