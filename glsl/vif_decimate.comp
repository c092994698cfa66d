#version 450
// vif_decimate.comp: libvmaf's integer VIF, the step to scale P.scale (1 to
// 3) from the scale before (engine/src/feature/vif/filters.rs, `decimate`,
// the CPU twin): output sample (x, y) of the reference and of the distorted
// plane. For each of the filter's columns 2x+k-r it sums tap * sample down
// rows 2y-r ..= 2y+r in uint32, adds 2^(s-1) and shifts right by s (s = 8
// for 8-bit and the bit depth above, from the raw pictures at scale 1; 16
// afterwards); then sums tap * that value across in uint32, adds 32768 and
// shifts right by 16. Borders are reflect-101 on both axes, so the result
// equals the CPU twin's vertical pass then horizontal pass exactly (integers
// only; no sum overflows: the taps sum to 65536 and the samples are below
// 2^16).
//
// Sources: the raw pictures at scale 1 (the slot's upload buffers, luma
// first), the previous scale's planes (one uint per sample) after.
//
// Workgroup (bx, by) makes a tile of TW x TH outputs of both pictures, from
// input columns 2 * TW * bx - r + c (c below COLS = 2 TW - 1 + 2r <= 256)
// and rows 2 * TH * by - r + i (i below ROWS = 2 TH - 1 + 2r), reflected
// (and clamped, for tiles past the plane's edge, whose outputs are not
// kept). Invocation c reads its column down the tile once (each sample
// read from memory once per tile) and keeps the TH vertical sums in
// registers, then stores them to shared memory; after one barrier each
// invocation forms TH / 2 outputs' horizontal sums from those. The scale
// (constant id 1) fixes the radius, so the loops over output rows and taps
// unroll and their taps are constants; the loop over input rows stays a
// loop (measured faster, below).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#include "vif.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer DstRef { uint dst_ref[]; };
layout(std430, set = 0, binding = 3) writeonly buffer DstDist { uint dst_dist[]; };

// The tile (engine/src/vk/scorer/metric/vif.rs dispatches one workgroup per
// tile: DECIMATE_TILE).
const int TW = 124;
const int TH = 8;
const int R = int(8u >> SCALE);
const int COLS = 2 * TW - 1 + 2 * R;
const int ROWS = 2 * TH - 1 + 2 * R;

// Vertical sums: picture, output row of the tile, input column.
shared uint down[2][TH][256];

uint source(bool ref, uint at) {
    if (SCALE == 1u) {
        uint w = raw_word(at);
        return raw_sample(ref ? src_ref[w] : src_dist[w], at);
    }
    return ref ? src_ref[at] : src_dist[at];
}

void main() {
    int x0 = int(gl_WorkGroupID.x) * TW;
    int y0 = int(gl_WorkGroupID.y) * TH;
    uint c = gl_LocalInvocationIndex;
    uint shift = SCALE == 1u ? (BIT_DEPTH == 8u ? 8u : BIT_DEPTH) : 16u;
    if (c < uint(COLS)) {
        uint col = min(reflect101(2 * x0 - R + int(c), P.src_width), P.src_width - 1u);
        uint acc[2][TH];
        [[unroll]] for (int t = 0; t < TH; ++t) {
            acc[0][t] = 0u;
            acc[1][t] = 0u;
        }
        // Input row i reaches output row t with tap i - 2t. The rows' loop
        // is kept a loop: unrolled, as it was before, scale 1 took
        // 42.3 to 43.2 us at 4K against 32.5 to 33.7 (H200, each pass
        // alone), although it holds 77 registers against 67.
        [[dont_unroll]] for (int i = 0; i < ROWS; ++i) {
            uint row = min(reflect101(2 * y0 - R + i, P.src_height), P.src_height - 1u);
            uint at = row * P.src_width + col;
            uint p = source(true, at);
            uint q = source(false, at);
            [[unroll]] for (int t = 0; t < TH; ++t) {
                int k = i - 2 * t;
                if (k < 0 || k > 2 * R) { continue; }
                uint tap = TAPS[SCALE][k];
                acc[0][t] += tap * p;
                acc[1][t] += tap * q;
            }
        }
        [[unroll]] for (int t = 0; t < TH; ++t) {
            down[0][t][c] = (acc[0][t] + (1u << (shift - 1u))) >> shift;
            down[1][t][c] = (acc[1][t] + (1u << (shift - 1u))) >> shift;
        }
    }
    memoryBarrierShared();
    barrier();
    // Output (tx, t): tx = c mod 128 (below TW), t = c / 128 + 2j.
    uint tx = c & 127u;
    uint x = uint(x0) + tx;
    if (tx >= uint(TW) || x >= P.width) { return; }
    [[unroll]] for (int j = 0; j < TH / 2; ++j) {
        uint t = (c >> 7) + 2u * uint(j);
        uint y = uint(y0) + t;
        if (y >= P.height) { break; }
        uint sum0 = 0u;
        uint sum1 = 0u;
        [[unroll]] for (int kx = 0; kx <= 2 * R; ++kx) {
            uint tap = TAPS[SCALE][kx];
            sum0 += tap * down[0][t][2u * tx + uint(kx)];
            sum1 += tap * down[1][t][2u * tx + uint(kx)];
        }
        dst_ref[y * P.width + x] = (sum0 + 32768u) >> 16;
        dst_dist[y * P.width + x] = (sum1 + 32768u) >> 16;
    }
}
