//! Compiles every `glsl/*.comp` to SPIR-V at build time, in two arithmetic
//! variants (`FP64`: native double; `SOFT_F64`: binary64 on uint64), and writes
//! `OUT_DIR/shaders.rs`: the SPIR-V words and each shader's name, variant and
//! workgroup size, sorted by name. Nothing compiles shaders at run time.
//!
//! GLSL 450 with `GL_EXT_shader_explicit_arithmetic_types_int64`, warnings as
//! errors, `#include` resolved in `glsl/include/`. A GLSL error fails the build
//! with the compiler's message. Until `glsl/include/soft_f64.glsl` exists the
//! SOFT_F64 variant compiles against a placeholder and the generated
//! `SOFT_F64_IS_PLACEHOLDER` tells the engine not to use it.

// Debian 12's libshaderc needs extra static libraries on the link line; the
// link crate's build script emits them (see engine/shaderc-link/build.rs).
extern crate vkssim_shaderc_link;

// The numbers the shaders share with the engine (defined as GLSL macros).
#[path = "src/vk/shader_consts.rs"]
mod shader_consts;

// Reading what the compiled SPIR-V declares (workgroup size, blocks, bindings).
#[path = "build/spirv.rs"]
mod spirv;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use spirv::{
    binding_access, spirv_buffer_block, spirv_local_size, spirv_push_constants,
    spirv_spec_constants, BindingUse, Block,
};

fn main() {
    if let Err(message) = run() {
        eprintln!("{message}");
        std::process::exit(1);
    }
}

/// One compiled shader variant.
struct Compiled {
    name: String,
    /// The source's file stem (`name` itself, or the source of a subgroup
    /// build).
    stem: String,
    variant: &'static str,
    /// `local_size_x/y/z`, from the SPIR-V's `LocalSize` execution mode.
    local_size: [u32; 3],
    /// The push-constant block, from the SPIR-V (none when it has none).
    push_constants: Option<Block>,
    /// The bindings (set 0) the shader accesses, from the SPIR-V.
    bindings: std::collections::BTreeMap<u32, BindingUse>,
    words: Vec<u32>,
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let glsl = manifest
        .parent()
        .ok_or("engine has no parent directory")?
        .join("glsl");
    let include_dir = glsl.join("include");
    println!("cargo:rerun-if-changed={}", glsl.display());
    println!("cargo:rerun-if-changed={}", include_dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("src/vk/shader_consts.rs").display()
    );

    let mut sources: Vec<PathBuf> = read_dir(&glsl)?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "comp"))
        .collect();
    sources.sort();
    for header in read_dir(&include_dir)? {
        println!("cargo:rerun-if-changed={}", header.display());
    }
    let soft_is_placeholder = !include_dir.join("soft_f64.glsl").exists();

    let compiler = shaderc::Compiler::new().ok_or("shaderc: cannot create a compiler")?;
    let mut compiled = Vec::new();
    for path in &sources {
        println!("cargo:rerun-if-changed={}", path.display());
        let source =
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: bad file name", path.display()))?
            .to_string();
        // A source that tests SUBGROUP_REDUCE is also built with it defined,
        // as `NAME_subgroup`.
        let subgroup = source.contains(&format!("defined({SUBGROUP_REDUCE})"));
        let builds = std::iter::once((stem.clone(), None))
            .chain(subgroup.then(|| (format!("{stem}{SUBGROUP_SUFFIX}"), Some(SUBGROUP_REDUCE))));
        for ((name, define), variant) in builds.flat_map(|b| [(b.clone(), "FP64"), (b, "SOFT_F64")])
        {
            let included = Arc::new(Mutex::new(Vec::<PathBuf>::new()));
            let mut options =
                shaderc::CompileOptions::new().ok_or("shaderc: cannot create options")?;
            options.set_source_language(shaderc::SourceLanguage::GLSL);
            options.set_target_env(
                shaderc::TargetEnv::Vulkan,
                shaderc::EnvVersion::Vulkan1_1 as u32,
            );
            options.set_warnings_as_errors();
            // No spirv-opt: drivers optimise anyway, and -O0 is the configuration
            // the parity suite runs. (A 1-ulp SOFT_F64 add failure once blamed on
            // -O came from a deliberately broken soft_f64.glsl during a mutation
            // test; with the real file -O also passes 2.29 M cases.)
            options.set_optimization_level(shaderc::OptimizationLevel::Zero);
            options.add_macro_definition(variant, Some("1"));
            for (name, value) in shader_consts::MACROS {
                options.add_macro_definition(name, Some(&value.to_string()));
            }
            if let Some(define) = define {
                options.add_macro_definition(define, Some("1"));
            }
            if variant == "SOFT_F64" && soft_is_placeholder {
                options.add_macro_definition("SOFT_F64_PLACEHOLDER", Some("1"));
            }
            let inc_dir = include_dir.clone();
            let seen = Arc::clone(&included);
            options.set_include_callback(move |requested, _kind, requester, _depth| {
                let requester_dir = Path::new(requester).parent().map(Path::to_path_buf);
                let candidates = requester_dir
                    .into_iter()
                    .map(|d| d.join(requested))
                    .chain(std::iter::once(inc_dir.join(requested)));
                for candidate in candidates {
                    if let Ok(content) = std::fs::read_to_string(&candidate) {
                        if let Ok(mut seen) = seen.lock() {
                            seen.push(candidate.clone());
                        }
                        return Ok(shaderc::ResolvedInclude {
                            resolved_name: candidate.display().to_string(),
                            content,
                        });
                    }
                }
                Err(format!(
                    "cannot find \"{requested}\" (looked beside {requester} and in {})",
                    inc_dir.display()
                ))
            });
            let artifact = compiler
                .compile_into_spirv(
                    &source,
                    shaderc::ShaderKind::Compute,
                    &path.display().to_string(),
                    "main",
                    Some(&options),
                )
                .map_err(|e| format!("GLSL error in {} ({variant}):\n{e}", path.display()))?;
            if artifact.get_num_warnings() > 0 {
                return Err(format!(
                    "GLSL warnings in {} ({variant}):\n{}",
                    path.display(),
                    artifact.get_warning_messages()
                ));
            }
            if let Ok(seen) = included.lock() {
                for file in seen.iter() {
                    println!("cargo:rerun-if-changed={}", file.display());
                }
            }
            let words = artifact.as_binary().to_vec();
            let local_size = spirv_local_size(&words)
                .map_err(|e| format!("{} ({variant}): {e}", path.display()))?;
            let push_constants = spirv_push_constants(&words)
                .map_err(|e| format!("{} ({variant}): {e}", path.display()))?;
            let bindings = binding_access(&words)
                .map_err(|e| format!("{} ({variant}): {e}", path.display()))?;
            compiled.push(Compiled {
                name: name.clone(),
                stem: stem.clone(),
                variant: if variant == "FP64" { "Fp64" } else { "SoftF64" },
                local_size,
                push_constants,
                bindings,
                words,
            });
        }
    }
    compiled.sort_by(|a, b| (&a.name, a.variant).cmp(&(&b.name, b.variant)));

    let mut out = String::new();
    out.push_str("// Generated by engine/build.rs from glsl/*.comp. Do not edit.\n\n");
    let _ = writeln!(
        out,
        "/// True when the SOFT_F64 variant was built against the placeholder\n\
         /// (glsl/include/soft_f64.glsl absent): that variant must not be used.\n\
         pub const SOFT_F64_IS_PLACEHOLDER: bool = {soft_is_placeholder};\n"
    );
    let mut names: Vec<&str> = compiled.iter().map(|c| c.name.as_str()).collect();
    names.dedup();
    out.push_str("/// Every shader build.rs compiled (`glsl/NAME.comp`, and the extra builds\n/// of one source under another name): a shader that was not built is not a\n/// name, so asking for it does not compile.\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum ShaderName {\n");
    for n in &names {
        let _ = writeln!(out, "    /// `{n}`.\n    {},", camel(n));
    }
    out.push_str("}\n\nimpl ShaderName {\n    /// The shader's name, as its source file's stem.\n    pub const fn as_str(self) -> &'static str {\n        match self {\n");
    for n in &names {
        let _ = writeln!(out, "            ShaderName::{} => {n:?},", camel(n));
    }
    out.push_str("        }\n    }\n\n    /// Its position in [`SHADERS`] (both variants follow, FP64 first).\n    const fn index(self) -> usize {\n        match self {\n");
    for (k, n) in names.iter().enumerate() {
        let _ = writeln!(out, "            ShaderName::{} => {},", camel(n), 2 * k);
    }
    out.push_str("        }\n    }\n}\n\n");
    out.push_str("/// Every compiled shader, sorted by name then variant.\n");
    out.push_str("pub static SHADERS: &[ShaderSpirv] = &[\n");
    for c in &compiled {
        let _ = writeln!(
            out,
            "    ShaderSpirv {{ name: {:?}, variant: ArithVariant::{}, local_size: [{}, {}, {}], words: &[",
            c.name,
            c.variant,
            c.local_size[0],
            c.local_size[1],
            c.local_size[2],
        );
        for chunk in c.words.chunks(8) {
            out.push_str("       ");
            for w in chunk {
                let _ = write!(out, " {w:#010x},");
            }
            out.push('\n');
        }
        out.push_str("    ] },\n");
    }
    out.push_str("];\n");
    out.push_str(&shader_table(&compiled)?);
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    std::fs::write(out_dir.join("shaders.rs"), out)
        .map_err(|e| format!("writing shaders.rs: {e}"))?;
    let mut passes = pass_table(&compiled)?;
    passes.push_str(&params_check(&compiled)?);
    passes.push_str(&shared_structs_check(&compiled)?);
    std::fs::write(out_dir.join("passes.rs"), passes)
        .map_err(|e| format!("writing passes.rs: {e}"))?;
    Ok(())
}

/// The macro whose test (`#if defined(SUBGROUP_REDUCE)`) makes a shader
/// source also built with it defined, under its name plus
/// [`SUBGROUP_SUFFIX`]: the build that reduces its sums with subgroup
/// operations, for devices with subgroup arithmetic in compute shaders (the
/// shader table's `subgroup_build`).
const SUBGROUP_REDUCE: &str = "SUBGROUP_REDUCE";
const SUBGROUP_SUFFIX: &str = "_subgroup";

/// The passes of one frame, in dispatch order: the shader (`glsl/NAME.comp`),
/// the `FramePass` variant, and the invocations it is dispatched over (fields
/// of `FrameExtents`, or a number).
const FRAME_PASSES: [(&str, &str, [&str; 3]); 3] = [
    ("decimate", "Decimate", ["sw", "sh", "2"]),
    ("hfilter", "HFilter", ["hw", "sh", "1"]),
    ("terms", "Terms", ["hw", "hh", "1"]),
];

/// `passes.rs`: the typed table of [`FRAME_PASSES`]: name, workgroup size
/// (from the shader's SPIR-V) and invocations per frame (each shader's
/// bindings are in the shader table, [`shader_table`]).
fn pass_table(compiled: &[Compiled]) -> Result<String, String> {
    let mut out = String::new();
    out.push_str("// Generated by engine/build.rs (FRAME_PASSES). Do not edit.\n\n");
    out.push_str("/// The passes of one frame, in dispatch order.\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum FramePass {\n");
    for (name, variant, _) in FRAME_PASSES {
        let _ = writeln!(out, "    /// `glsl/{name}.comp`.\n    {variant},");
    }
    out.push_str("}\n\nimpl FramePass {\n");
    out.push_str("    /// Every pass, in dispatch order.\n");
    let all: Vec<String> = FRAME_PASSES
        .iter()
        .map(|(_, v, _)| format!("FramePass::{v}"))
        .collect();
    let _ = writeln!(
        out,
        "    pub const ALL: [FramePass; {}] = [{}];\n",
        all.len(),
        all.join(", ")
    );
    out.push_str("    /// The pass's shader.\n    pub const fn shader(self) -> ShaderName {\n        match self {\n");
    for (name, variant, _) in FRAME_PASSES {
        let _ = writeln!(
            out,
            "            FramePass::{variant} => ShaderName::{},",
            camel(name)
        );
    }
    out.push_str("        }\n    }\n\n");
    out.push_str("    /// The shader's workgroup size (`local_size_x/y/z`).\n    pub const fn local_size(self) -> [u32; 3] {\n        match self {\n");
    for (name, variant, _) in FRAME_PASSES {
        let c = compiled.iter().find(|c| c.name == name).ok_or_else(|| {
            format!("FRAME_PASSES names {name}, but glsl/{name}.comp was not compiled")
        })?;
        let [x, y, z] = c.local_size;
        let _ = writeln!(out, "            FramePass::{variant} => [{x}, {y}, {z}],");
    }
    out.push_str("        }\n    }\n\n");
    out.push_str("    /// The invocations the pass is dispatched over, for a frame of `e`.\n    pub const fn invocations(self, e: &FrameExtents) -> [u32; 3] {\n        match self {\n");
    for (_, variant, dims) in FRAME_PASSES {
        let term = |d: &str| {
            if d.parse::<u32>().is_ok() {
                d.to_string()
            } else {
                format!("e.{d}")
            }
        };
        let _ = writeln!(
            out,
            "            FramePass::{variant} => [{}, {}, {}],",
            term(dims[0]),
            term(dims[1]),
            term(dims[2])
        );
    }
    out.push_str("        }\n    }\n}\n\n");
    out.push_str("/// The frame passes' shader names, in dispatch order.\n");
    let names: Vec<String> = FRAME_PASSES
        .iter()
        .map(|(n, _, _)| format!("{n:?}"))
        .collect();
    let _ = writeln!(
        out,
        "pub const PASSES: [&str; {}] = [{}];",
        names.len(),
        names.join(", ")
    );
    Ok(out)
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("environment variable {name} is not set"))
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

/// `ShaderName` variant for a shader name (`terms_subgroup` -> `TermsSubgroup`).
fn camel(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut c = part.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The compile-time checks of `Spec` and `RangeRecord`
/// (engine/src/vk/pipeline.rs) against the frame passes' SPIR-V: each
/// specialization constant's id is its field's position (4 bytes each, the
/// map entries `create_pipeline` makes), and `RangeRecord` is laid out as the
/// `Range` buffer block. Shaders that disagree with each other fail the build.
fn shared_structs_check(compiled: &[Compiled]) -> Result<String, String> {
    let mut out = String::new();
    let frame_shaders: Vec<&Compiled> = compiled
        .iter()
        .filter(|c| FRAME_PASSES.iter().any(|(n, _, _)| *n == c.name))
        .collect();
    let mut spec: Option<Vec<(String, u32)>> = None;
    let mut range: Option<Block> = None;
    for c in &frame_shaders {
        let s = spirv_spec_constants(&c.words)?;
        if let Some(seen) = &spec {
            if *seen != s {
                return Err(format!(
                    "{} declares other specialization constants",
                    c.name
                ));
            }
        }
        spec = Some(s);
        if let Some(r) = spirv_buffer_block(&c.words, "Range")? {
            if range.as_ref().is_some_and(|seen| *seen != r) {
                return Err(format!("{} declares another Range block", c.name));
            }
            range = Some(r);
        }
    }
    let spec = spec.ok_or("no frame pass was compiled")?;
    let range = range.ok_or("no frame pass declares the Range block")?;
    out.push_str(
        "\n/// `Spec`'s fields are the frame passes' specialization constants in\n\
         /// constant-id order, 4 bytes each, and `RangeRecord` is laid out as their\n\
         /// `Range` buffer block (read from the SPIR-V by build.rs).\n\
         const _: () = {\n",
    );
    let _ = writeln!(
        out,
        "    assert!(std::mem::size_of::<Spec>() == {});",
        4 * spec.len()
    );
    for (name, id) in &spec {
        let field = name.to_ascii_lowercase();
        let _ = writeln!(
            out,
            "    assert!(std::mem::offset_of!(Spec, {field}) == {});",
            4 * id
        );
    }
    let _ = writeln!(
        out,
        "    assert!(std::mem::size_of::<RangeRecord>() == {});",
        range.bytes
    );
    for (name, offset) in &range.members {
        let field = name.strip_prefix("range_").unwrap_or(name);
        let _ = writeln!(
            out,
            "    assert!(std::mem::offset_of!(RangeRecord, {field}) == {offset});"
        );
    }
    out.push_str("};\n");
    Ok(out)
}

/// The compile-time check that `Params` (engine/src/vk/pipeline.rs) is laid
/// out as the `Params` push-constant block the shaders declare: the same size
/// and each member at its offset, by name. Shaders whose `Params` blocks
/// differ fail the build. Each pipeline's push-constant range is its own
/// block's size (the shader table).
fn params_check(compiled: &[Compiled]) -> Result<String, String> {
    let mut blocks = compiled
        .iter()
        .filter_map(|c| c.push_constants.as_ref().map(|p| (c, p)))
        .filter(|(_, p)| p.name == "Params");
    let (first, block) = blocks
        .next()
        .ok_or("no shader has a Params push-constant block")?;
    if let Some((other, _)) = blocks.find(|(_, p)| *p != block) {
        return Err(format!(
            "the Params push-constant blocks of {} and {} differ",
            first.name, other.name
        ));
    }
    let mut out = String::from(
        "\n/// `Params` is laid out as the shaders' push-constant block (their\n\
         /// SPIR-V, read by build.rs): the same size, each member at its offset.\n\
         const _: () = {\n",
    );
    let _ = writeln!(
        out,
        "    assert!(std::mem::size_of::<Params>() == {});",
        block.bytes
    );
    for (name, offset) in &block.members {
        let _ = writeln!(
            out,
            "    assert!(std::mem::offset_of!(Params, {name}) == {offset});"
        );
    }
    out.push_str("};\n");
    for (block_name, rust) in OTHER_PUSH_BLOCKS {
        let mut blocks = compiled
            .iter()
            .filter_map(|c| c.push_constants.as_ref())
            .filter(|p| p.name == block_name);
        let block = blocks
            .next()
            .ok_or_else(|| format!("no shader has a {block_name} push-constant block"))?;
        if blocks.any(|p| p != block) {
            return Err(format!("two shaders' {block_name} blocks differ"));
        }
        let _ = writeln!(
            out,
            "\n/// `{rust}` is laid out as the `{block_name}` push-constant block.\nconst _: () = {{\n    assert!(std::mem::size_of::<{rust}>() == {});",
            block.bytes
        );
        for (name, offset) in &block.members {
            let _ = writeln!(
                out,
                "    assert!(std::mem::offset_of!({rust}, {name}) == {offset});"
            );
        }
        out.push_str("};\n");
    }
    Ok(out)
}

/// Push-constant blocks other than `Params` whose Rust mirror (in
/// engine/src/vk/pipeline.rs) is checked like `Params`: (block, struct).
const OTHER_PUSH_BLOCKS: [(&str, &str); 6] = [
    ("Adm", "AdmParams"),
    ("Lowpass", "LowpassParams"),
    ("Motion", "MotionParams"),
    ("Vif", "VifParams"),
    ("Psnr", "PsnrParams"),
    ("Shift", "crate::vk::image_input::ShiftParams"),
];

/// The shader table (the end of `shaders.rs`), one entry per shader built, as
/// vello's `add_shader!` lines: `ShaderName::ALL`, and for each shader its
/// workgroup size, push-constant bytes, the bindings it accesses (number and
/// access, read from its SPIR-V) and the shader whose layout it uses (itself,
/// or an extra build's source); and `binding::<shader>::<BLOCK>`, each
/// binding's number by its block's name (`binding::psnr::ROW_SSE`), so that
/// the engine names a binding the shader does not have only in code that
/// does not compile.
///
/// Both arithmetic variants of a shader must agree on all of it, and an
/// extra build on its source's bindings and push constants: else the build
/// fails.
fn shader_table(compiled: &[Compiled]) -> Result<String, String> {
    let mut names: Vec<&str> = compiled.iter().map(|c| c.name.as_str()).collect();
    names.dedup();
    let fp64 = |n: &str| -> Result<&Compiled, String> {
        compiled
            .iter()
            .find(|c| c.name == n && c.variant == "Fp64")
            .ok_or_else(|| format!("{n} (FP64) was not compiled"))
    };
    let push_bytes = |c: &Compiled| c.push_constants.as_ref().map_or(0, |p| p.bytes);
    for c in compiled {
        let f = fp64(&c.name)?;
        if (c.local_size, &c.bindings, push_bytes(c)) != (f.local_size, &f.bindings, push_bytes(f))
        {
            return Err(format!(
                "{}: the {} variant's workgroup size, bindings or push constants differ from FP64's",
                c.name, c.variant
            ));
        }
    }
    let source_of = |n: &str| -> String {
        compiled
            .iter()
            .find(|c| c.name == n)
            .map_or(n.to_string(), |c| c.stem.clone())
    };
    let subgroup_build = |n: &str| -> Option<&str> {
        compiled
            .iter()
            .find(|c| c.stem == n && c.name != n)
            .map(|c| c.name.as_str())
    };
    for n in &names {
        let (c, s) = (fp64(n)?, fp64(&source_of(n))?);
        if (&c.bindings, push_bytes(c)) != (&s.bindings, push_bytes(s)) {
            return Err(format!(
                "{n} is built from {} but its bindings or push constants differ",
                s.name
            ));
        }
    }
    let mut out = String::new();
    out.push_str("\n// The shader table (engine/build.rs, `shader_table`). Do not edit.\n\n");
    out.push_str("impl ShaderName {\n    /// Every shader, sorted by name.\n");
    let all: Vec<String> = names
        .iter()
        .map(|n| format!("ShaderName::{}", camel(n)))
        .collect();
    let _ = writeln!(
        out,
        "    pub const ALL: [ShaderName; {}] = [{}];\n",
        all.len(),
        all.join(", ")
    );
    let method = |out: &mut String,
                  doc: &str,
                  sig: &str,
                  arm: &dyn Fn(&str) -> Result<String, String>|
     -> Result<(), String> {
        let _ = writeln!(
            out,
            "    /// {doc}\n    pub const fn {sig} {{\n        match self {{"
        );
        for n in &names {
            let _ = writeln!(out, "            ShaderName::{} => {},", camel(n), arm(n)?);
        }
        out.push_str("        }\n    }\n\n");
        Ok(())
    };
    method(
        &mut out,
        "Its position in [`ShaderName::ALL`].",
        "ordinal(self) -> usize",
        &|n| Ok(names.iter().position(|m| *m == n).unwrap_or(0).to_string()),
    )?;
    method(
        &mut out,
        "Its workgroup size (`local_size_x/y/z`, from the SPIR-V).",
        "local_size(self) -> [u32; 3]",
        &|n| {
            let [x, y, z] = fp64(n)?.local_size;
            Ok(format!("[{x}, {y}, {z}]"))
        },
    )?;
    method(
        &mut out,
        "Bytes of its push-constant block (0: none), from the SPIR-V.",
        "push_constant_bytes(self) -> u32",
        &|n| Ok(push_bytes(fp64(n)?).to_string()),
    )?;
    method(
        &mut out,
        "The bindings (set 0, ascending) it accesses and how, from the SPIR-V:\n    \
         /// its descriptor set layout has exactly these.",
        "bindings(self) -> &'static [(u32, Access)]",
        &|n| {
            let list: Vec<String> = fp64(n)?
                .bindings
                .iter()
                .map(|(b, u)| {
                    let access = match (u.read, u.write) {
                        (true, true) => "ReadWrite",
                        (false, true) => "Write",
                        _ => "Read",
                    };
                    format!("({b}, Access::{access})")
                })
                .collect();
            Ok(format!("&[{}]", list.join(", ")))
        },
    )?;
    method(
        &mut out,
        "The shader whose pipeline layout it uses: itself, or the source of an\n    \
         /// extra build (the same bindings and push constants, checked by build.rs).",
        "layout_source(self) -> ShaderName",
        &|n| Ok(format!("ShaderName::{}", camel(&source_of(n)))),
    )?;
    method(
        &mut out,
        "Its build that reduces with subgroup operations (its source built with\n    \
         /// `SUBGROUP_REDUCE` defined), if it has one.",
        "subgroup_build(self) -> Option<ShaderName>",
        &|n| {
            Ok(subgroup_build(n).map_or("None".to_string(), |b| {
                format!("Some(ShaderName::{})", camel(b))
            }))
        },
    )?;
    out.push_str("}\n\n");
    out.push_str(
        "/// Each shader's bindings by its blocks' names (`binding::<shader>::<BLOCK>`),\n\
         /// from the SPIR-V: the numbers a dispatch binds its buffers at.\n\
         #[allow(dead_code)] // Not every shader's bindings are named in code.\n\
         pub mod binding {\n",
    );
    for n in &names {
        let _ = writeln!(
            out,
            "    /// `glsl/{}.comp`'s bindings.\n    pub mod {n} {{",
            source_of(n)
        );
        for (b, u) in &fp64(n)?.bindings {
            let _ = writeln!(
                out,
                "        /// Block `{}`.\n        pub const {}: u32 = {b};",
                u.block,
                screaming(&u.block)
            );
        }
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    Ok(out)
}

/// A block name as a constant's name (`RawRef` -> `RAW_REF`, `HFilt` -> `HFILT`).
fn screaming(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        out.push(ch.to_ascii_uppercase());
    }
    out
}
