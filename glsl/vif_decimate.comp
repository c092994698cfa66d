#version 450
// vif_decimate.comp: libvmaf's integer VIF, the step to scale P.scale (1 to
// 3) from the scale before (engine/src/feature/vif/filters.rs, `decimate`,
// the CPU twin): invocation (x, y, picture) forms output sample (x, y) of
// the reference (picture 0) or distorted plane. For each of the filter's
// columns 2x+k-r it sums tap * sample down rows 2y-r ..= 2y+r in uint32,
// adds 2^(s-1) and shifts right by s (s = 8 for 8-bit and the bit depth
// above, from the raw pictures at scale 1; 16 afterwards); then sums tap *
// that value across in uint32, adds 32768 and shifts right by 16. Borders are
// reflect-101 on both axes, so the result equals the CPU twin's vertical pass
// then horizontal pass exactly (integers only; no sum overflows: the taps
// sum to 65536 and the samples are below 2^16).
//
// Sources: the raw pictures at scale 1 (the slot's upload buffers, luma
// first), the previous scale's planes (one uint per sample) after.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "vif.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer DstRef { uint dst_ref[]; };
layout(std430, set = 0, binding = 3) writeonly buffer DstDist { uint dst_dist[]; };

uint source(bool ref, uint i) {
    if (P.scale == 1u) {
        uint w = raw_word(i);
        return raw_sample(ref ? src_ref[w] : src_dist[w], i);
    }
    return ref ? src_ref[i] : src_dist[i];
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    bool ref = gl_GlobalInvocationID.z == 0u;
    if (x >= P.width || y >= P.height || gl_GlobalInvocationID.z > 1u) { return; }
    uint s = P.scale;
    int r = int(RADIUS[s]);
    uint shift = s == 1u ? (BIT_DEPTH == 8u ? 8u : BIT_DEPTH) : 16u;
    uint sum = 0u;
    for (int kx = 0; kx <= 2 * r; ++kx) {
        uint col = reflect101(int(2u * x) + kx - r, P.src_width);
        uint down = 0u;
        for (int ky = 0; ky <= 2 * r; ++ky) {
            uint row = reflect101(int(2u * y) + ky - r, P.src_height);
            down += TAPS[s][ky] * source(ref, row * P.src_width + col);
        }
        sum += TAPS[s][kx] * ((down + (1u << (shift - 1u))) >> shift);
    }
    uint out_value = (sum + 32768u) >> 16;
    if (ref) {
        dst_ref[y * P.width + x] = out_value;
    } else {
        dst_dist[y * P.width + x] = out_value;
    }
}
