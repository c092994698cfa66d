#version 450
// vif_stats.comp: libvmaf's integer VIF, the horizontal pass of one scale's
// statistics and its per-pixel information terms (engine/src/feature/vif/
// stats.rs, `scale_sums` and `ScaleSums::add_pixel`, the CPU twin).
// Workgroup (0, row, 0) takes one row of the scale, 256 columns at a time
// (each chunk's statistics read once into shared memory); each invocation,
// for a strided subset of its columns x:
// - sums tap * vert over columns x-r ..= x+r (reflect-101) in uint64, per
//   statistic (glsl/vif_vertical.comp wrote them, one uvec4 a sample:
//   mu1 and mu2 in one word, then xx, yy, xy; one load and one shared
//   uvec4 per column and tap, which measured faster on the H200 than a
//   plane per statistic):
//   mu1, mu2, xx, yy, xy. The means are below 2^16 at every scale and
//   depth (Σ tap * p < 65536 * 2^b, shifted right by b at scale 0; below
//   65536 * 2^16, shifted by 16, after), so Σ tap * mean fits in a uint32
//   sum (the taps add to 65536); a moment (below 2^32) is summed as
//   uint64(tap) * uint64(v) in uint64 (one widening multiply-add each on
//   the H200, where two uint32 sums of its halves measured slower);
// - mu1^2 = (mu1 * mu1 + 2^31) >> 32 (likewise mu2^2, mu1 mu2), xx = (xx +
//   32768) >> 16 (likewise yy, xy); s1 = xx - mu1^2, s2 = max(yy - mu2^2, 0),
//   s12 = xy - mu1 mu2 as int32 (the low 32 bits of the uint64 difference);
// - below the noise variance (s1 < 131072): num_non_log += s2,
//   den_non_log += 1; else den_log += log2_32(s1 + 131072) - 2048 * 17, and
//   when s12 > 0 and s2 > 0 the one binary64 step, through arith.glsl (each
//   operation rounded once, no contraction, in either arithmetic variant):
//   g = s12 / (s1 + 6.5536e-6); sv = trunc(s2 - g * s12), 0 when not
//   positive; g = min(g, vif_enhn_gain_limit); n1 = sv + 131072 (uint32);
//   num_log += log2_64(trunc((g * g) * s1) + n1) - log2_64(n1).
// The four int64 sums are exact in any order: a shared-memory tree adds the
// 256 invocations' sums (or subgroup operations, below), written to
// row_sums[P.sums_at + 4 * row + k]; the host adds the rows
// (engine/src/vk/scorer/metric/vif.rs). log2_32/64 shift the argument right
// (truncating) until its top bit is bit 15 and look it up in libvmaf's table
// (`Log2`, uploaded from the CPU twin's), plus 2048 per shift.
//
// Built as `vif_stats_subgroup` (SUBGROUP_REDUCE) for devices with subgroup
// arithmetic in compute shaders and subgroups of at least 4 invocations (so
// a workgroup of 256 has at most 64 subgroups): each subgroup adds each of
// the four sums exactly, modulo 2^64, by subgroupAdd of three uint32 pieces
// (glsl/include/subgroup_sum.glsl; an invocation's sums are never negative,
// sums of non-negative terms, and below 2^40: at most 256 columns each,
// rows having at most 2^16 samples, each column adding below 2^31), and its
// first invocation stores it, one per subgroup per sum; after one barrier
// (instead of the tree's eight) invocation 0 adds the subgroups' values in
// int64. Integer sums in any order: the same row sums, bit for bit.
//
// Range check (scale 0, 10 and 12-bit): the same workgroup scans its row of
// both raw luma planes and writes the first sample above the bit depth, per
// picture, to row_sums[picture * height + row] as (value << 32) | column, or
// all ones when the row has none (as glsl/psnr.comp records them).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#if defined(SUBGROUP_REDUCE)
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#include "subgroup_sum.glsl"
#endif

#include "arith.glsl"
#include "vif.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 4) readonly buffer Vert { uvec4 vert[]; };
layout(std430, set = 0, binding = 5) readonly buffer Log2 { uint log2_table[]; };
layout(std430, set = 0, binding = 6) writeonly buffer RowSums { int64_t row_sums[]; };

const int SIGMA_NSQ = 131072;
const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;
// The scale's radius (constant id 1 fixes the scale, so the taps unroll).
const int R = int(8u >> SCALE);

#if defined(SUBGROUP_REDUCE)
// Each subgroup's four sums (at most 64 subgroups: see the header).
shared int64_t red[4][64];
#else
shared int64_t red[4][256];
#endif
// One chunk of the row's vertical statistics (the means' word, xx, yy,
// xy): 256 columns and the filter's reach (at most 8) each side.
shared uvec4 chunk[256 + 16];
// The first column above the bit depth in this row, per picture.
shared uint first[2];

// 2048 * log2(x) for x >= 2^16 (libvmaf's log2_32 and log2_64).
int64_t log2_q11(uint64_t x) {
    uint hi = uint(x >> 32);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
    int shift = msb - 15;
    uint k = uint(x >> uint(shift)) - 32768u;
    uint entry = (log2_table[k >> 1] >> ((k & 1u) * 16u)) & 0xFFFFu;
    return int64_t(entry) + 2048l * int64_t(shift);
}

// Values lid and lid + 256 (the latter when lid < 2R) of the chunk that
// starts at column c0 of `row`: its columns and R more each side, reflected
// (clamped past the row's end, where no output is kept): each a uvec4 of
// the four statistics.
void load_chunk(uint c0, uint lid, uint row, out uvec4 vals[2]) {
    [[unroll]] for (uint slot = 0u; slot < 2u; ++slot) {
        uint k = lid + 256u * slot;
        uint col = min(reflect101(int(c0 + k) - R, P.width), P.width - 1u);
        bool wanted = slot == 0u || lid < 2u * uint(R);
        vals[slot] = wanted ? vert[row * P.width + col] : uvec4(0u);
    }
}

void main() {
    uint row = gl_WorkGroupID.y;
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (row >= P.height) { return; }
    if (lid == 0u) {
        first[0] = NONE;
        first[1] = NONE;
    }
    memoryBarrierShared();
    barrier();
    F64 gain_limit = f64_from_bits((uint64_t(P.gain_hi) << 32) | uint64_t(P.gain_lo));
    // 6.5536e-6 (1e-10 on the Q16 scale), as binary64 bits.
    F64 eps = f64_from_bits(0x3edb7cdfd9d7bdbbul);
    int64_t acc[4] = int64_t[4](0l, 0l, 0l, 0l); // num_log, den_log, num_non_log, den_non_log
    uint mine[2] = uint[2](NONE, NONE);
    // Each chunk's values are loaded and stored to shared memory: slot 0
    // holds value lid of the chunk, slot 1 value lid + 256 (the right edge's
    // reach: lid < 2R). Not loaded a chunk ahead into registers: that held
    // eight more registers through the arithmetic (48 at scale 0 against
    // 34; the pipeline statistics) and the pass ran 166.6 us at 4K against
    // 159.9 without it (H200, each pass alone).
    for (uint c0 = 0u; c0 < P.width; c0 += 256u) {
        uvec4 next[2];
        load_chunk(c0, lid, row, next);
        barrier();
        chunk[lid] = next[0];
        if (lid < 2u * uint(R)) { chunk[lid + 256u] = next[1]; }
        memoryBarrierShared();
        barrier();
        uint x = c0 + lid;
        if (x >= P.width) { continue; }
        uint means[2] = uint[2](0u, 0u);
        uint64_t wide[3] = uint64_t[3](0ul, 0ul, 0ul);
        [[unroll]] for (int k = 0; k <= 2 * R; ++k) {
            uint tap = TAPS[SCALE][k];
            uvec4 v = chunk[lid + uint(k)];
            means[0] += tap * (v.x & 0xFFFFu);
            means[1] += tap * (v.x >> 16);
            [[unroll]] for (uint m = 0u; m < 3u; ++m) {
                wide[m] += uint64_t(tap) * uint64_t(v[1u + m]);
            }
        }
        uint64_t f[5];
        f[0] = uint64_t(means[0]);
        f[1] = uint64_t(means[1]);
        [[unroll]] for (uint m = 0u; m < 3u; ++m) { f[2u + m] = wide[m]; }
        uint64_t mu1_sq = (f[0] * f[0] + (1ul << 31)) >> 32;
        uint64_t mu2_sq = (f[1] * f[1] + (1ul << 31)) >> 32;
        uint64_t mu1_mu2 = (f[0] * f[1] + (1ul << 31)) >> 32;
        uint64_t xx = (f[2] + 32768ul) >> 16;
        uint64_t yy = (f[3] + 32768ul) >> 16;
        uint64_t xy = (f[4] + 32768ul) >> 16;
        int s1 = int(uint(xx - mu1_sq));
        int s2 = max(int(uint(yy - mu2_sq)), 0);
        int s12 = int(uint(xy - mu1_mu2));
        if (s1 < SIGMA_NSQ) {
            acc[2] += int64_t(s2);
            acc[3] += 1l;
        } else {
            acc[1] += log2_q11(uint64_t(uint(s1) + uint(SIGMA_NSQ))) - 2048l * 17l;
            if (s12 > 0 && s2 > 0) {
                F64 f1 = f64_from_u32(uint(s1));
                F64 f12 = f64_from_u32(uint(s12));
                F64 gain = f64_div(f12, f64_add(f1, eps));
                F64 sv = f64_sub(f64_from_u32(uint(s2)), f64_mul(gain, f12));
                uint sv_sq = uint(f64_trunc_u64(sv));
                gain = f64_min_nonneg(gain, gain_limit);
                uint numer1 = sv_sq + uint(SIGMA_NSQ);
                uint64_t total = f64_trunc_u64(f64_mul(f64_mul(gain, gain), f1)) + uint64_t(numer1);
                acc[0] += log2_q11(total) - log2_q11(uint64_t(numer1));
            }
        }
        if (RANGE && SCALE == 0u) {
            // Each invocation's columns rise: its first is its smallest.
            uint i = row * P.width + x;
            uint w = raw_word(i);
            if ((raw_sample(raw_ref[w], i) >> BIT_DEPTH) != 0u && mine[0] == NONE) { mine[0] = x; }
            if ((raw_sample(raw_dist[w], i) >> BIT_DEPTH) != 0u && mine[1] == NONE) { mine[1] = x; }
        }
    }
    for (uint pic = 0u; pic < 2u; ++pic) {
        if (mine[pic] != NONE) { atomicMin(first[pic], mine[pic]); }
    }
#if defined(SUBGROUP_REDUCE)
    for (uint k = 0u; k < 4u; ++k) {
        uint64_t sum = subgroup_sum_u64(uint64_t(acc[k]));
        if (subgroupElect()) { red[k][gl_SubgroupID] = int64_t(sum); }
    }
    memoryBarrierShared();
    barrier();
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 4u; ++k) {
        int64_t t = 0l;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) { t += red[k][s]; }
        row_sums[P.sums_at + 4u * row + k] = t;
    }
#else
    for (uint k = 0u; k < 4u; ++k) { red[k][lid] = acc[k]; }
    memoryBarrierShared();
    barrier();
    for (uint h = 128u; h > 0u; h >>= 1u) {
        if (lid < h) {
            for (uint k = 0u; k < 4u; ++k) { red[k][lid] += red[k][lid + h]; }
        }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 4u; ++k) { row_sums[P.sums_at + 4u * row + k] = red[k][0]; }
#endif
    if (RANGE && SCALE == 0u) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint f = first[pic];
            int64_t rec = -1l;
            if (f != NONE) {
                uint i = row * P.width + f;
                uint v = raw_sample(pic == 0u ? raw_ref[raw_word(i)] : raw_dist[raw_word(i)], i);
                rec = int64_t((uint64_t(v) << 32) | uint64_t(f));
            }
            row_sums[pic * P.height + row] = rec;
        }
    }
}
