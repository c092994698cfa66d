//! A shared reference's derived planes, the scorer's side (the plane's is
//! [`crate::vk::shared_plane`]): the buffers a metric makes from the
//! reference picture alone ([`BufferDecl::of_reference`]: a wavelet's bands
//! of the reference, say) are, for a pair whose reference is
//! a shared plane, the plane's own buffers instead of the slot's. The first
//! pair of a ladder's picture makes them there ([`DerivedUse::Make`]); a
//! pair of another scorer whose list makes the same buffers, submitted on
//! the device's one queue after that pair's submission, reads them
//! ([`DerivedUse::Read`]): its slot's [`Buf::Ready`] word is 1, and the
//! passes that make them then make the distorted picture's alone. The
//! program's first barrier (`super::recorder`) orders its reads after the
//! earlier submission's writes, as for a temporal metric's kept buffers.
//!
//! The choice never changes a number: a pair reads the plane's buffers only
//! once the submission that writes them is on the queue before its own
//! ([`VkScorer::derived_submitted`]), and only when its metrics make the
//! same buffers from the same picture (the same key); otherwise it makes
//! its own, as without a shared plane. A pair that makes them is submitted
//! at once, not held in a batch, so that the other scorers find them made.

use std::sync::Arc;

use ash::vk;

use super::metric::GpuMetric;
use super::recorder::{Buf, BufferDecl};
use super::slots::Slot;
use super::VkScorer;
use crate::vk::shared_plane::{DerivedUse, SharedPlane};
use crate::Result;

/// The buffers a scorer's metrics make from the reference alone.
pub(super) struct DerivedLayout {
    /// What they hold: each buffer's metric, name, size and key.
    key: String,
    /// Each buffer's role in the program.
    roles: Vec<Buf>,
    /// Each buffer's name and size.
    decls: Vec<(String, u64)>,
}

impl DerivedLayout {
    /// The layout of `metrics`' buffers made from the reference; `None`
    /// when they make none.
    pub(super) fn of(metrics: &[Arc<dyn GpuMetric>]) -> Option<Self> {
        let mut layout = Self {
            key: String::new(),
            roles: Vec::new(),
            decls: Vec::new(),
        };
        for (m, metric) in metrics.iter().enumerate() {
            for (k, d) in metric.buffers().into_iter().enumerate() {
                let BufferDecl {
                    name,
                    bytes,
                    reference_key: Some(key),
                    ..
                } = d
                else {
                    continue;
                };
                layout.key.push_str(&format!(
                    "{}: {name}, {bytes} bytes, {key}; ",
                    metric.feature()
                ));
                layout.roles.push(Buf::Own(m as u16, k as u16));
                layout.decls.push((name, bytes));
            }
        }
        (!layout.roles.is_empty()).then_some(layout)
    }
}

impl VkScorer {
    /// The buffer `slot` binds for `b` when `b` is made from the reference
    /// and the slot reads (or makes) a shared plane's; `None` otherwise.
    pub(super) fn derived_binding(&self, slot: &Slot, b: Buf) -> Option<vk::Buffer> {
        let layout = self.derived.as_ref()?;
        let bound = slot.derived.as_ref()?;
        let k = layout.roles.iter().position(|&r| r == b)?;
        bound.get(k).copied()
    }

    /// Chooses how slot `i`'s pair (not in flight) gets the buffers made
    /// from its reference (`reference`, when a shared plane; see the module
    /// docs), points the slot's sets at them and writes its
    /// [`Buf::Ready`] word. Returns whether the sets changed: the slot must
    /// then be re-recorded.
    pub(super) fn use_derived(
        &mut self,
        i: usize,
        reference: Option<&SharedPlane>,
    ) -> Result<bool> {
        let chosen = match (reference, &self.derived) {
            (Some(plane), Some(layout)) => plane.derived_use(&layout.key, &layout.decls),
            _ => DerivedUse::Own,
        };
        let (bound, ready, making) = match chosen {
            DerivedUse::Own => (None, 0u32, None),
            DerivedUse::Make(b) => {
                self.stats.shared_reference_makes += 1;
                (Some(b), 0, reference.cloned())
            }
            DerivedUse::Read(b) => {
                self.stats.shared_reference_reads += 1;
                (Some(b), 1, None)
            }
        };
        let slot = &mut self.slots[i];
        let word = slot.ready.mapped_mut().ok_or_else(super::not_mapped)?;
        word[..4].copy_from_slice(&ready.to_le_bytes());
        slot.making = making;
        if slot.derived == bound {
            return Ok(false);
        }
        slot.derived = bound;
        let roles = self.derived.as_ref().map_or(&[][..], |l| &l.roles[..]);
        self.rebind(i, |b| roles.contains(&b));
        Ok(true)
    }

    /// `slots` were submitted: the shared planes whose derived planes their
    /// pairs make are made for every later submission.
    pub(super) fn derived_submitted(&mut self, slots: &[usize]) {
        for &i in slots {
            if let Some(plane) = self.slots[i].making.take() {
                plane.derived_made();
            }
        }
    }
}
