#!/usr/bin/env bash
# The H200 run of issue 18 (psnr, float_ms_ssim and all three with
# float_ssim): for 4K and 1080p, 8 and 10-bit 4:2:0 pairs generated here
# (`vkssim bench --write-yuv`, N frames, in the page cache), the whole CLI on
# `--backend vulkan` (marginal time per frame: (t(N) - t(1)) / (N - 1), start-up
# cancels), libvmaf's -O3 `vmaf -n` on 16 threads (8 frames), and the Vulkan
# output file against single-threaded vmaf's (every line but version and
# fps; vmaf orders features by thread completion when threaded).
#
# Prepare here: a folder .gl-extra/ with bin/vkssim (built with
# --no-default-features: the FFmpeg libraries do not fit the device tool's
# carry limit), bin/vmaf (tools/build-vmaf-release.sh) and this script, and
# .gl/ (../shared/tools/vulkan-loader.sh); carry [".gl", ".gl-extra"] and run
# `N=120 bash .gl-extra/metrics-device.sh`.
set -u
for f in .gl/*.deb; do dpkg -x "$f" / >/dev/null; done
ldconfig
export LD_LIBRARY_PATH=$PWD/.gl-extra/lib
X=$PWD/.gl-extra/bin D=/tmp/mb N=${N:-120}
mkdir -p "$D"
now() { echo "$EPOCHREALTIME"; }
comparable() { grep -v -e '"version"' -e 'fps' "$1"; }
for g in "3840 2160 8" "3840 2160 10" "1920 1080 8" "1920 1080 10"; do
  set -- $g
  p=$D/g${2}b$3
  [ -f "${p}_ref.yuv" ] || "$X/vkssim" bench --write-yuv "$p" --frames "$N" -w "$1" -h "$2" -b "$3" -p 420 >/dev/null
  cat "${p}_ref.yuv" "${p}_dist.yuv" >/dev/null
  io=(-r "${p}_ref.yuv" -d "${p}_dist.yuv" -w "$1" -h "$2" -b "$3" -p 420)
  for F in "float_ms_ssim" "psnr" "float_ssim psnr float_ms_ssim"; do
    fl=()
    for f in $F; do fl+=(--feature "$f"); done
    tag="$1x$2 $3-bit [$F]"
    a=$(now)
    "$X/vkssim" score "${io[@]}" "${fl[@]}" --backend vulkan --frame_cnt 1 -q --json -o "$D/v1.json"
    b=$(now)
    "$X/vkssim" score "${io[@]}" "${fl[@]}" --backend vulkan -q --json -o "$D/v.json"
    c=$(now)
    "$X/vmaf" "${io[@]}" "${fl[@]}" -n --threads 16 --frame_cnt 8 -q --json -o "$D/m16.json" >/dev/null 2>&1
    d=$(now)
    "$X/vkssim" score "${io[@]}" "${fl[@]}" --backend vulkan --frame_cnt 8 -q --json -o "$D/v8.json"
    "$X/vmaf" "${io[@]}" "${fl[@]}" -n --frame_cnt 8 -q --json -o "$D/m1.json" >/dev/null 2>&1
    if diff <(comparable "$D/v8.json") <(comparable "$D/m1.json") >/dev/null; then
      same="identical to vmaf's ($(comparable "$D/v8.json" | wc -l) lines, 8 frames)"
    else
      same=DIFFERS
    fi
    awk -v t="$tag" -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v n="$N" -v s="$same" 'BEGIN {
      m = ((c - b) - (b - a)) / (n - 1)
      printf "%s: vulkan %.2f ms/frame (%.0f fps); vmaf -n 16 threads %.1f ms/frame; file %s\n",
        t, 1000 * m, 1 / m, 1000 * (d - c) / 8, s }'
  done
done
