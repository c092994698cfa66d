// arith.glsl: the one interface for every fp64-ish operation in vkssim's shaders.
//
// Every shader includes this file and does its fp64 arithmetic only through it,
// so that one source compiles in two variants (engine/build.rs builds both):
//   FP64      native `double`; F64 is double.
//   SOFT_F64  no fp64 on the device; F64 is uint64_t holding IEEE binary64 bits,
//             and glsl/include/soft_f64.glsl (another module) implements the
//             functions below with integer arithmetic that rounds like IEEE.
//
// Contract (both variants; every result rounds to nearest, ties to even):
//   F64      f64_from_f32(float)    exact widening
//   float    f32_from_f64(F64)      one RNE rounding
//   F64      f64_add(F64, F64)      IEEE add
//   F64      f64_mul(F64, F64)      IEEE multiply
//   F64      f64_div(F64, F64)      IEEE divide
//   F64      f64_sub(F64, F64)      IEEE subtract
//   F64      f64_from_u32(uint)     exact
//   float    f32_div(float, float)  correctly rounded fp32 division
//   float    f32_sqrt(float)        correctly rounded fp32 square root
//   uint64_t f64_to_bits(F64)       the binary64 bits
//   F64      f64_from_bits(uint64_t) the value of binary64 bits
// fp32 add, sub and mul stay native: Vulkan rounds them correctly. Every fp32
// expression in the shaders is `precise`, so no compiler fuses a*b+c.
//
// Exactness notes (docs/exactness.md §5): native fp32 division and
// sqrt are not IEEE on every driver (NVIDIA 580 measured), so the native
// variant computes them in fp64 and rounds once; double rounding is harmless
// for these operations because 53 >= 2*24 + 2.

#ifndef VKSSIM_ARITH_GLSL
#define VKSSIM_ARITH_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#if defined(SOFT_F64)

// soft_f64.glsl defines F64 and every function of the contract.
#if defined(SOFT_F64_PLACEHOLDER)
#include "soft_f64_placeholder.glsl"
#else
#include "soft_f64.glsl"
#endif

#elif defined(FP64)

#define F64 double

F64 f64_from_f32(float a) { precise double r = double(a); return r; }
float f32_from_f64(F64 a) { precise float r = float(a); return r; }
F64 f64_add(F64 a, F64 b) { precise double r = a + b; return r; }
F64 f64_mul(F64 a, F64 b) { precise double r = a * b; return r; }
F64 f64_div(F64 a, F64 b) { precise double r = a / b; return r; }
F64 f64_sub(F64 a, F64 b) { precise double r = a - b; return r; }
F64 f64_from_u32(uint a) { precise double r = double(a); return r; }
float f32_div(float a, float b) {
    precise double q = double(a) / double(b);
    precise float r = float(q);
    return r;
}
float f32_sqrt(float a) {
    precise double s = sqrt(double(a));
    precise float r = float(s);
    return r;
}
uint64_t f64_to_bits(F64 a) { return doubleBitsToUint64(a); }
F64 f64_from_bits(uint64_t b) { return uint64BitsToDouble(b); }

#else
#error "compile with FP64 or SOFT_F64 defined (engine/build.rs does)"
#endif

// On the bits, alike in both variants (integer operations only, exact):
// a finite value's truncation toward zero as a uint64_t, 0 for a value at or
// below zero (callers' values lie below 2^64).
uint64_t f64_trunc_u64(F64 a) {
    uint64_t b = f64_to_bits(a);
    int e = int((b >> 52) & 0x7FFul);
    if ((b >> 63) != 0ul || e < 1023) { return 0ul; }
    uint64_t m = (b & 0xFFFFFFFFFFFFFul) | 0x10000000000000ul;
    return e >= 1075 ? m << uint(e - 1075) : m >> uint(1075 - e);
}

// The smaller of two values that are positive or zero (not NaN): their bits
// order as the values do.
F64 f64_min_nonneg(F64 a, F64 b) {
    return f64_to_bits(b) < f64_to_bits(a) ? b : a;
}


// The value of an int32, exactly.
F64 f64_from_i32(int a) {
    F64 m = f64_from_u32(a < 0 ? uint(-a) : uint(a));
    return a < 0 ? f64_from_bits(f64_to_bits(m) | 0x8000000000000000ul) : m;
}

// A finite value's truncation toward zero as an int32 (callers' values lie
// in int32's range).
int f64_trunc_i32(F64 a) {
    uint64_t b = f64_to_bits(a);
    uint m = uint(f64_trunc_u64(f64_from_bits(b & 0x7FFFFFFFFFFFFFFFul)));
    return (b >> 63) != 0ul ? -int(m) : int(m);
}

// a >= b, for values that are not NaN (zeros of either sign are equal).
bool f64_ge(F64 a, F64 b) {
    uint64_t x = f64_to_bits(a);
    uint64_t y = f64_to_bits(b);
    if (((x | y) << 1) == 0ul) { return true; }
    bool a_neg = (x >> 63) != 0ul;
    bool b_neg = (y >> 63) != 0ul;
    if (a_neg != b_neg) { return b_neg; }
    return a_neg ? x <= y : x >= y;
}

// An int64 rounded to binary32 (to nearest, ties to even), as C's
// conversion: integer operations only, alike on every device.
float f32_from_i64(int64_t v) {
    if (v == 0l) { return 0.0; }
    uint sign = v < 0l ? 0x80000000u : 0u;
    uint64_t m = uint64_t(abs(v));
    uint hi = uint(m >> 32);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(uint(m));
    uint64_t q;
    if (msb <= 23) {
        q = m << uint(23 - msb);
    } else {
        uint shift = uint(msb - 23);
        q = m >> shift;
        uint64_t rest = m & ((1ul << shift) - 1ul);
        uint64_t halfway = 1ul << (shift - 1u);
        if (rest > halfway || (rest == halfway && (q & 1ul) != 0ul)) { q += 1ul; }
        if (q == (1ul << 24)) { q >>= 1; msb += 1; }
    }
    uint bits = sign | (uint(msb + 127) << 23) | (uint(q) & 0x7FFFFFu);
    return uintBitsToFloat(bits);
}

#endif // VKSSIM_ARITH_GLSL
