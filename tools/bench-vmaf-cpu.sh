#!/usr/bin/env bash
# VMAF (default model) on the CPU twin at 2 threads against libvmaf 2.3.1's
# -O3 vmaf at 2 threads (default AVX2 build and its C path, --cpumask 255),
# and an earlier vkssim ($B), whole CLI, taking turns: per frame
# (t(N) - t(2)) / (N - 2), three rounds, medians. Run in a folder holding
# b1080_{ref,dist}.yuv (12 frames) and b2160_{ref,dist}.yuv (8 frames) from
# `vkssim bench --write-yuv bH --frames N -w W -h H`.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
V=${VMAF:-$top/target/vmaf-release/build/tools/vmaf}; K=${VKSSIM:-$top/target/release/vkssim}; B=${BEFORE:-$K}
now() { echo "$EPOCHREALTIME"; }
run() { # name n cmd...
  local n=$1; shift; local a b c; a=$(now); "$@" --frame_cnt 2 -q -o /tmp/sp2.xml >/dev/null 2>&1; b=$(now); "$@" --frame_cnt $n -q -o /tmp/spn.xml >/dev/null 2>&1; c=$(now); awk -v a=$a -v b=$b -v c=$c -v n=$n 'BEGIN{printf "%.1f", 1000*((c-b)-(b-a))/(n-2)}'; }
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
for g in "1920 1080 12 b1080" "3840 2160 8 b2160"; do set -- $g
  F=(-r $4_ref.yuv -d $4_dist.yuv -w $1 -h $2 -p 420 -b 8)
  va=(); vc=(); kb=(); ka=()
  for r in 1 2 3; do
    va+=($(run $3 $V "${F[@]}" --threads 2)); vc+=($(run $3 $V "${F[@]}" --threads 2 --cpumask 255))
    kb+=($(run $3 $B score "${F[@]}" --backend cpu --threads 2 -m version=vmaf_v0.6.1)); ka+=($(run $3 $K score "${F[@]}" --backend cpu --threads 2))
  done
  echo "$1x$2 N=$3: vmaf ${va[*]} -> $(med ${va[@]}); vmaf-C ${vc[*]} -> $(med ${vc[@]}); before ${kb[*]} -> $(med ${kb[@]}); after ${ka[*]} -> $(med ${ka[@]})"
done
