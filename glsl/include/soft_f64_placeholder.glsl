// soft_f64_placeholder.glsl: stands in for glsl/include/soft_f64.glsl until that
// file (the real software binary64 arithmetic, owned by another module) exists.
// It only lets the SOFT_F64 variant compile: every function returns a wrong
// value on purpose. engine/build.rs marks a build that used it
// (SOFT_F64_IS_PLACEHOLDER), and the engine refuses --no-fp64 then.

#define F64 uint64_t

F64 f64_from_f32(float a) { return uint64_t(floatBitsToUint(a)); }
float f32_from_f64(F64 a) { return uintBitsToFloat(uint(a)); }
F64 f64_add(F64 a, F64 b) { return a ^ b; }
F64 f64_mul(F64 a, F64 b) { return a ^ b; }
F64 f64_div(F64 a, F64 b) { return a ^ b; }
F64 f64_sub(F64 a, F64 b) { return a ^ b; }
F64 f64_from_u32(uint v) { return uint64_t(v); }
float f32_div(float a, float b) { return a; }
float f32_sqrt(float a) { return a; }
uint64_t f64_to_bits(F64 a) { return a; }
F64 f64_from_bits(uint64_t b) { return b; }
