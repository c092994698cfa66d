#version 450
// adm_decouple.comp: libvmaf's integer ADM, one scale's decoupling and
// contrast sensitivity weighting (engine/src/feature/adm/decouple.rs and
// csf.rs, the CPU twin). Invocation (x, y) takes band sample p = y * width +
// x of the reference's (o) and the distorted picture's (t) h, v and d bands:
// - the angle test of the (h, v) vectors: the int64 dot product and squared
//   magnitudes each rounded to binary32 (f32_from_i64), widened and scaled
//   by 2^-12; passes when dp >= 0 and dp * dp >= (cos²(1°) * |o|²) * |t|²,
//   each product one binary64 rounding through arith.glsl;
// - per band, k = t / o in Q15 from the reciprocal 2^30 / |o| (scales 1 to
//   3: |o| >= 32768 rounded to a 15-bit mantissa), clamped to [0, 32768]
//   (32768 for o = 0); rst = (k * o + 16384) >> 15 (scale 0: as int16);
//   where the test passed and k * o != 0, rst * adm_enhn_gain_limit in
//   binary64, the smaller (k * o > 0) or larger of it and t, truncated;
// - the impairment a = t - rst (scale 0: as int16), weighted: csf and its
//   flattened |csf| / 30, and the threshold's own term |csf| / 15, in each
//   scale's fixed point.
// Written per sample: the restored h, v, d, then flat summed over the bands,
// then the own terms summed over the bands (five planes of int32; the sums
// fit: scale 0's terms are int16 values, scales 1 to 3's below 2^28).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "arith.glsl"
#include "adm.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer BandsRef { int bands_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer BandsDist { int bands_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Decoupled { int decoupled[]; };

// -2^31 (libvmaf's `1u << 31` held in an int32).
const int64_t NEG_HALF_Q32 = -2147483648l;

// The sign of m times 2^30 / |m| (truncated), for m != 0.
int64_t reciprocal(int m) {
    int64_t r = int64_t((1 << 30) / (m < 0 ? -m : m));
    return m < 0 ? -r : r;
}

// k = t / o in Q15, clamped to [0, 32768].
int64_t ratio_q15(int o, int t, bool scale0) {
    if (o == 0) { return 32768l; }
    int64_t k;
    if (scale0) {
        k = (reciprocal(o) * int64_t(t) + 16384l) >> 15;
    } else {
        uint magnitude = o < 0 ? uint(-o) : uint(o);
        uint shift = magnitude >= 32768u ? uint(findMSB(magnitude) - 14) : 0u;
        uint mantissa = shift > 0u ? (magnitude + (1u << (shift - 1u))) >> shift : magnitude;
        int64_t sign = o < 0 ? -1l : 1l;
        k = (reciprocal(int(mantissa)) * int64_t(t) * sign + (1l << (14u + shift))) >> (15u + shift);
    }
    return clamp(k, 0l, 32768l);
}

// An int64 as libvmaf's angle test reads it: rounded to binary32, / 4096.
F64 as_double(int64_t v) {
    return f64_mul(f64_from_f32(f32_from_i64(v)), f64_from_bits(0x3F30000000000000ul));
}

bool angle_flag(int64_t o0, int64_t o1, int64_t t0, int64_t t1) {
    int64_t dot = o0 * t0 + o1 * t1;
    if (dot < 0l) { return false; }
    F64 dp = as_double(dot);
    F64 om = as_double(o0 * o0 + o1 * o1);
    F64 tm = as_double(t0 * t0 + t1 * t1);
    // cos²(1°) as libvmaf's binary32 constant.
    F64 cos_sq = f64_from_f32(uintBitsToFloat(0x3F7FEC0Au));
    return f64_ge(f64_mul(dp, dp), f64_mul(f64_mul(cos_sq, om), tm));
}

int restore(int o, int t, bool flag, bool scale0, F64 egl) {
    int64_t ko = ratio_q15(o, t, scale0) * int64_t(o);
    int rst = int((ko + 16384l) >> 15);
    if (scale0) { rst = to_i16(rst); }
    if (flag && ko != 0l) {
        F64 gained = f64_mul(f64_from_i32(rst), egl);
        bool at_least_t = f64_ge(gained, f64_from_i32(t));
        if (ko > 0l) {
            rst = at_least_t ? t : f64_trunc_i32(gained);
        } else {
            rst = at_least_t ? f64_trunc_i32(gained) : t;
        }
    }
    return rst;
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= P.width || y >= P.height) { return; }
    uint n = P.width * P.height;
    uint p = y * P.width + x;
    bool scale0 = P.scale == 0u;
    F64 egl = f64_from_bits((uint64_t(P.egl_hi) << 32) | uint64_t(P.egl_lo));
    int o[3];
    int t[3];
    for (uint b = 0u; b < 3u; ++b) {
        o[b] = bands_ref[(b + 1u) * n + p];
        t[b] = bands_dist[(b + 1u) * n + p];
    }
    bool flag = angle_flag(int64_t(o[0]), int64_t(o[1]), int64_t(t[0]), int64_t(t[1]));
    int flat_sum = 0;
    int centre_sum = 0;
    for (uint b = 0u; b < 3u; ++b) {
        int rst = restore(o[b], t[b], flag, scale0, egl);
        int a = t[b] - rst;
        uint fixed_factor = b == 2u ? P.fixed_d : P.fixed_hv;
        int csf;
        int flattened;
        int centre;
        if (scale0) {
            a = to_i16(a);
            int add = b == 2u ? 65535 : 16384;
            uint shift = b == 2u ? 17u : 15u;
            csf = to_i16((int(fixed_factor) * a + add) >> shift);
            int magnitude = csf < 0 ? -csf : csf;
            flattened = to_i16((4369 * magnitude + 2048) >> 12);
            centre = to_i16(int((8738l * int64_t(magnitude) + 2048l) >> 12));
        } else {
            csf = int((int64_t(fixed_factor) * int64_t(a) + (1l << 27)) >> 28);
            int64_t magnitude = abs(int64_t(csf));
            flattened = int((143165577l * magnitude + NEG_HALF_Q32) >> 32);
            centre = int((286331153l * magnitude + NEG_HALF_Q32) >> 32);
        }
        decoupled[b * n + p] = rst;
        flat_sum += flattened;
        centre_sum += centre;
    }
    decoupled[3u * n + p] = flat_sum;
    decoupled[4u * n + p] = centre_sum;
}
