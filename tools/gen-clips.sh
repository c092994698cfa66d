#!/usr/bin/env bash
# gen-clips.sh: the parity corpus. Reference/distorted clip pairs made with ffmpeg
# from lavfi sources with fixed seeds, encoded at low quality with libx264,
# libx265 and libvpx-vp9, decoded back and written as raw planar YUV or Y4M.
#
# Usage: tools/gen-clips.sh [BASE_DIR]    (default: target/vkssim-clips)
#
# Clips go to BASE_DIR/<first 16 hex digits of this script's sha256>/, so any edit
# to this script makes a fresh corpus. A finished corpus holds manifest.tsv
# (written last, atomically); when it exists nothing is regenerated, and making a
# new one deletes the corpora of other versions. Concurrent callers serialise on
# BASE_DIR/.lock (flock). The corpus directory is printed on the last line of
# stdout.
#
# manifest.tsv columns (tab separated, one clip per line, '#' lines are comments):
#   name  container(yuv|y4m)  width  height  chroma(420|422|444|400)  bitdepth
#   frames  reference-file  distorted-file  codec
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
base=${1:-"$here/../target/vkssim-clips"}
mkdir -p "$base"
base=$(cd "$base" && pwd)
hash=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
dir="$base/$hash"

command -v ffmpeg >/dev/null || { echo "gen-clips.sh: ffmpeg not found (apt-get install ffmpeg)" >&2; exit 2; }
command -v flock >/dev/null || { echo "gen-clips.sh: flock not found (apt-get install util-linux)" >&2; exit 2; }

exec 9>"$base/.lock"
flock 9

if [[ -f "$dir/manifest.tsv" ]]; then
    echo "$dir"
    exit 0
fi

work="$dir.tmp.$$"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y -threads 1 -filter_threads 1 "$@"; }

manifest="$work/manifest.tsv"
printf '# name\tcontainer\twidth\theight\tchroma\tbitdepth\tframes\treference\tdistorted\tcodec\n' >"$manifest"

# clip NAME SOURCE W H FRAMES CHROMA BITS CODEC CONTAINER [QUALITY]
#   SOURCE is a lavfi graph without size (":s=WxH" is appended to its first filter
#   by the caller through the token @S@). The master is rendered at an even size
#   (odd W or H rounded up), encoded with CODEC (low quality, or near-lossless when
#   QUALITY is "high"; CHROMA 400 is luma only), and both master and
#   decoded stream are cropped to exactly W x H. BITS 16 encodes at 12 bits and
#   widens both sides to 16 bits afterwards (no encoder takes 16-bit input).
clip() {
    local name=$1 src=$2 w=$3 h=$4 frames=$5 chroma=$6 bits=$7 codec=$8 container=$9
    local quality=${10:-low}
    local ew=$(( (w + 1) / 2 * 2 )) eh=$(( (h + 1) / 2 * 2 ))
    local encbits=$bits
    [[ $bits == 16 ]] && encbits=12
    local encfmt="yuv${chroma}p" outfmt="yuv${chroma}p"
    [[ $encbits != 8 ]] && encfmt="yuv${chroma}p${encbits}le"
    [[ $bits != 8 ]] && outfmt="yuv${chroma}p${bits}le"
    if [[ $chroma == 400 ]]; then   # luma only (Y4M Cmono)
        encfmt=gray outfmt=gray
        [[ $encbits != 8 ]] && encfmt="gray${encbits}le"
        [[ $bits != 8 ]] && outfmt="gray${bits}le"
    fi

    local graph=${src//@S@/s=${ew}x${eh}}
    ff -f lavfi -i "$graph" -frames:v "$frames" -vf "format=$encfmt" \
        -c:v rawvideo -f nut "$work/$name.master.nut"

    local enc="$work/$name.enc.mkv" crf=44
    [[ $codec == x265 ]] && crf=40
    [[ $quality == high ]] && crf=6
    case $codec in
        x264) ff -i "$work/$name.master.nut" -c:v libx264 -preset ultrafast -crf "$crf" \
                 -pix_fmt "$encfmt" "$enc" ;;
        x265) ff -i "$work/$name.master.nut" -c:v libx265 -preset ultrafast -crf "$crf" \
                 -x265-params log-level=error:pools=1:frame-threads=1 \
                 -pix_fmt "$encfmt" "$enc" ;;
        vp9)  ff -i "$work/$name.master.nut" -c:v libvpx-vp9 -deadline realtime \
                 -cpu-used 8 -b:v 60k -row-mt 0 -pix_fmt "$encfmt" "$enc" ;;
        *) echo "gen-clips.sh: unknown codec $codec" >&2; exit 2 ;;
    esac

    local ext=$container fmtargs=(-f rawvideo)
    [[ $container == y4m ]] && fmtargs=(-strict -1 -f yuv4mpegpipe)
    local crop="crop=$w:$h:0:0:exact=1,format=$outfmt"
    ff -i "$work/$name.master.nut" -vf "$crop" "${fmtargs[@]}" "$work/$name.ref.$ext"
    ff -i "$enc" -vf "$crop" "${fmtargs[@]}" "$work/$name.dist.$ext"
    rm -f "$work/$name.master.nut" "$enc"

    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$container" "$w" "$h" \
        "$chroma" "$bits" "$frames" "$name.ref.$ext" "$name.dist.$ext" "$codec" >>"$manifest"
}

# Sources, all deterministic: testsrc2 and mandelbrot are fixed patterns, life,
# cellauto and the noise filter take explicit seeds.
noise="noise=all_seed=4242:alls=14:allf=t"
tsrc="testsrc2=@S@:r=25,$noise"
mand="mandelbrot=@S@:r=25:maxiter=96:start_scale=2.5,$noise"
life="life=@S@:r=25:seed=777:ratio=0.35:mold=8:life_color=white:death_color=black:mold_color=gray,gblur=sigma=1.5,$noise"
cell="cellauto=@S@:r=25:seed=99:rule=110:random_fill_ratio=0.5:scroll=1,gblur=sigma=1,$noise"

#    name              source  W     H     n  chroma bits codec container   auto scale
clip s1_321x241_420p8   "$tsrc" 321   241   3  420    8    x264  yuv        # 1, odd w and h
clip s1_255x300_444p16  "$cell" 255   300   3  444    16   x265  yuv        # 1, odd w, 16-bit
clip s2_704x513_422p10  "$mand" 704   513   3  422    10   x264  y4m        # 2, odd h
clip s2_640x480_420p12  "$life" 640   480   2  420    12   vp9   yuv        # 2
clip s3_1024x768_444p12 "$life" 1024  768   2  444    12   x265  y4m        # 3
clip s4_1920x1080_420p8 "$tsrc" 1920  1080  3  420    8    vp9   yuv        # 4
clip s5_1283x1280_420p10 "$mand" 1283 1280  2  420    10   x265  yuv        # 5, odd w
clip s6_1536x1537_444p16 "$tsrc" 1536 1537  1  444    16   vp9   y4m        # 6, odd h, 16-bit
clip s7_1800x1792_422p8 "$cell" 1800  1792  1  422    8    x264  y4m        # 7
clip s8_2100x2048_420p12 "$tsrc" 2100 2048  1  420    12   x265  yuv        # 8
clip s11_2800x2761_420p8 "$mand" 2800 2761  1  420    8    x264  y4m        # 11, odd h
clip hq_1280x720_420p10 "$tsrc" 1280  720   2  420    10   x265  y4m  high  # 3, near-lossless: SSIM near 1
clip mono_480x361_400p8 "$life" 480   361   2  400    8    x264  y4m        # 1, Y4M Cmono, odd h

mv "$manifest" "$work/manifest.tsv.done"
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
mv "$dir/manifest.tsv.done" "$dir/manifest.tsv"
# Corpora of earlier versions of this script are stale: drop them.
for old in "$base"/*/; do
    old=${old%/}
    [[ $old != "$dir" && -f $old/manifest.tsv ]] && rm -rf "$old"
done
echo "$dir"
