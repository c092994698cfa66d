#!/usr/bin/env bash
# Prepares .gl-extra/ for a run on the GPU machine of the `device` tool, which has
# the NVIDIA driver but no Rust toolchain, no ffmpeg and no package registry:
# release binaries (CLI, GPU test binaries, the device-resident bench example,
# libvmaf's -O3 vmaf CLI), the libraries they need, the Khronos validation layer
# package and the compressed clip corpus. Carry [".gl", ".gl-extra"] and run
# `bash tools/device-report.sh` there (see that script).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# The ignore list of this checkout (a worktree's is the main checkout's).
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
for d in /.gl/ /.gl-extra/; do
  grep -qx "$d" "$exclude" 2>/dev/null || echo "$d" >> "$exclude"
done
ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || bash ../shared/tools/vulkan-loader.sh >/dev/null
x=.gl-extra
rm -rf "$x/bin" "$x/lib"
mkdir -p "$x/bin" "$x/lib"
# Test binaries: cargo prints each one's path with --message-format=json.
tests_json=$(cargo test --release --no-run --message-format=json \
  -p vkssim-tests --test vk_parity -p vkssim --test vk_passes --test vk_frames 2>/dev/null)
for t in vk_parity vk_passes vk_frames; do
  exe=$(printf '%s\n' "$tests_json" | grep "\"name\":\"$t\"" | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
  [ -n "$exe" ] || { echo "no test binary for $t" >&2; exit 1; }
  cp "$exe" "$x/bin/$t"
done
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
