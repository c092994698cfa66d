#!/usr/bin/env bash
# Issue 9's H200 table, for several builds in one run: for each NAME=DIR in
# $BUILDS (DIR holds that build's `vkssim` and `device_resident_bench`), in
# the same run on the same page-cached files:
#   - the GPU time of one 4K 8-bit frame's passes (`bench --json`, timestamps);
#   - device-resident 4K pairs/s (`device_resident_bench`, median of 3);
#   - the whole CLI from page-cached files (`vkssim score`, time per frame
#     (t(N) - t(2)) / (N - 2), best of 2): 4K 8-bit, 1080p 8-bit, 4K 10-bit;
#   - a raw 4K stream from `cat` on standard input (same formula);
#   - 4K with scale=1: wall time of a one-frame run (the first frame);
#   - start-up: wall time of `vkssim score` on 2 frames, 4K 8-bit.
# Files are written by the first build's `bench --write-yuv` into $D, $N
# frames each (NK8, NH8, NK10 set one size's count).
# Output: one `name metric value` line per figure on stdout (and $OUT/table.txt).
#
#   BUILDS="before=.gl-before after=.gl-extra/bin" bash tools/engine-table.sh
set -u
D=${D:-/tmp/vkssim-table}
N=${N:-202}
out=${OUT:-.}
mkdir -p "$D"
first=${BUILDS%% *}
X0=${first#*=}
# Frames per file (and scored per run) for each size: enough that t(N) - t(2)
# is far above the noise of two process starts.
NK8=${NK8:-$N}
NH8=${NH8:-$N}
NK10=${NK10:-$N}
frames_of() { case $1 in k8) echo "$NK8" ;; h8) echo "$NH8" ;; k10) echo "$NK10" ;; esac; }
gen() { # prefix w h bits
  [ -f "$D/$1_dist.yuv" ] || "$X0/vkssim" bench --write-yuv "$D/$1" --frames "$(frames_of "$1")" -w "$2" -h "$3" -b "$4" >/dev/null 2>&1
}
gen k8 3840 2160 8
gen h8 1920 1080 8
gen k10 3840 2160 10
cat "$D"/*.yuv >/dev/null
now() { date +%s.%N; }
# wall seconds of a command (stdout/stderr discarded)
wall() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; local rc=$?; t1=$(now); [ $rc = 0 ] || { echo fail; return; }; awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}'; }
best() { local a b; a=$(wall "$@"); b=$(wall "$@"); [ "$a" = fail ] && { echo fail; return; }; awk -v a="$a" -v b="$b" 'BEGIN{print (a < b ? a : b)}'; }
fps() { # frames t_n t_2
  awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN{printf "%.0f", (n - 2) / (a - b)}'
}
row() { printf '%s %s %s\n' "$1" "$2" "$3" | tee -a "$out/table.txt"; }
geom() { case $1 in k8) echo "-w 3840 -h 2160 -p 420 -b 8" ;; h8) echo "-w 1920 -h 1080 -p 420 -b 8" ;; k10) echo "-w 3840 -h 2160 -p 420 -b 10" ;; esac; }
for b in $BUILDS; do
  name=${b%%=*}
  X=${b#*=}
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
  js=$("$X/vkssim" bench -r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" -w 3840 -h 2160 -b 8 --frames 22 --no-cpu --backend vulkan --json 2>/dev/null)
  row "$name" gpu_pass_us_4k8 "$(printf '%s' "$js" | tr -d '\n ' | grep -o '"gpu_pass_us_last_frame":{[^}]*}')"
  dr=$("$X/device_resident_bench" --frames "${DR_FRAMES:-4000}" --reps 3 --json 2>/dev/null | tr -d '\n ')
  row "$name" device_resident_4k "$(printf '%s' "$dr" | grep -o "\"pairs_per_s\":[0-9.]*")"
  for c in k8 h8 k10; do
    g=$(geom $c)
    n=$(frames_of $c)
    # shellcheck disable=SC2086
    tn=$(best "$X/vkssim" score -n --feature float_ssim -r "$D/${c}_ref.yuv" -d "$D/${c}_dist.yuv" $g --frame_cnt "$n" -o /dev/null --json)
    # shellcheck disable=SC2086
    t2=$(best "$X/vkssim" score -n --feature float_ssim -r "$D/${c}_ref.yuv" -d "$D/${c}_dist.yuv" $g --frame_cnt 2 -o /dev/null --json)
    row "$name" "files_fps_$c" "$(fps "$n" "$tn" "$t2") (t$n=$tn t2=$t2)"
  done
  g=$(geom k8)
  n=$NK8
  # shellcheck disable=SC2086
  tn=$(best sh -c "cat '$D/k8_dist.yuv' | '$X/vkssim' score -n --feature float_ssim -r '$D/k8_ref.yuv' -d - $g --frame_cnt $n -o /dev/null --json")
  # shellcheck disable=SC2086
  t2=$(best sh -c "cat '$D/k8_dist.yuv' | '$X/vkssim' score -n --feature float_ssim -r '$D/k8_ref.yuv' -d - $g --frame_cnt 2 -o /dev/null --json")
  row "$name" stdin_fps_k8 "$(fps "$n" "$tn" "$t2") (t$n=$tn t2=$t2)"
  # shellcheck disable=SC2086
  row "$name" scale1_first_frame_s_k8 "$(best "$X/vkssim" score -n -r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" $g --frame_cnt 1 --feature float_ssim=scale=1 -o /dev/null --json)"
  # shellcheck disable=SC2086
  row "$name" default_first_frame_s_k8 "$(best "$X/vkssim" score -n --feature float_ssim -r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" $g --frame_cnt 1 -o /dev/null --json)"
  row "$name" startup_t2_s_k8 "$t2"
  # Where start-up goes: the loader and instance alone, and a CPU-twin run.
  row "$name" devices_s "$(best "$X/vkssim" devices)"
  # shellcheck disable=SC2086
  row "$name" cpu_t2_s_k8 "$(best "$X/vkssim" score -n --feature float_ssim -r "$D/k8_ref.yuv" -d "$D/k8_dist.yuv" $g --frame_cnt 2 --backend cpu -o /dev/null --json)"
done
