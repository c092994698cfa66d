#version 450
// vif_vertical.comp: libvmaf's integer VIF, the vertical pass of one scale's
// statistics (engine/src/feature/vif/stats.rs, `Columns::filter_rows`, the
// CPU twin): output (x, y) sums down rows y-r ..= y+r (reflect-101) of the
// reference p and distorted q planes, per tap: tap*p, tap*q, tap*p*p,
// tap*q*q, tap*p*q; the means (the first two) get (Σ + 2^(s-1)) >> s and
// the second moments (Σ + 2^(t-1)) >> t, with (s, t) = (8, 0) at scale 0 of
// an 8-bit picture, (b, 2(b - 8)) at scale 0 of a b-bit one and (16, 16) at
// the decimated scales. The means fit in 16 bits and share a word, mu1 in
// the low half; the moments fit in 32 bits: output (x, y) is written as one
// uvec4, vert[y * width + x] = (means, xx, yy, xy).
//
// The sums are the CPU twin's uint64 sums, formed in uint32 words:
// - every sample is below 2^16 and the taps sum to 65536, so Σ tap*p and
//   Σ tap*q fit in 32 bits;
// - the products p*p, q*q, p*q fit in 32 bits; each moment is summed as
//   two uint32 sums, of tap * its low 16 bits and tap * its high 16 bits
//   (each below 2^32 by the same bound), joined in uint64 as hi * 2^16 + lo;
// - at scale 0 of an 8-bit picture the products are below 2^16 and every
//   sum fits in 32 bits, so one uint32 sum per moment serves.
// Integer sums: the order of the additions does not change them.
//
// Invocation (x, j) makes ROWS outputs, rows ROWS*j ..= ROWS*j + ROWS-1 of
// column x: each input row's samples and products are read and formed once
// for every output that reaches it. The scale (constant id 1) fixes the
// radius and the taps, so the loops unroll into constants.
//
// Sources: the raw pictures at scale 0 (the slot's upload buffers, luma
// first), the scale's decimated planes (one uint per sample) after.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#include "vif.glsl"

layout(local_size_x = 64, local_size_y = 4, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Vert { uvec4 vert[]; };

// Output rows per invocation (the dispatch's y extent is the rows / ROWS,
// rounded up: engine/src/vk/scorer/metric/vif.rs).
const uint ROWS = 4u;
const int R = int(8u >> SCALE);
// Products below 2^16: one uint32 sum per moment.
const bool NARROW = BIT_DEPTH == 8u && SCALE == 0u;

uint source(bool ref, uint i) {
    if (SCALE == 0u) {
        uint w = raw_word(i);
        return raw_sample(ref ? src_ref[w] : src_dist[w], i);
    }
    return ref ? src_ref[i] : src_dist[i];
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y0 = gl_GlobalInvocationID.y * ROWS;
    if (x >= P.width || y0 >= P.height) { return; }
    // Per output row: mu1, mu2, then each moment's low (or only) sum,
    // then each moment's high sum (used when not NARROW).
    uint means[ROWS][2];
    uint lo[ROWS][3];
    uint hi[ROWS][3];
    [[unroll]] for (uint j = 0u; j < ROWS; ++j) {
        means[j][0] = 0u;
        means[j][1] = 0u;
        [[unroll]] for (uint m = 0u; m < 3u; ++m) {
            lo[j][m] = 0u;
            hi[j][m] = 0u;
        }
    }
    // Input row y0 - R + i reaches output j with tap i - j.
    [[unroll]] for (int i = 0; i < int(ROWS) + 2 * R; ++i) {
        uint row = min(reflect101(int(y0) + i - R, P.height), P.height - 1u);
        uint at = row * P.width + x;
        uint p = source(true, at);
        uint q = source(false, at);
        uint prod[3] = uint[3](p * p, q * q, p * q);
        [[unroll]] for (int j = 0; j < int(ROWS); ++j) {
            int k = i - j;
            if (k < 0 || k > 2 * R) { continue; }
            uint tap = TAPS[SCALE][k];
            means[j][0] += tap * p;
            means[j][1] += tap * q;
            [[unroll]] for (uint m = 0u; m < 3u; ++m) {
                if (NARROW) {
                    lo[j][m] += tap * prod[m];
                } else {
                    lo[j][m] += tap * (prod[m] & 0xFFFFu);
                    hi[j][m] += tap * (prod[m] >> 16);
                }
            }
        }
    }
    uint mean_shift = SCALE > 0u ? 16u : (BIT_DEPTH == 8u ? 8u : BIT_DEPTH);
    uint moment_shift = SCALE > 0u ? 16u : 2u * (BIT_DEPTH - 8u);
    uint64_t mean_round = uint64_t(1u << (mean_shift - 1u));
    uint64_t moment_round = moment_shift == 0u ? 0ul : uint64_t(1u << (moment_shift - 1u));
    [[unroll]] for (uint j = 0u; j < ROWS; ++j) {
        uint y = y0 + j;
        if (y >= P.height) { break; }
        uint at = y * P.width + x;
        // The means are below 2^16 (see vif_stats.comp): one word holds both.
        uint mu1 = uint((uint64_t(means[j][0]) + mean_round) >> mean_shift);
        uint mu2 = uint((uint64_t(means[j][1]) + mean_round) >> mean_shift);
        uvec4 stats = uvec4(mu1 | (mu2 << 16), 0u, 0u, 0u);
        [[unroll]] for (uint m = 0u; m < 3u; ++m) {
            uint64_t sum = (uint64_t(hi[j][m]) << 16) + uint64_t(lo[j][m]);
            stats[1u + m] = uint((sum + moment_round) >> moment_shift);
        }
        vert[at] = stats;
    }
}
