#!/usr/bin/env bash
# An A/B of shader changes on the H200 (after building the CLIs to compare
# into .gl-metrics/bin; carry .gl and .gl-metrics): first exactness (VMAF
# with float_ssim, psnr and float_ms_ssim, 4K 10-bit and 1080p 8-bit, each
# build in BINS on both upload paths, fp64 and --no-fp64, against the CPU
# twin at --precision max); then each build's per-pass GPU times
# (VKSSIM_TIME_EACH_PASS=1) for 4K 8-bit VMAF and float_ms_ssim; then, with
# the passes side by side, frames/s of every build in turn, twice, for 4K
# VMAF, 4K VMAF with the three metrics, 4K float_ms_ssim and 1080p VMAF.
. "$(dirname "$0")/bench-device-common.sh"
read -r -a bins <<<"${BINS:-vkssim vkssim-before}"
v() { json_num "$1" "$2" | cut -c1-7; }
passes() { sed -n '/gpu_pass_us_mean/,/}/p' "$1" | grep -v gpu_pass_us_mean | tr -d '",}' | sed 's/^ */  /'; }
all="-m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim"
for g in "3840 2160 10 6" "1920 1080 8 12"; do set -- $g
  p=$D/e$2b$3; "$X/vkssim" bench --write-yuv "$p" --frames $4 -w $1 -h $2 -b $3 -p 420 >/dev/null
  io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420 $all -q --xml --precision max)
  "$X/vkssim" score "${io[@]}" --backend cpu -o $D/c.xml
  for B in "${bins[@]}"; do for path in "--upload direct" "--upload staging" "--upload direct --no-fp64" "--upload staging --no-fp64"; do
    "$X/$B" score "${io[@]}" --backend vulkan $path -o $D/g.xml
    same=$(cmp -s <(grep -v -e "<VMAF version" -e "<fyi" $D/g.xml) <(grep -v -e "<VMAF version" -e "<fyi" $D/c.xml) && echo identical || echo DIFFERS)
    echo "exact $1x$2 $3-bit $B $path: $(grep -c '<frame ' $D/g.xml) frames vs CPU twin: $same"
  done; done
  rm -f ${p}_ref.yuv ${p}_dist.yuv
done
clip 3840 2160 8
for B in "${bins[@]}"; do for F in "-m version=vmaf_v0.6.1" "-n --feature float_ms_ssim"; do
  VKSSIM_TIME_EACH_PASS=1 $X/$B bench "${io[@]}" --frames 42 --repeat 1 --no-cpu --backend vulkan $F --json >$OUT/p.json 2>/dev/null
  echo "4K $B [$F] each pass alone:"; passes $OUT/p.json
done; done
row() { local n=$1 F=$2 line; line="$3 [$F]:"
  for B in "${bins[@]}" "${bins[@]}"; do
    $X/$B bench "${io[@]}" --frames $n --repeat 3 --no-cpu --backend vulkan $F --json >$OUT/r.json 2>/dev/null
    line="$line $B=$(v $OUT/r.json frames_per_second)(busy $(v $OUT/r.json gpu_busy_us))"
  done; echo "$line"; }
row 202 "-m version=vmaf_v0.6.1" 4K
row 202 "$all" 4K
row 202 "-n --feature float_ms_ssim" 4K
rm -f ${p}_ref.yuv ${p}_dist.yuv
clip 1920 1080 8
row 602 "-m version=vmaf_v0.6.1" 1080p
