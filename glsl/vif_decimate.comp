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
//
// Workgroup (bx, by, picture) makes a 16x16 tile of outputs: it loads the
// input rows and columns its outputs read (reflected) into shared memory
// once, forms each output row's vertical sums at each input column once,
// then each output's horizontal sum from those: the same integer operations
// per output as above, each input sample read from memory once per tile.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "vif.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer DstRef { uint dst_ref[]; };
layout(std430, set = 0, binding = 3) writeonly buffer DstDist { uint dst_dist[]; };

// The largest radius of scales 1 to 3, and the input span of a tile.
const int MAX_R = 4;
const int SPAN = 2 * 15 + 2 * MAX_R + 1;

shared uint tile[SPAN][SPAN];
shared uint down[16][SPAN];

uint source(bool ref, uint i) {
    if (SCALE == 1u) {
        uint w = raw_word(i);
        return raw_sample(ref ? src_ref[w] : src_dist[w], i);
    }
    return ref ? src_ref[i] : src_dist[i];
}

void main() {
    bool ref = gl_WorkGroupID.z == 0u;
    const uint s = SCALE;
    const int r = int(8u >> SCALE);
    int span = 2 * 15 + 2 * r + 1;
    int x0 = int(gl_WorkGroupID.x) * 16;
    int y0 = int(gl_WorkGroupID.y) * 16;
    uint lid = gl_LocalInvocationIndex;
    // The tile's inputs: rows and columns 2 * y0 - r + i, reflected (and
    // clamped, for tiles past the plane's edge, whose outputs are not kept).
    for (uint k = lid; k < uint(span * span); k += 256u) {
        int i = int(k) / span;
        int j = int(k) % span;
        uint row = min(reflect101(2 * y0 - r + i, P.src_height), P.src_height - 1u);
        uint col = min(reflect101(2 * x0 - r + j, P.src_width), P.src_width - 1u);
        tile[i][j] = source(ref, row * P.src_width + col);
    }
    memoryBarrierShared();
    barrier();
    uint shift = s == 1u ? (BIT_DEPTH == 8u ? 8u : BIT_DEPTH) : 16u;
    for (uint k = lid; k < uint(16 * span); k += 256u) {
        int ty = int(k) / span;
        int c = int(k) % span;
        uint sum = 0u;
        for (int ky = 0; ky <= 2 * r; ++ky) {
            sum += TAPS[s][ky] * tile[2 * ty + ky][c];
        }
        down[ty][c] = (sum + (1u << (shift - 1u))) >> shift;
    }
    memoryBarrierShared();
    barrier();
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint x = uint(x0) + tx;
    uint y = uint(y0) + ty;
    if (x >= P.width || y >= P.height || gl_WorkGroupID.z > 1u) { return; }
    uint sum = 0u;
    for (int kx = 0; kx <= 2 * r; ++kx) {
        sum += TAPS[s][kx] * down[ty][2 * tx + uint(kx)];
    }
    uint out_value = (sum + 32768u) >> 16;
    if (ref) {
        dst_ref[y * P.width + x] = out_value;
    } else {
        dst_dist[y * P.width + x] = out_value;
    }
}
