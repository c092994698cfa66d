// common.glsl: what every vkssim pass shares: the push constants, the buffer
// bindings and the Gaussian taps.
//
// The push constant block below is `Params` in engine/src/vk/pipeline.rs,
// field for field (std430, all 32-bit): build.rs checks the Rust struct's size
// and offsets against this block's SPIR-V at compile time. Each pass's layout
// has only the bindings below that it accesses (build.rs reads them from its
// SPIR-V: `ShaderName::bindings`, `binding::<pass>::<BLOCK>`).

#ifndef VKSSIM_COMMON_GLSL
#define VKSSIM_COMMON_GLSL

#include "arith.glsl"

layout(push_constant, std430) uniform Params {
    uint width;       // source luma width (samples); self-test: number of cases
    uint height;      // source luma height
    uint bit_depth;   // 8, 10, 12 or 16
    uint scale;       // decimation factor, 1..128
    uint sw;          // decimated width
    uint sh;          // decimated height
    uint tap_bits;    // fp32 bits of f32(1.0f / (scale * scale))
    uint c1_bits;     // fp32 bits of C1
    uint c2_bits;     // fp32 bits of C2
    uint c3_bits;     // fp32 bits of C3
    uint enable_lcs;  // 1: also write the l, c and s terms
    uint debug_writes; // 1: also write the planes only tests read (vfilt)
    uint term_writes; // 1: write the per-pixel terms (the host's fallback sums them)
} P;

// The scorer's bit depth, scale and enable_lcs as specialization constants
// (`Spec` in engine/src/vk/pipeline.rs; build.rs checks its fields against
// these constant ids at compile time):
// fixed per pipeline, so the driver's compiler unrolls the decimation window
// and drops the branches of other bit depths. The push constants keep the
// same values (P.bit_depth, P.scale, P.enable_lcs) for the self-test and
// msb_shift, which are not specialized.
layout(constant_id = 0) const uint BIT_DEPTH = 8u;
layout(constant_id = 1) const uint SCALE = 1u;
layout(constant_id = 2) const uint ENABLE_LCS = 0u;
// 1 when the decimate pass may sum raw values as integers (glsl/decimate.comp).
layout(constant_id = 3) const uint INT_SUM = 0u;

// Raw samples as uploaded: 1 byte per sample at 8 bits, 2 (little-endian) above.
layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer RawDist { uint raw_dist[]; };
// The two (decimated) planes, fp32: reference at 0, distorted at sw * sh.
layout(std430, set = 0, binding = 2) buffer Dec { float dec[]; };
// Horizontal Gaussian of r, c, r*r, c*c, r*c: 5 planes of (sw - 10) x sh.
layout(std430, set = 0, binding = 3) buffer HFilt { float hfilt[]; };
// Vertical Gaussian of those: mu_r, mu_c, s_rr, s_cc, s_rc, 5 planes of
// (sw - 10) x (sh - 10), computed by the terms pass and written here only
// with P.debug_writes (for the pass-by-pass tests).
layout(std430, set = 0, binding = 4) buffer VFilt { float vfilt[]; };
// Per-pixel terms as binary64 bits: ssim, then (enable_lcs) l, c, s; each a
// plane of (sw - 10) x (sh - 10) in raster order, in device memory. The
// self-test writes its results here too.
layout(std430, set = 0, binding = 5) buffer Terms { uint64_t terms[]; };
// The terms pass's per-workgroup fixed-point partial sums
// (engine/src/vk/reduce.rs), in host-visible memory.
layout(std430, set = 0, binding = 6) buffer Partials { uint64_t partials[]; };
// Samples above the bit depth (10 and 12-bit): per plane (reference, distorted)
// the raster index of the first such sample (0xFFFFFFFF: none; the host resets
// it), found by the decimate pass, and its value, recorded by the hfilter pass.
// Host-visible.
layout(std430, set = 0, binding = 7) buffer Range {
    uint range_first[2];
    uint range_value[2];
};

// The raw sample at raster index i of plane 0 (reference) or 1 (distorted):
// 1 byte per sample at 8 bits, 2 (little-endian) above.
uint raw_sample(uint plane, uint i) {
    uint word;
    if (BIT_DEPTH <= 8u) {
        word = plane == 0u ? raw_ref[i >> 2] : raw_dist[i >> 2];
        return (word >> ((i & 3u) * 8u)) & 0xFFu;
    }
    word = plane == 0u ? raw_ref[i >> 1] : raw_dist[i >> 1];
    return (word >> ((i & 1u) * 16u)) & 0xFFFFu;
}

// The Gaussian taps of libvmaf's float_ssim as fp32 bits (the fp32 literals
// 0.001028 0.007599 0.036001 0.109361 0.213006 0.266012, mirrored).
const uint GAUSS_BITS[11] = uint[11](
    0x3A86BDF5u, 0x3BF90108u, 0x3D1375C9u, 0x3DDFF8A9u, 0x3E5A1E3Fu, 0x3E8832BAu,
    0x3E5A1E3Fu, 0x3DDFF8A9u, 0x3D1375C9u, 0x3BF90108u, 0x3A86BDF5u);

float gauss(int u) { return uintBitsToFloat(GAUSS_BITS[u]); }

#endif // VKSSIM_COMMON_GLSL
