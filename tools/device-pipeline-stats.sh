#!/usr/bin/env bash
# The driver's statistics of every pipeline a run builds (register count,
# binary size: VK_KHR_pipeline_executable_properties, VKSSIM_PIPELINE_STATISTICS=1),
# on the GPU machine of the `device` tool after tools/round-bundle.sh (carry
# .gl and .gl-metrics): VMAF, VMAF with libvmaf 3.2.0's motion and
# float_ssim, psnr and float_ms_ssim, 8 and 10-bit, fp64 and --no-fp64. One
# line per pipeline, sorted by name; the statistics are the driver's words.
. "$(dirname "$0")/bench-device-common.sh"
B=${BIN:-vkssim}
for g in "1920 1080 8" "1920 1080 10"; do set -- $g
  clip $1 $2 $3
  for a in "" "--no-fp64"; do
    for F in "-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim" "-m version=vmaf_v0.6.1 --motion-version 3.2.0"; do
      VKSSIM_PIPELINE_STATISTICS=1 VKSSIM_LOG=vkssim::pipeline_stats=info \
        $X/$B bench "${io[@]}" --frames 4 --repeat 1 --no-cpu --backend vulkan $a $F 2>&1 >/dev/null |
        grep pipeline_stats | sed 's/^.*pipeline_stats: //'
    done
  done
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done | sort -u
