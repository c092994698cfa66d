// raw_pair.glsl: one sample of either raw picture of a pair, for shaders
// that bind both as `raw_ref` and `raw_dist` (uint arrays, as the slot
// uploads them). The including shader declares BIT_DEPTH (its constant id 0)
// and both buffers first.

#ifndef VKSSIM_RAW_PAIR_GLSL
#define VKSSIM_RAW_PAIR_GLSL

#include "raw.glsl"

// The raw luma sample at sample index i of the reference (ref = true) or
// distorted picture: 1 byte per sample at 8 bits, 2 (little-endian) above.
uint sample_at(bool ref, uint i) {
    uint w = raw_word(i);
    return raw_sample(ref ? raw_ref[w] : raw_dist[w], i);
}

#endif // VKSSIM_RAW_PAIR_GLSL
