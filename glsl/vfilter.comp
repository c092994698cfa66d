#version 450
// vfilter.comp: the vertical pass of the separable Gaussian on the five
// horizontal results (exactness.md §4.2): per valid (x, y), an fp64 sum, from
// 0.0 and in tap order, of f32(h[y + v][x] * g[v]), stored as f32(sum).
// Results: mu_r, mu_c, s_rr, s_cc, s_rc.

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

void main() {
    uint hw = P.sw - 10u;
    uint hh = P.sh - 10u;
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= hw || y >= hh) { return; }
    uint in_plane = hw * P.sh;
    uint out_plane = hw * hh;
    for (uint k = 0u; k < 5u; ++k) {
        F64 sum = f64_from_f32(0.0);
        for (int v = 0; v < 11; ++v) {
            float h = hfilt[k * in_plane + (y + uint(v)) * hw + x];
            precise float p = h * gauss(v);
            sum = f64_add(sum, f64_from_f32(p));
        }
        vfilt[k * out_plane + y * hw + x] = f32_from_f64(sum);
    }
}
