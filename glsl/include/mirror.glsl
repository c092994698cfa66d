// mirror.glsl: libvmaf's asymmetric mirror at a line's ends, shared by its
// motion blur (glsl/motion_*.comp) and ADM's wavelet (glsl/include/adm.glsl),
// and libvmaf 3.2.0's reflect-101 (glsl/motion_v32_*.comp).

#ifndef VKSSIM_MIRROR_GLSL
#define VKSSIM_MIRROR_GLSL

// Index i (from -2 to n + 1) in a line of n >= 3 samples, mirrored about
// the first sample and past the last: -1 reads 1, -2 reads 2, n reads n - 1
// and n + 1 reads n - 2.
uint mirror(int i, uint n) {
    if (i < 0) { return uint(-i); }
    if (uint(i) >= n) { return 2u * n - uint(i) - 1u; }
    return uint(i);
}

// Index i (from -2 to n + 1) in a line of n >= 3 samples, reflected about
// both end samples without repeating them (reflect-101): -1 reads 1, -2
// reads 2, n reads n - 2 and n + 1 reads n - 3.
uint reflect101(int i, uint n) {
    if (i < 0) { return uint(-i); }
    if (uint(i) >= n) { return 2u * n - uint(i) - 2u; }
    return uint(i);
}

#endif // VKSSIM_MIRROR_GLSL
