//! The build script's reader of compiled SPIR-V: its instructions, the
//! workgroup size, the push-constant and storage-buffer blocks with their
//! members' offsets, the specialization constants and the bindings each
//! shader reads and writes, for the checks and the shader table of
//! `engine/build.rs`.

/// A block (push constants or a storage buffer) as a shader's SPIR-V
/// declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// The block's name (`Params`, the one every frame pass shares).
    pub(crate) name: String,
    /// Bytes the block spans (the last member's offset plus its size).
    pub(crate) bytes: u32,
    /// Each member's name and byte offset, in declaration order.
    pub(crate) members: Vec<(String, u32)>,
}

/// How a shader uses one descriptor binding (set 0), read from its SPIR-V.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BindingUse {
    /// The block's name (`RawRef`, `RowSse`, ...): its struct type's `OpName`.
    pub(crate) block: String,
    /// Whether the shader reads it (loads, atomics).
    pub(crate) read: bool,
    /// Whether the shader writes it (stores, atomics).
    pub(crate) write: bool,
}

/// The descriptor bindings (set 0) that SPIR-V module `words` accesses, with
/// how: every storage-buffer variable with a `Binding` decoration, followed
/// through access chains to the loads, stores and atomics of the functions
/// the module contains (glslang emits only the functions `main` reaches).
/// A binding declared but never accessed is not listed (the pipeline's
/// layout then leaves it out).
///
/// Fails when a binding's use contradicts its declaration: written though
/// `readonly` (`NonWritable`, on the variable or its block's members), read
/// though `writeonly` (`NonReadable`), or in a set other than 0.
pub(crate) fn binding_access(
    words: &[u32],
) -> Result<std::collections::BTreeMap<u32, BindingUse>, String> {
    use std::collections::{BTreeMap, HashMap, HashSet};
    const OP_NAME: u32 = 5;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_VARIABLE: u32 = 59;
    const OP_DECORATE: u32 = 71;
    const OP_MEMBER_DECORATE: u32 = 72;
    const DECORATION_NON_WRITABLE: u32 = 24;
    const DECORATION_NON_READABLE: u32 = 25;
    const DECORATION_BINDING: u32 = 33;
    const DECORATION_DESCRIPTOR_SET: u32 = 34;
    const OP_LOAD: u32 = 61;
    const OP_STORE: u32 = 62;
    const OP_COPY_MEMORY: u32 = 63;
    const OP_ACCESS_CHAIN: u32 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    const OP_PTR_ACCESS_CHAIN: u32 = 67;
    const OP_ARRAY_LENGTH: u32 = 68;
    const OP_ATOMIC_LOAD: u32 = 227;
    const OP_ATOMIC_STORE: u32 = 228;
    const OP_ATOMIC_LAST: u32 = 242;
    let mut binding_of: HashMap<u32, u32> = HashMap::new();
    let mut set_of: HashMap<u32, u32> = HashMap::new();
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut pointee: HashMap<u32, u32> = HashMap::new();
    let mut var_type: HashMap<u32, u32> = HashMap::new();
    // (id, decoration) on variables, and on any member of struct types.
    let mut decorated: HashSet<(u32, u32)> = HashSet::new();
    let mut base: HashMap<u32, u32> = HashMap::new();
    let mut uses: Vec<(u32, bool, bool)> = Vec::new();
    for (op, w) in instructions(words)? {
        match (op, w) {
            (OP_NAME, [id, name @ ..]) => {
                names.insert(*id, words_text(name));
            }
            (OP_TYPE_POINTER, [id, _, ty]) => {
                pointee.insert(*id, *ty);
            }
            (OP_VARIABLE, [ty, id, ..]) => {
                var_type.insert(*id, *ty);
            }
            (OP_DECORATE, [target, DECORATION_BINDING, b, ..]) => {
                binding_of.insert(*target, *b);
            }
            (OP_DECORATE, [target, DECORATION_DESCRIPTOR_SET, s, ..]) => {
                set_of.insert(*target, *s);
            }
            (OP_DECORATE, [target, d, ..]) => {
                decorated.insert((*target, *d));
            }
            (OP_MEMBER_DECORATE, [ty, _, d, ..]) => {
                decorated.insert((*ty, *d));
            }
            (OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN | OP_PTR_ACCESS_CHAIN, [_, id, b, ..]) => {
                let root = base.get(b).copied().unwrap_or(*b);
                base.insert(*id, root);
            }
            // `.length()` reads the buffer's size, not its contents: a use
            // that the layout must cover, read-only.
            (OP_ARRAY_LENGTH, [_, _, b, ..]) => uses.push((*b, false, false)),
            (OP_LOAD, [_, _, p, ..]) => uses.push((*p, true, false)),
            (OP_STORE, [p, ..]) => uses.push((*p, false, true)),
            (OP_COPY_MEMORY, [to, from, ..]) => {
                uses.push((*to, false, true));
                uses.push((*from, true, false));
            }
            (OP_ATOMIC_STORE, [p, ..]) => uses.push((*p, false, true)),
            (OP_ATOMIC_LOAD, [_, _, p, ..]) => uses.push((*p, true, false)),
            (o, [_, _, p, ..]) if (OP_ATOMIC_LOAD + 2..=OP_ATOMIC_LAST).contains(&o) => {
                uses.push((*p, true, true))
            }
            _ => {}
        }
    }
    let mut out: BTreeMap<u32, BindingUse> = BTreeMap::new();
    for (pointer, read, write) in uses {
        let root = base.get(&pointer).copied().unwrap_or(pointer);
        let Some(&b) = binding_of.get(&root) else {
            continue;
        };
        let set = set_of.get(&root).copied().unwrap_or(0);
        if set != 0 {
            return Err(format!("binding {b} is in descriptor set {set}, not 0"));
        }
        let block = var_type
            .get(&root)
            .and_then(|t| pointee.get(t))
            .copied()
            .unwrap_or(0);
        let e = out.entry(b).or_insert_with(|| BindingUse {
            block: names.get(&block).cloned().unwrap_or_default(),
            read: false,
            write: false,
        });
        e.read |= read;
        e.write |= write;
        let has = |d: u32| decorated.contains(&(root, d)) || decorated.contains(&(block, d));
        if e.write && has(DECORATION_NON_WRITABLE) {
            return Err(format!("binding {b} ({}) is readonly but written", e.block));
        }
        if e.read && has(DECORATION_NON_READABLE) {
            return Err(format!("binding {b} ({}) is writeonly but read", e.block));
        }
    }
    Ok(out)
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
pub(crate) fn spirv_local_size(words: &[u32]) -> Result<[u32; 3], String> {
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
pub(crate) fn spirv_push_constants(words: &[u32]) -> Result<Option<Block>, String> {
    let types = SpirvTypes::read(words)?;
    types.push_constant.map(|ty| types.block(ty)).transpose()
}

/// The specialization constants module `words` declares: name and constant id.
pub(crate) fn spirv_spec_constants(words: &[u32]) -> Result<Vec<(String, u32)>, String> {
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
pub(crate) fn spirv_buffer_block(words: &[u32], block: &str) -> Result<Option<Block>, String> {
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
