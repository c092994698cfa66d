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
    /// `local_size_x/y/z`, from the SPIR-V's `LocalSize` execution mode.
    local_size: [u32; 3],
    /// The push-constant block, from the SPIR-V (none when it has none).
    push_constants: Option<Block>,
    words: Vec<u32>,
}

/// A block (push constants or a storage buffer) as a shader's SPIR-V
/// declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    /// The block's name (`Params`, the one every frame pass shares).
    name: String,
    /// Bytes the block spans (the last member's offset plus its size).
    bytes: u32,
    /// Each member's name and byte offset, in declaration order.
    members: Vec<(String, u32)>,
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
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: bad file name", path.display()))?
            .to_string();
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
            compiled.push(Compiled {
                name: name.clone(),
                variant: if variant == "FP64" { "Fp64" } else { "SoftF64" },
                local_size,
                push_constants,
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
            "    ShaderSpirv {{ name: {:?}, variant: ArithVariant::{}, local_size: [{}, {}, {}], push_constant_bytes: {}, words: &[",
            c.name,
            c.variant,
            c.local_size[0],
            c.local_size[1],
            c.local_size[2],
            c.push_constants.as_ref().map_or(0, |p| p.bytes)
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
    let mut passes = pass_table(&compiled)?;
    passes.push_str(&params_check(&compiled)?);
    passes.push_str(&shared_structs_check(&compiled)?);
    std::fs::write(out_dir.join("passes.rs"), passes)
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
/// (from the shader's SPIR-V), invocations and workgroup counts per frame, and
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

/// The SPIR-V instructions of module `words`: (opcode, operands).
fn instructions(words: &[u32]) -> Result<Vec<(u32, &[u32])>, String> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err("not SPIR-V".into());
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(format!("a malformed instruction at word {at}"));
        }
        out.push((words[at] & 0xffff, &words[at + 1..at + count]));
        at += count;
    }
    Ok(out)
}

/// The workgroup size of module `words` (`OpExecutionMode ... LocalSize`).
fn spirv_local_size(words: &[u32]) -> Result<[u32; 3], String> {
    const OP_EXECUTION_MODE: u32 = 16;
    const LOCAL_SIZE: u32 = 17;
    instructions(words)?
        .into_iter()
        .find_map(|(op, w)| match (op, w) {
            (OP_EXECUTION_MODE, [_, LOCAL_SIZE, x, y, z, ..]) => Some([*x, *y, *z]),
            _ => None,
        })
        .ok_or_else(|| "no LocalSize execution mode (layout(local_size_x = ...) in;)".into())
}

/// What the blocks of a SPIR-V module are made of, read in one pass: type
/// sizes (32 and 64-bit scalars, vectors and arrays of them), structs with
/// their members' offsets and names, type names, and the push-constant
/// variable's type.
struct SpirvTypes {
    sizes: std::collections::HashMap<u32, u32>,
    structs: std::collections::HashMap<u32, Vec<u32>>,
    offsets: std::collections::HashMap<(u32, u32), u32>,
    member_names: std::collections::HashMap<(u32, u32), String>,
    names: std::collections::HashMap<u32, String>,
    /// The struct type of the push-constant block, if the module has one.
    push_constant: Option<u32>,
}

impl SpirvTypes {
    fn read(words: &[u32]) -> Result<Self, String> {
        use std::collections::HashMap;
        const OP_NAME: u32 = 5;
        const OP_MEMBER_NAME: u32 = 6;
        const OP_TYPE_INT: u32 = 21;
        const OP_TYPE_FLOAT: u32 = 22;
        const OP_TYPE_VECTOR: u32 = 23;
        const OP_TYPE_ARRAY: u32 = 28;
        const OP_TYPE_STRUCT: u32 = 30;
        const OP_TYPE_POINTER: u32 = 32;
        const OP_CONSTANT: u32 = 43;
        const OP_VARIABLE: u32 = 59;
        const OP_MEMBER_DECORATE: u32 = 72;
        const PUSH_CONSTANT: u32 = 9;
        const OFFSET: u32 = 35;
        let mut t = SpirvTypes {
            sizes: HashMap::new(),
            structs: HashMap::new(),
            offsets: HashMap::new(),
            member_names: HashMap::new(),
            names: HashMap::new(),
            push_constant: None,
        };
        let mut constants: HashMap<u32, u32> = HashMap::new();
        let mut pointers: HashMap<u32, u32> = HashMap::new();
        let mut push_pointer = None;
        for (op, w) in instructions(words)? {
            match (op, w) {
                (OP_NAME, [id, name @ ..]) => {
                    t.names.insert(*id, words_text(name));
                }
                (OP_MEMBER_NAME, [ty, m, name @ ..]) => {
                    t.member_names.insert((*ty, *m), words_text(name));
                }
                (OP_TYPE_INT | OP_TYPE_FLOAT, [id, width, ..]) => {
                    t.sizes.insert(*id, width / 8);
                }
                (OP_TYPE_VECTOR, [id, component, count]) => {
                    let size = t.sizes.get(component).copied().unwrap_or(0) * count;
                    t.sizes.insert(*id, size);
                }
                (OP_CONSTANT, [_, id, value, ..]) => {
                    constants.insert(*id, *value);
                }
                (OP_TYPE_ARRAY, [id, elem, len]) => {
                    let size = t.sizes.get(elem).copied().unwrap_or(0)
                        * constants.get(len).copied().unwrap_or(0);
                    t.sizes.insert(*id, size);
                }
                (OP_TYPE_STRUCT, [id, m @ ..]) => {
                    t.structs.insert(*id, m.to_vec());
                }
                (OP_TYPE_POINTER, [id, _, pointee]) => {
                    pointers.insert(*id, *pointee);
                }
                (OP_VARIABLE, [ty, _, PUSH_CONSTANT, ..]) => push_pointer = Some(*ty),
                (OP_MEMBER_DECORATE, [ty, m, OFFSET, offset]) => {
                    t.offsets.insert((*ty, *m), *offset);
                }
                _ => {}
            }
        }
        if let Some(pointer) = push_pointer {
            let ty = pointers
                .get(&pointer)
                .ok_or("the push-constant variable's type is not a pointer")?;
            t.push_constant = Some(*ty);
        }
        Ok(t)
    }

    /// The struct type named `name`, if the module has one.
    fn struct_named(&self, name: &str) -> Option<u32> {
        self.structs
            .keys()
            .copied()
            .find(|id| self.names.get(id).is_some_and(|n| n == name))
    }

    /// The block of struct type `ty`: its members' names and offsets and the
    /// bytes it spans.
    fn block(&self, ty: u32) -> Result<Block, String> {
        let name = self.names.get(&ty).cloned().unwrap_or_default();
        let members = self
            .structs
            .get(&ty)
            .ok_or_else(|| format!("block {name} is not a struct"))?;
        let mut out = Block {
            name: name.clone(),
            bytes: 0,
            members: Vec::new(),
        };
        for (k, member_ty) in members.iter().enumerate() {
            let k = k as u32;
            let offset = *self
                .offsets
                .get(&(ty, k))
                .ok_or_else(|| format!("{name} member {k} has no Offset"))?;
            let size = *self.sizes.get(member_ty).ok_or_else(|| {
                format!("{name} member {k} is not a scalar, vector or array of them")
            })?;
            let member = self
                .member_names
                .get(&(ty, k))
                .cloned()
                .ok_or_else(|| format!("{name} member {k} has no name (OpMemberName)"))?;
            out.bytes = out.bytes.max(offset + size);
            out.members.push((member, offset));
        }
        Ok(out)
    }
}

/// The push-constant block of module `words`, if it has one.
fn spirv_push_constants(words: &[u32]) -> Result<Option<Block>, String> {
    let types = SpirvTypes::read(words)?;
    types.push_constant.map(|ty| types.block(ty)).transpose()
}

/// The specialization constants module `words` declares: name and constant id.
fn spirv_spec_constants(words: &[u32]) -> Result<Vec<(String, u32)>, String> {
    use std::collections::HashMap;
    const OP_NAME: u32 = 5;
    const OP_DECORATE: u32 = 71;
    const SPEC_ID: u32 = 1;
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut ids = Vec::new();
    for (op, w) in instructions(words)? {
        match (op, w) {
            (OP_NAME, [id, name @ ..]) => {
                names.insert(*id, words_text(name));
            }
            (OP_DECORATE, [target, SPEC_ID, id]) => ids.push((*target, *id)),
            _ => {}
        }
    }
    let mut out: Vec<(String, u32)> = ids
        .into_iter()
        .map(|(t, id)| (names.get(&t).cloned().unwrap_or_default(), id))
        .collect();
    out.sort_by_key(|(_, id)| *id);
    Ok(out)
}

/// The storage-buffer block named `block` in module `words`, if it has one.
fn spirv_buffer_block(words: &[u32], block: &str) -> Result<Option<Block>, String> {
    let types = SpirvTypes::read(words)?;
    types
        .struct_named(block)
        .map(|ty| types.block(ty))
        .transpose()
}

/// A SPIR-V literal string (NUL-terminated, packed in words).
fn words_text(w: &[u32]) -> String {
    let bytes: Vec<u8> = w.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
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
/// differ fail the build, and so does any other block larger than `Params`
/// (every pipeline has `Params`' push-constant range).
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
    if let Some((c, p)) = compiled
        .iter()
        .filter_map(|c| c.push_constants.as_ref().map(|p| (c, p)))
        .find(|(_, p)| p.bytes > block.bytes)
    {
        return Err(format!(
            "{}'s push-constant block {} ({} bytes) is larger than Params ({} bytes)",
            c.name, p.name, p.bytes, block.bytes
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
const OTHER_PUSH_BLOCKS: [(&str, &str); 2] = [("Lowpass", "LowpassParams"), ("Psnr", "PsnrParams")];
