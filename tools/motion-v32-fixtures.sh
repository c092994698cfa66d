#!/usr/bin/env bash
# Remakes tests/fixtures/motion_v32/: small raw YUV clips and what libvmaf 3.2.0's `vmaf` CLI reports for
# `--feature motion[=...]` on them (`-n --json --cpumask 255`, every value printed with %.17g through the
# full-precision shim tests/c/vmaf_full_precision.c), for tests/tests/motion_v32_vs_fixtures.rs. CI has
# only libvmaf 2.3.1 (libvmaf-sys), so 3.2.0's output is committed.
#   tools/motion-v32-fixtures.sh VMAF_3_2_0_CLI
# The CLI comes from ../shared/tools/build-libvmaf-cli.sh GIT_DIR v3.2.0 (GIT_DIR: a Netflix/vmaf clone).
# cases.txt lists, one case a line: name width height pixel_format bit_depth frames feature.
set -euo pipefail
vmaf=${1:?usage: tools/motion-v32-fixtures.sh VMAF_3_2_0_CLI}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/tests/fixtures/motion_v32
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/shim.so" "$root/tests/c/vmaf_full_precision.c"
"$vmaf" --version 2>&1 | grep -q 3f9e02af || { echo "not libvmaf 3.2.0 (3f9e02af): $("$vmaf" --version 2>&1)" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cat >"$out/cases.txt" <<'EOF'
c8_48x32 48 32 420 8 5 motion
c10_40x24 40 24 420 10 5 motion
c12_34x18 34 18 420 12 4 motion
c16_20x10 20 10 420 16 3 motion
c8_33x17_444 33 17 444 8 4 motion
c8_3x3_444 3 3 444 8 3 motion
c8_48x32_1 48 32 420 8 1 motion
c8_48x32_2 48 32 420 8 2 motion
c8_48x32_debug 48 32 420 8 5 motion=debug=true
c8_48x32_force0 48 32 420 8 3 motion=motion_force_zero=true
c10_40x24_opts 40 24 420 10 5 motion=motion_fps_weight=1.7:motion_max_val=65:motion_blend_factor=0.3:motion_blend_offset=55
EOF
# The clips: a smooth pattern with seeded noise that grows from frame to frame, a noise frame, and
# frames of the extreme values (so that the difference's blur meets negative sums and both ends).
python3 - "$out" <<'EOF'
import math, random, sys
out = sys.argv[1]
for line in open(f"{out}/cases.txt"):
    name, w, h, pix, bpc, frames, _ = line.split()
    w, h, bpc, frames = int(w), int(h), int(bpc), int(frames)
    peak = (1 << bpc) - 1
    rng = random.Random(name)
    def plane(n):
        if n == 2:
            return [rng.randrange(peak + 1) for _ in range(w * h)]
        if n == 3:
            return [peak if (x // 2 + y) % 3 == 0 else 0 for y in range(h) for x in range(w)]
        amp = peak // 12 * (n + 1)
        return [min(peak, max(0, int(peak * (0.5 + 0.3 * math.sin(x * 0.3 + n) * math.cos(y * 0.2)))
                               + rng.randint(-amp, amp))) for y in range(h) for x in range(w)]
    cw, ch = ((w + 1) // 2, (h + 1) // 2) if pix == "420" else (w, h)
    data = bytearray()
    for n in range(frames):
        for v in plane(n) + [1 << (bpc - 1)] * (2 * cw * ch):
            data += v.to_bytes(1 if bpc == 8 else 2, "little")
    open(f"{out}/{name}.yuv", "wb").write(data)
EOF
while read -r name w h pix bpc frames feature; do
  LD_PRELOAD=$tmp/shim.so "$vmaf" -r "$out/$name.yuv" -d "$out/$name.yuv" -w "$w" -h "$h" -p "$pix" \
    -b "$bpc" --feature "$feature" -n -q --cpumask 255 --json -o "$out/$name.json" >/dev/null
done <"$out/cases.txt"
echo "wrote $(ls "$out" | wc -l) files to $out"
