//! [`KeptBuffers`]: the buffers a metric's plan keeps for the whole scorer
//! ([`super::GpuMetric::kept_buffers`]): made with the plan, destroyed when
//! it drops. A scorer drops its plans after its work is done (or before any
//! was submitted), so no pass is using them then.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::super::not_mapped;
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::Result;

/// Buffers owned by a plan, destroyed with it (see the module docs).
pub(in crate::vk::scorer) struct KeptBuffers {
    buffers: Vec<Buffer>,
    gpu: Arc<Gpu>,
}

impl KeptBuffers {
    /// None yet, on `gpu`.
    pub(super) fn new(gpu: &Arc<Gpu>) -> Self {
        Self {
            buffers: Vec::new(),
            gpu: Arc::clone(gpu),
        }
    }

    /// Keeps `b` (the next index of [`super::super::recorder::Recorder::kept`]).
    pub(super) fn push(&mut self, b: Buffer) {
        self.buffers.push(b);
    }

    /// Keeps a host-visible buffer named `name` holding `bytes` (a table,
    /// or a start the device's passes count on), written here through its
    /// mapping. The buffer is kept (and destroyed with the others) even when
    /// it could not be written; the error says why.
    pub(super) fn push_written(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let mut buf = self.gpu.create_buffer(
            name,
            bytes.len() as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let written = match buf.mapped_mut() {
            Some(mapped) => {
                mapped[..bytes.len()].copy_from_slice(bytes);
                Ok(())
            }
            None => Err(not_mapped()),
        };
        self.push(buf);
        written
    }

    /// Every buffer kept, in order.
    pub(super) fn all(&self) -> &[Buffer] {
        &self.buffers
    }
}

impl Drop for KeptBuffers {
    fn drop(&mut self) {
        for b in &mut self.buffers {
            self.gpu.destroy_buffer(b);
        }
    }
}
