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
# Usage: tools/bench-encoded.sh REF.mp4 DIST.mp4 [FRAMES]
# Env: REPEAT (2), THREADS (nproc: vkssim --threads and vmaf --threads),
#   WAYS (the ways run, "a b_cpu b_default c d"), VKSSIM and DECODE_RATE (the
#   binaries timed: this tree's target/release/vkssim and
#   target/release/examples/decode_rate unless given, to compare builds).
# Build first: cargo build --release -p vkssim-cli
#   cargo build --release -p vkssim --features ffmpeg --example decode_rate
set -euo pipefail
ref=$1 dist=$2 frames=${3:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${VKSSIM:-$top/target/release/vkssim}
dec=${DECODE_RATE:-$top/target/release/examples/decode_rate}
ways=${WAYS:-a b_cpu b_default c d}
vmaf=
case " $ways " in *" d "*) vmaf=$("$top/tools/build-vmaf-release.sh") ;; esac
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ref dist frames bin dec vmaf threads out
# ffmpeg decoding $1 into the FIFO $2, in the background.
y4m() { ffmpeg -nostdin -loglevel error -threads 0 -i "$1" -f yuv4mpegpipe -y "$2" & }
# Ways c and d read two FIFOs that ffmpeg fills; `wait` makes the ffmpeg
# processes children whose CPU time counts.
pipes() { rm -f "$out/r.fifo" "$out/d.fifo"; mkfifo "$out/r.fifo" "$out/d.fifo"; y4m "$ref" "$out/r.fifo"; y4m "$dist" "$out/d.fifo"; }
way_a() { "$dec" "$ref" "$dist"; }
way_b_cpu() { "$bin" score -r "$ref" -d "$dist" -q --backend cpu --threads "$threads" --json -o "$out/b.json"; }
way_b_default() { "$bin" score -r "$ref" -d "$dist" -q --json -o "$out/bd.json"; }
way_c() { pipes; "$bin" score -r "$out/r.fifo" -d "$out/d.fifo" -q --backend cpu --threads "$threads" --json -o "$out/c.json"; wait; }
way_d() {
  pipes
  "$vmaf" -r "$out/r.fifo" -d "$out/d.fifo" --feature float_ssim --no_prediction \
    --threads "$threads" -q --json -o "$out/d.json"
  wait
}
export -f y4m pipes way_a way_b_cpu way_b_default way_c way_d
# Prints frames/s, wall seconds and CPU seconds (user + system, children
# included) of way $1.
timed() {
  /usr/bin/time -f "%e %U %S" -o "$out/time" bash -c "way_$1" >"$out/log" 2>&1 \
    || { echo "failed: $1" >&2; cat "$out/log" >&2; exit 1; }
  awk -v f="$frames" '{ printf "%.1f fps (%.2f s wall, %.2f s CPU: %.0f%% of a core)\n", f / $1, $1, $2 + $3, 100 * ($2 + $3) / $1 }' "$out/time"
}
echo "pair: $ref $dist ($frames frames), threads $threads, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$repeat"); do
  for way in $ways; do
    printf '%-10s run %s: ' "$way" "$r"
    timed "$way"
  done
done
# b and c score the same frames: their float_ssim lines are identical.
if [[ " $ways " == *" b_cpu "* && " $ways " == *" c "* ]]; then
  cmp -s <(grep '"float_ssim"' "$out/b.json") <(grep '"float_ssim"' "$out/c.json") \
    && echo "b and c: identical float_ssim lines" || echo "b and c: float_ssim lines DIFFER"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
