// vif_terms.glsl: one pixel's information terms of libvmaf's integer VIF
// (engine/src/feature/vif/stats.rs, `ScaleSums::add_pixel`, the CPU twin),
// shared by glsl/vif_stats.comp (scales 1 to 3) and glsl/vif_fused.comp
// (scale 0). The including shader includes arith.glsl and declares the
// `log2_table` buffer (libvmaf's `Log2`, one uint per entry) first.
//
// From the pixel's horizontally filtered statistics f (mu1, mu2, xx, yy, xy,
// each a sum of tap * vertical statistic):
// - mu1^2 = (mu1 * mu1 + 2^31) >> 32 (likewise mu2^2, mu1 mu2), xx = (xx +
//   32768) >> 16 (likewise yy, xy); s1 = xx - mu1^2, s2 = max(yy - mu2^2, 0),
//   s12 = xy - mu1 mu2 as int32 (the low 32 bits of the uint64 difference);
// - below the noise variance (s1 < 131072): num_non_log += s2,
//   den_non_log += 1; else den_log += log2_32(s1 + 131072) - 2048 * 17, and
//   when s12 > 0 and s2 > 0 the one binary64 step, through arith.glsl (each
//   operation rounded once, no contraction, in either arithmetic variant):
//   g = s12 / (s1 + 6.5536e-6); sv = trunc(s2 - g * s12), 0 when not
//   positive; g = min(g, vif_enhn_gain_limit); n1 = sv + 131072 (uint32);
//   num_log += log2_64(trunc((g * g) * s1) + n1) - log2_64(n1).
// log2_32/64 shift the argument right (truncating) until its top bit is bit
// 15 and look it up in the table, plus 2048 per shift.

#ifndef VKSSIM_VIF_TERMS_GLSL
#define VKSSIM_VIF_TERMS_GLSL

const int SIGMA_NSQ = 131072;

// 2048 * log2(x) for x >= 2^16 (libvmaf's log2_32 and log2_64).
int64_t log2_q11(uint64_t x) {
    uint hi = uint(x >> 32);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
    int shift = msb - 15;
    uint entry = log2_table[uint(x >> uint(shift)) - 32768u];
    return int64_t(entry) + 2048l * int64_t(shift);
}

// Adds the terms of the pixel whose filtered statistics are f (see above)
// to acc: num_log, den_log, num_non_log, den_non_log.
void vif_add_pixel(uint64_t f[5], F64 gain_limit, inout int64_t acc[4]) {
    // 6.5536e-6 (1e-10 on the Q16 scale), as binary64 bits.
    F64 eps = f64_from_bits(0x3edb7cdfd9d7bdbbul);
    uint64_t mu1_sq = (f[0] * f[0] + (1ul << 31)) >> 32;
    uint64_t mu2_sq = (f[1] * f[1] + (1ul << 31)) >> 32;
    uint64_t mu1_mu2 = (f[0] * f[1] + (1ul << 31)) >> 32;
    uint64_t xx = (f[2] + 32768ul) >> 16;
    uint64_t yy = (f[3] + 32768ul) >> 16;
    uint64_t xy = (f[4] + 32768ul) >> 16;
    int s1 = int(uint(xx - mu1_sq));
    int s2 = max(int(uint(yy - mu2_sq)), 0);
    int s12 = int(uint(xy - mu1_mu2));
    if (s1 < SIGMA_NSQ) {
        acc[2] += int64_t(s2);
        acc[3] += 1l;
    } else {
        acc[1] += log2_q11(uint64_t(uint(s1) + uint(SIGMA_NSQ))) - 2048l * 17l;
        if (s12 > 0 && s2 > 0) {
            F64 f1 = f64_from_u32(uint(s1));
            F64 f12 = f64_from_u32(uint(s12));
            F64 gain = f64_div(f12, f64_add(f1, eps));
            F64 sv = f64_sub(f64_from_u32(uint(s2)), f64_mul(gain, f12));
            uint sv_sq = uint(f64_trunc_u64(sv));
            gain = f64_min_nonneg(gain, gain_limit);
            uint numer1 = sv_sq + uint(SIGMA_NSQ);
            uint64_t total = f64_trunc_u64(f64_mul(f64_mul(gain, gain), f1)) + uint64_t(numer1);
            acc[0] += log2_q11(total) - log2_q11(uint64_t(numer1));
        }
    }
}

#endif // VKSSIM_VIF_TERMS_GLSL
