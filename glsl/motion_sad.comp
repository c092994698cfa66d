#version 450
// motion_sad.comp: libvmaf 2.3.1's motion blur, both halves, and the sum of
// absolute differences against the previous frame's blurred plane
// (engine/src/feature/motion/{blur,score}.rs, the CPU twin; docs/vmaf.md),
// in one pass. Workgroup (chunk, band) takes a tile of ROWS rows (from
// y0 = band * ROWS) by 512 columns (from c0 = 512 * chunk):
// - the vertical blur of the reference luma at each of the tile's columns
//   and the two either side (c0 - 2 ..= c0 + 513, each at its mirrored
//   column: -1 reads 1, -2 reads 2, n reads n - 1, n + 1 reads n - 2), for
//   each of its rows: tap * sample over rows y-2 ..= y+2 (mirrored alike)
//   summed in uint32 (at most 65536 * 65535 + 2^15: no overflow), plus
//   2^(bpc-1), shifted right by bpc: a 16-bit value (the taps add to
//   65536), kept in shared memory two columns a word (each column's ROWS +
//   4 samples read once);
// - invocation lid then makes samples x = c0 + 2 lid and x + 1 (when inside
//   the row) of each row: tap * vertical over columns x-2 ..= x+2 (three
//   shared words), summed in uint32, plus 2^15, shifted right by 16: the
//   blurred sample. Integers only: exact, as the CPU twin.
// The blurred planes hold two 16-bit samples a word, sw = ceil(width / 2)
// words a row (x in the low half of word x / 2, the high half 0 past the
// row's end). `Blurred` and `Previous` are both bound to the buffer the
// scorer keeps for the whole stream: two such planes. The low bit q of
// `Parity` word 0 says which: the pass takes |previous - blurred| against
// plane q of `Previous`, which the frame before wrote, and writes this
// frame's pair to plane 1 - q of `Blurred`, for the next frame. The two
// halves never overlap, so no invocation reads what another writes.
// (Reading and writing one plane in place in one pass took 400 us per 4K
// frame on the H200, against 56 for the write alone and 66 for the read
// alone.) The last workgroup to finish flips q for the next frame: word 1
// counts the workgroups done (each adds 1 once all its invocations are
// past their read of q, behind the workgroup's barrier), and the one that
// brings it to the dispatch's count sets it back to 0 and flips word 0.
// No workgroup reads q after that (all have finished), and the next
// frame's pass runs behind a barrier. (Until issue 28's eighth session a
// pass of its own, motion_flip, flipped the word after this one.) The word
// count starts at 0 (the plan zeroes the buffer); q's first value does not
// matter (a stream's first frame scores 0).
//
// libvmaf sums a row in a wrapping uint32: wrapping addition is exact in any
// order, so each workgroup adds its invocations' differences per row
// (shared-memory atomics, modulo 2^32) and writes row y's chunk sum to
// row_sad[y * chunks + chunk] (chunks: gl_NumWorkGroups.x); the host adds a
// row's chunks modulo 2^32 and the rows in uint64
// (engine/src/vk/scorer/metric/motion.rs). The first frame's sum reads what
// the buffer held before and is not used (its motion is 0). Built as
// `motion_sad_subgroup` (SUBGROUP_REDUCE) for devices with subgroup
// arithmetic in compute shaders: each subgroup adds a row's differences with
// subgroupAdd (uint32, wrapping: the same sum modulo 2^32) and one
// invocation adds that to the row's shared sum, instead of every invocation.
//
// Range check (10 and 12-bit): each invocation checks its samples of both
// raw luma planes in each row; the workgroup writes the first above the bit
// depth in its chunk of a row, per picture, after the sums:
// row_sad[(1 + picture) * P.height * chunks + y * chunks + chunk] holds
// (value << 32) | column, or all ones when the chunk has none (as
// glsl/psnr.comp records them), so that a run of motion alone still refuses
// such samples. With P.blur 0 (motion_force_zero) the invocations only check
// the range: no blur, and frames of any size.
//
// Its pipeline layout is its own (bindings read from this shader's SPIR-V by
// engine/build.rs), its push-constant range the `Motion` block
// (`MotionParams` in engine/src/vk/pipeline.rs, checked at compile time).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
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
layout(std430, set = 0, binding = 3) restrict writeonly buffer Blurred { uint blurred[]; };
layout(std430, set = 0, binding = 4) restrict writeonly buffer RowSad { uint64_t row_sad[]; };
layout(std430, set = 0, binding = 5) restrict readonly buffer Previous { uint previous[]; };
layout(std430, set = 0, binding = 6) coherent buffer Parity { uint parity[]; };

// libvmaf's taps, in 1/65536.
const uint TAPS[5] = uint[5](3571u, 16004u, 26386u, 16004u, 3571u);
const uint NONE = 0xFFFFFFFFu;
const bool RANGE = BIT_DEPTH == 10u || BIT_DEPTH == 12u;
// Rows a workgroup makes (engine/src/vk/scorer/metric/motion.rs's
// `MOTION_ROWS` dispatches one workgroup per ROWS rows).
const uint ROWS = 4u;
// Words of vertical blur a tile keeps per row: its 256 (512 columns) and
// one each side (two columns each side).
const uint SPAN = 258u;

// The vertical blur of each of the tile's rows, two columns a word: word s
// holds columns c0 - 2 + 2s (low 16 bits) and c0 - 1 + 2s (high).
shared uint vertical[ROWS][SPAN];
// Each row's sum of the workgroup's differences (modulo 2^32).
shared uint row_total[ROWS];
// The first column above the bit depth in each row of the chunk, per
// picture.
shared uint first[2][ROWS];

#include "raw_pair.glsl"
#include "mirror.glsl"

// Word `slot` of `vertical` in each of the tile's rows from y0: the
// vertical blur of its two columns (each at its mirrored column; columns
// past width + 1, never read, as 0), from each column's ROWS + 4 samples
// (rows y0 - 2 ..= y0 + ROWS + 1, mirrored; rows past height + 1, which
// only rows past the frame's end would read, clamped there) read once.
void blur_pair(uint slot, uint c0, uint y0) {
    uint round_half = 1u << (BIT_DEPTH - 1u);
    uint sums[2][ROWS];
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
        int c = int(c0 + 2u * slot + h) - 2;
        bool inside = c <= int(P.width) + 1;
        uint col = inside ? mirror(c, P.width) : 0u;
        uint s[ROWS + 4u];
        [[unroll]] for (uint k = 0u; k < ROWS + 4u; ++k) {
            int y = min(int(y0 + k) - 2, int(P.height) + 1);
            s[k] = inside ? sample_at(true, mirror(y, P.height) * P.width + col) : 0u;
        }
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            uint sum = 0u;
            [[unroll]] for (uint k = 0u; k < 5u; ++k) { sum += TAPS[k] * s[r + k]; }
            sums[h][r] = (sum + round_half) >> BIT_DEPTH;
        }
    }
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) { vertical[r][slot] = sums[0][r] | (sums[1][r] << 16); }
}

void main() {
    uint chunk = gl_WorkGroupID.x;
    uint chunks = gl_NumWorkGroups.x;
    uint y0 = gl_WorkGroupID.y * ROWS;
    uint lid = gl_LocalInvocationIndex;
    uint sw = (P.width + 1u) / 2u;
    uint c0 = chunk * 512u;
    bool blur = P.blur != 0u;
    if (lid < ROWS) {
        row_total[lid] = 0u;
        first[0][lid] = NONE;
        first[1][lid] = NONE;
    }
    if (blur) {
        // Words lid and (lid < 2) lid + 256: consecutive columns across the
        // workgroup.
        for (uint slot = lid; slot < SPAN; slot += 256u) { blur_pair(slot, c0, y0); }
    }
    memoryBarrierShared();
    barrier();
    uint xw = chunk * 256u + lid;
    uint x0 = 2u * xw;
    uint count = xw < sw ? min(2u, P.width - x0) : 0u;
    uint plane = sw * P.height;
    uint q = blur ? parity[0] & 1u : 0u;
    // The previous frame's words of this invocation's column pair, every
    // row's loads issued together.
    uint before[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        bool mine = blur && y0 + r < P.height && count > 0u;
        before[r] = mine ? previous[q * plane + (y0 + r) * sw + xw] : 0u;
    }
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        uint y = y0 + r;
        uint diff = 0u;
        if (y < P.height && count > 0u) {
            if (blur) {
                // Columns x0 - 2 ..= x0 + 3: words lid, lid + 1 and lid + 2.
                uint v[6];
                [[unroll]] for (uint j = 0u; j < 3u; ++j) {
                    uint word = vertical[r][lid + j];
                    v[2u * j] = word & 0xFFFFu;
                    v[2u * j + 1u] = word >> 16;
                }
                uint now_pair = 0u;
                [[unroll]] for (uint h = 0u; h < 2u; ++h) {
                    uint sum = 0u;
                    [[unroll]] for (uint k = 0u; k < 5u; ++k) { sum += TAPS[k] * v[h + k]; }
                    uint now = h < count ? (sum + 32768u) >> 16 : 0u;
                    uint was = h < count ? (before[r] >> (16u * h)) & 0xFFFFu : 0u;
                    now_pair |= now << (16u * h);
                    diff += was > now ? was - now : now - was;
                }
                blurred[(1u - q) * plane + y * sw + xw] = now_pair;
            }
            if (RANGE) {
                for (uint h = 0u; h < count; ++h) {
                    uint x = x0 + h;
                    uint i = y * P.width + x;
                    if ((sample_at(true, i) >> BIT_DEPTH) != 0u) { atomicMin(first[0][r], x); }
                    if ((sample_at(false, i) >> BIT_DEPTH) != 0u) { atomicMin(first[1][r], x); }
                }
            }
        }
#if defined(SUBGROUP_REDUCE)
        uint part = subgroupAdd(diff);
        if (subgroupElect() && part != 0u) { atomicAdd(row_total[r], part); }
#else
        if (diff != 0u) { atomicAdd(row_total[r], diff); }
#endif
    }
    memoryBarrierShared();
    barrier();
    // Every invocation of the workgroup has read q (above the barrier).
    if (lid == 0u) {
        memoryBarrierBuffer();
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
        if (atomicAdd(parity[1], 1u) == groups - 1u) {
            atomicExchange(parity[1], 0u);
            atomicXor(parity[0], 1u);
        }
    }
    uint y = y0 + lid;
    if (lid >= ROWS || y >= P.height) { return; }
    uint at = y * chunks + chunk;
    row_sad[at] = uint64_t(row_total[lid]);
    if (RANGE) {
        for (uint pic = 0u; pic < 2u; ++pic) {
            uint f = first[pic][lid];
            uint64_t rec = 0xFFFFFFFFFFFFFFFFul;
            if (f != NONE) {
                rec = (uint64_t(sample_at(pic == 0u, y * P.width + f)) << 32) | uint64_t(f);
            }
            row_sad[(1u + pic) * P.height * chunks + at] = rec;
        }
    }
}
