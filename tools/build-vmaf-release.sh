#!/usr/bin/env bash
# Builds libvmaf's own `vmaf` CLI from the source libvmaf-sys 0.4.4 vendors
# (libvmaf 2.3.1), with meson's release build type (-O3), under
# target/vmaf-release/, and prints the binary's path. libvmaf-sys itself builds
# libvmaf with meson's default (debug, -O0) build type, which is fine as a parity
# oracle but not as a speed anchor: timing comparisons use this build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/target/vmaf-release"
bin="$out/build/tools/vmaf"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
# The vendored source arrives with the crate; fetch makes sure it is unpacked.
(cd "$top" && cargo fetch -q)
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/libvmaf-sys-0.4.4/vmaf 2>/dev/null | head -n 1)
[ -n "$src" ] || { echo "libvmaf-sys 0.4.4 source not found under the cargo registry" >&2; exit 1; }
mkdir -p "$out"
rm -rf "$out/src" "$out/build"
# libvmaf/ and the model/ folder beside it (its meson.build embeds models).
cp -r "$src" "$out/src"
meson setup "$out/build" "$out/src/libvmaf" --buildtype release -Denable_float=true >"$out/setup.log" 2>&1 \
  || { cat "$out/setup.log" >&2; exit 1; }
ninja -C "$out/build" tools/vmaf >"$out/ninja.log" 2>&1 || { tail -n 40 "$out/ninja.log" >&2; exit 1; }
echo "$bin"
