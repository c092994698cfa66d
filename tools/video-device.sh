#!/usr/bin/env bash
# Runs on the GPU machine of the `device` tool (issue 10), from the repository
# copy, with .gl and .gl-video carried (tools/video-bundle.sh). Installs the
# Vulkan loader and validation layer packages, then:
#
# default: lists the devices, runs image_frames (multi-planar images against
# the CPU twin) and the vulkan_video example on each stream pair (GPU decode +
# score against the CPU path's exact scores) with validation, times it without
# validation, runs the CLI on the .h264 inputs and compares its JSON with the
# CPU path's, and times the score of raw 4K frames from a pipe.
#
# MODE=pipe (the bundle of `MODE=pipe tools/video-bundle.sh`: ffmpeg from the
# imageio-ffmpeg wheel, the CLI zstd-compressed, the 4K streams): the 4K pair
# repeated 8 times (512 frames) scored by the GPU path (`vkssim score` on the
# .h264 files: Vulkan Video decode + score) and by the CPU-decode pipe
# (`ffmpeg ... -f yuv4mpegpipe - | vkssim score -d -`), alternately, three
# times each, with wall and CPU time; the two paths' scores compared line for
# line; the GPU path once more with the validation layer (synchronization
# validation) on the single pair.
#
# Logs go to $OUT (or ./video-out); summary.txt gathers them.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/video-out}
mkdir -p "$out"
G=$top/.gl-video
for f in .gl/*.deb "$G/vulkan-validationlayers.deb"; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH=$G/lib
if [ "${MODE:-}" = vmaf ]; then
# MODE=vmaf (the bundle of `MODE=vmaf tools/video-bundle.sh`): VMAF's default
# model with float_ssim, float_ms_ssim and psnr on luma, on H.264 decoded on
# the GPU (`--decode gpu`), against the CPU path's cpuvmafN.json (ffmpeg-
# decoded, CPU twin, made off the device by tools/video-streams.sh): with the
# validation layer (synchronization validation) and without (timed); then psnr
# with chroma, which the GPU-decoded path refuses.
X=$G/bin
S=$G/streams
sum=$out/summary.txt
TIMEFORMAT="time: real %R s, user %U s, sys %S s"
feats=(--feature float_ssim --feature float_ms_ssim --feature psnr=enable_chroma=false)
same() {
  # Everything but the version and fps lines.
  local n
  n=$(grep -c '"frameNum"' "$1")
  if cmp -s <(grep -v -e '"version"' -e '"fps"' "$1") <(grep -v -e '"version"' -e '"fps"' "$2"); then
    echo "$n frames, $(grep -c '"' "$1") lines: identical (version and fps ignored)"
  else
    echo "$n frames: DIFFERENT"
  fi
}
for s in 1080 2160; do
  echo "## ${s}p, validation on: vkssim score --decode gpu -r ref$s.h264 -d dist$s.h264 ${feats[*]} --json --precision max" >>"$sum"
  VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT VKSSIM_VALIDATION=1 \
    "$X/vkssim" score --decode gpu -r "$S/ref$s.h264" -d "$S/dist$s.h264" "${feats[@]}" --json --precision max -o "$out/val$s.json" >"$out/val$s.log" 2>&1
  echo "exit $?; validation error/warning lines: $(grep -ciE 'validation (error|warning)|VUID|SYNC-HAZARD' "$out/val$s.log")" >>"$sum"
  grep -iE "VUID|SYNC-HAZARD|error" "$out/val$s.log" | head -n 10 >>"$sum"
  same "$out/val$s.json" "$S/cpuvmaf$s.json" >>"$sum" 2>&1
  for i in 1 2 3; do
    echo "## ${s}p, run $i" >>"$sum"
    { time "$X/vkssim" score --decode gpu -r "$S/ref$s.h264" -d "$S/dist$s.h264" "${feats[@]}" --json --precision max -o "$out/gpu${s}_$i.json" >"$out/gpu${s}_$i.log" 2>&1; } 2>>"$sum"
    grep '"fps"' "$out/gpu${s}_$i.json" >>"$sum"
  done
  same "$out/gpu${s}_1.json" "$S/cpuvmaf$s.json" >>"$sum" 2>&1
done
echo "## psnr with chroma on GPU-decoded frames (refused):" >>"$sum"
"$X/vkssim" score --decode gpu -n --feature psnr -r "$S/ref1080.h264" -d "$S/dist1080.h264" >"$out/chroma.log" 2>&1
echo "exit $?: $(head -c 400 "$out/chroma.log")" >>"$sum"
cat "$sum"
exit 0
fi
if [ "${MODE:-}" = pipe ]; then
X=/tmp/vv-bin; mkdir -p "$X"
for f in "$G"/bin/*.zst; do "$G/bin/zstd" -d -q -f "$f" -o "$X/$(basename "$f" .zst)"; done
chmod +x "$X"/*
S=$G/streams
sum=$out/summary.txt
TIMEFORMAT="time: real %R s, user %U s, sys %S s"
echo "cores: $(nproc); $("$X/ffmpeg" -version | head -n 1)" >>"$sum"
for k in ref dist; do for i in 1 2 3 4 5 6 7 8; do cat "$S/${k}2160.h264"; done >"/tmp/${k}8.h264"; done
pipe() {
  "$X/ffmpeg" -nostdin -v error -i /tmp/dist8.h264 -f yuv4mpegpipe -pix_fmt yuv420p - |
    "$X/vkssim" score -n --feature float_ssim -r <("$X/ffmpeg" -nostdin -v error -i /tmp/ref8.h264 -f yuv4mpegpipe -pix_fmt yuv420p -) \
      -d - --json --precision max -o "$1"
}
for i in 1 2 3; do
  echo "## GPU path, 512 4K frames, run $i: vkssim score -r ref8.h264 -d dist8.h264" >>"$sum"
  { time "$X/vkssim" score -n --feature float_ssim -r /tmp/ref8.h264 -d /tmp/dist8.h264 --json --precision max -o "$out/gpu8_$i.json" >"$out/gpu8_$i.log" 2>&1; } 2>>"$sum"
  grep '"fps"' "$out/gpu8_$i.json" >>"$sum"
  echo "## CPU-decode pipe, 512 4K frames, run $i: ffmpeg -i dist8.h264 -f yuv4mpegpipe - | vkssim score -r <(ffmpeg -i ref8.h264 ...) -d -" >>"$sum"
  { time pipe "$out/pipe8_$i.json" >"$out/pipe8_$i.log" 2>&1; } 2>>"$sum"
  grep '"fps"' "$out/pipe8_$i.json" >>"$sum"
done
echo "## ffmpeg decode alone (one stream of 512 4K frames to /dev/null)" >>"$sum"
{ time "$X/ffmpeg" -nostdin -v error -i /tmp/ref8.h264 -f yuv4mpegpipe -pix_fmt yuv420p - >/dev/null; } 2>>"$sum"
n=$(grep -c '"float_ssim"' "$out/gpu8_1.json")
if diff <(grep '"float_ssim"' "$out/gpu8_1.json") <(grep '"float_ssim"' "$out/pipe8_1.json") >/dev/null; then
  echo "GPU path vs ffmpeg pipe on the H200: $n float_ssim lines identical (512 frames + the pooled line)" >>"$sum"
else
  echo "GPU path vs ffmpeg pipe on the H200: DIFFERENT" >>"$sum"
fi
if diff <(grep '"float_ssim"' "$out/gpu8_1.json" | head -n 64) <(grep '"float_ssim"' "$S/cpu2160.json" | head -n 64) >/dev/null; then
  echo "GPU path first 64 frames identical to the CPU path made off the H200" >>"$sum"
else
  echo "GPU path first 64 frames DIFFERENT from the CPU path made off the H200" >>"$sum"
fi
echo "## GPU path with validation (VK_INSTANCE_LAYERS + synchronization validation), one 4K pair" >>"$sum"
VK_LOADER_DEBUG=layer VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT VKSSIM_VALIDATION=1 \
  "$X/vkssim" score -n --feature float_ssim -r "$S/ref2160.h264" -d "$S/dist2160.h264" --json --precision max -o "$out/val.json" >"$out/val.log" 2>&1
echo "exit $?; layer loaded: $(grep -c 'VK_LAYER_KHRONOS_validation' "$out/val.log") loader lines name it" >>"$sum"
grep -iE "validation (error|warning|information)|VUID|SYNC-HAZARD" "$out/val.log" | head -n 20 >>"$sum"
echo "validation error/warning lines: $(grep -ciE 'validation (error|warning)|SYNC-HAZARD' "$out/val.log")" >>"$sum"
diff <(grep '"float_ssim"' "$out/val.json") <(grep '"float_ssim"' "$S/cpu2160.json") >/dev/null && echo "with validation: identical to the CPU path" >>"$sum"
cat "$sum"
exit 0
fi
X=$G/bin
S=$G/streams
TIMEFORMAT="time: real %R s, user %U s, sys %S s"
step() {
  local name=$1; shift
  echo "### $name: $*" >>"$out/summary.txt"
  { time timeout "${LIMIT:-120}" "$@" >"$out/$name.log" 2>&1; } 2>>"$out/$name.time"
  local rc=$?
  echo "### $name: exit $rc; $(cat "$out/$name.time")" >>"$out/summary.txt"
}
nproc >"$out/nproc.txt"
command -v nvidia-smi >/dev/null && nvidia-smi -L >"$out/gpus.txt" 2>&1
step devices "$X/vkssim" devices
grep -E "^\[|H.264" "$out/devices.log" >>"$out/summary.txt"
step image_frames env VKSSIM_VALIDATION=1 "$X/image_frames"
grep -E "identical|skipped|validation" "$out/image_frames.log" | tail -n 30 >>"$out/summary.txt"
for s in 1080 2160; do
  LIMIT=180 step "video_$s""_validation" env VKSSIM_VALIDATION=1 "$X/vulkan_video" "$S/ref$s.h264" "$S/dist$s.h264" --expect "$S/expect$s.txt"
  grep -E "^run|identical to|validation messages|DIFFERS|skipped|^vulkan_video" "$out/video_$s""_validation.log" >>"$out/summary.txt"
  grep -ci "validation" "$out/video_$s""_validation.log" >>"$out/summary.txt"
  step "video_$s" "$X/vulkan_video" "$S/ref$s.h264" "$S/dist$s.h264" --expect "$S/expect$s.txt" --repeat 5 --decode-only
  grep -E "^run|identical to|^decode only|DIFFERS" "$out/video_$s.log" >>"$out/summary.txt"
  step "cli_$s" "$X/vkssim" score -n --feature float_ssim -r "$S/ref$s.h264" -d "$S/dist$s.h264" --json --precision max -o "$out/cli$s.json"
  if diff <(grep '"float_ssim"' "$S/cpu$s.json") <(grep '"float_ssim"' "$out/cli$s.json") >"$out/cli_$s.diff"; then
    echo "cli $s: JSON float_ssim lines identical to the CPU path: $(grep -c '"float_ssim"' "$out/cli$s.json")" >>"$out/summary.txt"
  else
    echo "cli $s: DIFFERENT from the CPU path (cli_$s.diff)" >>"$out/summary.txt"
  fi
  grep '"fps"' "$out/cli$s.json" >>"$out/summary.txt"
done
# The scoring side of `ffmpeg ... -f yuv4mpegpipe - | vkssim score -d -`:
# raw 4K frames (the vkssim bench's generator) through a pipe, scored on the GPU.
D=/tmp/vkssim-video; mkdir -p "$D"
"$X/vkssim" bench --write-yuv "$D/p2160" --frames 64 -w 3840 -h 2160 -b 8 >/dev/null 2>&1
step pipe_2160 bash -c "cat $D/p2160_dist.yuv | $X/vkssim score -n --feature float_ssim -r $D/p2160_ref.yuv -d - -w 3840 -h 2160 -p 420 -b 8 --json -o $out/pipe2160.json"
grep '"fps"' "$out/pipe2160.json" >>"$out/summary.txt"
cat "$out/summary.txt"
