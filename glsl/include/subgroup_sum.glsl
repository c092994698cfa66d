// subgroup_sum.glsl: a subgroup's sum of one 64-bit integer per invocation,
// exact modulo 2^64, without 64-bit subgroup arithmetic (which would need
// another device feature): subgroupAdd of three uint32 pieces of at most 22
// bits, lo = v & 0x3FFFFF, mid = (v >> 22) & 0x3FFFFF, hi = v >> 44 (20
// bits). A subgroup has at most 128 invocations, so a piece's sum is below
// 128 * 2^22 = 2^29 and cannot wrap; lo + (mid << 22) + (hi << 44) in
// uint64 is then the subgroup's sum modulo 2^64: the same wrapping sum as
// int64 or uint64 additions in any order, negative values included (read
// back as int64). For the `*_subgroup` builds (engine/build.rs); the
// including shader enables
// GL_KHR_shader_subgroup_arithmetic and GL_EXT_shader_explicit_arithmetic_
// types_int64 first.

#ifndef VKSSIM_SUBGROUP_SUM_GLSL
#define VKSSIM_SUBGROUP_SUM_GLSL

// The subgroup's sum of v modulo 2^64, in every invocation (call it in
// uniform control flow).
uint64_t subgroup_sum_u64(uint64_t v) {
    uint lo = subgroupAdd(uint(v & 0x3FFFFFul));
    uint mid = subgroupAdd(uint((v >> 22) & 0x3FFFFFul));
    uint hi = subgroupAdd(uint(v >> 44));
    return uint64_t(lo) + (uint64_t(mid) << 22) + (uint64_t(hi) << 44);
}

#endif // VKSSIM_SUBGROUP_SUM_GLSL
