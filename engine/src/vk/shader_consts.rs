//! Numbers the shaders and the engine must agree on, written once: build.rs
//! includes this file and defines each as a GLSL macro (`VKSSIM_<NAME>`) when
//! it compiles `glsl/*.comp`, and the engine reads them from here.

/// Fraction bits `K` of the terms pass's fixed-point sums (`vk/reduce.rs`).
pub const FRAC_BITS: u32 = 48;
/// Terms with `|x| >= 2^MAX_TERM_LOG2` are not converted to fixed point.
pub const MAX_TERM_LOG2: u32 = 7;
/// 64-bit words per workgroup record of the terms pass: 4 sums, 4 sums of
/// magnitudes, 1 count of unconvertible terms.
pub const WORDS_PER_GROUP: u32 = 9;

/// Every constant with its macro name (read by build.rs only).
#[allow(dead_code)]
pub const MACROS: [(&str, u32); 3] = [
    ("VKSSIM_FRAC_BITS", FRAC_BITS),
    ("VKSSIM_MAX_TERM_LOG2", MAX_TERM_LOG2),
    ("VKSSIM_WORDS_PER_GROUP", WORDS_PER_GROUP),
];
