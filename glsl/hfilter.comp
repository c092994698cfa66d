#version 450
// hfilter.comp: the horizontal pass of libvmaf's separable Gaussian on r, c,
// r*r, c*c and r*c (docs/exactness.md §4.1-2). For every row and valid column:
// an fp64 sum, from 0.0 and in tap order, of f32(in[y][x + u] * g[u]),
// stored as f32(sum). The squares and the product are fp32, per pixel.
// Besides, invocation (0, 0) records the value of a sample the decimate pass
// found above the bit depth (common.glsl, `Range`).

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

void main() {
    uint hw = P.sw - 10u;
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    // The value of the first sample above the bit depth the decimate pass
    // found, for the host's error message.
    if (x == 0u && y == 0u) {
        for (uint p = 0u; p < 2u; ++p) {
            uint i = range_first[p];
            if (i != 0xFFFFFFFFu) { range_value[p] = raw_sample(p, i); }
        }
    }
    if (x >= hw || y >= P.sh) { return; }
    uint row = y * P.sw + x;
    uint dist = P.sw * P.sh;
    F64 zero = f64_from_f32(0.0);
    F64 s_r = zero, s_c = zero, s_rr = zero, s_cc = zero, s_rc = zero;
    for (int u = 0; u < 11; ++u) {
        float g = gauss(u);
        float r = dec[row + uint(u)];
        float c = dec[dist + row + uint(u)];
        precise float rr = r * r;
        precise float cc = c * c;
        precise float rc = r * c;
        precise float pr = r * g;
        precise float pc = c * g;
        precise float prr = rr * g;
        precise float pcc = cc * g;
        precise float prc = rc * g;
        s_r = f64_add(s_r, f64_from_f32(pr));
        s_c = f64_add(s_c, f64_from_f32(pc));
        s_rr = f64_add(s_rr, f64_from_f32(prr));
        s_cc = f64_add(s_cc, f64_from_f32(pcc));
        s_rc = f64_add(s_rc, f64_from_f32(prc));
    }
    uint plane = hw * P.sh;
    uint o = y * hw + x;
    hfilt[o] = f32_from_f64(s_r);
    hfilt[plane + o] = f32_from_f64(s_c);
    hfilt[2u * plane + o] = f32_from_f64(s_rr);
    hfilt[3u * plane + o] = f32_from_f64(s_cc);
    hfilt[4u * plane + o] = f32_from_f64(s_rc);
}
