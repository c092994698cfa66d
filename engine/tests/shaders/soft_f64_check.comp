#version 450
// soft_f64_check.comp: runs every function of glsl/include/soft_f64.glsl (through
// arith.glsl, compiled with -DSOFT_F64) on a list of cases, for
// engine/tests/soft_f64_gpu.rs, which compares each result with the Rust twin
// (engine/src/softfloat.rs) bit for bit. KEEP IN SYNC with the `Op` list there.
//
// Case i is three uint64 words at 3 * i of `cases`: the operation, then a and b
// (binary64 bits; fp32 operands in the low 32 bits). Result i goes to `results[i]`
// (fp32 results in the low 32 bits).

#include "arith.glsl"

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Cases { uint64_t cases[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { uint64_t results[]; };

layout(push_constant, std430) uniform Count { uint n; } P;

uint64_t f32_result(float x) {
    return uint64_t(floatBitsToUint(x));
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= P.n) {
        return;
    }
    uint op = uint(cases[3u * i]);
    F64 a = f64_from_bits(cases[3u * i + 1u]);
    F64 b = f64_from_bits(cases[3u * i + 2u]);
    float fa = uintBitsToFloat(uint(f64_to_bits(a)));
    float fb = uintBitsToFloat(uint(f64_to_bits(b)));
    uint64_t r = 0ul;
    switch (op) {
    case 0u: r = f64_to_bits(f64_add(a, b)); break;
    case 1u: r = f64_to_bits(f64_sub(a, b)); break;
    case 2u: r = f64_to_bits(f64_mul(a, b)); break;
    case 3u: r = f64_to_bits(f64_div(a, b)); break;
    case 4u: r = f32_result(f32_from_f64(a)); break;
    case 5u: r = f64_to_bits(f64_from_f32(fa)); break;
    case 6u: r = f32_result(f32_div(fa, fb)); break;
    case 7u: r = f32_result(f32_sqrt(fa)); break;
    case 8u: r = f64_to_bits(f64_from_u32(uint(f64_to_bits(a)))); break;
    case 9u: r = f32_result(f32_from_u64_scaled(f64_to_bits(a), int(uint(f64_to_bits(b))))); break;
    case 10u: r = f64_to_bits(f64_neg(a)); break;
    case 11u: r = f32_result(f32_add(fa, fb)); break;
    case 12u: r = f32_result(f32_sub(fa, fb)); break;
    case 13u: r = f32_result(f32_mul(fa, fb)); break;
    default: r = 0xDEADDEADDEADDEADul; break;
    }
    results[i] = r;
}
