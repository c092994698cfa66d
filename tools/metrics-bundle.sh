#!/usr/bin/env bash
# Prepares .gl-metrics/ for tools/metrics-device.sh on the GPU machine of the
# `device` tool (no Rust toolchain, no ffmpeg, no package registry there): the
# release CLI built without encoded-input decoding (the FFmpeg libraries do
# not fit the carry limit), libvmaf's -O3 vmaf CLI
# (tools/build-vmaf-release.sh), the vk_metrics, api, api_shared and
# api_images test binaries (the metrics' exactness and range checks on the
# device, shared references and imported frames, validation on), the
# libraries they need and the Khronos validation layer package. Run here,
# then carry [".gl", ".gl-metrics"] and run `bash tools/metrics-device.sh`
# there (see that script).
set -euo pipefail
x=.gl-metrics
. "$(dirname "$0")/bundle-common.sh"
rm -rf "$x/bin" "$x/lib"
mkdir -p "$x/bin" "$x/lib"
tests=(vk_metrics api api_shared api_images)
copy_tests "$x/bin" -p vkssim "${tests[@]/#/--test=}" -- "${tests[@]}"
cargo build --release -q -p vkssim-cli --no-default-features
cp target/release/vkssim "$x/bin/vkssim"
cp "$(tools/build-vmaf-release.sh)" "$x/bin/vmaf"
strip "$x"/bin/*
bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
git rev-parse --short HEAD >"$x/COMMIT"
du -sh "$x" .gl
