#!/usr/bin/env bash
# The several-GPU run on the two-GPU machine of the `device` tool (kind
# nvidia-h200-x2; issue 11): carry [".gl", ".gl-ladder"] (made by
# tools/ladder-bundle.sh) and run `bash tools/multi-device.sh`. In one run:
# the api_multi test with validation; `vkssim score --device all` against
# `--device 0` on 1080p files (JSON identical but for fps), plain and as a
# ladder; `vkssim bench` at 4K from page-cached files on each GPU alone and
# with `--device all`; and the ladder bench over both GPUs. Logs go to $OUT
# (or ./multi-out).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/multi-out} bundle=.gl-ladder
. tools/device-common.sh
X=$top/.gl-ladder

step devices "$X/vkssim" devices
cat "$out/devices.log" >>"$out/summary.txt"
LIMIT=60 step api_multi "$X/api_multi" --test-threads 1
grep -h "test result" "$out/api_multi.log" | tee -a "$out/summary.txt"

D=/tmp/vkssim-multi; mkdir -p "$D"
"$X/vkssim" bench --write-yuv "$D/h" --frames 70 -w 1920 -h 1080 -b 8 >/dev/null 2>&1
"$X/vkssim" bench --write-yuv "$D/k8" --frames 402 -w 3840 -h 2160 -b 8 >/dev/null 2>&1
h=(-n --feature float_ssim -r "$D/h_ref.yuv" -w 1920 -h 1080 -p 420 -b 8 --json --precision max)
strip_fps() { grep -v '"fps"' "$1"; }
step score_dev0 "$X/vkssim" score "${h[@]}" -d "$D/h_dist.yuv" -o "$D/dev0.json" --device 0
step score_all "$X/vkssim" score "${h[@]}" -d "$D/h_dist.yuv" -o "$D/all.json" --device all
step score_all_validation env VKSSIM_VALIDATION=1 "$X/vkssim" score "${h[@]}" -d "$D/h_dist.yuv" -o "$D/allv.json" --device all
step ladder_all "$X/vkssim" score "${h[@]}" -d "$D/h_dist.yuv" -d "$D/h_ref.yuv" -o "$D/lad_{index}.json" --device all
"$X/vkssim" score "${h[@]}" -d "$D/h_ref.yuv" -o "$D/self0.json" --device 0 >/dev/null 2>&1
for pair in "dev0 all" "dev0 allv" "dev0 lad_0" "self0 lad_1"; do
  set -- $pair
  if diff <(strip_fps "$D/$1.json") <(strip_fps "$D/$2.json") >/dev/null; then
    echo "$2 = $1 ($(grep -c '"frameNum"' "$D/$2.json") frames)" | tee -a "$out/summary.txt"
  else
    echo "$2 DIFFERS from $1" | tee -a "$out/summary.txt"
  fi
done
grep -c "vkssim::vk::validation" "$out/score_all_validation.log" | sed 's/^/validation messages: /' | tee -a "$out/summary.txt"

k8=(-r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" -w 3840 -h 2160 -b 8 --no-cpu --json)
step bench_dev0 "$X/vkssim" bench "${k8[@]}" --frames 402 --device 0
step bench_dev1 "$X/vkssim" bench "${k8[@]}" --frames 402 --device 1
step bench_all "$X/vkssim" bench "${k8[@]}" --frames 402 --device all
step bench_all_threads24 "$X/vkssim" bench "${k8[@]}" --frames 402 --device all --read-threads 24
step ladder8_all "$X/vkssim" bench --ladder 8 "${k8[@]}" --frames 202 --device all
for f in bench_dev0 bench_dev1 bench_all bench_all_threads24; do
  echo "== $f $(grep -E '"frames_per_second"' "$out/$f.log" | head -n 1)" | tee -a "$out/summary.txt"
done
grep -E '"(ladder_distorted_frames_per_second|separate_distorted_frames_per_second|ladder_over_separate)"' "$out/ladder8_all.log" | tee -a "$out/summary.txt"
cat "$out/summary.txt"
