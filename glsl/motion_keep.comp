#version 450
// motion_keep.comp: copies the blurred plane the previous frame's
// glsl/motion_sad.comp left in `Blurred` (the buffer the scorer keeps for
// the whole stream) into this frame's `Previous`, which motion_sad then reads
// while it writes this frame's plane into `Blurred`. Invocation (xw, y)
// copies word y * sw + xw (two 16-bit samples, sw = ceil(width / 2) words a
// row, as glsl/motion_blur.comp packs them). It runs beside
// glsl/motion_blur.comp (they share no buffer), before motion_sad.

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Motion {
    uint width;  // luma samples per row
    uint height; // luma rows
    uint blur;   // 1: blur and sum; 0 (motion_force_zero): range check only
} P;

layout(std430, set = 0, binding = 3) restrict readonly buffer Blurred { uint blurred[]; };
layout(std430, set = 0, binding = 5) restrict writeonly buffer Previous { uint previous[]; };

void main() {
    uint xw = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint sw = (P.width + 1u) / 2u;
    if (xw >= sw || y >= P.height) { return; }
    uint i = y * sw + xw;
    previous[i] = blurred[i];
}
