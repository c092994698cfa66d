#!/usr/bin/env bash
# Installs the Debian 12 packages vkssim needs to build, test and run, and only
# those that are missing (so a machine that has them all runs no apt at all).
# Rust itself is not installed here: vkssim uses the machine's cargo (1.80 or
# newer; Debian 12's own rustc is too old). Safe to run again; non-interactive.
set -euo pipefail

packages=(
  build-essential pkg-config
  # Vulkan: loader, headers, the lavapipe CPU device, validation layers, vulkaninfo
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  # Shader compilation (the shaderc crate links Debian's static libraries)
  libshaderc-dev glslc spirv-tools
  # Test clips (and the encoded-input tests' reference decodes, with ffprobe)
  ffmpeg
  # Encoded inputs (feature ffmpeg, on in the CLI): the FFmpeg libraries'
  # headers and pkg-config files; ffmpeg-sys-next's bindgen needs libclang
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
  # libvmaf-sys builds the reference libvmaf with meson (and bindgen needs clang)
  meson ninja-build nasm libclang-dev
  python3 cbindgen
  # The Ray catalog runner's test makes a venv under target/ (tools/catalog)
  python3-venv
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup-debian: installing ${missing[*]}" >&2
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "setup-debian: need root (or sudo) to install: ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
else
  echo "setup-debian: all ${#packages[@]} system packages are present" >&2
fi

if ! command -v cargo >/dev/null; then
  echo "setup-debian: cargo not found. Install Rust 1.80 or newer (e.g. with rustup) and put cargo on PATH." >&2
  exit 1
fi
version=$(cargo --version | awk '{print $2}')
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if ((major < 1 || (major == 1 && minor < 80))); then
  echo "setup-debian: cargo $version is too old; vkssim needs Rust 1.80 or newer." >&2
  exit 1
fi
echo "setup-debian: using $(cargo --version)" >&2
