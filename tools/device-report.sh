#!/usr/bin/env bash
# Runs on the GPU machine of the `device` tool, from the repository copy, after
# tools/device-bundle.sh prepared .gl-extra/ here: installs the Vulkan loader
# and validation layer packages, then in one run: lists the devices, runs the
# GPU test binaries (pass-by-pass and frame-by-frame against the CPU twin, and
# the libvmaf parity corpus on both upload paths and both arithmetic paths,
# validation on), times the CPU backend against libvmaf's -O3 vmaf CLI on the
# same 1080p files at 1 and 2 threads, and runs the throughput benches. Every
# log goes to $OUT (or ./device-out).
#
#   device run, carry [".gl", ".gl-extra"]:  bash tools/device-report.sh
#
# PARTS (default "tests cpu bench") picks the parts to run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/device-out} bundle=.gl-extra default_limit=240 default_parts="tests cpu bench"
. tools/device-common.sh
X=$top/.gl-extra/bin
# The test binaries look for the workspace where they were built (/work/main)
# and for their target folder beside their own path.
if [ "$top" != /work/main ]; then mkdir -p /work && rm -rf /work/main && ln -s "$top" /work/main; fi
mkdir -p target/release/deps
cp "$X"/vk_parity "$X"/vk_passes "$X"/vk_frames target/release/deps/
"$X"/zstd -dc .gl-extra/clips.tar.zst | tar -C target -xf -
# gen-clips.sh asks for ffmpeg before it finds its cache; the corpus is cached.
mkdir -p /tmp/noffmpeg && printf '#!/bin/sh\nexit 1\n' >/tmp/noffmpeg/ffmpeg && chmod +x /tmp/noffmpeg/ffmpeg
export PATH=$PATH:/tmp/noffmpeg
step devices "$X/vkssim" devices
if has tests; then
LIMIT=60 step vk_passes target/release/deps/vk_passes --nocapture --test-threads 1
LIMIT=90 step vk_frames target/release/deps/vk_frames --nocapture --test-threads 1
LIMIT=150 step vk_parity target/release/deps/vk_parity --nocapture --test-threads 8
# Frames identical to libvmaf, per upload path and arithmetic path.
sed -n 's/.*\] \(vulkan [A-Za-z]* no_fp64=[a-z]*\) (.*, \([A-Za-z0-9]*\))\: \([0-9]*\) frames identical to libvmaf.*/\1 \2 \3/p' \
  "$out/vk_parity.log" | awk '{c[$1" "$2" "$3" "$4]+=$5} END {for (k in c) print k": "c[k]" frames identical to libvmaf"}' \
  | sort | tee -a "$out/summary.txt"
grep -h "test result" "$out"/vk_*.log | tee -a "$out/summary.txt"
grep -h "decimate .* us" "$out/vk_frames.log" | tee -a "$out/summary.txt"
fi

# CPU backend against libvmaf (-O3) on the same 1080p 8-bit files.
D=/tmp/vkssim-bench; mkdir -p "$D"
"$X/vkssim" bench --write-yuv "$D/p1080" --frames 22 -w 1920 -h 1080 -b 8 >/dev/null 2>&1
"$X/vkssim" bench --write-yuv "$D/p2160" --frames 202 -w 3840 -h 2160 -b 8 >/dev/null 2>&1
"$X/vkssim" bench --write-yuv "$D/h1080" --frames 202 -w 1920 -h 1080 -b 8 >/dev/null 2>&1
in1080=("$D/p1080_ref.yuv" "$D/p1080_dist.yuv" 22 -w 1920 -h 1080 -p 420 -b 8)
if has cpu; then
for t in 1 2; do
  VMAF=$X/vmaf VKSSIM=$X/vkssim THREADS=$t VKSSIM_FLAGS="--backend cpu --threads $t" \
    step "cpu_vs_vmaf_t$t" bash tools/bench-vs-vmaf.sh "${in1080[@]}"
  cat "$out/cpu_vs_vmaf_t$t.log" >>"$out/summary.txt"
done
VMAF=$X/vmaf VKSSIM=$X/vkssim THREADS=16 step vulkan_vs_vmaf_1080p bash tools/bench-vs-vmaf.sh "${in1080[@]}"
cat "$out/vulkan_vs_vmaf_1080p.log" >>"$out/summary.txt"
fi

# Throughput (issue 4) and device-resident pairs (issue 5).
if has bench; then
f4k=(-r "$D/p2160_ref.yuv" -d "$D/p2160_dist.yuv" -w 3840 -h 2160 -b 8)
f1k=(-r "$D/h1080_ref.yuv" -d "$D/h1080_dist.yuv" -w 1920 -h 1080 -b 8)
LIMIT=60 step bench_4k_files "$X/vkssim" bench "${f4k[@]}" --frames 202 --no-cpu --json
LIMIT=60 step bench_4k_files_staging "$X/vkssim" bench "${f4k[@]}" --frames 202 --no-cpu --upload staging --json
LIMIT=60 step bench_4k_files_direct "$X/vkssim" bench "${f4k[@]}" --frames 202 --no-cpu --upload direct --json
LIMIT=60 step bench_1080p_files_direct "$X/vkssim" bench "${f1k[@]}" --frames 202 --no-cpu --upload direct --json
LIMIT=60 step bench_1080p_files "$X/vkssim" bench "${f1k[@]}" --frames 202 --no-cpu --json
VKSSIM_SUM_THREADS=8 LIMIT=60 step bench_1080p_files_sum8 "$X/vkssim" bench "${f1k[@]}" --frames 202 --no-cpu --json
VKSSIM_SUM_THREADS=12 LIMIT=60 step bench_1080p_files_sum12 "$X/vkssim" bench "${f1k[@]}" --frames 202 --no-cpu --json
LIMIT=60 step bench_4k_builtin "$X/vkssim" bench --frames 22 --json
LIMIT=60 step device_resident_4k "$X/device_resident_bench" --frames 4000 --reps 3
LIMIT=60 step device_resident_4k_if16 "$X/device_resident_bench" --frames 4000 --reps 3 --in-flight 16
# The same without batched submissions (a build of the commit before them,
# when the bundle has one: tools/device-bundle.sh with BEFORE=<commit>).
if [ -x "$X/device_resident_bench_before" ]; then
LIMIT=60 step device_resident_4k_before "$X/device_resident_bench_before" --frames 4000 --reps 3
LIMIT=60 step device_resident_4k_if16_before "$X/device_resident_bench_before" --frames 4000 --reps 3 --in-flight 16
fi
tail -n 5 "$out"/device_resident_4k*.log >>"$out/summary.txt"
for f in "$out"/bench_*.log; do
  printf '%s: ' "$(basename "$f" .log)"
  grep -o '"\(backend\|frames_per_second\|ms_per_frame\)": [^,]*' "$f" | tr '\n' ' '
  echo
done | tee -a "$out/summary.txt"
fi
echo done >>"$out/summary.txt"
