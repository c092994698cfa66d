#!/usr/bin/env bash
# Issue 28 on the H200, a short A/B (after tools/round-bundle.sh here, with
# the binary before the change copied to .gl-metrics/bin/vkssim-pre; carry
# .gl and .gl-metrics): VMAF (default model) at 4K and 1080p, 8 and 10-bit,
# VMAF with float_ssim, psnr and float_ms_ssim at 4K 8-bit, each timed with
# this binary, the one before (PRE_LABEL) and this one again, in-process
# `vkssim bench` on files in the page cache (per frame = (t(N) - t(2)) /
# (N - 2), median of --repeat 3); libvmaf 2.3.1 on 16 threads at 4K 8-bit in
# the same run; device-resident 4K VMAF pairs; each row's GPU passes.
set -u
export OUT=${OUT:-/tmp}; o=$OUT/ab; mkdir -p $o; S=$o/bench.txt
. "$(dirname "$0")/bench-device-common.sh"
for g in "3840 2160 8 202" "3840 2160 10 202" "1920 1080 8 602" "1920 1080 10 602"; do set -- $g
  clip $1 $2 $3
  for F in "-m version=vmaf_v0.6.1" "-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim"; do
    [ "$2$3" = 21608 ] || [ "$F" = "-m version=vmaf_v0.6.1" ] || continue
    tag=$(echo "$F" | tr -c 'a-z0-9\n' '_')
    line="$1x$2 $3-bit Vulkan [$F]:"
    for B in vkssim vkssim-pre vkssim; do
      "$X/$B" bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$o/${B}_$1_$3_$tag.json 2>$o/${B}_$1_$3_$tag.err
      line="$line $B=$(fps $o/${B}_$1_$3_$tag.json)"
    done
    echo "$line (vkssim-pre: ${PRE_LABEL:-before})" | tee -a $S
    for B in vkssim vkssim-pre; do
      echo "$1x$2 $3-bit $B [$F]: $(grep -o '"gpu_pass_us_mean": {[^}]*}' $o/${B}_$1_$3_$tag.json)" >>$o/passes.txt
      echo "$1x$2 $3-bit $B [$F]: $(grep -o '"time_per_frame_breakdown": {[^}]*}' $o/${B}_$1_$3_$tag.json)" >>$o/breakdown.txt
    done
  done
  if [ "$2$3" = 21608 ]; then
    for k in 1 2; do
      a=$(date +%s.%N); "$X/vmaf" "${io[@]}" --threads 16 --frame_cnt 2 -q -o /dev/null >/dev/null 2>&1; b=$(date +%s.%N)
      "$X/vmaf" "${io[@]}" --threads 16 --frame_cnt 22 -q -o /dev/null >/dev/null 2>&1; c=$(date +%s.%N)
      echo "$1x$2 $3-bit libvmaf 2.3.1 AVX2 16 threads [VMAF] run $k: $(awk -v a=$a -v b=$b -v c=$c 'BEGIN { printf "%.1f", 20 / ((c - b) - (b - a)) }') frames/s" | tee -a $S
    done
  fi
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
timeout 120 "$X/device_resident_bench" --vmaf --frames 2000 --reps 3 >$o/resident_vmaf.log 2>&1; echo "device-resident 4K VMAF: $(tail -n 3 $o/resident_vmaf.log | tr '\n' ' ')" | tee -a $S
cat $S
