#version 450
// adm_dwt.comp: libvmaf's integer ADM, scale P.scale (1 to 3) of the wavelet
// from the scale before's approximation band (engine/src/feature/adm/dwt.rs,
// `scale123`, the CPU twin). Workgroup (0, i, picture) makes output row i of
// the four bands of the reference (picture 0) or the distorted picture; its
// invocations stride along the row. For output sample j, at each of the
// input columns mirror(2j - 1 + c), c = 0..3: the vertical low and high sums
// of input rows mirror(2i - 1 + k) in int64, (+ add) >> shift, stored as
// int32; then across those four in int64, (+ add) >> shift, stored as int32
// (the roundings of each scale: V_* and H_*). Bands are written a, h, v, d.
// When reference_ready is not 0 an earlier submission made the reference's
// bands already (a shared reference, engine/src/vk/scorer/derived.rs): the
// reference's workgroups leave at once.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#include "adm.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer PrevRef { int prev_ref[]; };
layout(std430, set = 0, binding = 1) readonly buffer PrevDist { int prev_dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer BandsRef { int bands_ref[]; };
layout(std430, set = 0, binding = 3) writeonly buffer BandsDist { int bands_dist[]; };
layout(std430, set = 0, binding = 4) readonly buffer ReferenceReady { uint reference_ready; };

// The vertical and horizontal (add, shift) of scales 1, 2 and 3 (s = scale
// - 1): vertical (0, 0), (32768, 16), (32768, 16); horizontal (16384, 15),
// (32768, 16), (16384, 15). Written as selects, not constant arrays: an
// array indexed by a push constant went to local memory on NVIDIA's
// compiler (the pipeline statistics, VKSSIM_PIPELINE_STATISTICS).
int64_t v_add(uint s) { return s == 0u ? 0l : 32768l; }
uint v_shift(uint s) { return s == 0u ? 0u : 16u; }
int64_t h_add(uint s) { return s == 1u ? 32768l : 16384l; }
uint h_shift(uint s) { return s == 1u ? 16u : 15u; }

void main() {
    uint i = gl_WorkGroupID.y;
    bool ref = gl_WorkGroupID.z == 0u;
    if (i >= P.height || P.scale < 1u || P.scale > 3u || (ref && reference_ready != 0u)) {
        return;
    }
    uint s = P.scale - 1u;
    uint rows[4];
    [[unroll]] for (int k = 0; k < 4; ++k) { rows[k] = mirror(int(2u * i) - 1 + k, P.src_height); }
    uint n = P.width * P.height;
    for (uint j = gl_LocalInvocationIndex; j < P.width; j += 256u) {
        int64_t lo[4];
        int64_t hi[4];
        [[unroll]] for (int c = 0; c < 4; ++c) {
            uint col = mirror(int(2u * j) - 1 + c, P.src_width);
            int64_t sum_lo = 0l;
            int64_t sum_hi = 0l;
            [[unroll]] for (int k = 0; k < 4; ++k) {
                uint at = rows[k] * P.src_width + col;
                int64_t p = int64_t(ref ? prev_ref[at] : prev_dist[at]);
                sum_lo += int64_t(LO[k]) * p;
                sum_hi += int64_t(HI[k]) * p;
            }
            lo[c] = int64_t(int((sum_lo + v_add(s)) >> v_shift(s)));
            hi[c] = int64_t(int((sum_hi + v_add(s)) >> v_shift(s)));
        }
        int64_t sums[4] = int64_t[4](0l, 0l, 0l, 0l); // a, h, v, d
        [[unroll]] for (int c = 0; c < 4; ++c) {
            sums[0] += int64_t(LO[c]) * lo[c];
            sums[2] += int64_t(HI[c]) * lo[c];
            sums[1] += int64_t(LO[c]) * hi[c];
            sums[3] += int64_t(HI[c]) * hi[c];
        }
        uint o = i * P.width + j;
        [[unroll]] for (uint q = 0u; q < 4u; ++q) {
            int value = int((sums[q] + h_add(s)) >> h_shift(s));
            if (ref) {
                bands_ref[q * n + o] = value;
            } else {
                bands_dist[q * n + o] = value;
            }
        }
    }
}
