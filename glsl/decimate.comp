#version 450
// decimate.comp: raw samples -> the fp32 planes the SSIM stage works on, for
// both reference (z = 0) and distorted (z = 1).
//
// Scale 1: each sample converted, f32(v) (8-bit) or f32(v) / 4, 16, 256 (exact).
// Scale > 1: libvmaf's box decimation (exactness.md §3). Output (x, y) sums
// f32(sample * tap) over a scale x scale window around (x*scale, y*scale),
// mirrored at the edges. libvmaf adds those products in fp64, and for
// scale <= 128 that sum is exact (seed note research-2130); here each product
// becomes an exact int64 in units of 2^-52 and the integer sum is rounded once
// to fp32, which gives the same value without any fp64.

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

uint raw_sample(uint plane, uint i) {
    uint word;
    if (P.bit_depth <= 8u) {
        word = plane == 0u ? raw_ref[i >> 2] : raw_dist[i >> 2];
        return (word >> ((i & 3u) * 8u)) & 0xFFu;
    }
    word = plane == 0u ? raw_ref[i >> 1] : raw_dist[i >> 1];
    return (word >> ((i & 1u) * 16u)) & 0xFFFFu;
}

// libvmaf's sample value: exact in fp32.
float sample_value(uint v) {
    precise float f = float(v);
    if (P.bit_depth == 10u) { f = f * 0.25; }
    else if (P.bit_depth == 12u) { f = f * 0.0625; }
    else if (P.bit_depth == 16u) { f = f * 0.00390625; }
    return f;
}

// libvmaf's symmetric border: one reflection about each edge (-1 -> 0,
// n -> n - 1). Every index a checked decimation reads is within one reflection;
// anything further is clamped, as the CPU twin does. (No `%`: GLSL leaves it
// undefined for negative operands, and NVIDIA's result differs from lavapipe's.)
int mirror(int x, int n) {
    if (x < 0) { x = -1 - x; }
    else if (x >= n) { x = 2 * n - 1 - x; }
    return clamp(x, 0, n - 1);
}

// A non-negative fp32 value that is a multiple of 2^-52 as an integer count
// of 2^-52 (exact: the values here are 0 or at least 2^-22).
int64_t to_fixed52(float p) {
    uint b = floatBitsToUint(p);
    if (b == 0u) { return int64_t(0); }
    uint e = (b >> 23) & 0xFFu;
    int64_t m = int64_t((b & 0x7FFFFFu) | 0x800000u);
    // p = m * 2^(e - 150); in units of 2^-52: m << (e - 98).
    return m << int(e - 98u);
}

// One round-to-nearest-even of a non-negative count of 2^-52 to fp32.
float fixed52_to_f32(int64_t v) {
    if (v == int64_t(0)) { return 0.0; }
    uint64_t u = uint64_t(v);
    uint hi = uint(u >> 32);
    uint lo = uint(u & 0xFFFFFFFFul);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(lo);
    uint64_t m;
    if (msb <= 23) {
        m = u << (23 - msb);
    } else {
        int sh = msb - 23;
        m = u >> sh;
        uint64_t rem = u - (m << sh);
        uint64_t half_ulp = uint64_t(1) << (sh - 1);
        if (rem > half_ulp || (rem == half_ulp && (m & 1ul) != 0ul)) {
            m += 1ul;
        }
        if (m == (1ul << 24)) {
            m >>= 1;
            msb += 1;
        }
    }
    // value = m * 2^(msb - 23) * 2^-52, m in [2^23, 2^24).
    uint biased = uint(msb - 52 + 127);
    return uintBitsToFloat((biased << 23) | (uint(m) & 0x7FFFFFu));
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint plane = gl_GlobalInvocationID.z;
    if (x >= P.sw || y >= P.sh || plane > 1u) { return; }
    uint out_index = plane * P.sw * P.sh + y * P.sw + x;

    if (P.scale == 1u) {
        dec[out_index] = sample_value(raw_sample(plane, y * P.width + x));
        return;
    }

    int s = int(P.scale);
    int lo = -(s / 2);
    int hi = s / 2 - ((s & 1) == 0 ? 1 : 0);
    int cx = int(x) * s;
    int cy = int(y) * s;
    float tap = uintBitsToFloat(P.tap_bits);
    int64_t sum = int64_t(0);
    for (int dy = lo; dy <= hi; ++dy) {
        uint row = uint(mirror(cy + dy, int(P.height))) * P.width;
        for (int dx = lo; dx <= hi; ++dx) {
            uint col = uint(mirror(cx + dx, int(P.width)));
            precise float prod = sample_value(raw_sample(plane, row + col)) * tap;
            sum += to_fixed52(prod);
        }
    }
    dec[out_index] = fixed52_to_f32(sum);
}
