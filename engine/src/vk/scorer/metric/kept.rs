//! [`KeptBuffers`]: the buffers a metric's plan keeps for the whole scorer
//! ([`super::GpuMetric::kept_buffers`]): made with the plan, destroyed when
//! it drops. A scorer drops its plans after its work is done (or before any
//! was submitted), so no pass is using them then.

use std::sync::Arc;

use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;

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
