// vif.glsl: what the passes of libvmaf's integer VIF share
// (glsl/vif_decimate.comp, vif_vertical.comp, vif_stats.comp; the CPU twin is
// engine/src/feature/vif/): their push-constant block, the bit depth, the four
// scales' filters and libvmaf's reflect-101 border, and reading a raw sample
// (raw.glsl).

#ifndef VKSSIM_VIF_GLSL
#define VKSSIM_VIF_GLSL

// One dispatch's scale (`VifParams` in engine/src/vk/pipeline.rs, checked at
// compile time by build.rs).
layout(push_constant, std430) uniform Vif {
    uint width;      // this scale's plane: samples per row
    uint height;     // and rows
    uint src_width;  // vif_decimate: the previous scale's plane
    uint src_height;
    uint scale;      // 0 to 3 (vif_decimate: the scale it makes, 1 to 3)
    uint sums_at;    // vif_stats: where this scale's row sums start (int64s)
    uint gain_lo;    // vif_enhn_gain_limit's binary64 bits, low word
    uint gain_hi;    // and high word
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;
// The scale this pipeline serves (`Spec::scale`, constant id 1; P.scale
// holds the same value): one pipeline per scale, so each scale's radius and
// taps are constants and its filter loops unroll.
layout(constant_id = 1) const uint SCALE = 0u;

// libvmaf's filter of each scale (16-bit taps summing to 65536), centred,
// padded with zeros to 17 taps; RADIUS[s] = 8 >> s taps on each side of the
// centre (the passes write `8u >> SCALE`: a specialization-constant
// expression, where an index into RADIUS would not be one).
const uint RADIUS[4] = uint[4](8u, 4u, 2u, 1u);
const uint TAPS[4][17] = uint[4][17](
    uint[17](489u, 935u, 1640u, 2640u, 3896u, 5274u, 6547u, 7455u, 7784u, 7455u, 6547u,
             5274u, 3896u, 2640u, 1640u, 935u, 489u),
    uint[17](1244u, 3663u, 7925u, 12590u, 14692u, 12590u, 7925u, 3663u, 1244u, 0u, 0u, 0u,
             0u, 0u, 0u, 0u, 0u),
    uint[17](3571u, 16004u, 26386u, 16004u, 3571u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u,
             0u, 0u),
    uint[17](10904u, 43728u, 10904u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u));

// Index i (at most n - 1 outside 0..n) mirrored about the edge samples, which
// are not repeated: -1 reads 1, n reads n - 2.
uint reflect101(int i, uint n) {
    if (i < 0) { return uint(-i); }
    if (uint(i) >= n) { return 2u * (n - 1u) - uint(i); }
    return uint(i);
}

#include "raw.glsl"

#endif // VKSSIM_VIF_GLSL
