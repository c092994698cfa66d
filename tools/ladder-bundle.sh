#!/usr/bin/env bash
# Prepares .gl-ladder/ for tools/ladder-device.sh on the GPU machine of the
# `device` tool (and tools/multi-device.sh): the release CLI, the api_shared,
# api and api_multi test binaries, the
# libraries they need and the Khronos validation layer package. Carry
# [".gl", ".gl-ladder"].
set -euo pipefail
x=.gl-ladder
. "$(dirname "$0")/bundle-common.sh"
rm -rf "$x/lib" "$x/vkssim" "$x/api_shared" "$x/api" "$x/api_multi" "$x/cli_unit"
mkdir -p "$x/lib"
cargo build --release -q -p vkssim-cli
copy_tests "$x" -p vkssim --test api_shared --test api --test api_multi -- api_shared api api_multi
cp target/release/vkssim "$x/"
# The CLI's unit tests (the shared reference's tee on two devices).
unit=$(cargo test --release --no-run --message-format=json -p vkssim-cli --bin vkssim 2>/dev/null \
  | grep '"executable":"[^"]*"' | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
[ -n "$unit" ] || { echo "no unit-test binary for the CLI" >&2; exit 1; }
cp "$unit" "$x/cli_unit"
strip "$x/vkssim" "$x/api_shared" "$x/api" "$x/api_multi" "$x/cli_unit"
bash tools/copy-libs.sh "$x/lib" "$x/vkssim" "$x/api_shared" "$x/api" "$x/api_multi"
[ -f "$x/vulkan-validationlayers.deb" ] || (cd "$x" && apt-get download vulkan-validationlayers >/dev/null 2>&1 && mv vulkan-validationlayers_*.deb vulkan-validationlayers.deb)
git rev-parse --short HEAD >"$x/COMMIT"
du -sh "$x"
