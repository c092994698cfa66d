#version 450
// psnr.comp: libvmaf's `psnr` sums of squared errors (docs/metrics.md), integer
// only: workgroup (0, row, plane) sums e * e over the scored columns of one
// row of one plane (luma, Cb, Cr) of the raw reference and distorted pictures
// and writes the row's sum to row_sse[plane * height[0] + row]. Integer sums
// are exact in any order: each invocation adds a strided subset of the row in
// uint64, a shared-memory tree adds the 256 partial sums.
//
// 8-bit: libvmaf sums a row in a wrapping uint32, so the row's sum is stored
// modulo 2^32 (its exact sum's low 32 bits: wrapping addition does not depend
// on the order); e = ref - dis, e * e <= 65025. 10 to 16-bit: e = |ref - dis|
// as uint32, e * e in uint32 (at most 65535^2, no overflow), summed in uint64
// (libvmaf 3.x; 2.3.1 overflows at 16 bits). The host adds the rows in uint64
// (engine/src/vk/scorer/metric/psnr.rs); the CPU twin is engine/src/cpu/psnr.rs.
//
// Range check (10 and 12-bit): the same workgroup scans its whole stored row
// of both pictures (the columns and rows outside the scored region too) and
// writes the first sample above the bit depth, per picture, after the sums:
// row_sse[3 * rows[0] + (picture * 3 + plane) * rows[0] + row] holds
// (value << 32) | column, or all ones when the row has none. The host takes
// the first in luma, Cb, Cr raster order (engine/src/vk/scorer/metric/psnr.rs),
// so that a chroma plane is checked on the device as the decimate pass
// checks luma, and readers need not read the upload memory back.
//
// The raw pictures are the slot's upload buffers: luma, then (when psnr reads
// chroma) the Cb and Cr planes as stored, one after the other. Its pipeline
// layout is its own (bindings 0, 1 and 2, read from this shader's SPIR-V by
// engine/build.rs), its push-constant range this block (`PsnrParams` in
// engine/src/vk/pipeline.rs, checked at compile time).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// Index 0: the luma plane; 1: each chroma plane (Cb, then Cr right after
// it, both stored after luma).
layout(push_constant, std430) uniform Psnr {
    uint stride[2]; // samples per stored row
    uint rows[2];   // stored rows (>= the scored height)
    uint width[2];  // scored width (libvmaf's truncated size)
    uint height[2]; // scored height
} S;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RowSse { uint64_t row_sse[]; };

shared uint64_t red[256];
// The first column above the bit depth in this row, per picture.
shared uint first[2];

const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;

#include "raw_pair.glsl"

void main() {
    uint row = gl_WorkGroupID.y;
    uint plane = gl_WorkGroupID.z;
    uint q = min(plane, 1u);
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (plane > 2u || row >= S.rows[q]) { return; }
    if (lid == 0u) {
        first[0] = NONE;
        first[1] = NONE;
    }
    memoryBarrierShared();
    barrier();
    uint width = row < S.height[q] ? S.width[q] : 0u;
    uint end = RANGE ? S.stride[q] : width;
    uint offset = plane == 0u ? 0u : S.stride[0] * S.rows[0] + (plane - 1u) * S.stride[1] * S.rows[1];
    uint start = offset + row * S.stride[q];
    uint64_t acc = 0ul;
    uint mine_ref = NONE;
    uint mine_dist = NONE;
    for (uint x = lid; x < end; x += 256u) {
        uint a = sample_at(true, start + x);
        uint b = sample_at(false, start + x);
        if (x < width) {
            uint e = a > b ? a - b : b - a;
            acc += uint64_t(e * e);
        }
        if (RANGE) {
            // Each invocation's columns rise: its first is its smallest.
            if ((a >> BIT_DEPTH) != 0u && mine_ref == NONE) { mine_ref = x; }
            if ((b >> BIT_DEPTH) != 0u && mine_dist == NONE) { mine_dist = x; }
        }
    }
    if (RANGE) {
        if (mine_ref != NONE) { atomicMin(first[0], mine_ref); }
        if (mine_dist != NONE) { atomicMin(first[1], mine_dist); }
    }
    red[lid] = acc;
    memoryBarrierShared();
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) { red[lid] += red[lid + s]; }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    if (row < S.height[q]) {
        uint64_t sum = red[0];
        if (BIT_DEPTH <= 8u) { sum &= 0xFFFFFFFFul; }
        row_sse[plane * S.height[0] + row] = sum;
    }
    if (RANGE) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint f = first[pic];
            uint64_t rec = 0xFFFFFFFFFFFFFFFFul;
            if (f != NONE) {
                rec = (uint64_t(sample_at(pic == 0u, start + f)) << 32) | uint64_t(f);
            }
            row_sse[3u * S.rows[0] + (pic * 3u + plane) * S.rows[0] + row] = rec;
        }
    }
}
