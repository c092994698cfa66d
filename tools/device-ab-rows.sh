#!/usr/bin/env bash
# A/B over every metric row on the H200 (after tools/round-bundle.sh here,
# with the builds to compare copied into .gl-metrics/bin; carry .gl and
# .gl-metrics): VMAF (default model) at 4K and 1080p, 8 and 10-bit, and at
# 4K 8-bit also VMAF with libvmaf 3.2.0's motion (a build without it on
# Vulkan prints no figure), VMAF with float_ssim, psnr and float_ms_ssim, each of those
# alone and the three together; float_ssim at every size; at 1080p 8-bit
# also the rows with float_ms_ssim. Each row runs the
# binaries BINS names (default "vkssim vkssim-pre"), in turn, twice:
# in-process `vkssim bench --frames N --repeat 3 --no-cpu --backend vulkan`
# on files in the page cache (per frame = (t(N) - t(2)) / (N - 2), median of
# 3; N = 202 at 4K, 602 at 1080p), frames/s, with the first binary's GPU
# busy time and span per frame.
. "$(dirname "$0")/bench-device-common.sh"
read -r -a bins <<<"${BINS:-vkssim vkssim-pre}"
v() { json_num "$1" "$2" | cut -c1-7; }
for g in "3840 2160 8 202" "3840 2160 10 202" "1920 1080 8 602" "1920 1080 10 602"; do set -- $g
  clip $1 $2 $3
  for F in "-m version=vmaf_v0.6.1" "-m version=vmaf_v0.6.1 --motion-version 3.2.0" "-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim" "-n --feature float_ssim" "-n --feature psnr" "-n --feature float_ms_ssim" "-n --feature float_ssim --feature psnr --feature float_ms_ssim"; do
    [ "$2$3" = 21608 ] || [ "$F" = "-m version=vmaf_v0.6.1" ] || [ "$F" = "-n --feature float_ssim" ] ||
      { [ "$2$3" = 10808 ] && [[ "$F" == *float_ms_ssim* ]]; } || continue
    line="$1x$2 $3-bit [$F]:"
    for B in "${bins[@]}" "${bins[@]}"; do
      $X/$B bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$OUT/r.json 2>/dev/null
      line="$line $B=$(v $OUT/r.json frames_per_second)"
      [ "$B" = "${bins[0]}" ] && line="$line(busy $(v $OUT/r.json gpu_busy_us) span $(v $OUT/r.json gpu_span_us))"
    done
    echo "$line"
  done
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
