#version 450
// vif_stats.comp: libvmaf's integer VIF at scales 1 to 3 (scale 0 is
// glsl/vif_fused.comp), the horizontal pass of one scale's statistics and
// its per-pixel information terms (engine/src/feature/vif/stats.rs,
// `scale_sums` and `ScaleSums::add_pixel`, the CPU twin). Workgroup (0, row,
// 0) takes one row of the scale, 256 columns at a time (each chunk's
// statistics read once into shared memory); each invocation, for a strided
// subset of its columns x, sums tap * vert over columns x-r ..= x+r
// (reflect-101) in uint64, per statistic (glsl/vif_vertical.comp wrote
// them): mu1, mu2, xx, yy, xy, and adds the pixel's terms (vif_terms.glsl).
// The four int64 sums are exact in any order: a shared-memory tree adds the
// 256 invocations' sums, written to row_sums[P.sums_at + 4 * row + k]; the
// host adds the rows (engine/src/vk/scorer/metric/vif.rs).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "arith.glsl"
#include "vif.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 4) readonly buffer Vert { uint vert[]; };
layout(std430, set = 0, binding = 5) readonly buffer Log2 { uint log2_table[]; };
layout(std430, set = 0, binding = 6) writeonly buffer RowSums { int64_t row_sums[]; };

#include "vif_terms.glsl"

shared int64_t red[4][256];
// One chunk of the row's five vertical statistics: 256 columns and the
// filter's reach (at most 8) each side.
shared uint chunk[5][256 + 16];

void main() {
    uint row = gl_WorkGroupID.y;
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (row >= P.height) { return; }
    uint s = P.scale;
    int r = int(RADIUS[s]);
    uint plane = P.width * P.height;
    F64 gain_limit = f64_from_bits((uint64_t(P.gain_hi) << 32) | uint64_t(P.gain_lo));
    int64_t acc[4] = int64_t[4](0l, 0l, 0l, 0l); // num_log, den_log, num_non_log, den_non_log
    for (uint c0 = 0u; c0 < P.width; c0 += 256u) {
        // This chunk's columns and r more each side, reflected (clamped past
        // the row's end, where no output is kept), from each statistic.
        barrier();
        for (uint k = lid; k < 256u + 2u * uint(r); k += 256u) {
            uint col = min(reflect101(int(c0 + k) - r, P.width), P.width - 1u);
            for (uint m = 0u; m < 5u; ++m) { chunk[m][k] = vert[m * plane + row * P.width + col]; }
        }
        memoryBarrierShared();
        barrier();
        uint x = c0 + lid;
        if (x >= P.width) { continue; }
        uint64_t f[5] = uint64_t[5](0ul, 0ul, 0ul, 0ul, 0ul);
        for (int k = 0; k <= 2 * r; ++k) {
            uint64_t tap = uint64_t(TAPS[s][k]);
            for (uint m = 0u; m < 5u; ++m) {
                f[m] += tap * uint64_t(chunk[m][lid + uint(k)]);
            }
        }
        vif_add_pixel(f, gain_limit, acc);
    }
    for (uint k = 0u; k < 4u; ++k) { red[k][lid] = acc[k]; }
    memoryBarrierShared();
    barrier();
    for (uint h = 128u; h > 0u; h >>= 1u) {
        if (lid < h) {
            for (uint k = 0u; k < 4u; ++k) { red[k][lid] += red[k][lid + h]; }
        }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 4u; ++k) { row_sums[P.sums_at + 4u * row + k] = red[k][0]; }
}
