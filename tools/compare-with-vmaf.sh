#!/usr/bin/env bash
# compare-with-vmaf.sh: scores the same files with libvmaf's `vmaf` CLI (the one
# libvmaf-sys builds) and with `vkssim score`, using the same flags, and compares
# the two output files line for line, ignoring only the version and fps lines.
#
# Usage: tools/compare-with-vmaf.sh [--xml|--json|--csv] VMAF_FLAGS...
#   e.g. tools/compare-with-vmaf.sh -r ref.y4m -d dist.y4m \
#            --feature float_ssim=enable_lcs=true --json
#
# VMAF_FLAGS are passed to both programs (vmaf also gets -n: no model, features
# only; without --feature both get --feature float_ssim). Do not pass -o. Environment: VMAF and VKSSIM override the programs'
# paths; VKSSIM_ARGS adds flags for vkssim only (e.g. "--backend cpu").
# Exit status: 0 identical, 1 different, 2 a program failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ -z ${VMAF:-} ]]; then
    VMAF=$(ls -t "$root"/target/*/build/libvmaf-sys-*/out/build/tools/vmaf 2>/dev/null | head -1 || true)
    [[ -n $VMAF ]] || { echo "no vmaf CLI under target/; run: cargo build -p vkssim-tests" >&2; exit 2; }
fi
if [[ -z ${VKSSIM:-} ]]; then
    (cd "$root" && cargo build --quiet --release -p vkssim-cli --bin vkssim)
    VKSSIM=$root/target/release/vkssim
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

read -r -a extra <<<"${VKSSIM_ARGS:-}"
# Both programs run VMAF's default model unless -n; with -n they compute the
# --feature list only (float_ssim when none is given).
args=("$@")
[[ " $* " == *" --feature "* ]] || args+=(--feature float_ssim)
"$VMAF" -n -q "${args[@]}" -o "$tmp/vmaf.out" >"$tmp/vmaf.log" 2>&1 ||
    { echo "vmaf failed:" >&2; cat "$tmp/vmaf.log" >&2; exit 2; }
"$VKSSIM" score -q -n "${args[@]}" "${extra[@]}" -o "$tmp/vkssim.out" >"$tmp/vkssim.log" 2>&1 ||
    { echo "vkssim failed:" >&2; cat "$tmp/vkssim.log" >&2; exit 2; }

strip() { grep -v -E '^\s*("version"|"fps"|<VMAF version=|<fyi fps=)' "$1" || true; }
if diff -u <(strip "$tmp/vmaf.out") <(strip "$tmp/vkssim.out") >"$tmp/diff"; then
    echo "identical: $(strip "$tmp/vmaf.out" | wc -l) lines (version and fps ignored)"
else
    echo "DIFFERENT (--- vmaf, +++ vkssim):"
    cat "$tmp/diff"
    exit 1
fi
