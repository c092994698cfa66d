//! Slots whose reference is a shared plane ([`crate::vk::shared_plane`]): the
//! slot's reference binding points at the plane instead of the slot's own
//! upload buffer (a whole picture, luma then Cb and Cr, when psnr reads
//! chroma: the plane is laid out as the slot's upload memory, and its chroma
//! size must be the scorer's), and the slot holds the plane until its fence
//! signalled. A descriptor update invalidates the command buffers the set is
//! bound in, so the slot is rebound and re-recorded only when the plane it reads changes
//! (planes are pooled, so a slot meets the same few planes again).

use ash::vk;

use super::slots::ReferenceSource;
use super::VkScorer;
use crate::frame::PlaneGeometry;
use crate::vk::shared_plane::SharedPlane;
use crate::{Error, Result};

impl VkScorer {
    /// Points slot `i`'s reference binding at `reference` (or back at the
    /// slot's own upload buffer), re-recording the slot when that changes, and
    /// holds the plane for the frame.
    pub(super) fn read_reference_from(
        &mut self,
        i: usize,
        reference: Option<&SharedPlane>,
    ) -> Result<()> {
        let (source, buffer) = match reference {
            None => (ReferenceSource::Own, self.slots[i].raw[0].raw),
            Some(plane)
                if self.sizes.picture.chroma.is_some()
                    && plane.chroma_plane_size() != self.sizes.picture.chroma =>
            {
                let (cw, ch) = self.sizes.picture.chroma.unwrap_or_default();
                return Err(Error::InvalidOption(match plane.chroma_plane_size() {
                    None => "a shared reference plane of luma only for a scorer whose metrics \
                             read chroma: take the plane from a pool of the scorer's own \
                             description (Scorer::shared_planes, Engine::shared_planes; in C, \
                             vkssim_scorer_shared_planes, vkssim_shared_planes_create_desc), \
                             whose planes hold the luma, Cb and Cr planes"
                        .to_string(),
                    Some((w, h)) => format!(
                        "a shared reference plane whose chroma planes are {w}x{h} for a \
                         scorer that reads {cw}x{ch} chroma planes (another chroma layout)"
                    ),
                }));
            }
            Some(plane) => {
                let Some((buffer, id, gpu)) = plane.binding() else {
                    return Err(Error::Internal("a shared plane without its buffer".into()));
                };
                if !std::sync::Arc::ptr_eq(gpu, &self.gpu) {
                    return Err(Error::InvalidOption(format!(
                        "a shared reference plane of device {} given to a scorer on device {}",
                        gpu.device_name(),
                        self.gpu.device_name()
                    )));
                }
                let g = self.sizes.geometry;
                let (width, height, bit_depth) = plane.geometry();
                PlaneGeometry::new(width, height, bit_depth).expect_same(
                    "a shared reference plane given to a scorer",
                    PlaneGeometry::new(g.width, g.height, g.bit_depth),
                    "the scorer",
                )?;
                (ReferenceSource::Shared(id), buffer)
            }
        };
        // The buffers made from the reference: the plane's or the slot's
        // own (`super::derived`).
        let derived_moved = self.use_derived(i, reference)?;
        let moved = self.slots[i].reference != source;
        if moved {
            self.bind_planes(i, &[(0, (buffer, 0, vk::WHOLE_SIZE))]);
            self.slots[i].reference = source;
        }
        if moved || derived_moved {
            self.record(i)?;
        }
        self.slots[i].holding = reference.cloned();
        Ok(())
    }
}
