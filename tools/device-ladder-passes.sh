#!/usr/bin/env bash
# Where a ladder's GPU time goes, on the H200 (after tools/round-bundle.sh
# with BEFORE_BIN set; carry .gl and .gl-metrics): `vkssim bench --ladder 4`
# at 4K 8-bit VMAF with each pass timed alone (VKSSIM_TIME_EACH_PASS=1), the
# first rung's last pair (which made its shared reference's derived planes)
# against the last rung's (which read them); then the ladder on generated
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
VKSSIM_TIME_EACH_PASS=1 $X/vkssim bench --ladder 4 "${k8[@]}" --frames 42 --repeat 1 --no-cpu --backend vulkan -m version=vmaf_v0.6.1 --json >$OUT/lp.json 2>&1
for rung in first last; do
  echo "$rung rung, each pass (us): $(sed -n "/${rung}_rung_last_pair_gpu_pass_us/,/}/p" $OUT/lp.json | grep -E "decimate|dwt|total" | tr -d '",}' | tr -s ' ' | tr '\n' ';')"
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
