#!/usr/bin/env bash
# The H200 run of issue 19 (encoded inputs), in parts chosen by PARTS
# (default "clips exact speed"):
#
# - clips: a 1080p and a 4K H.264 pair made there by the bundle's ffmpeg,
#   the recipe of BENCHMARKS.md's 1080p pair (testsrc2 with temporal noise,
#   300 frames, libx264 preset medium, reference CRF 18, distorted CRF 32, MP4).
# - exact: per pair, `vkssim score` on the MP4s (decoded by FFmpeg on the
#   CPU, and by Vulkan Video with --decode gpu) against `vkssim score` on the
#   Y4M that ffmpeg decodes (-fps_mode passthrough): identical float_ssim lines.
# - speed: tools/bench-encoded.sh's ways on each pair with the host's 16
#   threads: a (decode only), b_default (CPU decode, scored on the GPU),
#   b_gpu (--decode gpu), b_cpu (the CPU twin), c (ffmpeg pipes into vkssim),
#   d (ffmpeg pipes into vmaf), REPEAT (default 2) rounds. With OLD (a
#   binary of the bundle, e.g. vkssim-old), the ways run that build and
#   way b_new the bundle's vkssim: a before-and-after in one run.
#
# Prepare here: `bash tools/encoded-bundle.sh`. There: carry [".gl",
# ".gl-encoded"] and run `bash tools/encoded-device.sh`. Logs and
# summary.txt go to $OUT/encoded.
set -u
bundle=.gl-encoded
out=${OUT:-/tmp}/encoded
default_parts="clips exact speed"
default_limit=400
. "$(dirname "$0")/device-common.sh"
X=$PWD/$bundle/bin D=/tmp/enc
mkdir -p "$D"
export PATH=$X:$PATH
echo "commit $(cat "$bundle/COMMIT" 2>/dev/null); $(nvidia-smi -L 2>/dev/null | head -n 1); $(nproc) cores" | tee -a "$out/summary.txt"
sizes=${SIZES:-1920x1080 3840x2160}
if has clips; then
  for s in $sizes; do
    for crf in 18 32; do
      [ -f "$D/${s}_$crf.mp4" ] && continue
      step "clip_${s}_$crf" ffmpeg -nostdin -loglevel error -f lavfi \
        -i "testsrc2=size=$s:rate=30,noise=alls=4:allf=t" -frames:v 300 -pix_fmt yuv420p \
        -c:v libx264 -preset medium -crf "$crf" -y "$D/${s}_$crf.mp4"
    done
    ls -l "$D/${s}"_*.mp4 | tee -a "$out/summary.txt"
  done
fi
if has exact; then
  for s in $sizes; do
    r=$D/${s}_18.mp4 d=$D/${s}_32.mp4
    for i in r d; do
      ffmpeg -nostdin -loglevel error -i "${!i}" -fps_mode passthrough -f yuv4mpegpipe -y "$D/$i.y4m"
    done
    step "exact_y4m_$s" vkssim score -n --feature float_ssim -r "$D/r.y4m" -d "$D/d.y4m" -q --json -o "$D/y.json"
    step "exact_cpu_$s" vkssim score -n --feature float_ssim -r "$r" -d "$d" -q --decode cpu --json -o "$D/c.json"
    step "exact_gpu_$s" vkssim score -n --feature float_ssim -r "$r" -d "$d" -q --decode gpu --json -o "$D/g.json"
    for k in c g; do
      if cmp -s <(grep '"float_ssim"' "$D/y.json") <(grep '"float_ssim"' "$D/$k.json"); then
        echo "$s decode $k: float_ssim lines identical to the ffmpeg-decoded Y4M's ($(grep -c '"float_ssim"' "$D/$k.json") lines)"
      else
        echo "$s decode $k: float_ssim lines DIFFER from the ffmpeg-decoded Y4M's"
      fi | tee -a "$out/summary.txt"
    done
    rm -f "$D/r.y4m" "$D/d.y4m"
  done
fi
if has speed; then
  for s in $sizes; do
    step "speed_$s" env VKSSIM="$X/${OLD:-vkssim}" VKSSIM_NEW="$X/vkssim" DECODE_RATE="$X/decode_rate" VMAF="$X/vmaf" \
      FFMPEG="$X/ffmpeg" THREADS="$(nproc)" REPEAT="${REPEAT:-2}" \
      WAYS="${WAYS:-a b_default b_gpu b_cpu c d}" \
      bash "$(dirname "$0")/bench-encoded.sh" "$D/${s}_18.mp4" "$D/${s}_32.mp4" 300
    grep -v '^###' "$out/speed_$s.log" | sed "s/^/$s /" | tee -a "$out/summary.txt"
  done
fi
