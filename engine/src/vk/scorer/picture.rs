//! Pictures with chroma into a scorer with metrics: [`VkScorer::submit_picture`]
//! (the luma plane and, when psnr reads it, the Cb and Cr planes, checked and
//! copied into an upload slot), and the synchronous [`VkScorer::score_picture`]
//! and [`VkScorer::debug_metrics`] the tests use.

use super::metric::MetricDebug;
use super::VkScorer;
use crate::frame::bytes_per_sample;
use crate::metric::MetricOutputs;
use crate::{Error, LumaView, Result};

/// Checks a plane of a picture given to [`VkScorer::submit_picture`]: its
/// bit depth, one of the sizes it may have, and bytes enough for its rows.
fn check_plane(
    view: &LumaView<'_>,
    sizes: &[(u32, u32)],
    bit_depth: u32,
    what: &str,
) -> Result<()> {
    if view.bit_depth != bit_depth || !sizes.contains(&(view.width, view.height)) {
        return Err(Error::GeometryMismatch(format!(
            "{what} is {}x{} {}-bit, but this scorer takes {}x{} {bit_depth}-bit",
            view.width, view.height, view.bit_depth, sizes[0].0, sizes[0].1
        )));
    }
    let row = view.width as usize * bytes_per_sample(bit_depth);
    let needed = (view.height as usize).saturating_sub(1) * view.row_stride + row;
    if view.row_stride < row || view.bytes.len() < needed {
        return Err(Error::BufferSize {
            what: what.to_string(),
            needed,
            actual: view.bytes.len(),
        });
    }
    Ok(())
}

/// Copies `view`'s rows into `dst`, a packed plane of `stride` bytes per row.
fn copy_rows(view: &LumaView<'_>, dst: &mut [u8], stride: usize) {
    let row = view.width as usize * bytes_per_sample(view.bit_depth);
    for y in 0..view.height as usize {
        let src = &view.bytes[y * view.row_stride..y * view.row_stride + row];
        dst[y * stride..y * stride + row].copy_from_slice(src);
    }
}

impl VkScorer {
    /// Submits one pair of pictures: `reference` and `distorted` each hold
    /// the luma plane, then, when this scorer's psnr reads chroma, the Cb and
    /// Cr planes (as a file stores them, sides rounded up, or at libvmaf's
    /// truncated picture sizes; only the truncated top-left region is
    /// scored). Scored as the next frame, as [`crate::FrameScorer::submit`].
    ///
    /// Errors: a plane of the wrong size or depth
    /// ([`Error::GeometryMismatch`]), too few planes or bytes
    /// ([`Error::InvalidOption`], [`Error::BufferSize`]), and the ring's.
    pub fn submit_picture(
        &mut self,
        reference: &[LumaView<'_>],
        distorted: &[LumaView<'_>],
    ) -> Result<()> {
        let frame = self.next_frame;
        let g = self.sizes.geometry;
        let layout = self.sizes.picture;
        let planes = if layout.chroma.is_some() { 3 } else { 1 };
        let chroma_sizes = self.metric_chroma().map(|(_, scored)| scored);
        for (views, which) in [(reference, "reference"), (distorted, "distorted")] {
            if views.len() < planes {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: {planes} planes of the {which} are needed (luma, Cb, Cr), {} given",
                    views.len()
                )));
            }
            let luma = format!("frame {frame}: the {which}'s luma plane");
            check_plane(&views[0], &[(g.width, g.height)], g.bit_depth, &luma)?;
            if let (Some(stored), Some(scored)) = (layout.chroma, chroma_sizes) {
                for (k, name) in [(1, "Cb"), (2, "Cr")] {
                    let what = format!("frame {frame}: the {which}'s {name} plane");
                    check_plane(&views[k], &[stored, scored], g.bit_depth, &what)?;
                }
            }
        }
        let mut slot = self.acquire_slot()?;
        let stride = |w: u32| w as usize * layout.bps as usize;
        {
            // SAFETY: the slot was just handed out by this scorer, which is
            // alive and has not taken it back.
            let (a, b) = unsafe { slot.planes_mut() };
            copy_rows(&reference[0], a, stride(g.width));
            copy_rows(&distorted[0], b, stride(g.width));
        }
        if let Some((w, _)) = layout.chroma {
            // SAFETY: as above.
            if let Some([rc, dc]) = unsafe { slot.chroma_mut() } {
                for (k, dst) in rc.into_iter().enumerate() {
                    copy_rows(&reference[k + 1], dst, stride(w));
                }
                for (k, dst) in dc.into_iter().enumerate() {
                    copy_rows(&distorted[k + 1], dst, stride(w));
                }
            }
        }
        self.submit_slot(slot)
    }

    /// [`VkScorer::submit_picture`] and waiting for its result: the frame's
    /// outputs for the scorer's metric list. Frames already submitted are
    /// finished first and their results dropped.
    pub fn score_picture(
        &mut self,
        reference: &[LumaView<'_>],
        distorted: &[LumaView<'_>],
    ) -> Result<MetricOutputs> {
        self.drain_results();
        self.submit_picture(reference, distorted)?;
        self.finish_one()
    }

    /// Scores one pair synchronously like [`VkScorer::score_picture`] and
    /// copies back what the metric passes wrote (psnr's sums, the MS-SSIM
    /// pyramid), for pass-by-pass comparison with the CPU twins.
    pub fn debug_metrics(
        &mut self,
        reference: &[LumaView<'_>],
        distorted: &[LumaView<'_>],
    ) -> Result<MetricDebug> {
        let outputs = self.score_picture(reference, distorted)?;
        let i = self
            .last_slot
            .ok_or_else(|| Error::Internal("no slot was scored".into()))?;
        Ok(MetricDebug {
            outputs,
            ..self.read_metric_debug(i)?
        })
    }

    /// Finishes every frame in flight, dropping their results.
    fn drain_results(&mut self) {
        use crate::FrameScorer;
        while self.wait_next().is_some() {}
        self.metrics.done.clear();
    }

    /// The one frame in flight's metric outputs.
    fn finish_one(&mut self) -> Result<MetricOutputs> {
        use crate::FrameScorer;
        match self.wait_next() {
            Some(Ok(score)) => {
                // Its queued copy (the queue was emptied before it).
                self.metrics.done.clear();
                Ok(score.outputs)
            }
            Some(Err(e)) => Err(e),
            None => Err(Error::Internal("the frame submitted was not scored".into())),
        }
    }
}
