//! Every metric of a [`MetricSet`] on one pair ([`score_metrics`]): the CPU
//! twin of each (`CpuTwin`, implemented in the metric's own module and
//! reached through the registry's `MetricConfig::cpu_twin`), in the set's
//! order, into one [`FrameScore`].

use std::any::Any;

use crate::io::Chroma;
use crate::metric::{MetricOutputs, MetricSet};
use crate::{Error, FrameScore, LumaView, Result};

/// One pair as a metric's CPU twin gets it.
pub(crate) struct TwinPair<'p, 'v> {
    /// The reference's luma plane, then its Cb and Cr planes (as stored:
    /// sides rounded up) when the set reads chroma.
    pub(crate) reference: &'p [LumaView<'v>],
    /// The distorted frame's planes, as `reference`.
    pub(crate) distorted: &'p [LumaView<'v>],
    /// The previous frame's reference luma (`None`: the first frame), for a
    /// temporal metric.
    pub(crate) previous: Option<&'p LumaView<'v>>,
    /// The pictures' chroma layout.
    pub(crate) chroma: Chroma,
}

impl<'v> TwinPair<'_, 'v> {
    /// The two luma planes.
    pub(crate) fn luma(&self) -> (&LumaView<'v>, &LumaView<'v>) {
        (&self.reference[0], &self.distorted[0])
    }
}

/// Buffers a CPU worker keeps for one metric from frame to frame (`None`
/// until its twin first makes them: float_ms_ssim's pyramid).
pub(crate) type TwinWork = Option<Box<dyn Any + Send>>;

/// A metric's exact CPU twin.
pub(crate) trait CpuTwin {
    /// Adds the pair's values to `out` (its outputs, in libvmaf's order, and
    /// what it keeps of the frame), using and keeping `work`.
    fn score(
        &self,
        pair: &TwinPair<'_, '_>,
        work: &mut TwinWork,
        out: &mut FrameScore,
    ) -> Result<()>;
}

/// A metric whose twin gives its outputs from the pair alone (no worker
/// buffers, nothing kept): every such metric is a [`CpuTwin`].
pub(crate) trait OutputsTwin {
    /// The pair's outputs, in libvmaf's order.
    fn outputs(&self, pair: &TwinPair<'_, '_>) -> Result<MetricOutputs>;
}

impl<T: OutputsTwin> CpuTwin for T {
    fn score(
        &self,
        pair: &TwinPair<'_, '_>,
        _work: &mut TwinWork,
        out: &mut FrameScore,
    ) -> Result<()> {
        out.outputs.extend(&self.outputs(pair)?);
        Ok(())
    }
}

/// The worker buffers of type `T` in `work`, made on first use.
pub(crate) fn work_of<T: Any + Send + Default>(work: &mut TwinWork) -> &mut T {
    if !work.as_ref().is_some_and(|w| w.is::<T>()) {
        *work = Some(Box::<T>::default());
    }
    work.as_mut()
        .and_then(|w| w.downcast_mut::<T>())
        .expect("made above")
}

/// Scores one pair with every metric of `set`, bit for bit as libvmaf.
/// `reference` and `distorted` are the luma plane, then, when
/// [`MetricSet::needs_chroma`], the Cb and Cr planes (as stored: sides
/// rounded up).
///
/// Errors: those of each metric's twin; too few planes
/// ([`Error::InvalidOption`]).
pub fn score_metrics(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    set: &MetricSet,
) -> Result<FrameScore> {
    score_metrics_in(reference, distorted, None, set, &mut Vec::new())
}

/// [`score_metrics`] in a CPU worker's buffers (one per metric of the set),
/// reused from frame to frame, with the previous frame's reference luma for
/// a temporal metric (`None`: the first frame).
pub(crate) fn score_metrics_in(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    previous: Option<&LumaView<'_>>,
    set: &MetricSet,
    work: &mut Vec<TwinWork>,
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
    let pair = TwinPair {
        reference: &reference[..planes],
        distorted: &distorted[..planes],
        previous,
        chroma: set.chroma(),
    };
    work.resize_with(set.configs().len(), || None);
    let mut score = FrameScore::empty();
    for (config, work) in set.configs().iter().zip(work.iter_mut()) {
        config.cpu_twin().score(&pair, work, &mut score)?;
    }
    Ok(score)
}
