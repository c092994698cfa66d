#!/usr/bin/env bash
# Issue 28 on the H200, part 1 (after tools/round-bundle.sh here; carry .gl
# and .gl-metrics): the pass-by-pass tests of VMAF's Vulkan passes under
# validation (vk_adm, vk_vif, vk_motion, vk_motion_v32), then VMAF's four built-in models
# (each named, one run) on 4K 10-bit and 1080p 8-bit clips: the Vulkan
# engine's file on each path (upload direct/staging, native fp64 and
# --no-fp64) against the CPU twin's at full precision, and against
# `vmaf --cpumask 255` (libvmaf 2.3.1's C path) at vmaf's 6 decimals; the
# default model with libvmaf 3.2.0's motion against the CPU twin's file.
set -u
export OUT=${OUT:-/tmp}; o=$OUT/vmaf; mkdir -p $o; S=$o/summary.txt
for f in .gl/*.deb .gl-metrics/vulkan-validationlayers.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
X=$PWD/.gl-metrics/bin; D=/tmp/vd; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
for t in vk_adm vk_vif vk_motion vk_motion_v32; do
  VKSSIM_VALIDATION=1 timeout 240 "$X/$t" --test-threads 4 >"$o/$t.log" 2>&1
  echo "$t (validation on): exit $? $(grep -h 'test result' "$o/$t.log")" | tee -a $S
done
models=(-m version=vmaf_v0.6.1:name=v061 -m version=vmaf_v0.6.1neg:name=neg -m version=vmaf_4k_v0.6.1:name=4k -m version=vmaf_b_v0.6.3:name=b)
strip_meta() { grep -v -e "<VMAF version" -e "<fyi" "$1"; }
for g in "3840 2160 10 8" "1920 1080 8 16"; do set -- $g
  p=$D/e$2b$3; "$X/vkssim" bench --write-yuv "$p" --frames $4 -w $1 -h $2 -b $3 -p 420 >/dev/null
  io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420 "${models[@]}" -q --xml)
  "$X/vmaf" "${io[@]}" --cpumask 255 -o $D/m.xml >/dev/null 2>&1 || echo "vmaf failed" | tee -a $S
  "$X/vkssim" score "${io[@]}" --precision max --backend cpu -o $D/c.xml
  for path in "--upload direct" "--upload staging" "--upload direct --no-fp64" "--upload staging --no-fp64"; do
    "$X/vkssim" score "${io[@]}" --precision max --backend vulkan $path -o $D/g.xml
    n=$(grep -c "<frame " $D/g.xml)
    same=$(cmp -s <(strip_meta $D/g.xml) <(strip_meta $D/c.xml) && echo identical || echo DIFFERS)
    echo "VMAF 4 models $1x$2 $3-bit Vulkan $path: $n frames, file vs CPU twin (--precision max): $same" | tee -a $S
  done
  "$X/vkssim" score "${io[@]}" --backend vulkan -o $D/g6.xml
  same=$(cmp -s <(strip_meta $D/g6.xml) <(strip_meta $D/m.xml) && echo identical || echo DIFFERS)
  echo "VMAF 4 models $1x$2 $3-bit Vulkan file vs vmaf --cpumask 255 (6 decimals): $same; vmaf mean $(grep -o 'metric name="v061"[^/]*mean="[0-9.]*"' $D/m.xml | head -1 | grep -o 'mean="[0-9.]*"')" | tee -a $S
  # libvmaf 3.2.0's motion (the default model with it): each path's file
  # against the CPU twin's at full precision.
  v32=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420 -m version=vmaf_v0.6.1 --motion-version 3.2.0 -q --xml --precision max)
  "$X/vkssim" score "${v32[@]}" --backend cpu -o $D/c32.xml
  for path in "--upload direct" "--upload staging --no-fp64"; do
    "$X/vkssim" score "${v32[@]}" --backend vulkan $path -o $D/g32.xml
    same=$(cmp -s <(strip_meta $D/g32.xml) <(strip_meta $D/c32.xml) && echo identical || echo DIFFERS)
    echo "VMAF with libvmaf 3.2.0's motion $1x$2 $3-bit Vulkan $path: $(grep -c "<frame " $D/g32.xml) frames, file vs CPU twin (--precision max): $same" | tee -a $S
  done
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
cat $S
