#version 450
// motion_v32_sad.comp: the horizontal half of libvmaf 3.2.0's motion blur of
// the frame difference and its sum of absolute values
// (engine/src/feature/motion/v32.rs, the CPU twin). Invocation (xw, row)
// takes samples x = 2xw and 2xw + 1 (when inside the row): for each it sums
// tap * vert over columns x-2 ..= x+2 (reflect-101, as
// glsl/motion_v32_blur.comp reflects rows) in int64 (|vert| <= 65535, so
// |sum| < 2^32), adds 2^15 and shifts right by 16 arithmetically, and adds
// the result's absolute value to the row's sum. libvmaf sums a row in a
// wrapping uint32, exact in any order: each workgroup (a 512-column chunk of
// one row) adds its invocations' values in a shared-memory tree, modulo
// 2^32, and writes the chunk's sum to row_sad[row * chunks + chunk]
// (chunks: gl_NumWorkGroups.x); the host adds a row's chunks modulo 2^32
// and the rows in uint64 (engine/src/vk/scorer/metric/motion.rs). The first
// frame's sum reads what `Kept` held before and is not used (its motion is
// 0).
//
// Each invocation also writes this frame's reference samples x and x + 1 to
// `Kept` (two 16-bit samples a word, sw = ceil(width / 2) words a row, 0
// past the row's end): the next frame's motion_v32_blur reads them as its
// previous frame (submitted after this one on the same queue, its passes
// behind a barrier). This frame's motion_v32_blur read `Kept` before this
// pass (the recorder puts a barrier between them). With P.blur 0 (a pair
// that carries its previous reference, run on that reference first) the
// invocations only keep the samples and check their range.
//
// Range check (10 and 12-bit), as glsl/motion_sad.comp records it: the
// workgroup writes the first sample above the bit depth in its chunk, per
// picture, after the sums: row_sad[(1 + picture) * P.height * chunks + row
// * chunks + chunk] holds (value << 32) | column, or all ones when the
// chunk has none.
//
// Built as `motion_v32_sad_subgroup` (SUBGROUP_REDUCE) for devices with
// subgroup arithmetic in compute shaders and subgroups of at least 4
// invocations: each subgroup adds its values with subgroupAdd (uint32,
// wrapping: the same sum modulo 2^32), and after one barrier invocation 0
// adds the subgroups' sums (at most 64), instead of the tree's eight
// barriers.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#if defined(SUBGROUP_REDUCE)
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#endif

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Motion {
    uint width;  // luma samples per row
    uint height; // luma rows
    uint blur;   // 1: blur and sum; 0: keep the plane and check the range only
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

layout(std430, set = 0, binding = 0) restrict readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) restrict readonly buffer RawDist { uint raw_dist[]; };
layout(std430, set = 0, binding = 2) restrict readonly buffer Vert { int vert[]; };
layout(std430, set = 0, binding = 3) restrict writeonly buffer Kept { uint kept[]; };
layout(std430, set = 0, binding = 4) restrict writeonly buffer RowSad { uint64_t row_sad[]; };

const int TAPS[5] = int[5](3571, 16004, 26386, 16004, 3571);
const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;

#if defined(SUBGROUP_REDUCE)
// Each subgroup's sum (at most 64 subgroups).
shared uint red[64];
#else
shared uint red[256];
#endif
// The first column above the bit depth in this chunk, per picture.
shared uint first[2];

#include "raw_pair.glsl"
#include "mirror.glsl"

void main() {
    uint chunk = gl_WorkGroupID.x;
    uint chunks = gl_NumWorkGroups.x;
    uint row = gl_WorkGroupID.y;
    uint lid = gl_LocalInvocationIndex;
    uint sw = (P.width + 1u) / 2u;
    uint xw = chunk * 256u + lid;
    if (RANGE && lid == 0u) {
        first[0] = NONE;
        first[1] = NONE;
    }
    if (RANGE) {
        memoryBarrierShared();
        barrier();
    }
    uint start = row * P.width;
    uint total = 0u;
    if (xw < sw) {
        uint x0 = 2u * xw;
        uint count = min(2u, P.width - x0);
        uint pair = 0u;
        for (uint h = 0u; h < count; ++h) {
            uint x = x0 + h;
            pair |= sample_at(true, start + x) << (16u * h);
            if (P.blur != 0u) {
                int64_t sum = 0l;
                for (int k = 0; k < 5; ++k) {
                    sum += int64_t(TAPS[k]) * int64_t(vert[start + reflect101(int(x) + k - 2, P.width)]);
                }
                int64_t v = (sum + 32768l) >> 16;
                total += uint(v < 0l ? -v : v);
            }
            if (RANGE) {
                if ((sample_at(true, start + x) >> BIT_DEPTH) != 0u) { atomicMin(first[0], x); }
                if ((sample_at(false, start + x) >> BIT_DEPTH) != 0u) { atomicMin(first[1], x); }
            }
        }
        kept[row * sw + xw] = pair;
    }
#if defined(SUBGROUP_REDUCE)
    uint part = subgroupAdd(total);
    if (subgroupElect()) { red[gl_SubgroupID] = part; }
    memoryBarrierShared();
    barrier();
    if (lid != 0u) { return; }
    uint sum = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) { sum += red[s]; }
#else
    red[lid] = total;
    memoryBarrierShared();
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) { red[lid] += red[lid + s]; }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    uint sum = red[0];
#endif
    uint at = row * chunks + chunk;
    row_sad[at] = uint64_t(sum);
    if (RANGE) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint f = first[pic];
            uint64_t rec = 0xFFFFFFFFFFFFFFFFul;
            if (f != NONE) {
                rec = (uint64_t(sample_at(pic == 0u, start + f)) << 32) | uint64_t(f);
            }
            row_sad[(1u + pic) * P.height * chunks + at] = rec;
        }
    }
}
