#!/usr/bin/env bash
# Speed of scoring encoded inputs (issue 19), one pair, each way timed by its
# wall clock (process start to exit, `frames / seconds`), the ways run in turn
# REPEAT times:
#   a  decode: the same build's decoders alone (the decode_rate example: both
#      streams decoded at once, as `vkssim score` reads them, nothing scored)
#   b  vkssim score -r REF -d DIST --backend cpu (and the default backend)
#   c  ffmpeg-decoded Y4M pipes into vkssim score (both inputs decoded by
#      ffmpeg with its default threads, as vkssim's decoders use theirs)
#   d  ffmpeg-decoded Y4M pipes into libvmaf's `vmaf` CLI (-O3 release build,
#      tools/build-vmaf-release.sh), float_ssim, --threads THREADS
#   b_new  b_default with the build VKSSIM_NEW (a before-and-after in one run)
#   a_t, b_t  a and b_new with DECODE_THREADS (default 8) threads per decoder
#      (decode_rate --threads, vkssim score --decode-threads)
#   b_gpu  vkssim score -r REF -d DIST --decode gpu (H.264 decoded by Vulkan
#      Video, scored on the default backend; needs the vulkan-video feature)
# Usage: tools/bench-encoded.sh REF.mp4 DIST.mp4 [FRAMES]
# Env: REPEAT (2), THREADS (nproc: vkssim --threads and vmaf --threads),
# WAYS (the ways to run, in order: "a b_cpu b_default c d"), and where a
# machine keeps its programs elsewhere (the device tool's bundle): VKSSIM,
# DECODE_RATE, VMAF (the binaries) and FFMPEG (the ffmpeg program).
# Build first: cargo build --release -p vkssim-cli
#   cargo build --release -p vkssim --features ffmpeg --example decode_rate
set -euo pipefail
ref=$1 dist=$2 frames=${3:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${VKSSIM:-$top/target/release/vkssim}
bin_new=${VKSSIM_NEW:-$bin}
decode_threads=${DECODE_THREADS:-8}
dec=${DECODE_RATE:-$top/target/release/examples/decode_rate}
ffmpeg=${FFMPEG:-ffmpeg}
ways=${WAYS:-a b_cpu b_default c d}
# vmaf is built (or found) only when way d runs.
vmaf=${VMAF:-}
case " $ways " in *" d "*) [ -n "$vmaf" ] || vmaf=$("$top/tools/build-vmaf-release.sh") ;; esac
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ref dist frames bin bin_new decode_threads dec vmaf ffmpeg threads out
# ffmpeg decoding $1 into the FIFO $2, in the background.
y4m() { "$ffmpeg" -nostdin -loglevel error -threads 0 -i "$1" -f yuv4mpegpipe -y "$2" & }
# Ways c and d read two FIFOs that ffmpeg fills; `wait` makes the ffmpeg
# processes children whose CPU time counts.
pipes() { rm -f "$out/r.fifo" "$out/d.fifo"; mkfifo "$out/r.fifo" "$out/d.fifo"; y4m "$ref" "$out/r.fifo"; y4m "$dist" "$out/d.fifo"; }
way_a() { "$dec" "$ref" "$dist"; }
way_b_cpu() { "$bin" score -n --feature float_ssim -r "$ref" -d "$dist" -q --backend cpu --threads "$threads" --json -o "$out/b.json"; }
way_b_default() { "$bin" score -n --feature float_ssim -r "$ref" -d "$dist" -q --json -o "$out/bd.json"; }
way_a_t() { "$dec" --threads "$decode_threads" "$ref" "$dist"; }
way_b_t() { "$bin_new" score -n --feature float_ssim -r "$ref" -d "$dist" -q --decode-threads "$decode_threads" --json -o "$out/bt.json"; }
way_b_new() { "$bin_new" score -n --feature float_ssim -r "$ref" -d "$dist" -q --json -o "$out/bn.json"; }
way_b_gpu() { "$bin" score -n --feature float_ssim -r "$ref" -d "$dist" -q --decode gpu --json -o "$out/bg.json"; }
way_c() { pipes; "$bin" score -n --feature float_ssim -r "$out/r.fifo" -d "$out/d.fifo" -q --backend cpu --threads "$threads" --json -o "$out/c.json"; wait; }
way_d() {
  pipes
  "$vmaf" -r "$out/r.fifo" -d "$out/d.fifo" --feature float_ssim --no_prediction \
    --threads "$threads" -q --json -o "$out/d.json"
  wait
}
export -f y4m pipes way_a way_a_t way_b_cpu way_b_default way_b_new way_b_t way_b_gpu way_c way_d
# Prints frames/s, wall seconds and CPU seconds (user + system, children
# included) of way $1 (bash's own timer: a bare machine may lack /usr/bin/time).
timed() {
  local t
  t=$( { TIMEFORMAT='%R %U %S'; time bash -c "way_$1" >"$out/log" 2>&1; } 2>&1 ) \
    || { echo "failed: $1" >&2; cat "$out/log" >&2; exit 1; }
  echo "$t" | awk -v f="$frames" '{ printf "%.1f fps (%.2f s wall, %.2f s CPU: %.0f%% of a core)\n", f / $1, $1, $2 + $3, 100 * ($2 + $3) / $1 }'
}
echo "pair: $ref $dist ($frames frames), threads $threads, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$repeat"); do
  for way in $ways; do
    printf '%-10s run %s: ' "$way" "$r"
    timed "$way"
  done
done
# Every way that scores, scores the same frames: its float_ssim lines are
# identical to the first scoring way's.
first=
for o in b bd bn bt bg c; do
  [ -f "$out/$o.json" ] || continue
  if [ -z "$first" ]; then first=$o; continue; fi
  cmp -s <(grep '"float_ssim"' "$out/$first.json") <(grep '"float_ssim"' "$out/$o.json") \
    && echo "$first and $o: identical float_ssim lines" || echo "$first and $o: float_ssim lines DIFFER"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
