#version 450
// msb_shift.comp: MSB-aligned 16-bit samples (VK_FORMAT_R10X6 / R12X4 and the
// planes of P010-style images, copied into a slot's packed raw buffers) shifted
// down to the values libvmaf reads: v >> 6 (10-bit) or v >> 4 (12-bit), exact
// integer arithmetic. Two samples per 32-bit word: (w >> s) & mask keeps each
// half's top bits only. z = 0: reference (binding 0), z = 1: distorted
// (binding 1); a shift of 0 leaves that plane alone.
//
// Its pipeline layout is its own (bindings 0 and 1: a slot's packed planes),
// its push-constant range this block (`ShiftParams` in
// engine/src/vk/image_input.rs, checked at compile time).

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Shift {
    uint words;     // 32-bit words per plane (the packed plane rounded up to 4 bytes)
    uint shift_ref; // 0, 4 or 6
    uint shift_dist;
} S;

layout(std430, set = 0, binding = 0) buffer RawRef { uint raw_ref[]; };
layout(std430, set = 0, binding = 1) buffer RawDist { uint raw_dist[]; };

uint shifted(uint w, uint s) {
    uint half_mask = 0xFFFFu >> s;
    return (w >> s) & (half_mask | (half_mask << 16));
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint plane = gl_GlobalInvocationID.z;
    if (i >= S.words) { return; }
    if (plane == 0u) {
        if (S.shift_ref != 0u) { raw_ref[i] = shifted(raw_ref[i], S.shift_ref); }
    } else if (S.shift_dist != 0u) {
        raw_dist[i] = shifted(raw_dist[i], S.shift_dist);
    }
}
