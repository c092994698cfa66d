#!/usr/bin/env bash
# Where a ladder's GPU time goes, on the H200 (after tools/round-bundle.sh
# with BEFORE_BIN set; carry .gl and .gl-metrics): `vkssim bench --ladder 4`
# at 4K 8-bit VMAF with each pass timed alone (VKSSIM_TIME_EACH_PASS=1) and
# with the passes side by side: the first rung's mean pass times (its pairs
# made their shared reference's derived planes) against the last rung's
# (whose pairs read them, most of them); then the ladder on generated
# frames (no file reads) for BINS (default "vkssim vkssim-before"), in
# turn, twice; then 1080p 8-bit VMAF files at FIFS frames in flight
# (default "28 40 56") for the first binary.
set -u
export OUT=${OUT:-/tmp}
. "$(dirname "$0")/bench-device-common.sh"
read -r -a bins <<<"${BINS:-vkssim vkssim-before}"
v() { json_num "$1" "$2" | cut -c1-7; }
$X/vkssim bench --write-yuv $D/k8 --frames 42 -w 3840 -h 2160 -b 8 -p 420 >/dev/null
k8=(-r $D/k8_ref.yuv -d $D/k8_dist.yuv -w 3840 -h 2160 -b 8 -p 420)
for each in 1 0; do
  VKSSIM_TIME_EACH_PASS=$each $X/vkssim bench --ladder 4 "${k8[@]}" --frames 42 --repeat 1 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/lp.json 2>&1
  for rung in first last; do
    echo "each pass $each, $rung rung's mean (us): $(sed -n "/${rung}_rung_gpu_pass_us_mean/,/}/p" $OUT/lp.json | grep -E "${GREP:-decimate|dwt|total|vertical \+}" | tr -d '",}' | tr -s ' ' | tr '\n' ';')"
  done
  echo "made $(v $OUT/lp.json shared_reference_pairs_making_derived_planes) read $(v $OUT/lp.json shared_reference_pairs_reading_derived_planes)"
done
rm -f $D/k8_ref.yuv $D/k8_dist.yuv
for K in 4 8; do
  for B in "${bins[@]}" "${bins[@]}"; do
    $X/$B bench --ladder $K -w 3840 -h 2160 -b 8 --frames 102 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/l.json 2>$OUT/l.err
    echo "4K 8-bit VMAF ladder $K generated frames $B: ladder $(v $OUT/l.json ladder_distorted_frames_per_second)" \
      "copied $(v $OUT/l.json copied_reference_distorted_frames_per_second)" \
      "separate $(v $OUT/l.json separate_distorted_frames_per_second)" \
      "read $(v $OUT/l.json shared_reference_pairs_reading_derived_planes) $(head -c 300 $OUT/l.err)"
  done
done
clip 1920 1080 8
for f in ${FIFS:-28 40 56}; do
  for k in 1 2; do
    $X/${bins[0]} bench "${io[@]}" --frames 602 --repeat 3 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --frames-in-flight $f --json >$OUT/r.json 2>/dev/null
    echo "1080p 8-bit VMAF ${bins[0]} --frames-in-flight $f: $(v $OUT/r.json frames_per_second) (busy $(v $OUT/r.json gpu_busy_us), span $(v $OUT/r.json gpu_span_us))"
  done
done
