#version 450
// vif_fused.comp: libvmaf's integer VIF at scale 0 in one pass: the
// vertical pass of the five statistics (engine/src/feature/vif/stats.rs,
// `Columns::filter_rows`), their horizontal pass and each pixel's
// information terms (`scale_sums`, `ScaleSums::add_pixel`; vif_terms.glsl),
// with the vertical statistics kept in shared memory instead of five
// full-resolution planes.
//
// Workgroup (seg, tile) takes rows 4 * tile ..= 4 * tile + 3 (those below
// the height) and columns seg * SEGMENT ..< (seg + 1) * SEGMENT (those left
// of the width), 256 columns (a chunk) at a time. Per chunk:
// - vertical: the chunk's 256 columns and 8 more each side (reflect-101,
//   clamped past the row's end, where no output is kept), one column per
//   invocation (16 take a second): it reads the column's 20 raw samples of
//   each picture (rows 8 above to 8 below the tile's, reflect-101), sums
//   down rows y-8 ..= y+8 per tap: tap*p, tap*q, tap*p*p, tap*q*q, tap*p*q
//   (uint32 at 8 bits, where every sum fits: the taps sum to 65536, so tap *
//   p * q sums below 65536 * 255^2 < 2^32; uint64 above), the means (the
//   first two) get (Σ + 2^(s-1)) >> s and the second moments (Σ + 2^(t-1))
//   >> t, with (s, t) = (8, 0) at 8 bits and (b, 2(b - 8)) at b bits (the
//   means then stay below 65536 (Σ <= 65536 (2^b - 1)), the moments below
//   2^32), kept in shared memory: mu1 | mu2 << 16, xx, yy, xy;
// - horizontal: invocation (lane, j) takes row j of the tile, columns lane +
//   64 i of the chunk (i = 0 to 3): per statistic the sum of tap * vertical
//   statistic over columns x-8 ..= x+8 (the means in uint32: each sum stays
//   below 65536 * 65536; the moments in uint64), then the pixel's terms.
// The four int64 sums are exact in any order: each invocation's, then a
// shared-memory tree over the workgroup, written to row_sums[P.sums_at +
// 4 * (tile * segments + seg) + k] (segments = the dispatch's width in
// workgroups); the host adds them all (engine/src/vk/scorer/metric/vif.rs).
//
// Range check (10 and 12-bit): each row's invocations scan their columns of
// both raw luma planes and the workgroup writes the first sample above the
// bit depth per row and picture to row_sums[(picture * height + row) *
// segments + seg] as (value << 32) | column, or all ones when the row's
// segment has none (as glsl/psnr.comp records them).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// [[unroll]]: the column's raw samples stay in registers (constant indices).
#extension GL_EXT_control_flow_attributes : require

#include "arith.glsl"
#include "vif.glsl"

// LANES columns by ROWS rows: gl_LocalInvocationID.y is the row of the tile.
// Four rows keep shared memory within 32 KiB (25,632 bytes).
layout(local_size_x = 64, local_size_y = 4, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 5) readonly buffer Log2 { uint log2_table[]; };
layout(std430, set = 0, binding = 6) writeonly buffer RowSums { int64_t row_sums[]; };

#include "vif_terms.glsl"

const uint LANES = 64u;               // invocations per row (local_size_x)
const uint ROWS = 4u;                // rows per workgroup (local_size_y)
const uint THREADS = LANES * ROWS;   // invocations per workgroup
const uint CHUNK = 256u;             // columns per step
const uint R = 8u;                   // scale 0's filter: taps each side
const uint SPAN = CHUNK + 2u * R;    // vertical statistics per row of a chunk
const uint RAW_ROWS = ROWS + 2u * R; // raw rows a tile reads
const uint SEGMENT = VKSSIM_VIF_SEGMENT; // columns per workgroup (a multiple of CHUNK)
const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;

// One chunk of the tile's vertical statistics (4 * 272 * 16 = 17,408
// bytes): mu1 | mu2 << 16, then xx, yy, xy.
shared uint means[ROWS][SPAN];
shared uint moments[3][ROWS][SPAN];
// The workgroup's sums, added up (8,192 bytes).
shared int64_t red[4][THREADS];
// The first column above the bit depth in each row, per picture.
shared uint first[ROWS][2];

// The vertical statistics of column col, rows y0 ..< y0 + rows, into
// column k of the shared chunk.
void vertical(uint col, uint y0, uint rows, uint k) {
    uint p[RAW_ROWS];
    uint q[RAW_ROWS];
    [[unroll]] for (uint i = 0u; i < RAW_ROWS; ++i) {
        p[i] = 0u;
        q[i] = 0u;
        if (i < rows + 2u * R) {
            uint at = reflect101(int(y0 + i) - int(R), P.height) * P.width + col;
            uint w = raw_word(at);
            p[i] = raw_sample(raw_ref[w], at);
            q[i] = raw_sample(raw_dist[w], at);
        }
    }
    uint mean_shift = BIT_DEPTH == 8u ? 8u : BIT_DEPTH;
    uint moment_shift = 2u * (BIT_DEPTH - 8u);
    uint64_t mean_round = uint64_t(1u << (mean_shift - 1u));
    uint64_t moment_round = moment_shift == 0u ? 0ul : uint64_t(1u << (moment_shift - 1u));
    [[unroll]] for (uint j = 0u; j < ROWS; ++j) {
        if (j >= rows) { continue; }
        uint64_t sums[5] = uint64_t[5](0ul, 0ul, 0ul, 0ul, 0ul);
        if (BIT_DEPTH == 8u) {
            // Every sum fits in uint32 (above): the same values.
            uint narrow[5] = uint[5](0u, 0u, 0u, 0u, 0u);
            [[unroll]] for (uint t = 0u; t <= 2u * R; ++t) {
                uint pv = p[j + t];
                uint qv = q[j + t];
                uint tp = TAPS[0][t] * pv;
                uint tq = TAPS[0][t] * qv;
                narrow[0] += tp;
                narrow[1] += tq;
                narrow[2] += tp * pv;
                narrow[3] += tq * qv;
                narrow[4] += tp * qv;
            }
            for (uint m = 0u; m < 5u; ++m) { sums[m] = uint64_t(narrow[m]); }
        } else {
            [[unroll]] for (uint t = 0u; t <= 2u * R; ++t) {
                uint64_t pv = uint64_t(p[j + t]);
                uint64_t qv = uint64_t(q[j + t]);
                uint64_t tap = uint64_t(TAPS[0][t]);
                uint64_t tp = tap * pv;
                uint64_t tq = tap * qv;
                sums[0] += tp;
                sums[1] += tq;
                sums[2] += tp * pv;
                sums[3] += tq * qv;
                sums[4] += tp * qv;
            }
        }
        uint mu1 = uint((sums[0] + mean_round) >> mean_shift);
        uint mu2 = uint((sums[1] + mean_round) >> mean_shift);
        means[j][k] = mu1 | (mu2 << 16);
        for (uint m = 0u; m < 3u; ++m) {
            moments[m][j][k] = uint((sums[2u + m] + moment_round) >> moment_shift);
        }
    }
}

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint j = gl_LocalInvocationID.y;
    uint lid = gl_LocalInvocationIndex;
    uint seg = gl_WorkGroupID.x;
    uint segments = gl_NumWorkGroups.x;
    uint tile = gl_WorkGroupID.y;
    uint y0 = tile * ROWS;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (y0 >= P.height || seg * SEGMENT >= P.width) { return; }
    uint rows = min(ROWS, P.height - y0);
    uint end = min(P.width, (seg + 1u) * SEGMENT);
    if (lid < 2u * ROWS) { first[lid >> 1][lid & 1u] = NONE; }
    F64 gain_limit = f64_from_bits((uint64_t(P.gain_hi) << 32) | uint64_t(P.gain_lo));
    int64_t acc[4] = int64_t[4](0l, 0l, 0l, 0l); // num_log, den_log, num_non_log, den_non_log
    uint mine[2] = uint[2](NONE, NONE);
    for (uint c0 = seg * SEGMENT; c0 < end; c0 += CHUNK) {
        // The chunk before is read (and `first` set) before this one is written.
        memoryBarrierShared();
        barrier();
        for (uint k = lid; k < SPAN; k += THREADS) {
            uint col = min(reflect101(int(c0 + k) - int(R), P.width), P.width - 1u);
            vertical(col, y0, rows, k);
        }
        memoryBarrierShared();
        barrier();
        // Rows below the height have no outputs (uniform per row of invocations).
        if (j < rows) {
            for (uint i = 0u; i < CHUNK / LANES; ++i) {
                uint c = lane + LANES * i;
                uint x = c0 + c;
                if (x >= end) { break; }
                uint f0 = 0u;
                uint f1 = 0u;
                uint64_t f2 = 0ul;
                uint64_t f3 = 0ul;
                uint64_t f4 = 0ul;
                [[unroll]] for (uint t = 0u; t <= 2u * R; ++t) {
                    uint tap = TAPS[0][t];
                    uint m = means[j][c + t];
                    f0 += tap * (m & 0xFFFFu);
                    f1 += tap * (m >> 16);
                    f2 += uint64_t(tap) * uint64_t(moments[0][j][c + t]);
                    f3 += uint64_t(tap) * uint64_t(moments[1][j][c + t]);
                    f4 += uint64_t(tap) * uint64_t(moments[2][j][c + t]);
                }
                uint64_t f[5] = uint64_t[5](uint64_t(f0), uint64_t(f1), f2, f3, f4);
                vif_add_pixel(f, gain_limit, acc);
                if (RANGE) {
                    // Each invocation's columns rise: its first is its smallest.
                    uint at = (y0 + j) * P.width + x;
                    uint w = raw_word(at);
                    if ((raw_sample(raw_ref[w], at) >> BIT_DEPTH) != 0u && mine[0] == NONE) { mine[0] = x; }
                    if ((raw_sample(raw_dist[w], at) >> BIT_DEPTH) != 0u && mine[1] == NONE) { mine[1] = x; }
                }
            }
        }
    }
    for (uint pic = 0u; pic < 2u; ++pic) {
        if (mine[pic] != NONE) { atomicMin(first[j][pic], mine[pic]); }
    }
    for (uint k = 0u; k < 4u; ++k) { red[k][lid] = acc[k]; }
    memoryBarrierShared();
    barrier();
    for (uint h = THREADS / 2u; h > 0u; h >>= 1u) {
        if (lid < h) {
            for (uint k = 0u; k < 4u; ++k) { red[k][lid] += red[k][lid + h]; }
        }
        memoryBarrierShared();
        barrier();
    }
    if (RANGE && lane == 0u && j < rows) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint fx = first[j][pic];
            int64_t rec = -1l;
            if (fx != NONE) {
                uint at = (y0 + j) * P.width + fx;
                uint v = raw_sample(pic == 0u ? raw_ref[raw_word(at)] : raw_dist[raw_word(at)], at);
                rec = int64_t((uint64_t(v) << 32) | uint64_t(fx));
            }
            row_sums[(pic * P.height + y0 + j) * segments + seg] = rec;
        }
    }
    if (lid != 0u) { return; }
    for (uint k = 0u; k < 4u; ++k) {
        row_sums[P.sums_at + 4u * (tile * segments + seg) + k] = red[k][0];
    }
}
