#!/usr/bin/env bash
# Builds a minimal FFmpeg for the GPU machine of the `device` tool, where
# Debian's FFmpeg libraries and their codec libraries (161 MB) do not fit the
# 64 MiB carry limit: the upstream source of the same version as this
# machine's libavcodec (Debian's orig tarball, from deb.debian.org), built as
# shared libraries with the same names and symbol versions, so the `vkssim`
# built here against Debian's FFmpeg loads them in their place
# (LD_LIBRARY_PATH). Only what the encoded-input benchmark needs: the H.264
# and HEVC decoders with x86 assembly and frame threads; the MP4, Matroska,
# MPEG-TS and elementary-stream demuxers; swscale; and the `ffmpeg` program
# with libx264 (Debian's libx264, carried beside it), lavfi's testsrc2 and
# noise, and the Y4M muxer, to make the clips and the pipes there.
# Prints the install prefix (target/ffmpeg-minimal). About 10 minutes on 2 cores.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/target/ffmpeg-minimal
if [ -x "$prefix/bin/ffmpeg" ]; then echo "$prefix"; exit 0; fi
dpkg-query -W -f='${Status}' libx264-dev 2>/dev/null | grep -q 'ok installed' \
  || { echo "ffmpeg-minimal: needs libx264-dev (apt-get install libx264-dev)" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' libavcodec59)
upstream=${version#*:}
upstream=${upstream%%-*}
src=$top/target/ffmpeg-src
mkdir -p "$src"
tarball=$src/ffmpeg_$upstream.orig.tar.xz
if [ ! -f "$tarball" ]; then
  for pool in debian-security/pool/updates debian/pool; do
    curl -sfL -o "$tarball.part" "http://deb.debian.org/$pool/main/f/ffmpeg/ffmpeg_$upstream.orig.tar.xz" && break
  done
  mv "$tarball.part" "$tarball"
fi
rm -rf "$src/ffmpeg-$upstream"
tar -C "$src" -xf "$tarball"
cd "$src/ffmpeg-$upstream"
./configure --prefix="$prefix" --disable-everything --disable-doc --disable-autodetect \
  --enable-pthreads --enable-zlib --enable-shared --disable-static --enable-gpl --enable-libx264 \
  --enable-encoder=libx264,wrapped_avframe,rawvideo --enable-decoder=h264,hevc,rawvideo,wrapped_avframe \
  --enable-demuxer=mov,matroska,mpegts,h264,hevc,yuv4mpegpipe,rawvideo \
  --enable-muxer=mp4,mov,matroska,yuv4mpegpipe,rawvideo,null,h264 \
  --enable-parser=h264,hevc --enable-protocol=file,pipe --enable-bsf=h264_mp4toannexb,hevc_mp4toannexb,null \
  --enable-filter=testsrc2,noise,scale,format,null,buffer,buffersink,fps,setpts,trim,copy --enable-indev=lavfi \
  --enable-swscale --enable-avfilter --enable-avdevice --disable-ffplay --enable-ffprobe >&2
make -j"$(nproc)" >&2
make install >&2
echo "$prefix"
