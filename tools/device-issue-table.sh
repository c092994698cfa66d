#!/usr/bin/env bash
# An issue's before and after on the H200, the whole CLI, in one run (after
# tools/round-bundle.sh here, with the "before" build copied to
# .gl-metrics/bin/$BEFORE; carry .gl and .gl-metrics). For each row of ROWS
# (";"-separated "W H BITS N FLAGS..."): 4:2:0 files of N frames written by
# `vkssim bench --write-yuv` and read once (page cache); then
#   - after: `vkssim score --backend vulkan FLAGS`, per frame (t(N) - t(1)) /
#     (N - 1), medians of REPS (default 5) runs of each, alternating;
#   - before: the same with the $BEFORE binary; where it refuses FLAGS on
#     Vulkan (exit non-zero on one frame), its CPU twin on the host's 16
#     threads (`--backend cpu --threads 16`, N_CPU frames, default 24, medians
#     of 3), which is what that build gave for them;
#   - libvmaf 2.3.1 -O3 (`vmaf --threads 16`, its AVX2 path), (t(22) - t(2)) / 20.
# Frames/s are printed per row and appended to $OUT/table.txt.
set -u
. "$(dirname "$0")/bench-device-common.sh"
export OUT=${OUT:-/tmp}
BEFORE=${BEFORE:-vkssim-before}
# per_frame BIN N REPS ARGS...: the marginal seconds per frame of `BIN score ARGS`.
per_frame() {
  local bin=$1 n=$2 reps=$3 r a b c one=() all=()
  shift 3
  for ((r = 0; r < reps; r++)); do
    a=$(now); "$X/$bin" score "$@" --frame_cnt 1 -q -o $D/t1.xml >/dev/null 2>&1 || return 1
    b=$(now); "$X/$bin" score "$@" --frame_cnt "$n" -q -o $D/tn.xml >/dev/null 2>&1 || return 1
    c=$(now)
    one+=("$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')")
    all+=("$(awk -v b="$b" -v c="$c" 'BEGIN { print c - b }')")
  done
  awk -v one="$(median "${one[@]}")" -v all="$(median "${all[@]}")" -v n="$n" 'BEGIN { print (all - one) / (n - 1) }'
}
# Frames/s of a per-frame time; FAILED (a run failed) as it is; a time not
# above 0 (the clock could not see the frames) unmeasured.
rate() {
  [ "$1" = FAILED ] && { echo FAILED; return; }
  awk -v s="$1" 'BEGIN { if (s > 0) printf "%.1f", 1 / s; else printf "unmeasured" }'
}
IFS=';' read -r -a rows <<<"${ROWS:-3840 2160 8 400 -m version=vmaf_v0.6.1;3840 2160 8 400 -m version=vmaf_v0.6.1 --feature float_ssim --feature psnr --feature float_ms_ssim;3840 2160 8 400 -n --feature float_ms_ssim;3840 2160 10 300 -m version=vmaf_v0.6.1;1920 1080 8 1200 -m version=vmaf_v0.6.1}"
for row in "${rows[@]}"; do
  read -r w h bits n flags <<<"$row"
  read -r -a fl <<<"$flags"
  long_clip "$w" "$h" "$bits" "$n" || continue
  io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w "$w" -h "$h" -b "$bits" -p 420 --xml)
  after=$(per_frame vkssim "$n" "${REPS:-5}" "${io[@]}" "${fl[@]}" --backend vulkan) ||
    { echo "${w}x$h $bits-bit [$flags]: vkssim failed" | tee -a $OUT/table.txt; continue; }
  if "$X/$BEFORE" score "${io[@]}" "${fl[@]}" --backend vulkan --frame_cnt 1 -q -o $D/b.xml >/dev/null 2>&1; then
    before=$(per_frame "$BEFORE" "$n" "${REPS:-5}" "${io[@]}" "${fl[@]}" --backend vulkan) && how="Vulkan" || how="FAILED"
  else
    before=$(per_frame "$BEFORE" "${N_CPU:-24}" 3 "${io[@]}" "${fl[@]}" --backend cpu --threads 16) &&
      how="refused on Vulkan: CPU twin, 16 threads" || how="FAILED"
  fi
  a=$(now); "$X/vmaf" "${io[@]}" "${fl[@]}" --threads 16 --frame_cnt 2 -q -o /dev/null >/dev/null 2>&1; ok=$?
  b=$(now); "$X/vmaf" "${io[@]}" "${fl[@]}" --threads 16 --frame_cnt 22 -q -o /dev/null >/dev/null 2>&1 || ok=1
  c=$(now); lib=$(awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { print ((c - b) - (b - a)) / 20 }')
  [ $ok = 0 ] || lib=FAILED
  echo "${w}x$h $bits-bit [$flags]: after $(rate "$after") frames/s; before $(rate "${before:-FAILED}") ($how); libvmaf 2.3.1 16 threads $(rate "$lib"); after/libvmaf $(awk -v x="$lib" -v y="$after" 'BEGIN { if (x > 0 && y > 0) printf "%.0fx", x / y; else printf "unmeasured" }')" | tee -a $OUT/table.txt
done
rm -f $D/long*_ref.yuv $D/long*_dist.yuv
