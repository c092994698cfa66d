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

/// The descriptor bindings (set 0) that SPIR-V module `words` accesses, with
/// (read, written): every storage-buffer variable with a `Binding`
/// decoration, followed through access chains to the loads, stores and
/// atomics of the functions the module contains (glslang emits only the
/// functions `main` reaches).
pub(crate) fn binding_access(
    words: &[u32],
) -> Result<std::collections::BTreeMap<u32, (bool, bool)>, String> {
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
