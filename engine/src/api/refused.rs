//! Pairs refused for a sample above the bit depth ([`Error::SampleRange`]),
//! whichever path finds it: the host's check of a host plane (on
//! submission) or the device's (a frame slot's, a shared or imported
//! plane's). Either way the pair keeps its place in the stream and its
//! result is the error, so that the frames around it score the same on
//! every path (the contract: [`super::ScoreQueue`]'s "Refused pairs").
//!
//! A pair the host refuses is scored anyway with in-range stand-ins for
//! what was refused (samples 0: the distorted picture, or both pictures
//! when the reference is refused), and [`Refusals::raw`] turns its result
//! into the error. Motion reads only references, so a pair refused for its
//! distorted picture alone gives its reference's motion exactly, as the
//! device does for a pair whose distorted samples it refused
//! ([`crate::vk::VkScorer::take_refused`]); the stream reads it for the
//! frames around the pair ([`super::stream`]).

use std::collections::VecDeque;

use super::scorer::Inner;
use super::stream::{refused_picture, Raw};
use crate::metric::MetricSet;
use crate::{Error, FrameScore, PlaneRole, Result};

/// The pairs a scorer refused on submission whose results are not out yet,
/// and the values a refused pair's result keeps for the stream.
#[derive(Debug)]
pub(super) struct Refusals {
    /// Per refused pair, oldest first: its index and its error.
    pending: VecDeque<(u64, Error)>,
    /// The names of the values the temporal metrics give (what a pair
    /// refused for its distorted picture keeps).
    temporal: Vec<String>,
}

impl Refusals {
    /// For a scorer of `set`.
    pub(super) fn new(set: &MetricSet) -> Self {
        let chroma = set.chroma();
        let temporal = set
            .configs()
            .iter()
            .map(|c| c.extractor())
            .filter(|x| x.needs().previous_reference)
            .flat_map(|x| x.collected_names(chroma))
            .map(|n| n.to_string())
            .collect();
        Self {
            pending: VecDeque::new(),
            temporal,
        }
    }

    /// Pair `index`, submitted with stand-ins, was refused with `e` (an
    /// [`Error::SampleRange`]).
    pub(super) fn push(&mut self, index: u64, e: Error) {
        self.pending.push_back((index, e));
    }

    /// Pair `index`'s result from `inner`, as the stream takes it: a pair
    /// refused on submission gets its error (its backend's own error if it
    /// failed too), and one refused for its distorted picture alone keeps
    /// the temporal metrics' values of its reference, from its stand-in
    /// pair's score or from the device.
    pub(super) fn raw(&mut self, index: u64, result: Result<FrameScore>, inner: &mut Inner) -> Raw {
        if self.pending.front().is_some_and(|(at, _)| *at == index) {
            let Some((_, e)) = self.pending.pop_front() else {
                return Raw::of(result);
            };
            return match (refused_picture(&e), result) {
                (_, Err(backend)) => Raw::of(Err(backend)),
                (Some(PlaneRole::Distorted), Ok(score)) => Raw {
                    result: Err(e),
                    kept: Some(self.temporal_of(&score)),
                },
                (_, Ok(_)) => Raw::of(Err(e)),
            };
        }
        let kept = match (&result, inner) {
            (
                Err(Error::SampleRange {
                    plane: Some(PlaneRole::Distorted),
                    frame,
                    ..
                }),
                Inner::Vk(v),
            ) => v.take_refused(*frame).map(|outputs| {
                let mut s = FrameScore::empty();
                s.outputs = outputs;
                s
            }),
            _ => None,
        };
        Raw { result, kept }
    }

    /// The temporal metrics' values of `score`.
    fn temporal_of(&self, score: &FrameScore) -> FrameScore {
        let mut kept = FrameScore::empty();
        for (name, value) in score.outputs.iter() {
            if self.temporal.iter().any(|t| t == name) {
                kept.outputs.push(name.to_string(), value);
            }
        }
        kept
    }
}

/// What a plane's packing or check says of its pair: `Ok(Some(e))` for a
/// sample above the bit depth ([`Error::SampleRange`], which refuses the
/// pair, not its submission: it is submitted with stand-ins, see the module
/// note), `Ok(None)` when it passed, and any other error as it is.
pub(super) fn range_refusal(checked: Result<()>) -> Result<Option<Error>> {
    match checked {
        Err(e @ Error::SampleRange { .. }) => Ok(Some(e)),
        other => other.map(|()| None),
    }
}
