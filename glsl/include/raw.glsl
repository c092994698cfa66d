// raw.glsl: reading one sample of a raw picture as the slot uploads it (one
// byte per sample at 8 bits, two little-endian bytes above, packed into
// uints). The including shader declares BIT_DEPTH (its constant id 0) first.

#ifndef VKSSIM_RAW_GLSL
#define VKSSIM_RAW_GLSL

// The word of a raw picture that holds sample i, and the sample within it.
uint raw_word(uint i) { return BIT_DEPTH <= 8u ? i >> 2 : i >> 1; }
uint raw_sample(uint word, uint i) {
    if (BIT_DEPTH <= 8u) { return (word >> ((i & 3u) * 8u)) & 0xFFu; }
    return (word >> ((i & 1u) * 16u)) & 0xFFFFu;
}

#endif // VKSSIM_RAW_GLSL
