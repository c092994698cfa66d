#!/usr/bin/env bash
# Part 1 on the H200: exactness of the new Vulkan passes (motion, vif) and the
# metrics under validation, a VMAF-feature CLI comparison, device-resident
# pairs, then the 4K speed rows (before/after, CPU twin, vmaf) in one run.
set -u
export OUT=${OUT:-/tmp}
PARTS="tests" bash tools/metrics-device.sh >/dev/null 2>&1
X=$PWD/.gl-metrics/bin; o=$OUT/metrics
for t in vk_motion vk_vif; do
  VKSSIM_VALIDATION=1 timeout 200 "$X/$t" --test-threads 1 >"$o/$t.log" 2>&1; echo "$t: exit $? $(grep -h 'test result' "$o/$t.log")" | tee -a "$o/summary.txt"
done
# VMAF's vif and motion: Vulkan (each path) against the CPU twin and vmaf -O3 C path, 4K 10-bit and 1080p 8-bit.
D=/tmp/mb; mkdir -p $D
for g in "3840 2160 10 12" "1920 1080 8 24"; do set -- $g
  p=$D/v$2b$3; "$X/vkssim" bench --write-yuv "$p" --frames $4 -w $1 -h $2 -b $3 -p 420 >/dev/null
  vm=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420 -n --feature vif --feature motion -q --xml)
  io=("${vm[@]}" --precision max)
  "$X/vmaf" "${vm[@]}" --cpumask 255 -o $D/m.xml >/dev/null 2>&1 || echo "vmaf failed" | tee -a $o/summary.txt
  "$X/vkssim" score "${io[@]}" --backend cpu -o $D/c.xml
  for path in "--upload direct" "--upload staging" "--upload direct --no-fp64" "--upload staging --no-fp64"; do
    "$X/vkssim" score "${io[@]}" --backend vulkan $path -o $D/g.xml
    n=$(grep -c "<frame " $D/g.xml); same=$(cmp -s <(grep -v -e "<VMAF version" -e "<fyi" $D/g.xml) <(grep -v -e "<VMAF version" -e "<fyi" $D/c.xml) && echo identical || echo DIFFERS)
    echo "vif+motion $1x$2 $3-bit Vulkan $path: $n frames, file vs CPU twin (--precision max): $same" | tee -a $o/summary.txt
  done
  # vmaf prints 6 decimals: compare the CPU twin's 6-decimal file with it.
  "$X/vkssim" score "${vm[@]}" --backend vulkan -o $D/g6.xml
  same=$(cmp -s <(grep -v -e "<VMAF version" -e "<fyi" $D/g6.xml) <(grep -v -e "<VMAF version" -e "<fyi" $D/m.xml) && echo identical || echo DIFFERS)
  echo "vif+motion $1x$2 $3-bit Vulkan file vs vmaf --cpumask 255 (6 decimals): $same" | tee -a $o/summary.txt
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
timeout 90 "$X/device_resident_bench" --frames 4000 --reps 3 >"$o/device_resident.log" 2>&1; echo "device_resident 4K: $(tail -n 3 "$o/device_resident.log" | tr '\n' ' ')" | tee -a $o/summary.txt
GEOMS="${GEOMS:-3840 2160 8}" PARTS=speed CPU=1 BINS="vkssim-before vkssim" REPS=3 N=200 bash tools/metrics-device.sh >/dev/null 2>&1
cat $o/summary.txt
