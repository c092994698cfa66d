#version 450
// terms.comp: libvmaf's per-pixel SSIM terms (exactness.md §4.3-5) from the
// filtered planes, written as binary64 bits for the host to sum in raster order:
// the ssim term f64(f64(l * c) * s), and with enable_lcs also l, c and s.

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

void main() {
    uint hw = P.sw - 10u;
    uint hh = P.sh - 10u;
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= hw || y >= hh) { return; }
    uint n = hw * hh;
    uint i = y * hw + x;
    float mu_r = vfilt[i];
    float mu_c = vfilt[n + i];
    float s_rr = vfilt[2u * n + i];
    float s_cc = vfilt[3u * n + i];
    float s_rc = vfilt[4u * n + i];
    float c1 = uintBitsToFloat(P.c1_bits);
    float c2 = uintBitsToFloat(P.c2_bits);
    float c3 = uintBitsToFloat(P.c3_bits);

    precise float mu_rr = mu_r * mu_r;
    precise float mu_cc = mu_c * mu_c;
    precise float mu_rc = mu_r * mu_c;
    precise float sr = s_rr - mu_rr;
    sr = max(0.0, sr);
    precise float sc = s_cc - mu_cc;
    sc = max(0.0, sc);
    precise float sb = s_rc - mu_rc;

    precise float srsc_in = sr * sc;
    float srsc = f32_sqrt(srsc_in);

    // l = (f64(2 * mu_r) * mu_c + C1) / f64(mu_r^2 + mu_c^2 + C1)
    F64 two = f64_from_f32(2.0);
    F64 l_num = f64_add(f64_mul(f64_mul(two, f64_from_f32(mu_r)), f64_from_f32(mu_c)),
                        f64_from_f32(c1));
    precise float l_den = (mu_rr + mu_cc) + c1;
    F64 l = f64_div(l_num, f64_from_f32(l_den));

    // c = (2 * srsc + C2) / f64(sr + sc + C2)
    F64 c_num = f64_add(f64_mul(two, f64_from_f32(srsc)), f64_from_f32(c2));
    precise float c_den = (sr + sc) + c2;
    F64 c = f64_div(c_num, f64_from_f32(c_den));

    // s = f32((sb' + C3) / (srsc + C3)), sb' = 0 where sb < 0 and srsc <= 0
    float sbp = (sb < 0.0 && srsc <= 0.0) ? 0.0 : sb;
    precise float s_num = sbp + c3;
    precise float s_den = srsc + c3;
    F64 s = f64_from_f32(f32_div(s_num, s_den));

    F64 ssim = f64_mul(f64_mul(l, c), s);
    terms[i] = f64_to_bits(ssim);
    if (P.enable_lcs != 0u) {
        terms[n + i] = f64_to_bits(l);
        terms[2u * n + i] = f64_to_bits(c);
        terms[3u * n + i] = f64_to_bits(s);
    }
}
