#version 450
// motion_blur.comp: the vertical half of libvmaf 2.3.1's motion blur
// (engine/src/feature/motion/blur.rs, the CPU twin; docs/vmaf.md). Invocation
// (xw, y) makes samples x = 2xw and 2xw + 1 (when inside the row) of row y:
// for each it reads the reference luma samples of rows y-2 ..= y+2 in column
// x (mirrored at the top and bottom edges: -1 reads 1, -2 reads 2, n reads
// n-1, n+1 reads n-2), sums tap * sample in uint32 (at most 65536 * 65535 +
// 2^15: no overflow), adds 2^(bpc-1) and shifts right by bpc: a 16-bit
// value. The two go to vert[y * sw + xw] (sw = ceil(width / 2) words a
// row), x's in the low 16 bits, x + 1's in the high (0 past the row's end).
// Integers only: exact, as the CPU twin.
//
// Invocation (0, 0) also flips `Parity`, the word the scorer keeps beside
// the kept blurred planes (engine/src/vk/scorer/metric/motion.rs): the half
// of them glsl/motion_sad.comp writes this frame (its low bit; the other
// half holds the previous frame's plane). Every frame's passes, and those
// on a previous reference a pair carries, run this pass once before the
// sums pass, in submission order: each flips the parity the sums pass after
// it reads, so consecutive frames alternate halves (the word's first value
// does not matter: a stream's first frame scores 0).
//
// The raw reference is the slot's upload buffer: the luma plane first, packed
// rows. Its pipeline layout is its own (bindings read from this shader's
// SPIR-V by engine/build.rs), its push-constant range the `Motion` block
// (`MotionParams` in engine/src/vk/pipeline.rs, checked at compile time),
// which glsl/motion_sad.comp shares.

layout(local_size_x = 64, local_size_y = 4, local_size_z = 1) in;

layout(push_constant, std430) uniform Motion {
    uint width;  // luma samples per row
    uint height; // luma rows
    uint blur;   // 1: blur and sum; 0 (motion_force_zero): range check only
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

layout(std430, set = 0, binding = 0) readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Vert { uint vert[]; };
layout(std430, set = 0, binding = 6) buffer Parity { uint parity[]; };

// libvmaf's taps, in 1/65536 (glsl/motion_sad.comp has the same).
const uint TAPS[5] = uint[5](3571u, 16004u, 26386u, 16004u, 3571u);

// The raw reference sample at sample index i: 1 byte per sample at 8 bits,
// 2 (little-endian) above.
uint sample_at(uint i) {
    if (BIT_DEPTH <= 8u) {
        return (raw_ref[i >> 2] >> ((i & 3u) * 8u)) & 0xFFu;
    }
    return (raw_ref[i >> 1] >> ((i & 1u) * 16u)) & 0xFFFFu;
}

#include "mirror.glsl"

void main() {
    uint xw = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (xw == 0u && y == 0u) { parity[0] ^= 1u; }
    uint sw = (P.width + 1u) / 2u;
    if (xw >= sw || y >= P.height) { return; }
    uint x = 2u * xw;
    bool pair = x + 1u < P.width;
    uint sums[2] = uint[2](0u, 0u);
    for (int k = 0; k < 5; ++k) {
        uint at = mirror(int(y) + k - 2, P.height) * P.width + x;
        sums[0] += TAPS[k] * sample_at(at);
        if (pair) { sums[1] += TAPS[k] * sample_at(at + 1u); }
    }
    uint round_half = 1u << (BIT_DEPTH - 1u);
    uint lo = (sums[0] + round_half) >> BIT_DEPTH;
    uint hi = pair ? (sums[1] + round_half) >> BIT_DEPTH : 0u;
    vert[y * sw + xw] = lo | (hi << 16);
}
