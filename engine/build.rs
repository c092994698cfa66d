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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn main() {
    if let Err(message) = run() {
        eprintln!("{message}");
        std::process::exit(1);
    }
}

/// One compiled shader variant.
struct Compiled {
    name: String,
    variant: &'static str,
    local_size: [u32; 3],
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
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: bad file name", path.display()))?
            .to_string();
        let local_size = local_size(&source)
            .ok_or_else(|| format!("{}: no `layout(local_size_x = ...) in;`", path.display()))?;
        let builds = std::iter::once((name.clone(), None)).chain(
            EXTRA_BUILDS
                .iter()
                .filter(|(from, _, _)| *from == name)
                .map(|(_, to, define)| (to.to_string(), Some(*define))),
        );
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
            compiled.push(Compiled {
                name: name.clone(),
                variant: if variant == "FP64" { "Fp64" } else { "SoftF64" },
                local_size,
                words: artifact.as_binary().to_vec(),
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
    out.push_str("/// Every compiled shader, sorted by name then variant.\n");
    out.push_str("pub static SHADERS: &[ShaderSpirv] = &[\n");
    for c in &compiled {
        let _ = writeln!(
            out,
            "    ShaderSpirv {{ name: {:?}, variant: ArithVariant::{}, local_size: [{}, {}, {}], words: &[",
            c.name, c.variant, c.local_size[0], c.local_size[1], c.local_size[2]
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
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    std::fs::write(out_dir.join("shaders.rs"), out)
        .map_err(|e| format!("writing shaders.rs: {e}"))?;
    std::fs::write(out_dir.join("passes.rs"), pass_table(&compiled)?)
        .map_err(|e| format!("writing passes.rs: {e}"))?;
    Ok(())
}

/// Shaders also built under another name with one more macro defined:
/// (source, name, macro).
const EXTRA_BUILDS: [(&str, &str, &str); 1] = [
    // The terms pass with its reduction in subgroup operations, for devices
    // with subgroup arithmetic in compute shaders.
    ("terms", "terms_subgroup", "SUBGROUP_REDUCE"),
];

/// The passes of one frame, in dispatch order: the shader (`glsl/NAME.comp`),
/// the `FramePass` variant, and the invocations it is dispatched over (fields
/// of `FrameExtents`, or a number).
const FRAME_PASSES: [(&str, &str, [&str; 3]); 3] = [
    ("decimate", "Decimate", ["sw", "sh", "2"]),
    ("hfilter", "HFilter", ["hw", "sh", "1"]),
    ("terms", "Terms", ["hw", "hh", "1"]),
];

/// `passes.rs`: the typed table of [`FRAME_PASSES`]: name, workgroup size
/// (from the shader source), invocations and workgroup counts per frame, and
/// the bindings the compiled shader reads and writes.
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
    out.push_str("    /// The shader's name (`glsl/NAME.comp`).\n    pub const fn name(self) -> &'static str {\n        match self {\n");
    for (name, variant, _) in FRAME_PASSES {
        let _ = writeln!(out, "            FramePass::{variant} => {name:?},");
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
    out.push_str("        }\n    }\n\n");
    out.push_str(
        "    /// The descriptor bindings the pass's shader reads or writes (set 0,\n    \
         /// ascending), found in its SPIR-V (native fp64 variant) by build.rs\n    \
         /// (checked by the tests).\n    \
         #[cfg_attr(not(test), allow(dead_code))]\n    \
         pub const fn bindings(self) -> &'static [(u32, Access)] {\n        match self {\n",
    );
    for (name, variant, _) in FRAME_PASSES {
        let c = compiled
            .iter()
            .find(|c| c.name == name && c.variant == "Fp64")
            .ok_or_else(|| format!("glsl/{name}.comp (FP64) was not compiled"))?;
        let used: Vec<String> = binding_access(&c.words)
            .map_err(|e| format!("glsl/{name}.comp: {e}"))?
            .into_iter()
            .map(|(b, (read, write))| {
                let access = match (read, write) {
                    (true, true) => "ReadWrite",
                    (false, true) => "Write",
                    _ => "Read",
                };
                format!("({b}, Access::{access})")
            })
            .collect();
        let _ = writeln!(
            out,
            "            FramePass::{variant} => &[{}],",
            used.join(", ")
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

/// The descriptor bindings (set 0) that SPIR-V module `words` accesses, with
/// (read, written): every storage-buffer variable with a `Binding`
/// decoration, followed through access chains to the loads, stores and
/// atomics of the functions the module contains (glslang emits only the
/// functions `main` reaches).
fn binding_access(words: &[u32]) -> Result<std::collections::BTreeMap<u32, (bool, bool)>, String> {
    use std::collections::{BTreeMap, HashMap};
    const OP_DECORATE: u32 = 71;
    const DECORATION_BINDING: u32 = 33;
    const OP_LOAD: u32 = 61;
    const OP_STORE: u32 = 62;
    const OP_COPY_MEMORY: u32 = 63;
    const OP_ACCESS_CHAIN: u32 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    const OP_PTR_ACCESS_CHAIN: u32 = 67;
    const OP_ATOMIC_LOAD: u32 = 227;
    const OP_ATOMIC_STORE: u32 = 228;
    const OP_ATOMIC_LAST: u32 = 242;
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err("not SPIR-V".into());
    }
    let mut binding_of: HashMap<u32, u32> = HashMap::new();
    let mut base: HashMap<u32, u32> = HashMap::new();
    let mut uses: Vec<(u32, bool, bool)> = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xFFFF;
        if count == 0 || at + count > words.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        let w = &words[at..at + count];
        match op {
            OP_DECORATE if count >= 4 && w[2] == DECORATION_BINDING => {
                binding_of.insert(w[1], w[3]);
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN | OP_PTR_ACCESS_CHAIN if count >= 4 => {
                let root = base.get(&w[3]).copied().unwrap_or(w[3]);
                base.insert(w[2], root);
            }
            OP_LOAD if count >= 4 => uses.push((w[3], true, false)),
            OP_STORE if count >= 3 => uses.push((w[1], false, true)),
            OP_COPY_MEMORY if count >= 3 => {
                uses.push((w[1], false, true));
                uses.push((w[2], true, false));
            }
            OP_ATOMIC_STORE if count >= 2 => uses.push((w[1], false, true)),
            OP_ATOMIC_LOAD if count >= 4 => uses.push((w[3], true, false)),
            o if (OP_ATOMIC_LOAD + 2..=OP_ATOMIC_LAST).contains(&o) && count >= 4 => {
                uses.push((w[3], true, true))
            }
            _ => {}
        }
        at += count;
    }
    let mut out: BTreeMap<u32, (bool, bool)> = BTreeMap::new();
    for (pointer, read, write) in uses {
        let root = base.get(&pointer).copied().unwrap_or(pointer);
        if let Some(&b) = binding_of.get(&root) {
            let e = out.entry(b).or_default();
            e.0 |= read;
            e.1 |= write;
        }
    }
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

/// The `local_size_x/y/z` of a compute shader's `layout(...) in;` line
/// (absent dimensions are 1).
fn local_size(source: &str) -> Option<[u32; 3]> {
    let line = source
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("layout") && l.contains("local_size_x") && l.ends_with("in;"))?;
    let inner = &line[line.find('(')? + 1..line.rfind(')')?];
    let mut size = [1u32; 3];
    for part in inner.split(',') {
        let (key, value) = part.split_once('=')?;
        let value: u32 = value.trim().parse().ok()?;
        match key.trim() {
            "local_size_x" => size[0] = value,
            "local_size_y" => size[1] = value,
            "local_size_z" => size[2] = value,
            _ => {}
        }
    }
    Some(size)
}
