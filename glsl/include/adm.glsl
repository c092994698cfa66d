// adm.glsl: what the passes of libvmaf's integer ADM share (glsl/adm_dwt0.comp,
// adm_dwt.comp, adm_decouple.comp, adm_rows.comp; the CPU twin is
// engine/src/feature/adm/): their push-constant block, the bit depth, the
// wavelet's taps, its asymmetric border mirror (mirror.glsl) and int16
// stores.

#ifndef VKSSIM_ADM_GLSL
#define VKSSIM_ADM_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// One dispatch's scale (`AdmParams` in engine/src/vk/pipeline.rs, checked at
// compile time by build.rs; the host computes every constant from the CPU
// twin's, engine/src/feature/adm/device.rs).
layout(push_constant, std430) uniform Adm {
    uint width;            // this scale's bands: samples per row
    uint height;           // and rows
    uint src_width;        // the wavelet's input (the picture, or the scale
    uint src_height;       // before's approximation band)
    uint scale;            // 0 to 3
    uint rows_at;          // adm_rows: where this scale's row sums start (int64s)
    uint egl_lo;           // adm_enhn_gain_limit's binary64 bits, low word
    uint egl_hi;           // and high word
    uint fixed_hv;         // the fixed-point factor of the h and v bands
    uint fixed_d;          // and of the d band
    uint win_top;          // the active window: first row,
    uint win_bottom;       // one past its last row,
    uint win_left;         // first column,
    uint win_right;        // one past its last column
    uint num_shift_hv;     // the numerator's per-pixel cube shift, h and v
    uint num_shift_d;      // and d
    uint den_square_shift; // the denominator's per-pixel square shift
    uint den_cube_shift;   // and cube shift (scales 1 to 3)
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

// The Daubechies-2 low-pass and high-pass taps.
const int LO[4] = int[4](15826, 27411, 7345, -4240);
const int HI[4] = int[4](-4240, -7345, 27411, -15826);

#include "mirror.glsl"

// A value stored as int16 (C's wrapping conversion).
int to_i16(int v) { return (v << 16) >> 16; }

// (v + 2^(shift-1)) >> shift, or v when shift is 0.
int64_t round_shift(int64_t v, uint shift) {
    return shift == 0u ? v : (v + (1l << (shift - 1u))) >> shift;
}
uint64_t round_shift_u(uint64_t v, uint shift) {
    return shift == 0u ? v : (v + (1ul << (shift - 1u))) >> shift;
}

#endif // VKSSIM_ADM_GLSL
