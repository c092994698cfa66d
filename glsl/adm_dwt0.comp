#version 450
// adm_dwt0.comp: libvmaf's integer ADM, scale 0 of the wavelet from the raw
// pictures (engine/src/feature/adm/dwt.rs, `scale0`, the CPU twin).
// Workgroup (0, i, picture) makes output row i of the four bands of the
// reference (picture 0) or the distorted picture, 256 outputs at a time. For
// output sample j, at each of the input columns mirror(2j - 1 + c), c =
// 0..3: the vertical low and high sums of the input rows mirror(2i - 1 + k),
// k = 0..3, in wrapping int32; the low sum less 46342 * 2^(bpc-1); both +
// 2^(bpc-1), >> bpc, stored as int16. Then across those four: a = LO.lo, v
// = HI.lo, h = LO.hi, d = HI.hi in int32, each (+ 32768) >> 16, stored as
// int16. Bands are written a, h, v, d, one plane each, into the picture's
// bands buffer (one int per sample). The vertical sums of a chunk's 514
// input columns (2 j0 - 1 + m, m = 0..513, for outputs j0 ..= j0 + 255) are
// formed once each, by invocations m, m - 256 and m - 512, into shared
// memory, and each output reads its four from there: every input sample is
// read from memory once per chunk.
//
// Range check (10 and 12-bit): the same workgroup scans input rows 2i and
// 2i + 1 of its picture and writes the first sample above the bit depth per
// row to row_sums[picture * src_height + row] as (value << 32) | column, or
// all ones when the row has none (as glsl/vif_stats.comp records them).
//
// When reference_ready is not 0 an earlier submission made the reference's
// bands already (a shared reference, engine/src/vk/scorer/derived.rs): the
// reference's workgroups only scan their two rows (and at 8 bits leave at
// once), each invocation the columns lid, lid + 256, ... up to its first
// sample above the bit depth.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "adm.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer BandsRef { int bands_ref[]; };
layout(std430, set = 0, binding = 3) writeonly buffer BandsDist { int bands_dist[]; };
layout(std430, set = 0, binding = 4) writeonly buffer RowSums { int64_t row_sums[]; };
layout(std430, set = 0, binding = 5) readonly buffer ReferenceReady { uint reference_ready; };

const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;

// The first column above the bit depth in input rows 2i and 2i + 1.
shared uint first[2];
// One chunk's vertical low and high sums (int16 values), per input column.
shared int chunk_lo[514];
shared int chunk_hi[514];

#include "raw_pair.glsl"

// Each of rows 2i and 2i + 1's first sample above the bit depth, from the
// invocations' first columns `mine` (all of the workgroup's invocations
// call it; `first` was set to NONE before a barrier).
void record_rows(uint i, bool ref, uint lid, uint mine[2]) {
    for (uint r = 0u; r < 2u; ++r) {
        if (mine[r] != NONE) { atomicMin(first[r], mine[r]); }
    }
    memoryBarrierShared();
    barrier();
    if (lid != 0u) { return; }
    uint pic = ref ? 0u : 1u;
    for (uint r = 0u; r < 2u; ++r) {
        uint row = 2u * i + r;
        if (row >= P.src_height) { continue; }
        int64_t rec = -1l;
        if (first[r] != NONE) {
            uint v = sample_at(ref, row * P.src_width + first[r]);
            rec = int64_t((uint64_t(v) << 32) | uint64_t(first[r]));
        }
        row_sums[pic * P.src_height + row] = rec;
    }
}

// A reference workgroup's range scan alone (see the head).
void scan_rows(uint i, bool ref, uint lid) {
    uint mine[2] = uint[2](NONE, NONE);
    for (uint r = 0u; r < 2u; ++r) {
        uint row = 2u * i + r;
        if (row >= P.src_height) { continue; }
        for (uint x = lid; x < P.src_width; x += 256u) {
            if ((sample_at(ref, row * P.src_width + x) >> BIT_DEPTH) != 0u) {
                mine[r] = x;
                break;
            }
        }
    }
    // `first` is set.
    memoryBarrierShared();
    barrier();
    record_rows(i, ref, lid, mine);
}

void main() {
    uint i = gl_WorkGroupID.y;
    bool ref = gl_WorkGroupID.z == 0u;
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (i >= P.height) { return; }
    if (lid == 0u) {
        first[0] = NONE;
        first[1] = NONE;
    }
    if (ref && reference_ready != 0u) {
        if (RANGE) { scan_rows(i, ref, lid); }
        return;
    }
    int half_range = 1 << (BIT_DEPTH - 1u);
    int offset = 46342 * half_range;
    uint rows[4];
    for (int k = 0; k < 4; ++k) { rows[k] = mirror(int(2u * i) - 1 + k, P.src_height); }
    uint n = P.width * P.height;
    uint mine[2] = uint[2](NONE, NONE);
    for (uint j0 = 0u; j0 < P.width; j0 += 256u) {
        // The chunk before is read (and, the first time, `first` is set).
        memoryBarrierShared();
        barrier();
        // Input column 2 j0 - 1 + m for m = lid, lid + 256 and (lid < 2)
        // lid + 512, in rising order.
        for (uint m = lid; m < 514u; m += 256u) {
            int at = int(2u * j0) - 1 + int(m);
            // Clamped past the row's end, where no output is kept.
            uint col = min(mirror(at, P.src_width), P.src_width - 1u);
            int sum_lo = 0;
            int sum_hi = 0;
            for (int k = 0; k < 4; ++k) {
                uint s = sample_at(ref, rows[k] * P.src_width + col);
                int p = int(s);
                sum_lo += LO[k] * p;
                sum_hi += HI[k] * p;
                // Rows 2i and 2i + 1 (k = 1, 2), each actual column once
                // (m = 1 ..= 512 of each chunk); an invocation's columns
                // rise, so its first is its smallest.
                if (RANGE && (k == 1 || k == 2) && m >= 1u && m <= 512u
                    && at < int(P.src_width) && 2u * i + uint(k - 1) < P.src_height
                    && mine[k - 1] == NONE && (s >> BIT_DEPTH) != 0u) {
                    mine[k - 1] = uint(at);
                }
            }
            chunk_lo[m] = to_i16((sum_lo - offset + half_range) >> BIT_DEPTH);
            chunk_hi[m] = to_i16((sum_hi + half_range) >> BIT_DEPTH);
        }
        memoryBarrierShared();
        barrier();
        uint j = j0 + lid;
        if (j >= P.width) { continue; }
        int a = 0;
        int v = 0;
        int h = 0;
        int d = 0;
        for (int c = 0; c < 4; ++c) {
            int lo = chunk_lo[2u * lid + uint(c)];
            int hi = chunk_hi[2u * lid + uint(c)];
            a += LO[c] * lo;
            v += HI[c] * lo;
            h += LO[c] * hi;
            d += HI[c] * hi;
        }
        uint o = i * P.width + j;
        int bands[4] = int[4](to_i16((a + 32768) >> 16), to_i16((h + 32768) >> 16),
                              to_i16((v + 32768) >> 16), to_i16((d + 32768) >> 16));
        for (uint q = 0u; q < 4u; ++q) {
            if (ref) {
                bands_ref[q * n + o] = bands[q];
            } else {
                bands_dist[q * n + o] = bands[q];
            }
        }
    }
    if (RANGE) { record_rows(i, ref, lid, mine); }
}
