#!/usr/bin/env bash
# exactness-table.sh: how many frames vkssim scores exactly as libvmaf's
# `vmaf` command line does, per feature set, clip and path, printed as a
# Markdown table (the closing notes' exactness figures).
#
# Usage: tools/exactness-table.sh [PATH_NAME...]
#   PATH_NAME: cpu (the CPU twin), vulkan (fp64 where the device has it),
#   no-fp64 (the software fp64 shaders), staging (Vulkan, staging uploads);
#   default: all four.
#
# The clips are made by ffmpeg from its testsrc2 and mandelbrot sources
# (the distorted one: noise and a blur, or the reference itself, or its
# negative) as raw YUV under target/exactness-corpus (kept between runs). Both
# programs write JSON at full precision: vmaf through the LD_PRELOAD shim
# tests/c/vmaf_full_precision.c (17 significant digits, the fp64 value),
# vkssim with --precision max. A frame counts as identical when every one of
# its values is the same fp64 number (null, libvmaf's NaN, equal to null);
# "pooled" says whether the pooled and aggregate values are all identical.
# Environment: VMAF, VKSSIM (the programs; default: the ones under target/),
# FEATURE_SETS (';'-separated lists; default below).
# Exit status: 0 when every frame of every row is identical, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VMAF=${VMAF:-$(ls -t "$root"/target/*/build/libvmaf-sys-*/out/build/tools/vmaf 2>/dev/null | head -1 || true)}
[[ -n $VMAF ]] || { echo "no vmaf CLI under target/; run: cargo build --release -p vkssim-tests" >&2; exit 2; }
VKSSIM=${VKSSIM:-$root/target/release/vkssim}
[[ -x $VKSSIM ]] || { echo "no $VKSSIM; run: cargo build --release" >&2; exit 2; }
FEATURE_SETS=${FEATURE_SETS:-"float_ssim=enable_lcs=true;psnr=enable_chroma=true:enable_mse=true:enable_apsnr=true;float_ms_ssim=enable_lcs=true;float_ssim psnr float_ms_ssim=enable_db=true"}
paths=("$@")
[[ ${#paths[@]} -gt 0 ]] || paths=(cpu vulkan no-fp64 staging)

corpus=$root/target/exactness-corpus
mkdir -p "$corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/shim.so" "$root/tests/c/vmaf_full_precision.c"

# clip NAME SOURCE SIZE PIX_FMT FRAMES DISTORTION: ref and dist raw YUV,
# both from one ffmpeg run (raw, not Y4M: vmaf's Y4M reader takes neither
# odd sizes nor 12 and 16 bits). NAME is WxH_LAYOUTpDEPTH[_what].
clip() {
    local name=$1 src=$2 size=$3 pix=$4 n=$5 how=$6 vf
    [[ -s $corpus/$name.dist.yuv ]] && return
    case $how in
    noisy) vf="noise=alls=24:allf=t,gblur=sigma=0.7" ;;
    same) vf="null" ;;
    negative) vf="negate" ;;
    esac
    ffmpeg -v error -y -f lavfi -i "$src=size=$size:rate=25" -frames:v "$n" \
        -filter_complex "[0:v]format=$pix,split[r][d0];[d0]$vf,format=$pix[d]" \
        -map "[r]" -frames:v "$n" -f rawvideo "$corpus/$name.ref.yuv" \
        -map "[d]" -frames:v "$n" -f rawvideo "$corpus/$name.dist.yuv"
}
# testsrc2 rounds sizes to even; mandelbrot keeps odd ones.
clip 1920x1080_420p8 testsrc2 1920x1080 yuv420p 6 noisy
clip 1279x719_422p10 mandelbrot 1279x719 yuv422p10le 4 noisy
clip 641x361_444p12 mandelbrot 641x361 yuv444p12le 3 noisy
clip 353x289_420p16 mandelbrot 353x289 yuv420p16le 3 noisy
clip 176x176_420p8_same testsrc2 176x176 yuv420p 3 same
clip 200x180_420p8_negative testsrc2 200x180 yuv420p 3 negative

# The raw flags of a clip, from its name.
geometry() {
    local name=$1 size layout
    size=${name%%_*}
    layout=${name#*_}
    layout=${layout%%_*}
    echo "-w ${size%x*} -h ${size#*x} -p ${layout%p*} -b ${layout#*p}"
}

path_flags() {
    case $1 in
    cpu) echo "--backend cpu" ;;
    vulkan) echo "--backend vulkan" ;;
    no-fp64) echo "--backend vulkan --no-fp64" ;;
    staging) echo "--backend vulkan --upload staging" ;;
    *) echo "unknown path $1" >&2; exit 2 ;;
    esac
}

# compare VMAF_JSON OURS_JSON: "identical/total pooled-yes|no"
compare() {
    python3 - "$1" "$2" <<'EOF'
import json, math, sys
def load(p):
    with open(p) as f:
        return json.load(f)
def same(a, b):
    if isinstance(a, float) and math.isnan(a): a = None
    if isinstance(b, float) and math.isnan(b): b = None
    return a == b
v, o = load(sys.argv[1]), load(sys.argv[2])
vf, of = v["frames"], o["frames"]
n = sum(1 for a, b in zip(vf, of) if a["frameNum"] == b["frameNum"]
        and a["metrics"].keys() == b["metrics"].keys()
        and all(same(a["metrics"][k], b["metrics"][k]) for k in a["metrics"]))
def flat(d):
    return {(m, k): x for m, s in d.items() for k, x in (s.items() if isinstance(s, dict) else [("", s)])}
pv = flat(v.get("pooled_metrics", {})) | flat({"agg": v.get("aggregate_metrics", {})})
po = flat(o.get("pooled_metrics", {})) | flat({"agg": o.get("aggregate_metrics", {})})
pooled = pv.keys() == po.keys() and all(same(pv[k], po[k]) for k in pv)
print(f"{n}/{len(vf)} {'yes' if pooled and len(vf) == len(of) else 'no'}")
EOF
}

echo "| clip | features | path | frames identical | pooled and aggregate identical |"
echo "|---|---|---|---|---|"
status=0
IFS=';' read -r -a sets <<<"$FEATURE_SETS"
for set in "${sets[@]}"; do
    feats=()
    for f in $set; do feats+=(--feature "$f"); done
    for ref in "$corpus"/*.ref.yuv; do
        name=$(basename "$ref" .ref.yuv)
        dist=$corpus/$name.dist.yuv
        read -r -a raw <<<"$(geometry "$name")"
        # float_ms_ssim needs 176x176; every clip here has it.
        LD_PRELOAD=$tmp/shim.so "$VMAF" -n -q -r "$ref" -d "$dist" "${raw[@]}" "${feats[@]}" --json \
            -o "$tmp/vmaf.json" >"$tmp/vmaf.log" 2>&1 || { cat "$tmp/vmaf.log" >&2; exit 2; }
        for p in "${paths[@]}"; do
            read -r -a extra <<<"$(path_flags "$p")"
            if ! "$VKSSIM" score -q -n -r "$ref" -d "$dist" "${raw[@]}" "${feats[@]}" "${extra[@]}" --precision max \
                --json -o "$tmp/ours.json" >"$tmp/ours.log" 2>&1; then
                echo "| $name | $set | $p | failed: $(tail -1 "$tmp/ours.log") | |"
                status=1
                continue
            fi
            read -r frames pooled <<<"$(compare "$tmp/vmaf.json" "$tmp/ours.json")"
            echo "| $name | $set | $p | $frames | $pooled |"
            if [[ ${frames%/*} != "${frames#*/}" || $pooled != yes ]]; then status=1; fi
        done
    done
done
exit "$status"
