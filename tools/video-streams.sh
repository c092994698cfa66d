#!/usr/bin/env bash
# video-streams.sh [DIR]: the H.264 test streams of issue 10 and the scores the
# GPU-decoded path must equal (default DIR /work/v10-streams2). 64 frames each
# of testsrc2 (moving), 8-bit 4:2:0, High profile, I/P/B frames (keyint 32, 3
# B-frames, no B-pyramid), Annex B: a reference at CRF 28 and a distorted at
# CRF 40, at 1920x1080 and 3840x2160. Each is decoded by ffmpeg (-f
# yuv4mpegpipe) and scored by `vkssim score --backend cpu --precision max`
# (cpuN.json; expectN.txt: one float_ssim per line for the vulkan_video
# example's --expect), and compared with libvmaf's vmaf CLI
# (tools/compare-with-vmaf.sh, libvmaf's 6 decimals). cpuvmafN.json: the
# same frames scored with VMAF's default model, float_ssim, float_ms_ssim and
# psnr on luma (every metric the GPU-decoded path takes), for
# `MODE=vmaf tools/video-device.sh`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
d=${1:-/work/v10-streams2}
mkdir -p "$d"
cd "$d"
x264p="keyint=32:min-keyint=32:scenecut=0:bframes=3:b-pyramid=none"
for s in 1920x1080:1080 3840x2160:2160; do
  size=${s%%:*} n=${s##*:}
  for k in ref:28 dist:40; do
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$size:rate=30" -frames:v 64 \
      -pix_fmt yuv420p -c:v libx264 -preset fast -crf "${k##*:}" -profile:v high \
      -x264-params "$x264p" -f h264 "${k%%:*}$n.h264"
    ffmpeg -nostdin -v error -y -i "${k%%:*}$n.h264" -f yuv4mpegpipe -pix_fmt yuv420p "/tmp/${k%%:*}$n.y4m"
  done
  "$top/target/release/vkssim" score -n --feature float_ssim --backend cpu -r "/tmp/ref$n.y4m" -d "/tmp/dist$n.y4m" \
    --json --precision max -o "cpu$n.json"
  "$top/target/release/vkssim" score --feature float_ssim --feature float_ms_ssim \
    --feature psnr=enable_chroma=false --backend cpu -r "/tmp/ref$n.y4m" -d "/tmp/dist$n.y4m" \
    --json --precision max -o "cpuvmaf$n.json"
  python3 -c "import json,sys; print('\n'.join(repr(f['metrics']['float_ssim']) for f in json.load(open(sys.argv[1]))['frames']))" \
    "cpu$n.json" >"expect$n.txt"
  echo "libvmaf vs vkssim --backend cpu, ${n}p:"
  VKSSIM="$top/target/release/vkssim" VKSSIM_ARGS="--backend cpu" \
    bash "$top/tools/compare-with-vmaf.sh" -r "/tmp/ref$n.y4m" -d "/tmp/dist$n.y4m" --json
  rm -f "/tmp/ref$n.y4m" "/tmp/dist$n.y4m"
done
ls -l "$d"
