#!/usr/bin/env bash
# copy-libs.sh DEST BINARY...: copies into DEST the shared libraries the
# binaries load (ldd) that a bare machine may lack, leaving out the C and C++
# runtimes and the Vulkan loader (installed there from .gl). Used by the
# device-tool bundles (device-bundle.sh, video-bundle.sh).
set -euo pipefail
dest=$1; shift
mkdir -p "$dest"
for lib in $(ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libgcc_s.so*|libstdc++.so*|ld-linux*|libvulkan.so*) ;;
    *) cp -L "$lib" "$dest/" ;;
  esac
done
