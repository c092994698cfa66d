#!/usr/bin/env bash
# The whole CLI's time for runs of a given length, two builds in one run
# (after tools/round-bundle.sh here, with the builds in .gl-metrics/bin;
# carry .gl and .gl-metrics): for each row of ROWS (";"-separated "W H BITS N
# FLAGS..."), 4:2:0 files of N frames (`vkssim bench --write-yuv`, read once
# so they are in the page cache), then `BIN score --backend vulkan FLAGS` on
# all N frames for each binary of BINS (default "vkssim vkssim-old": copy
# the build to compare there as vkssim-old), in
# turn, REPS times (default 3): the median wall time of each, start-up,
# slot creation and release included (what a user waits for), and the
# frames in flight each picked.
set -u
. "$(dirname "$0")/bench-device-common.sh"
export OUT=${OUT:-/tmp}
read -r -a bins <<<"${BINS:-vkssim vkssim-old}"
IFS=';' read -r -a rows <<<"${ROWS:-3840 2160 8 400 -m version=vmaf_v0.6.1;3840 2160 8 400 -n --feature float_ms_ssim;3840 2160 8 400 -m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim;3840 2160 10 300 -m version=vmaf_v0.6.1;1920 1080 8 1200 -m version=vmaf_v0.6.1}"
for row in "${rows[@]}"; do
  read -r w h bits n flags <<<"$row"
  read -r -a fl <<<"$flags"
  long_clip "$w" "$h" "$bits" "$n" || continue
  io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w "$w" -h "$h" -b "$bits" -p 420 "${fl[@]}" --backend vulkan -q -o $D/x.xml)
  declare -A ts=()
  for ((r = 0; r < ${REPS:-3}; r++)); do
    for B in "${bins[@]}"; do
      a=$(now); "$X/$B" score "${io[@]}" || echo "$B failed: ${w}x$h $bits-bit [$flags]" | tee -a $OUT/run-length.txt; b=$(now)
      ts[$B]+=" $(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')"
    done
  done
  line="${w}x$h $bits-bit, $n frames [$flags]:"
  for B in "${bins[@]}"; do
    ring=$(VKSSIM_LOG=info "$X/$B" score "${io[@]}" --frame_cnt "$n" 2>&1 | grep -o 'frames_in_flight=[0-9]*' | head -1 | cut -d= -f2)
    line="$line $B $(median ${ts[$B]}) s (ring $ring; runs${ts[$B]})"
  done
  echo "$line" | tee -a $OUT/run-length.txt
  unset ts
done
rm -f $D/long*_ref.yuv $D/long*_dist.yuv
