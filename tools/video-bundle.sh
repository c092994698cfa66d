#!/usr/bin/env bash
# Prepares DEST (default /work/main/.gl-video) for the H200 checks of issue 10
# through the `device` tool: the vulkan_video and image_frames examples, the CLI
# built with the vulkan-video feature, the libraries they need, the Khronos
# validation layer package, zstd, tools/video-device.sh, and the test streams
# with the CPU path's exact scores (STREAMS, default /work/v10-streams2, made by
# the commands in BENCHMARKS.md). Carry [".gl", ".gl-video"] and run
# `bash .gl-video/video-device.sh` there. MODE=pipe instead prepares the
# 64 MiB-limited bundle of `MODE=pipe bash .gl-video/video-device.sh`:
# ffmpeg (the static build that the imageio-ffmpeg wheel ships, fetched with
# pip) and the CLI zstd-compressed, the 4K streams only. MODE=vmaf prepares
# `MODE=vmaf bash .gl-video/video-device.sh`: the CLI, its libraries and the
# streams with the CPU path's VMAF scores (cpuvmafN.json).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
x=${DEST:-/work/main/.gl-video}
streams=${STREAMS:-/work/v10-streams2}
rm -rf "$x/bin" "$x/lib" "$x/streams"
mkdir -p "$x/bin" "$x/lib" "$x/streams"
if [ "${MODE:-}" = vmaf ]; then
  # Without FFmpeg (whose libraries would not fit the carry): .h264 goes to
  # the GPU.
  CARGO_TARGET_DIR=target/vv cargo build --release -q -p vkssim-cli --no-default-features --features vulkan-video
  cp target/vv/release/vkssim "$x/bin/"
else
  cargo build --release -q -p vkssim-cli --features vulkan-video
  cp target/release/vkssim "$x/bin/"
  cargo build --release -q -p vkssim --example image_frames
  cargo build --release -q -p vkssim --example vulkan_video --features vulkan-video
  cp target/release/examples/image_frames target/release/examples/vulkan_video "$x/bin/"
fi
strip "$x"/bin/*
cp "$(command -v zstd)" "$x/bin/zstd"
bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
if [ "${MODE:-}" = vmaf ]; then
  # The CLI alone, with the streams and the CPU path's VMAF scores.
  cp "$streams"/*.h264 "$streams"/cpuvmaf*.json "$x/streams/"
elif [ "${MODE:-}" = pipe ]; then
  # The 64 MiB carry (with the checkout) leaves no room for these.
  rm -rf "$x/bin/vulkan_video" "$x/bin/image_frames" "$x/lib"
  wheel=$(mktemp -d)
  pip download -q --no-deps -d "$wheel" imageio-ffmpeg
  python3 -m zipfile -e "$wheel"/imageio_ffmpeg-*.whl "$wheel/x"
  cp "$wheel"/x/imageio_ffmpeg/binaries/ffmpeg-linux-* "$x/bin/ffmpeg"
  rm -rf "$wheel"
  # FFMPEG_ZST: an ffmpeg.zst made before by this step (it takes minutes).
  if [ -n "${FFMPEG_ZST:-}" ]; then cp "$FFMPEG_ZST" "$x/bin/ffmpeg.zst"; rm "$x/bin/ffmpeg"; fi
  for f in ffmpeg vkssim image_frames; do
    [ -f "$x/bin/$f" ] || continue
    zstd --ultra -22 --long=27 -T0 -q -f --rm "$x/bin/$f" -o "$x/bin/$f.zst"
  done
  cp "$streams"/*2160.h264 "$streams"/expect2160.txt "$streams"/cpu2160.json "$x/streams/"
else
  cp "$streams"/*.h264 "$streams"/expect*.txt "$streams"/cpu*.json "$x/streams/"
fi
cp tools/video-device.sh "$x/"
du -sh "$x"
