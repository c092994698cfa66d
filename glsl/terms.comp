#version 450
#if defined(SUBGROUP_REDUCE)
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
// terms.comp: the vertical pass of the separable Gaussian on the five
// horizontal results (docs/exactness.md §4.2: per valid (x, y), an fp64 sum, from
// 0.0 and in tap order, of f32(h[y + v][x] * g[v]), stored as f32(sum); giving
// mu_r, mu_c, s_rr, s_cc, s_rc), then libvmaf's per-pixel SSIM terms
// (§4.3-5), written as binary64 bits for the host to sum in raster order
// when it must: the ssim term f64(f64(l * c) * s), and with enable_lcs also
// l, c and s (none with P.term_writes 0, for a metric whose host sums such
// a frame from its planes instead). With P.debug_writes the
// vertical results go to `vfilt` too.
// Besides, each workgroup writes its fixed-point partial sums to `partials`
// (engine/src/vk/reduce.rs: the format, the bounds and why they let the
// host skip its sequential sum in almost every frame).

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

// From engine/src/vk/shader_consts.rs (build.rs defines the macros).
const int FRAC_BITS = VKSSIM_FRAC_BITS;
const int MAX_TERM_LOG2 = VKSSIM_MAX_TERM_LOG2;
const uint WORDS = uint(VKSSIM_WORDS_PER_GROUP);

// trunc(x * 2^FRAC_BITS) of binary64 bits, two's complement, by integer
// operations; ok = false unless |x| < 2^MAX_TERM_LOG2 (then nothing is added).
uint64_t to_fixed(uint64_t bits, inout bool ok) {
    int ex = int((bits >> 52) & 0x7FFul);
    if (ex >= 1023 + MAX_TERM_LOG2) { ok = false; return 0ul; }
    uint64_t m = bits & 0xFFFFFFFFFFFFFul;
    int e = ex - 1075;
    if (ex == 0) { e = -1074; } else { m |= 0x10000000000000ul; }
    int sh = e + FRAC_BITS;
    uint64_t mag = sh >= 0 ? (m << uint(sh)) : (sh > -64 ? (m >> uint(-sh)) : 0ul);
    return (bits >> 63) != 0ul ? (0ul - mag) : mag;
}

#if defined(SUBGROUP_REDUCE)
// Built as `terms_subgroup` for devices with subgroup arithmetic in compute
// shaders (and subgroups of at least 4 invocations, so a workgroup has at most
// 64): each subgroup adds each word exactly, modulo 2^64, by subgroupAdd of
// three uint32 pieces (glsl/include/subgroup_sum.glsl; the true sum fits in
// int64, reduce.rs); then invocation k adds word k of every subgroup. One
// barrier.
#include "subgroup_sum.glsl"

shared uint64_t red[WORDS * 64u];

void group_sums(uint64_t vals[9], uint lid) {
    for (uint k = 0u; k < WORDS; k++) {
        uint64_t sum = subgroup_sum_u64(vals[k]);
        if (subgroupElect()) { red[k * 64u + gl_SubgroupID] = sum; }
    }
    memoryBarrierShared();
    barrier();
    if (lid < WORDS) {
        uint64_t t = 0ul;
        for (uint s = 0u; s < gl_NumSubgroups; s++) { t += red[lid * 64u + s]; }
        red[lid * 64u] = t;
    }
}

// Word k of the workgroup's record, after group_sums, for invocation k.
uint64_t group_word(uint k) { return red[k * 64u]; }
#else
// Without subgroup operations: one reduction tree for all WORDS words of the record at once: word k of
// invocation lid at red[k * 256 + lid].
shared uint64_t red[WORDS * 256u];

// The workgroup's sums of every vals[k] (integer, exact, any order) into
// red[k * 256], one tree for all words.
void group_sums(uint64_t vals[9], uint lid) {
    for (uint k = 0u; k < WORDS; k++) { red[k * 256u + lid] = vals[k]; }
    memoryBarrierShared();
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) {
            for (uint k = 0u; k < WORDS; k++) {
                red[k * 256u + lid] += red[k * 256u + lid + s];
            }
        }
        memoryBarrierShared();
        barrier();
    }
}

// Word k of the workgroup's record, after group_sums, for invocation k.
uint64_t group_word(uint k) { return red[k * 256u]; }
#endif

void term(uint x, uint y, uint hw, uint n, out uint64_t b[4]);

void main() {
    uint hw = P.sw - 10u;
    uint hh = P.sh - 10u;
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint n = hw * hh;
    uint lid = gl_LocalInvocationIndex;
    uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint base = wg * WORDS;
    uint64_t vals[9] = uint64_t[9](0ul, 0ul, 0ul, 0ul, 0ul, 0ul, 0ul, 0ul, 0ul);
    if (x < hw && y < hh) {
        uint64_t b[4];
        term(x, y, hw, n, b);
        bool ok = true;
        for (int k = 0; k < 4; k++) {
            uint64_t t = to_fixed(b[k], ok);
            vals[k] = t;
            vals[4 + k] = (t >> 63) != 0ul ? (0ul - t) : t;
        }
        vals[8] = ok ? 0ul : 1ul;
    }
    // Every invocation reaches the barriers: none returned early.
    group_sums(vals, lid);
    if (lid < WORDS) { partials[base + lid] = group_word(lid); }
}

// The terms of pixel (x, y) as binary64 bits: ssim, l, c, s (written to the
// term planes: ssim always, l, c, s with enable_lcs).
// The vertical Gaussian of horizontal plane k at valid (x, y).
float vertical(uint k, uint x, uint y, uint hw) {
    uint in_plane = hw * P.sh;
    F64 sum = f64_from_f32(0.0);
    for (int v = 0; v < 11; ++v) {
        float h = hfilt[k * in_plane + (y + uint(v)) * hw + x];
        precise float p = h * gauss(v);
        sum = f64_add(sum, f64_from_f32(p));
    }
    return f32_from_f64(sum);
}

void term(uint x, uint y, uint hw, uint n, out uint64_t b[4]) {
    uint i = y * hw + x;
    float mu_r = vertical(0u, x, y, hw);
    float mu_c = vertical(1u, x, y, hw);
    float s_rr = vertical(2u, x, y, hw);
    float s_cc = vertical(3u, x, y, hw);
    float s_rc = vertical(4u, x, y, hw);
    if (P.debug_writes != 0u) {
        vfilt[i] = mu_r;
        vfilt[n + i] = mu_c;
        vfilt[2u * n + i] = s_rr;
        vfilt[3u * n + i] = s_cc;
        vfilt[4u * n + i] = s_rc;
    }
    float c1 = uintBitsToFloat(P.c1_bits);
    float c2 = uintBitsToFloat(P.c2_bits);
    float c3 = uintBitsToFloat(P.c3_bits);

    precise float mu_rr = mu_r * mu_r;
    precise float mu_cc = mu_c * mu_c;
    precise float mu_rc = mu_r * mu_c;
    precise float sr = s_rr - mu_rr;
    sr = max(0.0, sr);
    precise float sc = s_cc - mu_cc;
    sc = max(0.0, sc);
    precise float sb = s_rc - mu_rc;

    precise float srsc_in = sr * sc;
    float srsc = f32_sqrt(srsc_in);

    // l = (f64(2 * mu_r) * mu_c + C1) / f64(mu_r^2 + mu_c^2 + C1)
    F64 two = f64_from_f32(2.0);
    F64 l_num = f64_add(f64_mul(f64_mul(two, f64_from_f32(mu_r)), f64_from_f32(mu_c)),
                        f64_from_f32(c1));
    precise float l_den = (mu_rr + mu_cc) + c1;
    F64 l = f64_div(l_num, f64_from_f32(l_den));

    // c = (2 * srsc + C2) / f64(sr + sc + C2)
    F64 c_num = f64_add(f64_mul(two, f64_from_f32(srsc)), f64_from_f32(c2));
    precise float c_den = (sr + sc) + c2;
    F64 c = f64_div(c_num, f64_from_f32(c_den));

    // s = f32((sb' + C3) / (srsc + C3)), sb' = 0 where sb < 0 and srsc <= 0
    float sbp = (sb < 0.0 && srsc <= 0.0) ? 0.0 : sb;
    precise float s_num = sbp + c3;
    precise float s_den = srsc + c3;
    F64 s = f64_from_f32(f32_div(s_num, s_den));

    F64 ssim = f64_mul(f64_mul(l, c), s);
    b[0] = f64_to_bits(ssim);
    b[1] = f64_to_bits(l);
    b[2] = f64_to_bits(c);
    b[3] = f64_to_bits(s);
    if (P.term_writes == 0u) { return; }
    terms[i] = b[0];
    if (ENABLE_LCS != 0u) {
        terms[n + i] = b[1];
        terms[2u * n + i] = b[2];
        terms[3u * n + i] = b[3];
    }
}
