//! The SPIR-V that `engine/build.rs` compiled from `glsl/*.comp`, embedded in
//! the library: one [`ShaderName`] per shader built (asking for one that was
//! not built does not compile), each with the workgroup size and push-constant
//! size its SPIR-V declares.

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
    /// Workgroup size (`local_size_x/y/z`, from the SPIR-V).
    pub local_size: [u32; 3],
    /// Bytes of its push-constant block (0 when it has none), from the SPIR-V.
    pub push_constant_bytes: u32,
    /// The SPIR-V words.
    pub words: &'static [u32],
}

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The shader `name` in `variant`.
pub fn shader(name: ShaderName, variant: ArithVariant) -> &'static ShaderSpirv {
    let k = name.index()
        + match variant {
            ArithVariant::Fp64 => 0,
            ArithVariant::SoftF64 => 1,
        };
    let s = &SHADERS[k];
    debug_assert_eq!((s.name, s.variant), (name.as_str(), variant));
    s
}

/// Whether the SOFT_F64 variant is real (not the build-time placeholder).
pub fn soft_f64_available() -> bool {
    !SOFT_F64_IS_PLACEHOLDER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_own_shader_in_both_variants() {
        assert_eq!(SHADERS.len() % 2, 0);
        for s in SHADERS {
            let name = match s.name {
                "decimate" => ShaderName::Decimate,
                "hfilter" => ShaderName::Hfilter,
                "msb_shift" => ShaderName::MsbShift,
                "selftest" => ShaderName::Selftest,
                "terms" => ShaderName::Terms,
                "terms_subgroup" => ShaderName::TermsSubgroup,
                "lowpass" => ShaderName::Lowpass,
                "psnr" => ShaderName::Psnr,
                other => panic!("a shader this test does not know: {other}"),
            };
            let found = shader(name, s.variant);
            assert_eq!((found.name, found.variant), (s.name, s.variant));
            assert_eq!(name.as_str(), s.name);
            assert!(s.local_size.iter().all(|&n| n >= 1), "{}", s.name);
        }
    }
}
