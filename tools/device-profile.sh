#!/usr/bin/env bash
# Where the GPU time goes, on the H200 (after tools/round-bundle.sh here;
# carry .gl and .gl-metrics): in-process `vkssim bench --no-cpu --backend
# vulkan` with VKSSIM_TIME_EACH_PASS=1 (each pass alone, a timestamp after
# it), per-pass GPU microseconds a frame (mean over the run), for VMAF at 4K
# and 1080p, 8 and 10-bit, VMAF with libvmaf 3.2.0's motion, VMAF with the
# three other metrics, and float_ms_ssim alone. Then, with the passes side by
# side as usual, 4K and 1080p 8-bit VMAF on one scorer and on two scorers of
# the one device (`--device 0,0`: two queues), frames/s.
. "$(dirname "$0")/bench-device-common.sh"
B=${BIN:-vkssim}
passes() { sed -n '/gpu_pass_us_mean/,/}/p' "$1" | grep -v gpu_pass_us_mean | tr -d '",}' | sed 's/^ */  /'; }
for g in "3840 2160 8 42" "1920 1080 8 102" "3840 2160 10 42"; do set -- $g
  clip $1 $2 $3
  for F in "-m version=vmaf_v0.6.1" "-m version=vmaf_v0.6.1 --motion-version 3.2.0" "-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim" "-n --feature float_ms_ssim"; do
    [ "$2$3" = 21608 ] || [ "$F" = "-m version=vmaf_v0.6.1" ] || continue
    VKSSIM_TIME_EACH_PASS=1 $X/$B bench "${io[@]}" --frames $4 --repeat 1 --no-cpu --backend vulkan $F --json >$OUT/p.json 2>/dev/null
    echo "$1x$2 $3-bit [$F], each pass alone: $(fps $OUT/p.json) frames/s, GPU us a frame:"
    passes $OUT/p.json
  done
  if [ "$3" = 8 ]; then
    n=$((4 * $4 + 34))
    for dev in "" "--device 0,0"; do
      for r in 1 2; do
        $X/$B bench "${io[@]}" --frames $n --repeat 3 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 $dev --json >$OUT/d.json 2>/dev/null
        echo "$1x$2 $3-bit VMAF ${dev:-one scorer}: $(fps $OUT/d.json) frames/s (busy $(json_num $OUT/d.json gpu_busy_us) span $(json_num $OUT/d.json gpu_span_us))"
      done
    done
  fi
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
