#!/usr/bin/env bash
# Times libvmaf's `vmaf` CLI and `vkssim score` on the same files in one run and
# prints both per-frame times and their ratio.
#
#   tools/bench-vs-vmaf.sh REF DIST N [input flags...]
#
# e.g. tools/bench-vs-vmaf.sh ref.yuv dist.yuv 22 -w 1920 -h 1080 -p 420 -b 8
#
# Per-frame time is (t(N) - t(2)) / (N - 2) (start-up cancels), with t(k) the
# wall time of the whole command scoring the first k frames (--frame_cnt k),
# median of REPEAT repetitions. Both programs get the same input flags, the
# same `--feature`s (FEATURES, default `float_ssim`) with `--no_prediction`,
# and write XML to a scratch file; the two files are then compared (every line
# but the version and fps).
#
# Environment: VMAF (the vmaf binary; default: tools/build-vmaf-release.sh's
# -O3 build if present, else the one libvmaf-sys builds under target/), VKSSIM
# (default target/release/vkssim), THREADS (vmaf --threads; default: all
# cores), REPEAT (default 3), VKSSIM_FLAGS (extra vkssim flags, e.g.
# "--upload direct", or "--backend cpu --threads 2"), FEATURES (the
# --feature values, space-separated, e.g. "float_ssim psnr float_ms_ssim"),
# VKSSIM_BEFORE (a second vkssim binary, e.g. an earlier build, timed with the
# same flags in the same run: before / after figures side by side). The
# programs take turns within each repetition, so load that comes and goes
# falls on all of them.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,20p' "$0" >&2
  exit 2
fi
ref=$1 dist=$2 n=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
find_vmaf() {
  if [ -x "$top/target/vmaf-release/build/tools/vmaf" ]; then
    echo "$top/target/vmaf-release/build/tools/vmaf"
    return
  fi
  local v
  for v in "$top"/target/release/build/libvmaf-sys-*/out/build/tools/vmaf \
    "$top"/target/*/build/libvmaf-sys-*/out/build/tools/vmaf; do
    [ -x "$v" ] && { echo "$v"; return; }
  done
}
vmaf=${VMAF:-$(find_vmaf)}
vkssim=${VKSSIM:-$top/target/release/vkssim}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-3}
[ -x "$vmaf" ] || { echo "no vmaf binary (run tools/build-vmaf-release.sh, or set VMAF)" >&2; exit 1; }
[ -x "$vkssim" ] || { echo "no vkssim binary at $vkssim (cargo build --release, or set VKSSIM)" >&2; exit 1; }
[ "$n" -gt 2 ] || { echo "N must be above 2" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Arithmetic on decimals (awk: present where bc is not).
calc() { awk "BEGIN { printf \"%.9f\", $1 }"; }

# Wall seconds of one command.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; return 1; }
  t1=$(date +%s.%N)
  calc "$t1 - $t0"
}

# Per-frame seconds of one run of a program: one_run CMD... (frame count
# appended).
one_run() {
  local tn t2
  tn=$(seconds "$@" --frame_cnt "$n")
  t2=$(seconds "$@" --frame_cnt 2)
  calc "($tn - $t2) / ($n - 2)"
}

# The median of the values in the file $1 (one per line).
median() {
  sort -g "$1" | sed -n "$(((repeat + 1) / 2))p"
}

features=()
for f in ${FEATURES:-float_ssim}; do
  features+=(--feature "$f")
done
common=(-r "$ref" -d "$dist" "$@" "${features[@]}" --no_prediction)
# Warm the page cache and both programs once.
before=${VKSSIM_BEFORE:-}
[ -z "$before" ] || [ -x "$before" ] || { echo "no vkssim binary at $before (VKSSIM_BEFORE)" >&2; exit 1; }
"$vmaf" "${common[@]}" --threads "$threads" --frame_cnt 2 -o "$scratch/w.xml" >/dev/null 2>&1
"$vkssim" score "${common[@]}" ${VKSSIM_FLAGS:-} --frame_cnt 2 -q -o "$scratch/w.xml" >/dev/null 2>&1
[ -z "$before" ] || "$before" score "${common[@]}" ${VKSSIM_FLAGS:-} --frame_cnt 2 -q -o "$scratch/w.xml" >/dev/null 2>&1

: >"$scratch/v" && : >"$scratch/k" && : >"$scratch/b"
for ((i = 0; i < repeat; i++)); do
  one_run "$vmaf" "${common[@]}" --threads "$threads" -o "$scratch/v.xml" >>"$scratch/v"
  echo >>"$scratch/v"
  one_run "$vkssim" score "${common[@]}" ${VKSSIM_FLAGS:-} -q -o "$scratch/k.xml" >>"$scratch/k"
  echo >>"$scratch/k"
  if [ -n "$before" ]; then
    one_run "$before" score "${common[@]}" ${VKSSIM_FLAGS:-} -q -o "$scratch/b.xml" >>"$scratch/b"
    echo >>"$scratch/b"
  fi
done
v=$(median "$scratch/v")
k=$(median "$scratch/k")
"$vmaf" "${common[@]}" --threads "$threads" --frame_cnt "$n" -o "$scratch/v.xml" >/dev/null 2>&1
"$vkssim" score "${common[@]}" ${VKSSIM_FLAGS:-} --frame_cnt "$n" -q -o "$scratch/k.xml" >/dev/null 2>&1
# Each line's attributes sorted, then the lines: with --threads, vmaf appends
# the features in the order its threads first finish them (psnr, the
# fastest, often first), while vkssim (and vmaf without --threads) keeps the
# --feature order.
normalized() {
  grep -v '<VMAF version=\|<fyi fps=' "$1" | while IFS= read -r line; do
    printf '%s\n' "$line" | tr ' ' '\n' | sort | tr '\n' ' '
    echo
  done | sort
}
same=no
if diff <(normalized "$scratch/v.xml") <(normalized "$scratch/k.xml") >/dev/null; then
  same=yes
fi
printf 'features: %s\n' "${FEATURES:-float_ssim}"
printf 'frames %s, per frame = (t(%s) - t(2)) / %s, median of %s\n' "$n" "$n" "$((n - 2))" "$repeat"
printf 'vmaf (%s, %s threads): %.3f ms per frame, %.1f frames/s\n' "$vmaf" "$threads" \
  "$(calc "$v * 1000")" "$(calc "1 / $v")"
printf 'vkssim score (%s %s): %.3f ms per frame, %.1f frames/s\n' "$vkssim" "${VKSSIM_FLAGS:-}" \
  "$(calc "$k * 1000")" "$(calc "1 / $k")"
printf 'ratio vmaf/vkssim: %.1f; XML files identical (but version, fps and the order of names): %s\n' \
  "$(calc "$v / $k")" "$same"
if [ -n "$before" ]; then
  b=$(median "$scratch/b")
  "$before" score "${common[@]}" ${VKSSIM_FLAGS:-} --frame_cnt "$n" -q -o "$scratch/b.xml" >/dev/null 2>&1
  same=no
  if diff <(normalized "$scratch/v.xml") <(normalized "$scratch/b.xml") >/dev/null; then
    same=yes
  fi
  printf 'vkssim before (%s %s): %.3f ms per frame, %.1f frames/s\n' "$before" "${VKSSIM_FLAGS:-}" \
    "$(calc "$b * 1000")" "$(calc "1 / $b")"
  printf 'ratio vmaf/before: %.1f; XML files identical: %s; after is %.2fx as fast as before\n' \
    "$(calc "$v / $b")" "$same" "$(calc "$b / $k")"
fi
