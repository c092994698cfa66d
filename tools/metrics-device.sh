#!/usr/bin/env bash
# The H200 run of issue 18 (psnr, float_ms_ssim and all three with
# float_ssim), in parts chosen by PARTS (default "speed bench"):
#
# - tests: the bundle's test binaries (vk_metrics, api, api_shared, api_images) under validation (the
#   metrics' passes against the CPU twin at fp64 equality, whole pictures in
#   the upload slot, sample ranges found on the device in every plane,
#   imported buffers with metrics).
# - speed: for 4K and 1080p, 8 and 10-bit 4:2:0 pairs generated here
#   (`vkssim bench --write-yuv`, N frames, read once so they are in the page
#   cache), for float_ms_ssim, psnr and all three: the whole CLI (`vkssim
#   score --backend vulkan`, marginal time per frame (t(N) - t(1)) / (N - 1),
#   so start-up cancels; medians of REPS (default 5) alternating runs), libvmaf's -O3 `vmaf -n --threads 16` on the same
#   files (8 frames), and vkssim's JSON for 8 frames against
#   single-threaded vmaf's (every line but version and fps; vmaf orders
#   features by thread completion when threaded). CPU=1 adds a row per
#   pair and feature set for the CPU twin (`--backend cpu --threads 16`,
#   N_CPU frames, default 24, medians of REPS_CPU runs, default 3), timed
#   the same way in the same run.
# - bench: `vkssim bench --feature ...` at 4K 8-bit on the default backend
#   (`auto`, which picks the GPU), on generated frames and on the files:
#   the time per frame and each pass's mean GPU time (`gpu_pass_us_mean`:
#   the stages of the metrics computed, each metric's own: float_ssim's
#   passes, psnr, and float_ms_ssim's per-pass stages), for float_ms_ssim,
#   psnr and all three.
#
# Prepare here: `bash tools/metrics-bundle.sh` (makes .gl-metrics/ and .gl/).
# There: carry [".gl", ".gl-metrics"] and run
# `PARTS="tests speed bench" bash tools/metrics-device.sh` (about 5 to 8
# minutes; split PARTS over two commands if the 10-minute limit is near).
# Everything is written to $OUT/metrics (summary.txt holds the table and
# the step outcomes) and printed.
set -u
bundle=.gl-metrics
out=${OUT:-/tmp}/metrics
default_parts="speed bench"
default_limit=300
. "$(dirname "$0")/device-common.sh"
X=$PWD/$bundle/bin D=/tmp/mb N=${N:-240}
mkdir -p "$D"
echo "commit $(cat "$bundle/COMMIT" 2>/dev/null); $(nvidia-smi -L 2>/dev/null | head -n 1)" | tee -a "$out/summary.txt"
if has tests; then
  for t in vk_metrics api api_shared api_images; do
    [ -x "$X/$t" ] || continue
    step "$t" env VKSSIM_VALIDATION=1 "$X/$t" --test-threads 1
    echo "$t: $(grep -h "test result" "$out/$t.log")" | tee -a "$out/summary.txt"
  done
fi
now() { echo "$EPOCHREALTIME"; }
comparable() { grep -v -e '"version"' -e 'fps' "$1"; }
# Generates (once) and reads the pair of geometry "$1x$2 $3-bit" into the
# page cache; sets p (the files' prefix) and io (the inputs' flags).
pair() {
  p=$D/g${2}b$3
  [ -f "${p}_ref.yuv" ] || "$X/vkssim" bench --write-yuv "$p" --frames "$N" -w "$1" -h "$2" -b "$3" -p 420 >/dev/null
  cat "${p}_ref.yuv" "${p}_dist.yuv" >/dev/null
  io=(-r "${p}_ref.yuv" -d "${p}_dist.yuv" -w "$1" -h "$2" -b "$3" -p 420)
}
# The speed part's rows: GEOMS (";"-separated "W H BITS"), FEATURE_SETS
# (";"-separated feature lists) and VARIANTS (";"-separated extra vkssim
# flags, each a row of its own: "--upload staging;--read-threads 16"), and
# BINS (the bundle's vkssim binaries to time, each a row: "vkssim vkssim-new",
# alternating, for a before-and-after in one run); VMAF=0 leaves out vmaf's
# timing and the file comparison.
IFS=';' read -r -a geoms <<<"${GEOMS:-3840 2160 8;3840 2160 10;1920 1080 8;1920 1080 10}"
IFS=';' read -r -a feature_sets <<<"${FEATURE_SETS:-float_ssim;float_ms_ssim;psnr;float_ssim psnr float_ms_ssim}"
IFS=';' read -r -a variants <<<"${VARIANTS:---upload auto}"
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
if has speed; then
  for g in "${geoms[@]}"; do
    set -- $g
    pair "$@"
    for F in "${feature_sets[@]}"; do
     vf=()
     for f in $F; do vf+=(--feature "$f"); done
     for V in "${variants[@]}"; do
      read -r -a fl <<<"$V"
      fl+=("${vf[@]}")
      # REPS rounds; in each, for every binary in turn, a run of 1 frame and
      # one of all N frames. Per binary, the medians' difference over N - 1
      # frames (start-up, about 0.3 s and varying by tens of ms, cancels only
      # on average: one pair of runs is too noisy when N frames take well
      # under a second).
      declare -A t1=() tn=()
      for ((r = 0; r < ${REPS:-5}; r++)); do
        for B in ${BINS:-vkssim}; do
          a=$(now)
          "$X/$B" score "${io[@]}" -n "${fl[@]}" --backend vulkan --frame_cnt 1 -q --json -o "$D/v1.json"
          b=$(now)
          "$X/$B" score "${io[@]}" -n "${fl[@]}" --backend vulkan -q --json -o "$D/v.json"
          c=$(now)
          t1[$B]+=" $(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')"
          tn[$B]+=" $(awk -v b="$b" -v c="$c" 'BEGIN { print c - b }')"
        done
      done
      if [ "${VMAF:-1}" = 1 ]; then
        c0=$(now)
        "$X/vmaf" "${io[@]}" "${vf[@]}" -n --threads 16 --frame_cnt 8 -q --json -o "$D/m16.json" >/dev/null 2>&1
        v=$(awk -v c0="$c0" -v e="$(now)" 'BEGIN { print (e - c0) / 8 }')
        "$X/vmaf" "${io[@]}" "${vf[@]}" -n --frame_cnt 8 -q --json -o "$D/m1.json" >/dev/null 2>&1
      fi
      for B in ${BINS:-vkssim}; do
        tag="$1x$2 $3-bit [$F] ($B $V)"
        m=$(awk -v one="$(median ${t1[$B]})" -v all="$(median ${tn[$B]})" -v n="$N" 'BEGIN { print (all - one) / (n - 1) }')
        if [ "${VMAF:-1}" = 1 ]; then
          "$X/$B" score "${io[@]}" -n "${fl[@]}" --backend vulkan --frame_cnt 8 -q --json -o "$D/v8.json"
          if diff <(comparable "$D/v8.json") <(comparable "$D/m1.json") >/dev/null; then
            same="identical to vmaf's ($(comparable "$D/v8.json" | wc -l) lines, 8 frames)"
          else
            same=DIFFERS
          fi
          awk -v t="$tag" -v m="$m" -v v="$v" -v s="$same" 'BEGIN {
            printf "%s: vulkan %.3f ms/frame (%.0f fps); vmaf -n 16 threads %.1f ms/frame (%.1f fps); %.0fx; file %s\n",
              t, 1000 * m, 1 / m, 1000 * v, 1 / v, v / m, s }' | tee -a "$out/summary.txt"
        else
          awk -v t="$tag" -v m="$m" 'BEGIN { printf "%s: vulkan %.3f ms/frame (%.0f fps)\n", t, 1000 * m, 1 / m }' \
            | tee -a "$out/summary.txt"
        fi
      done
      if [ "${CPU:-0}" = 1 ]; then
        nc=${N_CPU:-24} c1=() cn=()
        for ((r = 0; r < ${REPS_CPU:-3}; r++)); do
          a=$(now)
          "$X/vkssim" score "${io[@]}" -n "${vf[@]}" --backend cpu --threads 16 --frame_cnt 1 -q --json -o "$D/c1.json"
          b=$(now)
          "$X/vkssim" score "${io[@]}" -n "${vf[@]}" --backend cpu --threads 16 --frame_cnt "$nc" -q --json -o "$D/c.json"
          c=$(now)
          c1+=("$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')")
          cn+=("$(awk -v b="$b" -v c="$c" 'BEGIN { print c - b }')")
        done
        m=$(awk -v one="$(median "${c1[@]}")" -v all="$(median "${cn[@]}")" -v n="$nc" 'BEGIN { print (all - one) / (n - 1) }')
        awk -v t="$1x$2 $3-bit [$F] (vkssim --backend cpu --threads 16)" -v m="$m" -v v="${v:-0}" 'BEGIN {
          printf "%s: cpu twin %.3f ms/frame (%.0f fps); vmaf -n 16 threads %.1f ms/frame; %.1fx\n", t, 1000 * m, 1 / m, 1000 * v, v / m }' \
          | tee -a "$out/summary.txt"
      fi
      unset t1 tn
     done
    done
  done
fi
if has bench; then
  pair 3840 2160 8
  for F in "float_ms_ssim" "psnr" "float_ssim psnr float_ms_ssim"; do
    fl=()
    for f in $F; do fl+=(--feature "$f"); done
    name=$(echo "$F" | tr ' ' '+')
    step "bench_generated_$name" "$X/vkssim" bench "${fl[@]}" -w 3840 -h 2160 -b 8 --frames 60 --no-cpu --json
    step "bench_files_$name" "$X/vkssim" bench "${fl[@]}" "${io[@]}" --frames 60 --no-cpu --json
    for k in generated files; do
      f="$out/bench_${k}_$name.log"
      echo "bench $k 4K 8-bit [$F]: $(grep -o '"backend": "[^"]*"' "$f") $(grep -o '"ms_per_frame": [0-9.]*' "$f" | head -n 1)" | tee -a "$out/summary.txt"
      # The mean GPU time of each pass per frame, microseconds.
      awk '/"gpu_pass_us_mean"/,/}/' "$f" | tr -d ' \n' | sed 's/^/  passes: /; s/$/\n/' | tee -a "$out/summary.txt"
    done
  done
fi
