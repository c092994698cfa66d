#!/usr/bin/env bash
# The ladder and several-device run on the GPU machine of the `device` tool
# (issue 11): carry [".gl", ".gl-ladder"] (made by tools/ladder-bundle.sh) and
# run `bash tools/ladder-device.sh`. In one run: the shared-plane tests with
# validation (api_shared, api, api_multi, the CLI tee's unit tests), a 1080p ladder of 8 encodes through
# `vkssim score` checked against the 8 single runs and against the CPU twin's
# ladder, then `vkssim bench --ladder K` at 4K (generated frames and page-cached
# files) and `vkssim bench --device all`. Logs go to $OUT (or ./ladder-out).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/ladder-out} bundle=.gl-ladder default_parts="tests score bench"
. tools/device-common.sh
X=$top/.gl-ladder

step devices "$X/vkssim" devices
if has tests; then
  LIMIT=60 step api_shared "$X/api_shared" --test-threads 1
  LIMIT=60 step api "$X/api" --test-threads 1
  LIMIT=60 step api_multi "$X/api_multi" --test-threads 1
  LIMIT=60 step cli_unit_tee "$X/cli_unit" pipeline::tee --test-threads 1
  grep -h "test result" "$out"/api*.log "$out"/cli_unit_tee.log | tee -a "$out/summary.txt"
fi

D=/tmp/vkssim-ladder; mkdir -p "$D"
if has score; then
  # 1080p: the reference, and 8 encodes cut from the two written clips at
  # different starts (distinct content, different lengths).
  "$X/vkssim" bench --write-yuv "$D/h" --frames 70 -w 1920 -h 1080 -b 8 >/dev/null 2>&1
  F=$((1920 * 1080 * 3 / 2))
  dists=()
  for k in 0 1 2 3 4 5 6 7; do
    src=$D/h_dist.yuv; [ $((k % 2)) = 1 ] && src=$D/h_ref.yuv
    tail -c +$((k * F + 1)) "$src" >"$D/enc$k.yuv"
    dists+=(-d "$D/enc$k.yuv")
  done
  common=(-n --feature float_ssim -r "$D/h_ref.yuv" -w 1920 -h 1080 -p 420 -b 8 --json --allow-length-mismatch --precision max)
  step score_ladder_gpu "$X/vkssim" score "${common[@]}" "${dists[@]}" -o "$D/gpu_{index}.json" --backend vulkan
  step score_ladder_gpu_validation env VKSSIM_VALIDATION=1 "$X/vkssim" score "${common[@]}" "${dists[@]}" -o "$D/val_{index}.json" --backend vulkan
  step score_ladder_cpu "$X/vkssim" score "${common[@]}" "${dists[@]}" -o "$D/cpu_{index}.json" --backend cpu
  strip_fps() { grep -v '"fps"' "$1"; }
  same=0
  for k in 0 1 2 3 4 5 6 7; do
    "$X/vkssim" score "${common[@]}" -d "$D/enc$k.yuv" -o "$D/one_$k.json" --backend vulkan >>"$out/singles.log" 2>&1
    ok=1
    for other in gpu val cpu; do
      if ! diff <(strip_fps "$D/one_$k.json") <(strip_fps "$D/${other}_$k.json") >/dev/null; then
        echo "input $k: $other ladder differs from the single run" | tee -a "$out/summary.txt"; ok=0
      fi
    done
    frames=$(grep -c '"frameNum"' "$D/one_$k.json")
    [ $ok = 1 ] && same=$((same + 1)) && echo "input $k: $frames frames, ladder (GPU, GPU+validation, CPU) = single run" >>"$out/summary.txt"
  done
  echo "score ladder: $same of 8 inputs identical to their single runs" | tee -a "$out/summary.txt"
  grep -c "vkssim::vk::validation" "$out/score_ladder_gpu_validation.log" | sed 's/^/validation messages: /' | tee -a "$out/summary.txt"
fi

if has bench; then
  "$X/vkssim" bench --write-yuv "$D/k8" --frames 202 -w 3840 -h 2160 -b 8 >/dev/null 2>&1
  k8=(-r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" -w 3840 -h 2160 -b 8)
  for K in ${KS:-8 4}; do
    step "ladder${K}_generated" "$X/vkssim" bench --ladder "$K" --frames 102 --no-cpu --json
    step "ladder${K}_files" "$X/vkssim" bench --ladder "$K" "${k8[@]}" --frames 202 --no-cpu --json
  done
  step device_all_files "$X/vkssim" bench --device all "${k8[@]}" --frames 202 --no-cpu --json
  for f in "$out"/ladder*_*.log; do
    echo "== $(basename "$f" .log)" >>"$out/summary.txt"
    grep -E '"(ladder|reference_uploaded_once|ladder_distorted_frames_per_second|ladder_upload_gb_per_s|copied_reference_distorted_frames_per_second|separate_distorted_frames_per_second|separate_upload_gb_per_s|ladder_over_separate)"' "$f" >>"$out/summary.txt"
  done
  grep -E "\"(backend|frames_per_second|bytes_uploaded_per_frame)\"" "$out/device_all_files.log" >>"$out/summary.txt"
fi
cat "$out/summary.txt"
