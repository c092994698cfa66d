#!/usr/bin/env bash
# An A/B of two builds on the H200 for a motion change (after
# tools/round-bundle.sh with TESTS="api_temporal vk_motion vk_motion_v32
# vk_metrics" and BEFORE_BIN set, its vkssim-before renamed vkssim-prev and the
# earlier device_resident_bench copied in as device_resident_bench-prev; carry
# .gl and .gl-metrics): exactness (tools/vmaf-device-exact.sh; vk_metrics and
# api_temporal under validation), device-resident 4K and 1080p VMAF pairs, and
# in-process bench of 4K and 1080p 8-bit VMAF with each motion, each build in
# turn, twice.
set -u
export OUT=${OUT:-/tmp}
timeout 200 bash tools/vmaf-device-exact.sh >$OUT/exact.log 2>&1; cat $OUT/vmaf/summary.txt
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
for t in vk_metrics api_temporal; do
  VKSSIM_VALIDATION=1 timeout 120 .gl-metrics/bin/$t --test-threads 4 >$OUT/$t.log 2>&1
  echo "$t (validation on): exit $? $(grep -h 'test result' $OUT/$t.log)"
done
. tools/bench-device-common.sh
for b in device_resident_bench device_resident_bench-prev device_resident_bench device_resident_bench-prev; do
  echo "$b 4K VMAF: $(timeout 60 $X/$b --vmaf --frames 2000 --reps 3 2>&1 | grep 'per pair')"
  echo "$b 1080p VMAF: $(timeout 60 $X/$b --vmaf --width 1920 --height 1080 --frames 4000 --reps 3 2>&1 | grep 'per pair')"
done
for g in "3840 2160 8 202" "1920 1080 8 602"; do set -- $g
  clip $1 $2 $3
  for F in "-m version=vmaf_v0.6.1" "-m version=vmaf_v0.6.1 --motion-version 3.2.0"; do
    line="$1x$2 [$F]:"
    for B in vkssim vkssim-prev vkssim vkssim-prev; do
      $X/$B bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$OUT/r.json 2>/dev/null
      line="$line $B=$(fps $OUT/r.json | cut -c1-7)(busy $(json_num $OUT/r.json gpu_busy_us | cut -c1-5))"
    done; echo "$line"
  done
  rm -f ${p}_*.yuv
done
