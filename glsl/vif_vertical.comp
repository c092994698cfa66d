#version 450
// vif_vertical.comp: libvmaf's integer VIF at scales 1 to 3 (scale 0 is
// glsl/vif_fused.comp), the vertical pass of one scale's statistics
// (engine/src/feature/vif/stats.rs, `Columns::filter_rows`, the CPU twin):
// invocation (x, y) sums down rows y-r ..= y+r (reflect-101) of the
// scale's decimated reference p and distorted q planes (one uint per
// sample), per tap: tap*p, tap*q, tap*p*p, tap*q*q, tap*p*q in uint64; each
// gets (Σ + 2^15) >> 16, fits in 32 bits and is written to
// vert[k * width * height + y * width + x], k = mu1, mu2, xx, yy, xy.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "vif.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer SrcRef { uint src_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcDist { uint src_dist[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Vert { uint vert[]; };

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= P.width || y >= P.height) { return; }
    uint s = P.scale;
    int r = int(RADIUS[s]);
    uint64_t sums[5] = uint64_t[5](0ul, 0ul, 0ul, 0ul, 0ul);
    for (int k = 0; k <= 2 * r; ++k) {
        uint i = reflect101(int(y) + k - r, P.height) * P.width + x;
        uint64_t p = uint64_t(src_ref[i]);
        uint64_t q = uint64_t(src_dist[i]);
        uint64_t tap = uint64_t(TAPS[s][k]);
        uint64_t tp = tap * p;
        uint64_t tq = tap * q;
        sums[0] += tp;
        sums[1] += tq;
        sums[2] += tp * p;
        sums[3] += tq * q;
        sums[4] += tp * q;
    }
    uint plane = P.width * P.height;
    uint at = y * P.width + x;
    for (uint k = 0u; k < 5u; ++k) {
        vert[k * plane + at] = uint((sums[k] + 32768ul) >> 16);
    }
}
