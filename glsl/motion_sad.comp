#version 450
// motion_sad.comp: the horizontal half of libvmaf 2.3.1's motion blur and the
// sum of absolute differences against the previous frame's blurred plane
// (engine/src/feature/motion/{blur,score}.rs, the CPU twin). Invocation
// (xw, row) takes samples x = 2xw and 2xw + 1 (when inside the row): for
// each it sums tap * vert over columns x-2 ..= x+2 (mirrored as
// glsl/motion_blur.comp mirrors rows) in uint32, adds 2^15 and shifts right
// by 16: the blurred sample. Planes hold two 16-bit samples a word, sw =
// ceil(width / 2) words a row (x in the low half of word x / 2, the high
// half 0 past the row's end), as motion_blur writes `Vert`. `Blurred` and
// `Previous` are both bound to the buffer the scorer keeps for the whole
// stream: two such planes, ping-pong. `Parity` (its low bit p, which
// glsl/motion_blur.comp flipped just before this pass) says which: the pass
// writes the pair to plane p of `Blurred`, for the next frame, and takes
// |previous - blurred| against plane 1 - p of `Previous`, which the frame
// before wrote (the next frame, submitted after this one on the same queue,
// finds this one's there with the parity flipped, its passes behind a
// barrier). The two halves never overlap, so no invocation reads what
// another writes. Reading and writing one plane in place in the same pass
// took 400 us per 4K frame on the H200, against 56 for the write alone and
// 66 for the read alone: hence two planes (an earlier pass copied the kept
// plane out to a slot buffer instead). libvmaf
// sums a row in a wrapping uint32: wrapping addition is exact in any order,
// so each workgroup (a 512-column chunk of one row) adds its invocations'
// differences in a shared-memory tree, modulo 2^32, and writes the chunk's
// sum to row_sad[row * chunks + chunk] (chunks: gl_NumWorkGroups.x); the
// host adds a row's chunks modulo 2^32 and the rows in uint64
// (engine/src/vk/scorer/metric/motion.rs). The first frame's sum reads what
// the buffer held before and is not used (its motion is 0). Built as
// `motion_sad_subgroup` (SUBGROUP_REDUCE) for devices with subgroup
// arithmetic in compute shaders and subgroups of at least 4 invocations:
// each subgroup adds its differences with subgroupAdd (uint32, wrapping:
// the same sum modulo 2^32), and after one barrier invocation 0 adds the
// subgroups' sums (at most 64), instead of the tree's eight barriers.
//
// Range check (10 and 12-bit): each invocation checks its samples of both
// raw luma planes; the workgroup writes the first above the bit depth in its
// chunk, per picture, after the sums: row_sad[(1 + picture) * P.height *
// chunks + row * chunks + chunk] holds (value << 32) | column, or all
// ones when the chunk has none (as glsl/psnr.comp records them), so that a
// run of motion alone still refuses such samples. With P.blur 0
// (motion_force_zero) the invocations only check the range: no blur, and
// frames of any size.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#if defined(SUBGROUP_REDUCE)
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#endif

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
layout(std430, set = 0, binding = 3) restrict writeonly buffer Blurred { uint blurred[]; };
layout(std430, set = 0, binding = 4) restrict writeonly buffer RowSad { uint64_t row_sad[]; };
layout(std430, set = 0, binding = 5) restrict readonly buffer Previous { uint previous[]; };
layout(std430, set = 0, binding = 6) restrict readonly buffer Parity { uint parity[]; };

const uint TAPS[5] = uint[5](3571u, 16004u, 26386u, 16004u, 3571u);
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

// Sample x of the packed vertical blur's row that starts at word start.
uint vert_at(uint start, uint x) {
    return (vert[start + (x >> 1)] >> ((x & 1u) * 16u)) & 0xFFFFu;
}

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
    uint start_w = row * sw;
    uint diff = 0u;
    if (xw < sw) {
        uint x0 = 2u * xw;
        uint count = min(2u, P.width - x0);
        if (P.blur != 0u) {
            // Plane p (written) and 1 - p (read) of the kept buffer.
            uint plane = sw * P.height;
            uint p = parity[0] & 1u;
            uint before = previous[(1u - p) * plane + start_w + xw];
            uint now_pair = 0u;
            for (uint h = 0u; h < count; ++h) {
                uint x = x0 + h;
                uint sum = 0u;
                for (int k = 0; k < 5; ++k) {
                    sum += TAPS[k] * vert_at(start_w, mirror(int(x) + k - 2, P.width));
                }
                uint now = (sum + 32768u) >> 16;
                uint was = (before >> (16u * h)) & 0xFFFFu;
                now_pair |= now << (16u * h);
                diff += was > now ? was - now : now - was;
            }
            blurred[p * plane + start_w + xw] = now_pair;
        }
        if (RANGE) {
            for (uint h = 0u; h < count; ++h) {
                uint x = x0 + h;
                if ((sample_at(true, start + x) >> BIT_DEPTH) != 0u) { atomicMin(first[0], x); }
                if ((sample_at(false, start + x) >> BIT_DEPTH) != 0u) { atomicMin(first[1], x); }
            }
        }
    }
#if defined(SUBGROUP_REDUCE)
    uint part = subgroupAdd(diff);
    if (subgroupElect()) { red[gl_SubgroupID] = part; }
    memoryBarrierShared();
    barrier();
    if (lid != 0u) { return; }
    uint total = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) { total += red[s]; }
#else
    red[lid] = diff;
    memoryBarrierShared();
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) { red[lid] += red[lid + s]; }
        memoryBarrierShared();
        barrier();
    }
    if (lid != 0u) { return; }
    uint total = red[0];
#endif
    uint at = row * chunks + chunk;
    row_sad[at] = uint64_t(total);
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
