//! Every metric of a [`MetricSet`] on one pair ([`score_metrics`]): the CPU
//! twin of each, in the set's order, into one [`FrameScore`].

use super::ms_ssim::{self, MsSsimWork};
use super::{psnr, score_frame};
use crate::feature::adm::extractor as adm;
use crate::feature::motion::extractor as motion;
use crate::feature::vif::extractor as vif;
use crate::metric::config::MetricConfig;
use crate::metric::MetricSet;
use crate::{Error, FrameScore, LumaView, Result};

/// Scores one pair with every metric of `set`, bit for bit as libvmaf.
/// `reference` and `distorted` are the luma plane, then, when
/// [`MetricSet::needs_chroma`], the Cb and Cr planes (as stored: sides
/// rounded up).
///
/// Errors: those of each metric's twin ([`score_frame`],
/// [`psnr::score_psnr`], [`ms_ssim::score_ms_ssim`]); too few planes
/// ([`Error::InvalidOption`]).
pub fn score_metrics(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    set: &MetricSet,
) -> Result<FrameScore> {
    score_metrics_in(reference, distorted, None, set, &mut MsSsimWork::default())
}

/// [`score_metrics`] in a CPU worker's buffers, reused from frame to frame,
/// with the previous frame's reference luma for a temporal metric (`None`:
/// the first frame).
pub(crate) fn score_metrics_in(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    previous: Option<&LumaView<'_>>,
    set: &MetricSet,
    work: &mut MsSsimWork,
) -> Result<FrameScore> {
    let planes = if set.needs_chroma() { 3 } else { 1 };
    if reference.len() < planes || distorted.len() < planes {
        return Err(Error::InvalidOption(format!(
            "{planes} planes of each frame needed (luma{}), {} and {} given",
            if planes == 3 { ", Cb and Cr" } else { "" },
            reference.len(),
            distorted.len()
        )));
    }
    let (r, d) = (&reference[0], &distorted[0]);
    let mut score = FrameScore::empty();
    for config in set.configs() {
        match config {
            MetricConfig::FloatSsim(o) => {
                let s = score_frame(r, d, o)?;
                score.outputs.extend(&s.outputs);
                score.side.extend(&s.side);
            }
            MetricConfig::Psnr(o) => {
                let f =
                    psnr::score_psnr(&reference[..planes], &distorted[..planes], set.chroma(), o)?;
                score.outputs.extend(&f.outputs);
                score.side.extend(&f.side);
            }
            MetricConfig::FloatMsSsim(o) => {
                score
                    .outputs
                    .extend(&ms_ssim::score_ms_ssim_in(r, d, o, work)?);
            }
            MetricConfig::Vif(o) => score.outputs.extend(&vif::frame_outputs(r, d, o)?),
            MetricConfig::Adm(o) => score.outputs.extend(&adm::frame_outputs(r, d, o)?),
            MetricConfig::Motion(o) => score
                .outputs
                .extend(&motion::frame_outputs(previous, r, o)?),
        }
    }
    Ok(score)
}
