//! A slot's buffers and descriptor sets for the scorer's program: each
//! metric's buffers ([`super::recorder::BufferDecl`]), what each role
//! ([`Buf`]) is bound to, the sets, and pointing the raw picture bindings
//! at other planes.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::recorder::{Buf, BufferDecl};
use super::slots::Slot;
use super::VkScorer;
use crate::Result;

impl VkScorer {
    /// Slot `i`'s buffers of every metric, in the metrics' order.
    pub(super) fn create_metric_buffers(
        &self,
        i: usize,
    ) -> Result<Vec<Vec<crate::vk::memory::Buffer>>> {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let decls: Vec<(usize, BufferDecl)> = self
            .gpu_metrics
            .iter()
            .enumerate()
            .flat_map(|(m, metric)| metric.buffers().into_iter().map(move |d| (m, d)))
            .collect();
        let made = self.gpu.create_buffers(decls.iter().map(|(_, d)| {
            let (usage, location) = if d.host {
                (storage, MemoryLocation::GpuToCpu)
            } else {
                (
                    storage | vk::BufferUsageFlags::TRANSFER_SRC,
                    MemoryLocation::GpuOnly,
                )
            };
            let name = format!("vkssim slot {i} {}", d.name);
            (name, d.bytes.max(4), usage, location)
        }))?;
        let mut out: Vec<Vec<crate::vk::memory::Buffer>> =
            self.gpu_metrics.iter().map(|_| Vec::new()).collect();
        for ((m, _), b) in decls.iter().zip(made) {
            out[*m].push(b);
        }
        Ok(out)
    }

    /// What buffer `b` of `slot` is bound as: (buffer, offset, range);
    /// [`Buf::Previous`] as `previous`, the slot's previous-reference buffer
    /// (null outside the sets of `super::previous`).
    pub(super) fn resolve(
        &self,
        slot: &Slot,
        b: Buf,
        previous: vk::Buffer,
    ) -> (vk::Buffer, u64, u64) {
        let whole = vk::WHOLE_SIZE;
        match b {
            Buf::Previous => (previous, 0, whole),
            Buf::Raw(p) => slot.raw_binding[p as usize],
            Buf::Range => (slot.range.raw, 0, whole),
            Buf::Ready => (slot.ready.raw, 0, whole),
            Buf::Own(m, k) => match self.derived_binding(slot, b) {
                Some(buffer) => (buffer, 0, whole),
                None => (slot.bufs[m as usize][k as usize].raw, 0, whole),
            },
            Buf::Kept(m, k) => (
                self.gpu_metrics[m as usize].kept_buffers()[k as usize].raw,
                0,
                whole,
            ),
        }
    }

    /// Allocates the descriptor sets of `slot` (slot `i`): one per set of
    /// the program, bound to the slot's buffers.
    pub(super) fn create_sets(&self, i: usize, slot: &mut Slot) -> Result<()> {
        let mut sets = Vec::new();
        for (k, key) in self.program.sets.iter().enumerate() {
            let buffers: Vec<(u32, vk::Buffer, u64, u64)> = key
                .bindings
                .iter()
                .map(|&(binding, b)| {
                    let (buffer, offset, range) = self.resolve(slot, b, vk::Buffer::null());
                    (binding, buffer, offset, range)
                })
                .collect();
            let layout = self.pipelines.layout(key.shader).set_layout;
            sets.push(crate::vk::pipeline::allocate_set(
                &self.gpu,
                self.descriptor_pool,
                (key.shader, layout),
                &buffers,
                &format!("vkssim slot {i} {} set {k}", key.shader.as_str()),
            )?);
        }
        slot.sets = sets;
        Ok(())
    }

    /// Points slot `i`'s raw picture bindings at `sources` ((picture,
    /// (buffer, offset, range))) in every set that binds them. The slot must
    /// not be in flight; its command buffers must be re-recorded after.
    pub(super) fn bind_planes(&mut self, i: usize, sources: &[(u8, (vk::Buffer, u64, u64))]) {
        for &(p, source) in sources {
            self.slots[i].raw_binding[p as usize] = source;
        }
        self.rebind(i, |b| sources.iter().any(|&(p, _)| b == Buf::Raw(p)));
    }

    /// Writes again, in every set of slot `i`, the bindings whose roles
    /// `moved` picks, as [`VkScorer::resolve`] now binds them (after the
    /// slot's sources changed). The slot must not be in flight; its command
    /// buffers must be re-recorded after.
    pub(super) fn rebind(&self, i: usize, moved: impl Fn(Buf) -> bool) {
        let slot = &self.slots[i];
        for (key, &set) in self.program.sets.iter().zip(&slot.sets) {
            let writes: Vec<(u32, vk::Buffer, u64, u64)> = key
                .bindings
                .iter()
                .filter(|&&(_, b)| moved(b))
                .map(|&(binding, b)| {
                    let (buffer, offset, range) = self.resolve(slot, b, vk::Buffer::null());
                    (binding, buffer, offset, range)
                })
                .collect();
            if !writes.is_empty() {
                crate::vk::pipeline::write_set(&self.gpu, set, &writes);
            }
        }
    }
}
