#version 450
// motion_v32_blur.comp: the vertical half of libvmaf 3.2.0's motion blur,
// which blurs the difference of two consecutive reference frames
// (engine/src/feature/motion/v32.rs, the CPU twin; docs/vmaf.md).
// Invocation (xw, y) makes samples x = 2xw and 2xw + 1 (when inside the
// row) of row y: for each it sums tap * (previous - current) over rows
// y-2 ..= y+2 of column x, reflected at the top and bottom (reflect-101:
// -1 reads 1, n reads n-2), adds 2^(bpc-1) and shifts right by bpc,
// arithmetically (a floor). `previous` is the frame before's reference luma,
// which glsl/motion_v32_sad.comp left in `Kept` (two 16-bit samples a word,
// sw = ceil(width / 2) words a row); `current` is this frame's raw
// reference. Bounds: |d| < 2^bpc and the taps add up to 65536, so
// |sum| < 65536 * 2^bpc: int32 below 16 bits, int64 at 16; the result v
// has |v| <= 65535 and goes to vert[y * width + x] as an int32.
// Integers only: exact, as the CPU twin.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64, local_size_y = 4, local_size_z = 1) in;

layout(push_constant, std430) uniform Motion {
    uint width;  // luma samples per row
    uint height; // luma rows
    uint blur;   // 1: blur and sum; 0: keep the plane and check the range only
} P;

// The scorer's bit depth (`Spec::bit_depth`, constant id 0).
layout(constant_id = 0) const uint BIT_DEPTH = 8u;

layout(std430, set = 0, binding = 0) restrict readonly buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 2) restrict writeonly buffer Vert { int vert[]; };
layout(std430, set = 0, binding = 3) restrict readonly buffer Kept { uint kept[]; };

// libvmaf's taps, in 1/65536 (glsl/motion_v32_sad.comp has the same).
const int TAPS[5] = int[5](3571, 16004, 26386, 16004, 3571);

#include "raw.glsl"
#include "mirror.glsl"

// Sample x of row y of the previous frame's packed plane.
int previous_at(uint sw, uint x, uint y) {
    return int((kept[y * sw + (x >> 1)] >> ((x & 1u) * 16u)) & 0xFFFFu);
}

// Sample x of row y of this frame's raw reference.
int current_at(uint x, uint y) {
    uint i = y * P.width + x;
    return int(raw_sample(raw_ref[raw_word(i)], i));
}

void main() {
    uint xw = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint sw = (P.width + 1u) / 2u;
    if (xw >= sw || y >= P.height) { return; }
    uint count = min(2u, P.width - 2u * xw);
    for (uint h = 0u; h < count; ++h) {
        uint x = 2u * xw + h;
        int v;
        if (BIT_DEPTH < 16u) {
            int sum = 0;
            for (int k = 0; k < 5; ++k) {
                uint r = reflect101(int(y) + k - 2, P.height);
                sum += TAPS[k] * (previous_at(sw, x, r) - current_at(x, r));
            }
            v = (sum + (1 << (BIT_DEPTH - 1u))) >> BIT_DEPTH;
        } else {
            int64_t sum = 0l;
            for (int k = 0; k < 5; ++k) {
                uint r = reflect101(int(y) + k - 2, P.height);
                sum += int64_t(TAPS[k]) * int64_t(previous_at(sw, x, r) - current_at(x, r));
            }
            v = int((sum + (1l << (BIT_DEPTH - 1u))) >> BIT_DEPTH);
        }
        vert[y * P.width + x] = v;
    }
}
