//! The SPIR-V that `engine/build.rs` compiled from `glsl/*.comp`, embedded in
//! the library, and the shader table: one [`ShaderName`] per shader built
//! (asking for one that was not built does not compile), each with the
//! workgroup size, push-constant size and bindings (number, read or written)
//! its SPIR-V declares ([`ShaderName::bindings`]), and [`binding`]: each
//! shader's binding numbers by block name. Every pipeline's layout is made
//! from its shader's entry ([`super::pipeline`]).

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

/// How a shader uses a binding ([`ShaderName::bindings`], read from its
/// SPIR-V by build.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Only read.
    Read,
    /// Only written.
    Write,
    /// Read and written (or atomics).
    ReadWrite,
}

impl Access {
    /// Whether the shader may write the binding.
    pub const fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
}

/// One compiled compute shader.
#[derive(Debug)]
pub struct ShaderSpirv {
    /// File stem of the `glsl/*.comp` source.
    pub name: &'static str,
    /// Arithmetic variant it was compiled for.
    pub variant: ArithVariant,
    /// Workgroup size (`local_size_x/y/z`, from the SPIR-V; the tests check
    /// it against the shader table's, [`ShaderName::local_size`]).
    #[cfg_attr(not(test), allow(dead_code))]
    pub local_size: [u32; 3],
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

impl ShaderName {
    /// This shader, or its build that reduces with subgroup operations
    /// ([`ShaderName::subgroup_build`]) when `subgroups` and it has one.
    pub fn reducing_with_subgroups(self, subgroups: bool) -> ShaderName {
        match self.subgroup_build() {
            Some(build) if subgroups => build,
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_own_shader_in_both_variants() {
        assert_eq!(SHADERS.len() % 2, 0);
        for s in SHADERS {
            let name = ShaderName::ALL
                .into_iter()
                .find(|n| n.as_str() == s.name)
                .unwrap_or_else(|| panic!("a shader the table does not name: {}", s.name));
            let found = shader(name, s.variant);
            assert_eq!((found.name, found.variant), (s.name, s.variant));
            assert!(s.local_size.iter().all(|&n| n >= 1), "{}", s.name);
            assert_eq!(s.local_size, name.local_size(), "{}", s.name);
        }
        assert_eq!(SHADERS.len(), 2 * ShaderName::ALL.len());
        for (k, name) in ShaderName::ALL.into_iter().enumerate() {
            assert_eq!(name.ordinal(), k);
        }
    }

    /// The table's bindings are what the shaders' comments say each reads
    /// and writes, and the named constants agree with them.
    #[test]
    fn the_table_has_each_shaders_own_bindings() {
        use Access::*;
        let want: [(ShaderName, &[(u32, Access)]); 16] = [
            (ShaderName::AdmDecouple, &[(0, Read), (1, Read), (2, Write)]),
            (
                ShaderName::AdmDwt,
                &[(0, Read), (1, Read), (2, Write), (3, Write), (4, Read)],
            ),
            (
                ShaderName::AdmDwt0,
                &[
                    (0, Read),
                    (1, Read),
                    (2, Write),
                    (3, Write),
                    (4, Write),
                    (5, Read),
                ],
            ),
            (ShaderName::AdmRows, &[(0, Read), (1, Read), (2, Write)]),
            (
                ShaderName::Decimate,
                &[(0, Read), (1, Read), (2, Write), (7, ReadWrite)],
            ),
            (
                ShaderName::Hfilter,
                &[(0, Read), (1, Read), (2, Read), (3, Write), (7, ReadWrite)],
            ),
            (ShaderName::Lowpass, &[(2, Read), (3, Write)]),
            (
                ShaderName::MotionSad,
                &[
                    (0, Read),
                    (1, Read),
                    (3, Write),
                    (4, Write),
                    (5, Read),
                    (6, ReadWrite),
                ],
            ),
            (
                ShaderName::MotionV32Blur,
                &[(0, Read), (2, Write), (3, Read)],
            ),
            (
                ShaderName::MotionV32Sad,
                &[(0, Read), (1, Read), (2, Read), (3, Write), (4, Write)],
            ),
            (ShaderName::MsbShift, &[(0, ReadWrite), (1, ReadWrite)]),
            (ShaderName::Selftest, &[(0, Read), (5, Write)]),
            (
                ShaderName::Terms,
                &[(3, Read), (4, Write), (5, Write), (6, Write)],
            ),
            (
                ShaderName::VifDecimate,
                &[(0, Read), (1, Read), (2, Write), (3, Write)],
            ),
            (
                ShaderName::VifStats,
                &[(0, Read), (1, Read), (4, Read), (5, Read), (6, Write)],
            ),
            (ShaderName::VifVertical, &[(0, Read), (1, Read), (4, Write)]),
        ];
        for (name, bindings) in want {
            assert_eq!(name.bindings(), bindings, "{name:?}");
        }
        // Each subgroup build: its source's layout and bindings, and the
        // build its source names.
        let subgroup_builds = [
            (ShaderName::Terms, ShaderName::TermsSubgroup),
            (ShaderName::VifStats, ShaderName::VifStatsSubgroup),
            (ShaderName::AdmRows, ShaderName::AdmRowsSubgroup),
            (ShaderName::MotionSad, ShaderName::MotionSadSubgroup),
            (ShaderName::MotionV32Sad, ShaderName::MotionV32SadSubgroup),
        ];
        for (source, build) in subgroup_builds {
            assert_eq!(build.layout_source(), source);
            assert_eq!(build.bindings(), source.bindings(), "{build:?}");
            assert_eq!(source.subgroup_build(), Some(build));
            assert_eq!(source.reducing_with_subgroups(true), build);
            assert_eq!(source.reducing_with_subgroups(false), source);
            assert_eq!(build.subgroup_build(), None);
        }
        // Every shader but the one a metric's own module checks (psnr's).
        assert_eq!(
            want.len() + subgroup_builds.len() + 1,
            ShaderName::ALL.len()
        );
        assert_eq!(ShaderName::Lowpass.subgroup_build(), None);
        assert_eq!([binding::lowpass::SRC, binding::lowpass::DST], [2, 3]);
        assert_eq!(
            [
                binding::terms::HFILT,
                binding::terms::VFILT,
                binding::terms::TERMS,
                binding::terms::PARTIALS
            ],
            [3, 4, 5, 6]
        );
        assert_eq!([binding::decimate::DEC, binding::decimate::RANGE], [2, 7]);
        assert_eq!(
            [binding::motion_v32_sad::VERT, binding::motion_v32_sad::KEPT],
            [
                binding::motion_v32_blur::VERT,
                binding::motion_v32_blur::KEPT
            ]
        );
    }
}
