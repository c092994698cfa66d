#!/usr/bin/env bash
# Prepares .gl-extra/ for a run on the GPU machine of the `device` tool, which has
# the NVIDIA driver but no Rust toolchain, no ffmpeg and no package registry:
# release binaries (CLI, GPU test binaries, the device-resident bench example,
# libvmaf's -O3 vmaf CLI), the libraries they need, the Khronos validation layer
# package and the compressed clip corpus. Carry [".gl", ".gl-extra"] and run
# `bash tools/device-report.sh` there (see that script).
set -euo pipefail
x=.gl-extra
. "$(dirname "$0")/bundle-common.sh"
rm -rf "$x/bin" "$x/lib"
mkdir -p "$x/bin" "$x/lib"
copy_tests "$x/bin" -p vkssim-tests --test vk_parity -p vkssim --test vk_passes --test vk_frames \
  -- vk_parity vk_passes vk_frames
# Two builds: with --example, cargo builds only that target, not the CLI.
# The CLI without encoded-input decoding: the FFmpeg libraries and theirs
# would not fit the device tool's carry limit, and the device runs read raw
# and Y4M clips only.
cargo build --release -q -p vkssim-cli --no-default-features
cargo build --release -q -p vkssim --example device_resident_bench
cp target/release/vkssim "$x/bin/vkssim"
cp target/release/examples/device_resident_bench "$x/bin/"
# BEFORE=<commit>: the same bench built at that commit too, for a before and
# after in one run (a worktree under target/, its own target folder).
if [ -n "${BEFORE:-}" ]; then
  wt=target/before-worktree
  git worktree remove --force "$wt" 2>/dev/null || true
  git worktree add -q --detach "$wt" "$BEFORE"
  (cd "$wt" && CARGO_TARGET_DIR="$top/target/before-target" cargo build --release -q -p vkssim --example device_resident_bench)
  cp target/before-target/release/examples/device_resident_bench "$x/bin/device_resident_bench_before"
  git worktree remove --force "$wt"
fi
cp "$(tools/build-vmaf-release.sh)" "$x/bin/vmaf"
strip "$x"/bin/*
command -v zstd >/dev/null || apt-get install -y -q zstd >/dev/null
cp "$(command -v zstd)" "$x/bin/zstd"
bash tools/copy-libs.sh "$x/lib" "$x"/bin/*
# libvmaf.so.1 (the parity oracle) is linked from libvmaf-sys' build folder.
vmaf_so=$(ls -t target/release/build/libvmaf-sys-*/out/build/src/libvmaf.so.1 | head -n 1)
cp -L "$vmaf_so" "$x/lib/libvmaf.so.1"
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
corpus=$(bash tools/gen-clips.sh)
tar -C "$(dirname "$(dirname "$corpus")")" -cf - "vkssim-clips/$(basename "$corpus")" \
  | zstd -19 --long=27 -T0 -q -f -o "$x/clips.tar.zst"
du -sh "$x" .gl
