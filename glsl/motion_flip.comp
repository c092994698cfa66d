#version 450
// motion_flip.comp: flips `Parity`, the word libvmaf 2.3.1's motion keeps
// beside its two kept blurred planes (engine/src/vk/scorer/metric/motion.rs):
// its low bit q says which half glsl/motion_sad.comp reads as the previous
// frame's plane (half q) and which it writes (half 1 - q). Every run of
// motion_sad, the frame's own and one on a previous reference a pair
// carries, is followed by this pass, behind a barrier (it writes what
// motion_sad read), so consecutive frames alternate halves in submission
// order (the word's first value does not matter: a stream's first frame
// scores 0). One invocation: a pass of its own because no invocation of
// motion_sad may change the word the others read.

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

// The same binding as motion_sad's, so one layout serves both.
layout(std430, set = 0, binding = 6) buffer Parity { uint parity[]; };

void main() {
    parity[0] ^= 1u;
}
