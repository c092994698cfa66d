#!/usr/bin/env bash
# Prepares .gl-metrics/ for tools/round-device-*.sh and tools/vmaf-device*.sh
# (issues 26-28): the CLI without FFmpeg, the test binaries TESTS names
# (default vk_metrics api vk_motion vk_motion_v32 vk_vif vk_adm), the
# device-resident bench, a BEFORE binary (target/before/release/vkssim, built
# at the "before" commit: 10db0a0 for the round), vmaf -O3. Uses its own
# target folder (target/bt) so a test run in target/release is not disturbed.
# Then carry [".gl", ".gl-metrics"] and run the three device scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=$PWD/target/bt
mkdir -p $CARGO_TARGET_DIR
x=.gl-metrics
. tools/bundle-common.sh
rm -rf "$x/bin" "$x/lib"; mkdir -p "$x/bin" "$x/lib"
tests=(${TESTS:-vk_metrics api vk_motion vk_motion_v32 vk_vif vk_adm})
copy_tests "$x/bin" -p vkssim "${tests[@]/#/--test=}" -- "${tests[@]}"
cargo build --release -q -p vkssim-cli --no-default-features
cp $CARGO_TARGET_DIR/release/vkssim "$x/bin/vkssim"
cargo build --release -q -p vkssim --example device_resident_bench --example ladder_passes
cp $CARGO_TARGET_DIR/release/examples/device_resident_bench "$x/bin/"
cp $CARGO_TARGET_DIR/release/examples/ladder_passes "$x/bin/"
cp "${BEFORE_BIN:-target/before/release/vkssim}" "$x/bin/vkssim-before"
cp target/vmaf-release/build/tools/vmaf "$x/bin/vmaf"
strip "$x"/bin/*
bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
git rev-parse --short HEAD >"$x/COMMIT"
du -sh "$x" .gl
