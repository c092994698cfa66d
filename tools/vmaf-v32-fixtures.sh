#!/usr/bin/env bash
# Remakes tests/fixtures/vmaf_v32/: small raw YUV pairs and what libvmaf 3.2.0's `vmaf` CLI reports for
# the default model (`-m version=vmaf_v0.6.1 --json --cpumask 255`, every value printed with %.17g
# through the full-precision shim tests/c/vmaf_full_precision.c), for
# tests/tests/vmaf_v32_cli_vs_fixtures.rs (`vkssim score --motion-version 3.2.0`). CI has only
# libvmaf 2.3.1 (libvmaf-sys), so 3.2.0's output is committed.
#   tools/vmaf-v32-fixtures.sh VMAF_3_2_0_CLI
# The CLI comes from ../shared/tools/build-libvmaf-cli.sh GIT_DIR v3.2.0 (GIT_DIR: a Netflix/vmaf clone).
# cases.txt lists, one case a line: name width height pixel_format bit_depth frames.
set -euo pipefail
vmaf=${1:?usage: tools/vmaf-v32-fixtures.sh VMAF_3_2_0_CLI}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/tests/fixtures/vmaf_v32
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/shim.so" "$root/tests/c/vmaf_full_precision.c"
"$vmaf" --version 2>&1 | grep -q 3f9e02af || { echo "not libvmaf 3.2.0 (3f9e02af): $("$vmaf" --version 2>&1)" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cat >"$out/cases.txt" <<'CASES'
m8_64x48 64 48 420 8 5
m10_80x36 80 36 420 10 4
m12_48x40_444 48 40 444 12 3
CASES
# Each pair: a moving smooth pattern with seeded noise (the reference) and the same with more noise
# and a shifted brightness (the distorted); chroma planes flat.
python3 - "$out" <<'PY'
import math, random, sys
out = sys.argv[1]
for line in open(f"{out}/cases.txt"):
    name, w, h, pix, bpc, frames = line.split()
    w, h, bpc, frames = int(w), int(h), int(bpc), int(frames)
    peak = (1 << bpc) - 1
    rng = random.Random(name)
    cw, ch = ((w + 1) // 2, (h + 1) // 2) if pix == "420" else (w, h)
    ref, dis = bytearray(), bytearray()
    for n in range(frames):
        amp = peak // 40 * (n + 1)
        luma = [min(peak, max(0, int(peak * (0.5 + 0.35 * math.sin(x * 0.21 + 0.7 * n) * math.cos(y * 0.17 - 0.3 * n)))
                            + rng.randint(-amp, amp))) for y in range(h) for x in range(w)]
        bent = [min(peak, max(0, v + peak // 25 + rng.randint(-3 * amp, 3 * amp))) for v in luma]
        for target, plane in ((ref, luma), (dis, bent)):
            for v in plane + [1 << (bpc - 1)] * (2 * cw * ch):
                target += v.to_bytes(1 if bpc == 8 else 2, "little")
    open(f"{out}/{name}_ref.yuv", "wb").write(ref)
    open(f"{out}/{name}_dis.yuv", "wb").write(dis)
PY
while read -r name w h pix bpc frames; do
  LD_PRELOAD=$tmp/shim.so "$vmaf" -r "$out/${name}_ref.yuv" -d "$out/${name}_dis.yuv" -w "$w" -h "$h" -p "$pix" \
    -b "$bpc" -m version=vmaf_v0.6.1 -q --cpumask 255 --json -o "$out/$name.json" >/dev/null
done <"$out/cases.txt"
echo "wrote $(ls "$out" | wc -l) files to $out"
