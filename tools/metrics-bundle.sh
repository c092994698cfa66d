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
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# The ignore list of this checkout (a worktree's is the main checkout's).
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
for d in /.gl/ /.gl-metrics/; do
  grep -qx "$d" "$exclude" 2>/dev/null || echo "$d" >> "$exclude"
done
ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || bash ../shared/tools/vulkan-loader.sh >/dev/null
x=.gl-metrics
rm -rf "$x/bin" "$x/lib"
mkdir -p "$x/bin" "$x/lib"
tests=(vk_metrics api api_shared api_images)
tests_json=$(cargo test --release --no-run --message-format=json -p vkssim "${tests[@]/#/--test=}" 2>/dev/null)
for t in "${tests[@]}"; do
  exe=$(printf '%s\n' "$tests_json" | grep "\"name\":\"$t\"" | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
  [ -n "$exe" ] || { echo "no test binary for $t" >&2; exit 1; }
  cp "$exe" "$x/bin/$t"
done
cargo build --release -q -p vkssim-cli --no-default-features
cp target/release/vkssim "$x/bin/vkssim"
cp "$(tools/build-vmaf-release.sh)" "$x/bin/vmaf"
strip "$x"/bin/*
bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
git rev-parse --short HEAD >"$x/COMMIT"
du -sh "$x" .gl
