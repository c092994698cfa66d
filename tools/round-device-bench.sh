#!/usr/bin/env bash
# On the GPU machine, after tools/round-bundle.sh here (carry .gl and .gl-metrics).
# Part 2: in-process bench, before and after alternating, files in page cache.
set -u
export OUT=${OUT:-/tmp}; o=$OUT/metrics; mkdir -p $o
for f in .gl/*.deb .gl-metrics/vulkan-validationlayers.deb; do dpkg -x "$f" /; done; ldconfig
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
X=$PWD/.gl-metrics/bin; D=/tmp/mb; mkdir -p $D
for g in "3840 2160 8 202" "3840 2160 10 202" "1920 1080 8 602" "1920 1080 10 602"; do set -- $g
  p=$D/b$2b$3; [ -f ${p}_ref.yuv ] || "$X/vkssim" bench --write-yuv "$p" --frames 22 -w $1 -h $2 -b $3 -p 420 >/dev/null
  for F in "float_ssim" "psnr" "float_ms_ssim" "float_ssim psnr float_ms_ssim"; do
    fl=(); for f in $F; do fl+=(--feature $f); done
    line="$1x$2 $3-bit [$F]"
    for B in vkssim-before vkssim vkssim-before vkssim; do
      r=$("$X/$B" bench -r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 --frames $4 --repeat 3 --no-cpu "${fl[@]}" --json 2>/dev/null | grep -o '"frames_per_second": [0-9.]*' | head -1 | grep -o '[0-9.]*$')
      line="$line $B=$r"
    done
    echo "$line" | tee -a $o/bench2.txt
  done
done
