#version 450
// selftest.comp: the start-up check of the device's arithmetic through the
// arith.glsl interface (docs/exactness.md §5: check the device, not the spec).
// Case i reads 8 words at 8 * i of binding 0: a, b, c, x (fp32 bits), then
// d1, e1 (binary64 bits, low word first) and writes 8 results at 8 * i of
// binding 5. The host computes the same with IEEE arithmetic and compares.
// KEEP IN SYNC with engine/src/vk/selftest.rs.

#include "common.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= P.width) { return; }
    uint b = 8u * i;
    float a = uintBitsToFloat(raw_ref[b]);
    float bb = uintBitsToFloat(raw_ref[b + 1u]);
    float c = uintBitsToFloat(raw_ref[b + 2u]);
    float x = uintBitsToFloat(raw_ref[b + 3u]);
    F64 d = f64_from_bits(uint64_t(raw_ref[b + 4u]) | (uint64_t(raw_ref[b + 5u]) << 32));
    F64 e = f64_from_bits(uint64_t(raw_ref[b + 6u]) | (uint64_t(raw_ref[b + 7u]) << 32));

    precise float fma_free = a * bb + c;
    terms[b] = uint64_t(floatBitsToUint(fma_free));
    terms[b + 1u] = uint64_t(floatBitsToUint(f32_div(a, bb)));
    terms[b + 2u] = uint64_t(floatBitsToUint(f32_sqrt(x)));
    terms[b + 3u] = f64_to_bits(f64_div(d, e));
    terms[b + 4u] = f64_to_bits(f64_mul(d, e));
    terms[b + 5u] = f64_to_bits(f64_add(d, e));
    terms[b + 6u] = uint64_t(floatBitsToUint(f32_from_f64(d)));
    terms[b + 7u] = f64_to_bits(f64_from_f32(a));
}
