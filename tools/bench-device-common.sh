# Sourced, from the repository root, by the bench scripts that run on the GPU
# machine of the `device` tool with .gl and .gl-metrics carried
# (vmaf-device-bench.sh, vmaf-device-ab.sh, device-ab-rows.sh): installs the
# Vulkan loader, points the libraries at .gl-metrics/lib, and defines X (the
# binaries), D (the clips' folder), `now` (the clock, seconds), `median
# X...`, `json_num FILE KEY` (the first number of
# KEY in a bench JSON), `fps FILE` (its frames_per_second) and `clip W H
# BITS` (writes 22 frames of a 4:2:0 pair with $X/vkssim and sets `p`, the
# files' prefix, and `io`, the bench/score flags that read them), and
# `long_clip W H BITS N` (N frames of such a pair, written once while the
# same geometry and length are asked for, the last other pair removed, read
# into the page cache; sets `p`).
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
X=$PWD/.gl-metrics/bin; D=/tmp/vb; mkdir -p $D
now() { echo "$EPOCHREALTIME"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
json_num() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }
fps() { json_num "$1" frames_per_second; }
clip() {
  p=$D/b$2b$3
  "$X/vkssim" bench --write-yuv "$p" --frames 22 -w $1 -h $2 -b $3 -p 420 >/dev/null
  io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w $1 -h $2 -b $3 -p 420)
}
long_clip() {
  local want=$D/long${1}x${2}b$3n$4
  if [ "${p:-}" != "$want" ] || [ ! -f "${want}_dist.yuv" ]; then
    rm -f $D/long*_ref.yuv $D/long*_dist.yuv
    "$X/vkssim" bench --write-yuv "$want" --frames "$4" -w "$1" -h "$2" -b "$3" -p 420 >/dev/null ||
      { echo "long_clip: writing $want failed" >&2; return 1; }
    cat ${want}_ref.yuv ${want}_dist.yuv >/dev/null
  fi
  p=$want
}
