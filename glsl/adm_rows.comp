#version 450
// adm_rows.comp: libvmaf's integer ADM, one scale's contrast masking (the
// numerator) and the reference's cubes (the denominator), summed per row of
// the active window (engine/src/feature/adm/masking.rs and denominator.rs,
// the CPU twin). Workgroup (0, r, 0) takes window row i = win_top + r; each
// invocation, for a strided subset of the window's columns j:
// - the masking threshold: glsl/adm_decouple.comp's flat sums over the 3x3
//   neighbourhood (rows and columns mirrored), less the centre's, plus the
//   centre's own terms (int64, exact);
// - per band, the restored value weighted by the factor, less the threshold
//   (scale 0: in int32, the threshold << 10, d << 12), clamped at 0, then
//   squared and cubed with the scale's roundings (cube shift c);
// - per band, the reference's |b|³ (scale 0) or ((|b|² + 2^s) >> s) * |b|
//   rounded off by c (scales 1 to 3).
// The six sums (numerator h, v, d in int64, denominator h, v, d in uint64,
// wrapping as libvmaf's) are exact in any order: a shared-memory tree adds
// the invocations', written to row_sums[rows_at + 6 * r + k]; the host
// rounds each row off and finishes the scale (engine/src/feature/adm/
// device.rs, with the CPU twin's functions).
//
// Built as `adm_rows_subgroup` (SUBGROUP_REDUCE) for devices with subgroup
// arithmetic in compute shaders and subgroups of at least 4 invocations (at
// most 64 subgroups in a workgroup of 256): each subgroup adds each of the
// six sums modulo 2^64 by subgroupAdd of three uint32 pieces
// (glsl/include/subgroup_sum.glsl): the same wrapping sum as the tree's
// int64 and uint64 additions, negative or not. After one barrier (instead
// of the tree's eight) invocation 0 adds the subgroups' values. Integer sums
// modulo 2^64 in any order: the same row sums, bit for bit.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#if defined(SUBGROUP_REDUCE)
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#include "subgroup_sum.glsl"
#endif

#include "adm.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer Decoupled { int decoupled[]; };
layout(std430, set = 0, binding = 1) readonly buffer BandsRef { int bands_ref[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RowSums { int64_t row_sums[]; };

#if defined(SUBGROUP_REDUCE)
// Each subgroup's six sums (at most 64 subgroups: see the header).
shared uint64_t red[6][64];
#else
shared int64_t red[6][256];
#endif

int64_t cube_scale0(int rst, uint fixed_factor, int64_t thr, uint b, uint c) {
    int x = rst * int(fixed_factor);
    int magnitude = x < 0 ? -x : x;
    int reduced = magnitude - (int(thr) << (b == 2u ? 12u : 10u));
    int64_t xv = int64_t(max(reduced, 0));
    int64_t x2 = b == 2u ? (xv * xv + (1l << 29)) >> 30 : (xv * xv + (1l << 28)) >> 29;
    return round_shift(x2 * xv, c);
}

int64_t cube_s123(int rst, uint fixed_factor, int64_t thr, uint c) {
    int64_t x = (int64_t(rst) * int64_t(fixed_factor) + (1l << 27)) >> 28;
    x = max(abs(x) - thr, 0l);
    int64_t x2 = (x * x + (1l << 29)) >> 30;
    return round_shift(x2 * x, c);
}

void main() {
    uint r = gl_WorkGroupID.y;
    uint i = P.win_top + r;
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (i >= P.win_bottom) { return; }
    uint w = P.width;
    uint n = w * P.height;
    bool scale0 = P.scale == 0u;
    uint rows[3] = uint[3](mirror(int(i) - 1, P.height), i, mirror(int(i) + 1, P.height));
    int64_t acc[6] = int64_t[6](0l, 0l, 0l, 0l, 0l, 0l);
    for (uint j = P.win_left + lid; j < P.win_right; j += 256u) {
        uint cols[3] = uint[3](mirror(int(j) - 1, w), j, mirror(int(j) + 1, w));
        uint p = i * w + j;
        int64_t thr = 0l;
        [[unroll]] for (uint a = 0u; a < 3u; ++a) {
            [[unroll]] for (uint c = 0u; c < 3u; ++c) {
                thr += int64_t(decoupled[3u * n + rows[a] * w + cols[c]]);
            }
        }
        thr += int64_t(decoupled[4u * n + p]) - int64_t(decoupled[3u * n + p]);
        [[unroll]] for (uint b = 0u; b < 3u; ++b) {
            int rst = decoupled[b * n + p];
            uint fixed_factor = b == 2u ? P.fixed_d : P.fixed_hv;
            uint c = b == 2u ? P.num_shift_d : P.num_shift_hv;
            acc[b] += scale0 ? cube_scale0(rst, fixed_factor, thr, b, c)
                             : cube_s123(rst, fixed_factor, thr, c);
            int v = bands_ref[(b + 1u) * n + p];
            uint64_t m = uint64_t(v < 0 ? uint(-v) : uint(v));
            uint64_t cube = scale0 ? m * m * m
                : round_shift_u(((m * m + (1ul << P.den_square_shift)) >> P.den_square_shift) * m,
                                P.den_cube_shift);
            acc[3u + b] += int64_t(cube);
        }
    }
#if defined(SUBGROUP_REDUCE)
    [[unroll]] for (uint k = 0u; k < 6u; ++k) {
        uint64_t sum = subgroup_sum_u64(uint64_t(acc[k]));
        if (subgroupElect()) { red[k][gl_SubgroupID] = sum; }
    }
    memoryBarrierShared();
    barrier();
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 6u; ++k) {
        uint64_t t = 0ul;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) { t += red[k][s]; }
        row_sums[P.rows_at + 6u * r + k] = int64_t(t);
    }
#else
    [[unroll]] for (uint k = 0u; k < 6u; ++k) { red[k][lid] = acc[k]; }
    memoryBarrierShared();
    barrier();
    for (uint h = 128u; h > 0u; h >>= 1u) {
        if (lid < h) {
            [[unroll]] for (uint k = 0u; k < 6u; ++k) { red[k][lid] += red[k][lid + h]; }
        }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 6u; ++k) { row_sums[P.rows_at + 6u * r + k] = red[k][0]; }
#endif
}
