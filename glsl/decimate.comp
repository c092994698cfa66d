#version 450
// decimate.comp: raw samples -> the fp32 planes the SSIM stage works on, for
// both reference (z = 0) and distorted (z = 1).
//
// Scale 1: each sample converted, f32(v) (8-bit) or f32(v) / 4, 16, 256 (exact).
// Scale > 1: libvmaf's box decimation (docs/exactness.md §3). Output (x, y) sums
// f32(sample * tap) over a scale x scale window around (x*scale, y*scale),
// mirrored at the edges. libvmaf adds those products in fp64, and for
// scale <= 128 that sum is exact (seed note research-2130); here each product
// becomes an exact int64 in units of 2^-52 and the integer sum is rounded once
// to fp32, which gives the same value without any fp64.
//
// Range check (10 and 12-bit): each invocation scans its own rectangle of
// source samples (below; at scale 1 its own samples) and records the raster
// index of the first sample above the bit depth with atomicMin in
// `range_first` (common.glsl); the rectangles tile the plane, so every sample
// is checked once.
//
// Scale 1 takes 2 * spw samples an invocation (`convert_samples`), laid out
// so that a subgroup's stores are consecutive: on the H200 that took
// float_ms_ssim's 4K samples pass from 87 to 60 us against one sample an
// invocation in 16 x 16 tiles (docs/vmaf-speed.md, eleventh session).

#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

// x times the sample scale of the bit depth (1, 1/4, 1/16, 1/256): exact.
float sample_value_scaled(float x) {
    precise float f = x;
    if (BIT_DEPTH == 10u) { f = f * 0.25; }
    else if (BIT_DEPTH == 12u) { f = f * 0.0625; }
    else if (BIT_DEPTH == 16u) { f = f * 0.00390625; }
    return f;
}

// libvmaf's sample value: exact in fp32.
float sample_value(uint v) {
    return sample_value_scaled(float(v));
}

// libvmaf's symmetric border: one reflection about each edge (-1 -> 0,
// n -> n - 1). Every index a checked decimation reads is within one reflection;
// anything further is clamped, as the CPU twin does. (No `%`: GLSL leaves it
// undefined for negative operands, and NVIDIA's result differs from lavapipe's.)
int mirror(int x, int n) {
    if (x < 0) { x = -1 - x; }
    else if (x >= n) { x = 2 * n - 1 - x; }
    return clamp(x, 0, n - 1);
}

// A non-negative fp32 value that is a multiple of 2^-52 as an integer count
// of 2^-52 (exact: the values here are 0 or at least 2^-22).
int64_t to_fixed52(float p) {
    uint b = floatBitsToUint(p);
    if (b == 0u) { return int64_t(0); }
    uint e = (b >> 23) & 0xFFu;
    int64_t m = int64_t((b & 0x7FFFFFu) | 0x800000u);
    // p = m * 2^(e - 150); in units of 2^-52: m << (e - 98).
    return m << int(e - 98u);
}

// One round-to-nearest-even of a non-negative count of 2^-52 to fp32.
float fixed52_to_f32(int64_t v) {
    if (v == int64_t(0)) { return 0.0; }
    uint64_t u = uint64_t(v);
    uint hi = uint(u >> 32);
    uint lo = uint(u & 0xFFFFFFFFul);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(lo);
    uint64_t m;
    if (msb <= 23) {
        m = u << (23 - msb);
    } else {
        int sh = msb - 23;
        m = u >> sh;
        uint64_t rem = u - (m << sh);
        uint64_t half_ulp = uint64_t(1) << (sh - 1);
        if (rem > half_ulp || (rem == half_ulp && (m & 1ul) != 0ul)) {
            m += 1ul;
        }
        if (m == (1ul << 24)) {
            m >>= 1;
            msb += 1;
        }
    }
    // value = m * 2^(msb - 23) * 2^-52, m in [2^23, 2^24).
    uint biased = uint(msb - 52 + 127);
    return uintBitsToFloat((biased << 23) | (uint(m) & 0x7FFFFFu));
}

// fixed52(f32(sample_value(v) * tap)) for every sample value v, built by each
// workgroup when the bit depth is at most 10 (1024 entries): the product
// depends only on v, so a table lookup replaces the conversion and the int64
// shift per sample. Deeper samples compute it per sample.
const uint LUT_SIZE = 1024u;
shared int64_t lut[LUT_SIZE];

int64_t product52(uint v) {
    precise float prod = sample_value(v) * uintBitsToFloat(P.tap_bits);
    return to_fixed52(prod);
}

// The window term of sample value v (out-of-range values, which the readers
// refuse, are computed rather than looked up).
int64_t term(uint v, bool use_lut) {
    return use_lut && (v >> BIT_DEPTH) == 0u ? lut[v] : product52(v);
}

// Invocation (x, y)'s own source rectangle: rows y*s + lo .. y*s + hi (the
// window's unmirrored rows), from row 0 for y = 0 and to the last row for the
// last y; columns likewise. Consecutive windows are s apart and s wide, so the
// rectangles tile the plane (what no window reads, past the last window on
// an even size, belongs to the last rectangle).
void check_range(uint plane, uint x, uint y) {
    if (BIT_DEPTH != 10u && BIT_DEPTH != 12u) { return; }
    int s = int(SCALE);
    int lo = -(s / 2);
    int hi = s / 2 - ((s & 1) == 0 ? 1 : 0);
    int w = int(P.width);
    int h = int(P.height);
    int r0 = max(0, int(y) * s + lo);
    int r1 = y + 1u == P.sh ? h - 1 : min(h - 1, int(y) * s + hi);
    int c0 = max(0, int(x) * s + lo);
    int c1 = x + 1u == P.sw ? w - 1 : min(w - 1, int(x) * s + hi);
    // Two samples per 32-bit word: test a word's samples at once against
    // the bits above the bit depth, then find which sample.
    uint high = 0xFFFFu & ~((1u << BIT_DEPTH) - 1u);
    high |= high << 16;
    for (int r = r0; r <= r1; ++r) {
        uint i0 = uint(r * w + c0);
        uint i1 = uint(r * w + c1);
        for (uint wi = i0 >> 1; wi <= (i1 >> 1); ++wi) {
            uint word = plane == 0u ? raw_ref[wi] : raw_dist[wi];
            if ((word & high) == 0u) { continue; }
            for (uint i = max(i0, 2u * wi); i <= min(i1, 2u * wi + 1u); ++i) {
                if ((raw_sample(plane, i) >> BIT_DEPTH) != 0u) {
                    // Raster order: the first found is the rectangle's first.
                    atomicMin(range_first[plane], i);
                    return;
                }
            }
        }
    }
}

// Power-of-two scales whose window sums of raw sample values stay below 2^24
// (8-bit up to scale 128, 10-bit up to 128, 12-bit up to 64, 16-bit up to
// 16): there every product f32(sample * tap) is exact (a power-of-two
// multiple of the sample), so libvmaf's exact sum is tap * sample scale *
// (the integer sum of the raw values), and that integer converts to fp32
// exactly; fp32 multiplies by powers of two (exact) give the value. The
// integer sum takes whole 32-bit words (4 samples at 8 bits, added as two
// 16-bit lanes; 2 samples above), the window's edges masked: no table, no
// int64.
// Which scales qualify is the host's decision (engine/src/vk/pipeline.rs,
// `Spec::new`), passed as the specialization constant INT_SUM.
#define POW2 (INT_SUM != 0u)

// The sum of the samples of word w selected by `keep` (a mask of whole
// samples).
uint word_sum(uint w, uint keep) {
    uint m = w & keep;
    if (BIT_DEPTH <= 8u) {
        uint pairs = (m & 0x00FF00FFu) + ((m >> 8) & 0x00FF00FFu);
        return (pairs & 0xFFFFu) + (pairs >> 16);
    }
    return (m & 0xFFFFu) + (m >> 16);
}

// The window sum of raw values of output (x, y) of `plane` (POW2 scales).
uint window_sum(uint plane, int cx, int cy, int lo, int hi, bool inside_x) {
    uint spw = BIT_DEPTH <= 8u ? 4u : 2u;
    uint bits = 32u / spw;
    uint sum = 0u;
    for (int dy = lo; dy <= hi; ++dy) {
        uint row = uint(mirror(cy + dy, int(P.height))) * P.width;
        if (inside_x) {
            uint i0 = row + uint(cx + lo);
            uint i1 = row + uint(cx + hi);
            uint w0 = i0 / spw;
            uint w1 = i1 / spw;
            // Samples of the first word from i0 on, of the last up to i1.
            uint first = 0xFFFFFFFFu << ((i0 - w0 * spw) * bits);
            uint last = 0xFFFFFFFFu >> ((spw - 1u - (i1 - w1 * spw)) * bits);
            for (uint wi = w0; wi <= w1; ++wi) {
                uint w = plane == 0u ? raw_ref[wi] : raw_dist[wi];
                uint keep = (wi == w0 ? first : 0xFFFFFFFFu) & (wi == w1 ? last : 0xFFFFFFFFu);
                sum += word_sum(w, keep);
            }
        } else {
            for (int dx = lo; dx <= hi; ++dx) {
                uint col = uint(mirror(cx + dx, int(P.width)));
                sum += raw_sample(plane, row + col);
            }
        }
    }
    return sum;
}

// Scale 1: each workgroup converts a tile of 32 rows of 16 * spw samples
// (spw: samples a 32-bit word of the upload holds, 4 at 8 bits, 2 above; the
// host dispatches ceil(width / spw) columns and ceil(height / 2) rows of
// invocations), 2 * spw samples an invocation, taken so that each store of
// a subgroup writes consecutive samples of one row; and checks them for
// samples above the bit depth (10 and 12-bit), recording the first.
void convert_samples(uint plane) {
    if (plane > 1u) { return; }
    uint spw = BIT_DEPTH <= 8u ? 4u : 2u;
    uint tile_w = 16u * spw;
    uint lid = gl_LocalInvocationIndex;
    uint x0 = gl_WorkGroupID.x * tile_w;
    uint y0 = gl_WorkGroupID.y * 32u;
    bool checked = BIT_DEPTH == 10u || BIT_DEPTH == 12u;
    bool found = false;
    for (uint k = 0u; k < 2u * spw; ++k) {
        uint t = k * 256u + lid;
        uint x = x0 + t % tile_w;
        uint y = y0 + t / tile_w;
        if (x >= P.width || y >= P.height) { continue; }
        uint i = y * P.width + x;
        uint v = raw_sample(plane, i);
        if (checked && !found && (v >> BIT_DEPTH) != 0u) {
            // Raster order within the invocation: the first is its least.
            atomicMin(range_first[plane], i);
            found = true;
        }
        dec[plane * P.sw * P.sh + i] = sample_value(v);
    }
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint plane = gl_GlobalInvocationID.z;
    if (SCALE == 1u) {
        convert_samples(plane);
        return;
    }
    bool use_lut = SCALE > 1u && BIT_DEPTH <= 10u && !POW2;
    if (use_lut) {
        // Every invocation reaches this barrier (no early return before it:
        // the scale-1 return above is every invocation's or none's).
        uint n = 1u << BIT_DEPTH;
        uint threads = gl_WorkGroupSize.x * gl_WorkGroupSize.y;
        for (uint v = gl_LocalInvocationIndex; v < n; v += threads) {
            lut[v] = product52(v);
        }
        barrier();
    }
    if (x >= P.sw || y >= P.sh || plane > 1u) { return; }
    check_range(plane, x, y);
    uint out_index = plane * P.sw * P.sh + y * P.sw + x;

    int s = int(SCALE);
    int lo = -(s / 2);
    int hi = s / 2 - ((s & 1) == 0 ? 1 : 0);
    int cx = int(x) * s;
    int cy = int(y) * s;
    int c0 = cx + lo;
    int c1 = cx + hi;
    bool inside_x = c0 >= 0 && c1 < int(P.width);
    if (POW2) {
        // tap * sample scale, a power of two: 2^-(2 log2(s)) * 2^-(bits - 8).
        precise float f = float(window_sum(plane, cx, cy, lo, hi, inside_x))
            * uintBitsToFloat(P.tap_bits);
        dec[out_index] = sample_value_scaled(f);
        return;
    }
    // Samples per 32-bit word, bits per sample.
    uint spw = BIT_DEPTH <= 8u ? 4u : 2u;
    uint bits = 32u / spw;
    uint mask = (1u << bits) - 1u;
    // The window's samples, added as exact int64 counts of 2^-52 (integer
    // addition: the order does not matter).
    int64_t sum = int64_t(0);
    for (int dy = lo; dy <= hi; ++dy) {
        uint row = uint(mirror(cy + dy, int(P.height))) * P.width;
        if (inside_x) {
            // A whole word at a time: no mirror, one load per `spw` samples.
            uint i = row + uint(c0);
            uint end = row + uint(c1) + 1u;
            while (i < end) {
                uint wi = i / spw;
                uint w = plane == 0u ? raw_ref[wi] : raw_dist[wi];
                uint k = i - wi * spw;
                uint stop = min(spw, k + (end - i));
                for (; k < stop; ++k) {
                    uint v = (w >> (k * bits)) & mask;
                    sum += term(v, use_lut);
                }
                i = (wi + 1u) * spw;
            }
        } else {
            for (int dx = lo; dx <= hi; ++dx) {
                uint col = uint(mirror(cx + dx, int(P.width)));
                uint v = raw_sample(plane, row + col);
                sum += term(v, use_lut);
            }
        }
    }
    dec[out_index] = fixed52_to_f32(sum);
}
