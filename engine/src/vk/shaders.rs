//! The SPIR-V that `engine/build.rs` compiled from `glsl/*.comp`, embedded in
//! the library, and the lookup of one shader by name and arithmetic variant.

/// Which implementation of the shaders' fp64 arithmetic (`glsl/include/arith.glsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArithVariant {
    /// Native `double` (needs `shaderFloat64`).
    Fp64,
    /// Software binary64 on `uint64_t` (needs only `shaderInt64`).
    SoftF64,
}

impl ArithVariant {
    /// A short name for messages and reports.
    pub fn name(self) -> &'static str {
        match self {
            ArithVariant::Fp64 => "fp64",
            ArithVariant::SoftF64 => "soft-f64",
        }
    }
}

/// One compiled compute shader.
#[derive(Debug)]
pub struct ShaderSpirv {
    /// File stem of the `glsl/*.comp` source.
    pub name: &'static str,
    /// Arithmetic variant it was compiled for.
    pub variant: ArithVariant,
    /// Workgroup size (`local_size_x/y/z`).
    pub local_size: [u32; 3],
    /// The SPIR-V words.
    pub words: &'static [u32],
}

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The shader `name` in `variant`, if it was compiled.
pub fn shader(name: &str, variant: ArithVariant) -> Option<&'static ShaderSpirv> {
    SHADERS
        .iter()
        .find(|s| s.name == name && s.variant == variant)
}

/// Whether the SOFT_F64 variant is real (not the build-time placeholder).
pub fn soft_f64_available() -> bool {
    !SOFT_F64_IS_PLACEHOLDER
}
