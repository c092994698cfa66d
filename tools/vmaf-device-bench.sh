#!/usr/bin/env bash
# Issue 28 on the H200, part 2 (after tools/round-bundle.sh here; carry .gl
# and .gl-metrics): VMAF's speed, in-process `vkssim bench` on files in the
# page cache (per frame = (t(N) - t(2)) / (N - 2), median of --repeat 3),
# the CPU twin and libvmaf 2.3.1 (-O3, AVX2) on the host's 16 threads in the
# same run, device-resident 4K VMAF pairs, and whole 2-frame 4K `score` runs.
# With .gl-metrics/bin/vkssim-pre (the binary before this round, PRE_LABEL
# its commit), each Vulkan row also times it, in the same run.
set -u
export OUT=${OUT:-/tmp}; o=$OUT/vmaf; mkdir -p $o; S=$o/bench.txt
. "$(dirname "$0")/bench-device-common.sh"
for g in "3840 2160 8 202" "3840 2160 10 202" "1920 1080 8 602" "1920 1080 10 602"; do set -- $g
  clip $1 $2 $3
  for F in "-m version=vmaf_v0.6.1" "-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim" "-n --feature float_ms_ssim"; do
    [ "$2" = 2160 ] || [ "$F" = "-m version=vmaf_v0.6.1" ] || continue
    tag=$(echo "$F" | tr -c 'a-z0-9\n' '_')
    "$X/vkssim" bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$o/bench_$1_$3_$tag.json 2>$o/bench_$1_$3_$tag.err
    line="$1x$2 $3-bit Vulkan [$F]: $(fps $o/bench_$1_$3_$tag.json) frames/s"
    # The same run's binary from before this round's tuning (PRE_LABEL), when
    # given, then this one again.
    if [ -x "$X/vkssim-pre" ]; then
      "$X/vkssim-pre" bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$o/pre_$1_$3_$tag.json 2>/dev/null
      "$X/vkssim" bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --json >$o/again_$1_$3_$tag.json 2>/dev/null
      line="$line, again $(fps $o/again_$1_$3_$tag.json) (before, ${PRE_LABEL:-pre}: $(fps $o/pre_$1_$3_$tag.json))"
    fi
    # This binary with the old default of 4 frames in flight (the slots'
    # budget was 2 GiB on every device).
    if [ "$F" = "-m version=vmaf_v0.6.1" ]; then
      "$X/vkssim" bench "${io[@]}" --frames $4 --repeat 3 --no-cpu --backend vulkan $F --frames-in-flight 4 --json >$o/fif4_$1_$3_$tag.json 2>/dev/null
      line="$line (4 in flight: $(fps $o/fif4_$1_$3_$tag.json))"
    fi
    echo "$line" | tee -a $S
    echo "$1x$2 $3-bit [$F]: $(grep -o '"gpu_pass_us_last_frame": {[^}]*}' $o/bench_$1_$3_$tag.json)" >> $o/passes.txt
  done
  "$X/vkssim" bench "${io[@]}" --frames 42 --repeat 3 --backend cpu --threads 16 -m version=vmaf_v0.6.1 --json >$o/cpu_$1_$3.json 2>/dev/null
  echo "$1x$2 $3-bit CPU twin 16 threads [VMAF]: $(fps $o/cpu_$1_$3.json) frames/s" | tee -a $S
  for k in 1 2; do
    a=$(date +%s.%N); "$X/vmaf" "${io[@]}" --threads 16 --frame_cnt 2 -q -o /dev/null >/dev/null 2>&1; b=$(date +%s.%N)
    "$X/vmaf" "${io[@]}" --threads 16 --frame_cnt 22 -q -o /dev/null >/dev/null 2>&1; c=$(date +%s.%N)
    echo "$1x$2 $3-bit libvmaf 2.3.1 AVX2 16 threads [VMAF] run $k: $(awk -v a=$a -v b=$b -v c=$c 'BEGIN { printf "%.1f", 20 / ((c - b) - (b - a)) }') frames/s" | tee -a $S
  done
  if [ "$2" = 2160 ] && [ "$3" = 8 ]; then
    # Issue 26's rows: the metrics before the extractor layer (10db0a0) and now.
    for F in "float_ssim" "psnr" "float_ms_ssim" "float_ssim psnr float_ms_ssim"; do
      fl=(-n); for f in $F; do fl+=(--feature $f); done
      line="$1x$2 $3-bit [$F]"
      for B in vkssim-before vkssim vkssim-before vkssim; do
        "$X/$B" bench "${io[@]}" --frames 202 --repeat 3 --no-cpu --backend vulkan "${fl[@]}" --json >$o/i26.json 2>/dev/null \
          || "$X/$B" bench "${io[@]}" --frames 202 --repeat 3 --no-cpu --backend vulkan "${fl[@]:1}" --json >$o/i26.json 2>/dev/null
        line="$line $B=$(fps $o/i26.json)"
      done
      echo "$line" | tee -a $S
    done
    for k in 1 2 3; do
      a=$(date +%s.%N); "$X/vkssim" score "${io[@]}" --frame_cnt 2 -q -o $D/s.xml; b=$(date +%s.%N)
      echo "whole 2-frame 4K score (default model, auto) run $k: $(awk -v a=$a -v b=$b 'BEGIN { printf "%.3f", b - a }') s" | tee -a $S
    done
  fi
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
timeout 90 "$X/device_resident_bench" --frames 4000 --reps 3 >$o/resident_ssim.log 2>&1; echo "device-resident 4K float_ssim: $(tail -n 3 $o/resident_ssim.log | head -2 | tr '\n' ' ')" | tee -a $S
timeout 120 "$X/device_resident_bench" --vmaf --frames 2000 --reps 3 >$o/resident_vmaf.log 2>&1; echo "device-resident 4K VMAF: $(tail -n 3 $o/resident_vmaf.log | tr '\n' ' ')" | tee -a $S
cat $S
