#!/usr/bin/env bash
# Prepares .gl-encoded/ for tools/encoded-device.sh on the GPU machine of the
# `device` tool (no Rust toolchain, no FFmpeg, no package registry there):
# the release CLI with encoded inputs and Vulkan Video (features ffmpeg and
# vulkan-video), the decode_rate example, libvmaf's -O3 vmaf CLI
# (tools/build-vmaf-release.sh), and a minimal FFmpeg of the same version as
# Debian's (tools/ffmpeg-minimal.sh: its shared libraries stand in for
# Debian's, whose codec libraries do not fit the carry limit, and its ffmpeg
# program makes the clips and the pipes there), with the libraries they load.
# Run here, then carry [".gl", ".gl-encoded"] and run
# `bash tools/encoded-device.sh` there (see that script).
set -euo pipefail
x=.gl-encoded
. "$(dirname "$0")/bundle-common.sh"
ff=$(tools/ffmpeg-minimal.sh)
rm -rf "$x/bin" "$x/lib"
mkdir -p "$x/bin" "$x/lib"
cargo build --release -q -p vkssim-cli --features vulkan-video
cargo build --release -q -p vkssim --features ffmpeg --example decode_rate
cp target/release/vkssim target/release/examples/decode_rate "$x/bin/"
cp "$(tools/build-vmaf-release.sh)" "$x/bin/vmaf"
cp "$ff/bin/ffmpeg" "$x/bin/ffmpeg"
strip "$x"/bin/*
# The minimal FFmpeg's libraries resolve first, so none of Debian's is copied.
LD_LIBRARY_PATH=$ff/lib bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
git rev-parse --short HEAD >"$x/COMMIT"
du -sh "$x" .gl
