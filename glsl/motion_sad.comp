#version 450
// motion_sad.comp: the horizontal half of libvmaf 2.3.1's motion blur and the
// sum of absolute differences against the previous frame's blurred plane
// (engine/src/feature/motion/{blur,score}.rs, the CPU twin). Workgroup
// (0, row, 0) takes one row: each invocation, for a strided subset of its
// columns x, sums tap * vert over columns x-2 ..= x+2 (mirrored as
// glsl/motion_blur.comp mirrors rows) in uint32, adds 2^15 and shifts right
// by 16: the blurred sample. It reads the previous frame's blurred sample at
// x from `Blurred` and writes this frame's there (the same invocation reads,
// then writes: the buffer carries the plane to the next frame, which the
// scorer submits after this one on the same queue, its passes behind a
// barrier), and adds |previous - blurred| to a uint32. libvmaf sums a row in
// a wrapping uint32: wrapping addition is exact in any order, so the
// shared-memory tree of the 256 partial sums gives the row's sum modulo 2^32,
// written to row_sad[row]; the host adds the rows in uint64
// (engine/src/vk/scorer/metric/motion.rs). The first frame's sum reads what
// the buffer held before and is not used (its motion is 0).
//
// Every binding is `restrict` (the scorer binds distinct buffers): without
// it a compiler must keep each store to Blurred ordered before the next
// loads from Vert, which may alias it.
//
// Range check (10 and 12-bit): the same workgroup scans its row of both raw
// luma planes and writes the first sample above the bit depth, per picture,
// after the sums: row_sad[height + picture * height + row] holds
// (value << 32) | column, or all ones when the row has none (as
// glsl/psnr.comp records them), so that a run of motion alone still refuses
// such samples. With P.blur 0 (motion_force_zero) the workgroup only checks
// the range: no blur, and frames of any size.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Motion {
    uint width;  // luma samples per row
    uint height; // luma rows
    uint blur;   // 1: blur and sum; 0 (motion_force_zero): range check only
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

layout(std430, set = 0, binding = 0) restrict readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) restrict readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 2) restrict readonly buffer Vert { uint vert[]; };
layout(std430, set = 0, binding = 3) restrict buffer Blurred { uint blurred[]; };
layout(std430, set = 0, binding = 4) restrict writeonly buffer RowSad { uint64_t row_sad[]; };

const uint TAPS[5] = uint[5](3571u, 16004u, 26386u, 16004u, 3571u);
const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;

shared uint red[256];
// The first column above the bit depth in this row, per picture.
shared uint first[2];

// The raw luma sample at sample index i of the reference (ref = true) or
// distorted picture: 1 byte per sample at 8 bits, 2 (little-endian) above.
uint sample_at(bool ref, uint i) {
    if (BIT_DEPTH <= 8u) {
        uint word = ref ? raw_ref[i >> 2] : raw_dist[i >> 2];
        return (word >> ((i & 3u) * 8u)) & 0xFFu;
    }
    uint word = ref ? raw_ref[i >> 1] : raw_dist[i >> 1];
    return (word >> ((i & 1u) * 16u)) & 0xFFFFu;
}

#include "mirror.glsl"

void main() {
    uint row = gl_WorkGroupID.y;
    uint lid = gl_LocalInvocationIndex;
    // Uniform per workgroup: the whole group leaves, or none of it.
    if (row >= P.height) { return; }
    if (lid == 0u) {
        first[0] = NONE;
        first[1] = NONE;
    }
    memoryBarrierShared();
    barrier();
    uint start = row * P.width;
    uint acc = 0u;
    uint mine_ref = NONE;
    uint mine_dist = NONE;
    for (uint x = lid; x < P.width; x += 256u) {
        if (P.blur != 0u) {
            uint sum = 0u;
            for (int k = 0; k < 5; ++k) {
                sum += TAPS[k] * vert[start + mirror(int(x) + k - 2, P.width)];
            }
            uint now = (sum + 32768u) >> 16;
            uint before = blurred[start + x];
            blurred[start + x] = now;
            acc += before > now ? before - now : now - before;
        }
        if (RANGE) {
            // Each invocation's columns rise: its first is its smallest.
            if ((sample_at(true, start + x) >> BIT_DEPTH) != 0u && mine_ref == NONE) { mine_ref = x; }
            if ((sample_at(false, start + x) >> BIT_DEPTH) != 0u && mine_dist == NONE) { mine_dist = x; }
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
    row_sad[row] = uint64_t(red[0]);
    if (RANGE) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint f = first[pic];
            uint64_t rec = 0xFFFFFFFFFFFFFFFFul;
            if (f != NONE) {
                rec = (uint64_t(sample_at(pic == 0u, start + f)) << 32) | uint64_t(f);
            }
            row_sad[P.height + pic * P.height + row] = rec;
        }
    }
}
