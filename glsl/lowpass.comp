#version 450
// lowpass.comp: one level of float_ms_ssim's pyramid (docs/metrics.md): the
// previous level's reference and distorted fp32 planes (binding 2, reference
// at 0, distorted at sw * sh) decimated by 2 with libvmaf's 9 x 9 low-pass
// table into binding 3 (reference at 0, distorted at dw * dh), z = 0 the
// reference, z = 1 the distorted.
//
// Output (x, y) is centred on source (2x, 2y), offsets -4..4, rows outer and
// columns inner; each term f32(src * tap) is added to an fp64 accumulator from
// 0.0 in that order (the sums are not exact, so the order is libvmaf's, through
// arith.glsl on both arithmetic paths), and the result is f32(sum). Positions
// outside the plane mirror once (-1 - i, 2n - 1 - i). The CPU twin is
// engine/src/cpu/ms_ssim.rs (`lowpass_decimate`).
//
// Its pipeline layout is its own (bindings 2 and 3, two pyramid levels:
// engine/src/vk/scorer/metric/ms_ssim.rs), its push-constant range this block
// (`LowpassParams` in engine/src/vk/pipeline.rs, checked at compile time).

#extension GL_EXT_control_flow_attributes : require

#include "arith.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(push_constant, std430) uniform Lowpass {
    uint sw; // source width
    uint sh; // source height
    uint dw; // destination width, sw / 2 + (sw & 1)
    uint dh; // destination height, sh / 2 + (sh & 1)
} L;

layout(std430, set = 0, binding = 2) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Dst { float dst[]; };

// libvmaf's 2-D low-pass table as fp32 bits, rows outer (the fp32 literals of
// LOWPASS in engine/src/metric/ms_ssim.rs; a unit test in
// engine/src/vk/scorer/metric/ms_ssim.rs checks these against it).
const uint LOWPASS_BITS[81] = uint[81](
    0x3A3B2BBBu, 0xB9EBEDFAu, 0xBB08F862u, 0x3BE9B38Du, 0x3C840182u, 0x3BE9B38Du, 0xBB08F862u, 0xB9EBEDFAu, 0x3A3B2BBBu,
    0xB9EBEDFAu, 0x39945F9Eu, 0x3AAC7DA2u, 0xBB9320DAu, 0xBC263B69u, 0xBB9320DAu, 0x3AAC7DA2u, 0x39945F9Eu, 0xB9EBEDFAu,
    0xBB08F862u, 0x3AAC7DA2u, 0x3BC86057u, 0xBCAAF145u, 0xBD411F4Fu, 0xBCAAF145u, 0x3BC86057u, 0x3AAC7DA2u, 0xBB08F862u,
    0x3BE9B38Du, 0xBB9320DAu, 0xBCAAF145u, 0x3D91D4FAu, 0x3E24BF0Au, 0x3D91D4FAu, 0xBCAAF145u, 0xBB9320DAu, 0x3BE9B38Du,
    0x3C840182u, 0xBC263B69u, 0xBD411F4Fu, 0x3E24BF0Au, 0x3EBA1D54u, 0x3E24BF0Au, 0xBD411F4Fu, 0xBC263B69u, 0x3C840182u,
    0x3BE9B38Du, 0xBB9320DAu, 0xBCAAF145u, 0x3D91D4FAu, 0x3E24BF0Au, 0x3D91D4FAu, 0xBCAAF145u, 0xBB9320DAu, 0x3BE9B38Du,
    0xBB08F862u, 0x3AAC7DA2u, 0x3BC86057u, 0xBCAAF145u, 0xBD411F4Fu, 0xBCAAF145u, 0x3BC86057u, 0x3AAC7DA2u, 0xBB08F862u,
    0xB9EBEDFAu, 0x39945F9Eu, 0x3AAC7DA2u, 0xBB9320DAu, 0xBC263B69u, 0xBB9320DAu, 0x3AAC7DA2u, 0x39945F9Eu, 0xB9EBEDFAu,
    0x3A3B2BBBu, 0xB9EBEDFAu, 0xBB08F862u, 0x3BE9B38Du, 0x3C840182u, 0x3BE9B38Du, 0xBB08F862u, 0xB9EBEDFAu, 0x3A3B2BBBu);

// One reflection about each edge, clamped beyond (as the CPU twin's `mirror`;
// no `%`: GLSL leaves it undefined for negative operands).
int mirror(int i, int n) {
    if (i < 0) { i = -1 - i; }
    else if (i >= n) { i = 2 * n - 1 - i; }
    return clamp(i, 0, n - 1);
}

// The workgroup's 16 x 16 outputs read a 39 x 39 source tile from (2 x0 - 4,
// 2 y0 - 4), each sample loaded (and mirrored) once: tile column j in
// tile_even[row][j / 2] or tile_odd[row][j / 2] by its parity, so that
// neighbouring outputs (two source columns apart) read neighbouring words;
// 24 words a row, so that the rows two outputs' rows apart fall in other
// banks.
const uint TILE = 39u;
const uint STRIDE = 24u;
shared float tile_even[TILE][STRIDE];
shared float tile_odd[TILE][STRIDE];

void main() {
    uint plane = gl_GlobalInvocationID.z;
    // Uniform per workgroup.
    if (plane > 1u) { return; }
    uint base = plane * L.sw * L.sh;
    int sx0 = 2 * int(gl_WorkGroupID.x * 16u) - 4;
    int sy0 = 2 * int(gl_WorkGroupID.y * 16u) - 4;
    for (uint k = gl_LocalInvocationIndex; k < TILE * TILE; k += 256u) {
        uint i = k / TILE;
        uint j = k % TILE;
        uint row = uint(mirror(sy0 + int(i), int(L.sh)));
        uint col = uint(mirror(sx0 + int(j), int(L.sw)));
        float v = src[base + row * L.sw + col];
        if ((j & 1u) == 0u) {
            tile_even[i][j >> 1] = v;
        } else {
            tile_odd[i][j >> 1] = v;
        }
    }
    memoryBarrierShared();
    barrier();
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= L.dw || y >= L.dh) { return; }
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    F64 sum = f64_from_f32(0.0);
    [[unroll]] for (uint v = 0u; v < 9u; ++v) {
        uint i = 2u * ly + v;
        [[unroll]] for (uint u = 0u; u < 9u; ++u) {
            // Tile column 2 lx + u.
            float s = (u & 1u) == 0u ? tile_even[i][lx + (u >> 1)] : tile_odd[i][lx + (u >> 1)];
            precise float p = s * uintBitsToFloat(LOWPASS_BITS[v * 9u + u]);
            sum = f64_add(sum, f64_from_f32(p));
        }
    }
    dst[plane * L.dw * L.dh + y * L.dw + x] = f32_from_f64(sum);
}
