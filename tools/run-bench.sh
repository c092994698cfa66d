#!/usr/bin/env bash
# The main job: installs missing system packages, builds vkssim in release mode
# and runs `vkssim bench --frames 22` on built-in generated 3840x2160 8-bit frames
# (no file needed). Extra arguments go to `vkssim bench`, e.g. --json, --threads 1,
# --width 1920 --height 1080.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-debian.sh
cargo build --release -p vkssim-cli
exec target/release/vkssim bench --frames 22 "$@"
