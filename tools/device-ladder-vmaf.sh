#!/usr/bin/env bash
# Issue 28's ladder run on the H200 (after tools/round-bundle.sh with
# BEFORE_BIN set and TESTS naming api_shared_derived and the tests below;
# carry .gl and .gl-metrics): VMAF's exactness on every path
# (tools/vmaf-device-exact.sh), the shared reference tests under validation
# (TESTS_RUN, default "api_shared_derived api_shared api_temporal
# vk_metrics"; tools/vmaf-device-exact.sh runs vk_vif, vk_adm and the
# motions'), then `vkssim bench --ladder K` at 4K 8-bit VMAF (default
# model; files in the page cache, 102 frames; K = 4 and 8) for each binary
# BINS names (default "vkssim vkssim-before"), in turn, twice: distorted
# frames/s of the ladder (the reference uploaded once), of the ladder with
# the reference copied into each pair's slot, and of K separate runs, with
# the pairs that made and read a shared reference's derived planes; and the
# single-stream 4K and 1080p 8-bit VMAF rows for the same binaries, with each
# binary's per-pass GPU times (tools/device-quick.sh: VKSSIM_TIME_EACH_PASS=1;
# the passes matching GREP, default "decimate|dwt|total").
set -u
export OUT=${OUT:-/tmp}
timeout 300 bash tools/vmaf-device-exact.sh >$OUT/exact.log 2>&1; cat $OUT/vmaf/summary.txt
. "$(dirname "$0")/bench-device-common.sh"
dpkg -x .gl-metrics/vulkan-validationlayers.deb / 2>/dev/null
for t in ${TESTS_RUN:-api_shared_derived api_shared api_temporal vk_metrics}; do
  VKSSIM_VALIDATION=1 timeout 120 $X/$t --test-threads 4 >$OUT/$t.log 2>&1
  echo "$t (validation on): exit $? $(grep -h 'test result' $OUT/$t.log)"
done
read -r -a bins <<<"${BINS:-vkssim vkssim-before}"
v() { json_num "$1" "$2" | cut -c1-7; }
$X/vkssim bench --write-yuv $D/k8 --frames 102 -w 3840 -h 2160 -b 8 -p 420 >/dev/null
k8=(-r $D/k8_ref.yuv -d $D/k8_dist.yuv -w 3840 -h 2160 -b 8 -p 420)
for K in ${KS:-4 8}; do
  for B in "${bins[@]}" "${bins[@]}"; do
    $X/$B bench --ladder $K "${k8[@]}" --frames 102 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/l.json 2>$OUT/l.err
    echo "4K 8-bit VMAF ladder $K $B: ladder $(v $OUT/l.json ladder_distorted_frames_per_second)" \
      "copied $(v $OUT/l.json copied_reference_distorted_frames_per_second)" \
      "separate $(v $OUT/l.json separate_distorted_frames_per_second)" \
      "made $(v $OUT/l.json shared_reference_pairs_making_derived_planes)" \
      "read $(v $OUT/l.json shared_reference_pairs_reading_derived_planes)" \
      "busy/pair $(v $OUT/l.json ladder_gpu_busy_us_per_pair)" \
      "identical $(grep -o '"identical_across_modes": [a-z]*' $OUT/l.json) $(head -c 300 $OUT/l.err)"
  done
done
rm -f $D/k8_ref.yuv $D/k8_dist.yuv
# The single-stream rows and per-pass times: tools/device-quick.sh's.
BINS="${bins[*]}" PROFILE="${bins[*]}" GREP="${GREP:-decimate|dwt|total}" bash "$(dirname "$0")/device-quick.sh"
