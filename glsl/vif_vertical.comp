#version 450
// vif_vertical.comp: libvmaf's integer VIF, the vertical pass of one scale's
// statistics (engine/src/feature/vif/stats.rs, `Columns::filter_rows`, the
// CPU twin): invocation (x, y) sums down rows y-r ..= y+r (reflect-101) of
// the reference p and distorted q planes, per tap: tap*p, tap*q, tap*p*p,
// tap*q*q, tap*p*q in uint64; the means (the first two) get (Σ + 2^(s-1))
// >> s and the second moments (Σ + 2^(t-1)) >> t, with (s, t) = (8, 0) at
// scale 0 of an 8-bit picture, (b, 2(b - 8)) at scale 0 of a b-bit one and
// (16, 16) at the decimated scales; each fits in 32 bits and is written to
// vert[k * width * height + y * width + x], k = mu1, mu2, xx, yy, xy.
//
// Sources: the raw pictures at scale 0 (the slot's upload buffers, luma
// first), the scale's decimated planes (one uint per sample) after.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "vif.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Vert { uint vert[]; };

uint source(bool ref, uint i) {
    if (P.scale == 0u) {
        uint w = raw_word(i);
        return raw_sample(ref ? src_ref[w] : src_dist[w], i);
    }
    return ref ? src_ref[i] : src_dist[i];
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= P.width || y >= P.height) { return; }
    uint s = P.scale;
    int r = int(RADIUS[s]);
    uint64_t sums[5] = uint64_t[5](0ul, 0ul, 0ul, 0ul, 0ul);
    if (BIT_DEPTH == 8u && s == 0u) {
        // 8-bit samples at scale 0: every sum fits in uint32 (the taps sum
        // to 65536, so tap * p * q sums below 65536 * 255^2 < 2^32), the
        // same values as the uint64 sums below.
        uint narrow[5] = uint[5](0u, 0u, 0u, 0u, 0u);
        for (int k = 0; k <= 2 * r; ++k) {
            uint i = reflect101(int(y) + k - r, P.height) * P.width + x;
            uint p = source(true, i);
            uint q = source(false, i);
            uint tp = TAPS[0][k] * p;
            uint tq = TAPS[0][k] * q;
            narrow[0] += tp;
            narrow[1] += tq;
            narrow[2] += tp * p;
            narrow[3] += tq * q;
            narrow[4] += tp * q;
        }
        for (uint m = 0u; m < 5u; ++m) { sums[m] = uint64_t(narrow[m]); }
    } else for (int k = 0; k <= 2 * r; ++k) {
        uint i = reflect101(int(y) + k - r, P.height) * P.width + x;
        uint64_t p = uint64_t(source(true, i));
        uint64_t q = uint64_t(source(false, i));
        uint64_t tap = uint64_t(TAPS[s][k]);
        uint64_t tp = tap * p;
        uint64_t tq = tap * q;
        sums[0] += tp;
        sums[1] += tq;
        sums[2] += tp * p;
        sums[3] += tq * q;
        sums[4] += tp * q;
    }
    uint mean_shift = s > 0u ? 16u : (BIT_DEPTH == 8u ? 8u : BIT_DEPTH);
    uint moment_shift = s > 0u ? 16u : 2u * (BIT_DEPTH - 8u);
    uint64_t mean_round = uint64_t(1u << (mean_shift - 1u));
    uint64_t moment_round = moment_shift == 0u ? 0ul : uint64_t(1u << (moment_shift - 1u));
    uint plane = P.width * P.height;
    uint at = y * P.width + x;
    for (uint k = 0u; k < 5u; ++k) {
        bool mean = k < 2u;
        uint64_t round_k = mean ? mean_round : moment_round;
        uint shift_k = mean ? mean_shift : moment_shift;
        vert[k * plane + at] = uint((sums[k] + round_k) >> shift_k);
    }
}
