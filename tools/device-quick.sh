#!/usr/bin/env bash
# A quick A/B on the H200 (after tools/round-bundle.sh, with the builds to
# compare in .gl-metrics/bin; carry .gl and .gl-metrics): 4K and 1080p
# 8-bit VMAF, each build's per-pass GPU times (VKSSIM_TIME_EACH_PASS=1, the
# passes matching GREP) and, with the passes side by side, frames/s of every
# build in BINS (default "vkssim vkssim-before"), in turn, twice.
. "$(dirname "$0")/bench-device-common.sh"
read -r -a bins <<<"${BINS:-vkssim vkssim-before}"
passes() { sed -n '/gpu_pass_us_mean/,/}/p' "$1" | grep -E "${GREP:-vif|adm|motion|total}" | tr -d '",}' | sed 's/^ */  /'; }
for g in "3840 2160 8 202" "1920 1080 8 602"; do set -- $g
  clip $1 $2 $3
  for B in ${PROFILE:-vkssim}; do
    VKSSIM_TIME_EACH_PASS=1 $X/$B bench "${io[@]}" --frames 42 --repeat 1 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/p.json 2>/dev/null
    echo "$1x$2 $B each pass:"; passes $OUT/p.json
  done
  line="$1x$2 VMAF:"
  for B in "${bins[@]}" "${bins[@]}"; do
    $X/$B bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/r.json 2>/dev/null
    line="$line $B=$(fps $OUT/r.json | cut -c1-7)(busy $(json_num $OUT/r.json gpu_busy_us | cut -c1-5))"
  done
  echo "$line"
done
