#!/usr/bin/env bash
# Part 3 on the H200: the other geometries of the current table (Vulkan, the CPU twin at 16 threads and vmaf -n at 16 threads, same run) and VMAF's default model on the host's 16 threads (vmaf, vmaf --cpumask 255, the CPU twin).
# On the GPU machine, after tools/round-bundle.sh here (carry .gl and .gl-metrics).
set -u
export OUT=${OUT:-/tmp}; o=$OUT/metrics; mkdir -p $o
X=$PWD/.gl-metrics/bin; D=/tmp/mb; mkdir -p $D
GEOMS="3840 2160 10;1920 1080 8;1920 1080 10" PARTS=speed CPU=1 BINS=vkssim REPS=3 N=200 VARIANTS="--upload auto" bash tools/metrics-device.sh >/dev/null 2>&1
now() { echo "$EPOCHREALTIME"; }
for g in "3840 2160 8 24" "1920 1080 8 48"; do set -- $g
  p=$D/q$2b$3; "$X/vkssim" bench --write-yuv "$p" --frames $4 -w $1 -h $2 -b $3 -p 420 >/dev/null
  nf=$4; io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420 -q --json)
  t() { local a b c; a=$(now); "$@" --frame_cnt 2 -o $D/x.json >/dev/null 2>&1; b=$(now); "$@" -o $D/y.json >/dev/null 2>&1; c=$(now); awk -v a=$a -v b=$b -v c=$c -v n=$nf 'BEGIN{printf "%.2f", 1000*((c-b)-(b-a))/(n-2)}'; }
  v=$(t "$X/vmaf" "${io[@]}" --threads 16); vc=$(t "$X/vmaf" "${io[@]}" --threads 16 --cpumask 255); k=$(t "$X/vkssim" score "${io[@]}" --backend cpu --threads 16)
  echo "VMAF default model $1x$2 $3-bit, 16 threads, ms/frame: vmaf $v, vmaf --cpumask 255 $vc, vkssim CPU twin $k" | tee -a $o/summary.txt
done
cat $o/summary.txt
