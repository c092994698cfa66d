//! [`Stream`]: what every queue does between its backend's results and its
//! caller. A frame's values that need later frames (motion's
//! `integer_motion2`: the next frame's motion) and the VMAF models run on
//! them are filled here: a result is held until the frames it needs are in
//! ([`crate::metric::Extractor::frames_after`]), or until the stream ends
//! ([`super::ScoreQueue::finish`], or an error in the stream), then finished
//! by each metric's [`crate::metric::Extractor::finish_run`] on the window of
//! held frames, exactly as a run's collector ([`crate::metric::Summary`])
//! finishes the whole run, and the models predict on it. Without a temporal
//! metric or a model, results pass straight through.
//!
//! # Refused pairs
//!
//! A pair refused for its samples' range ([`crate::Error::SampleRange`]) is
//! still a frame of the stream, whichever path found the sample (the host's
//! check of a host plane, or the device's), so that every path gives the
//! same values:
//! - refused for its distorted picture alone, its reference is valid and
//!   the stream goes on through it ([`Raw::kept`]: what the temporal metrics
//!   gave of its reference): the frame before it and the frames after it get
//!   libvmaf's values on the stream with that pair in it (motion reads only
//!   references), the pair itself its error;
//! - refused for its reference (or failed for any other reason), the stream
//!   ends before it, as at [`super::ScoreQueue::finish`], and the next frame
//!   starts another: its temporal values are rewritten as a first frame's
//!   ([`crate::metric::Extractor::restart`]), since a backend may already
//!   have compared it against the refused reference.

use std::collections::VecDeque;

use crate::metric::extractor::{Columns, OutputName};
use crate::metric::{MetricSet, Models};
use crate::{Error, FrameScore, PlaneRole, Result};

/// A backend's result for one pair, on its way into the [`Stream`].
#[derive(Debug)]
pub(super) struct Raw {
    /// The pair's result.
    pub(super) result: Result<FrameScore>,
    /// For a pair refused for its distorted picture alone: the values its
    /// (valid) reference gave the temporal metrics, which the frames around
    /// it read (see the module note).
    pub(super) kept: Option<FrameScore>,
}

impl Raw {
    /// A result with nothing kept of a refused pair.
    pub(super) fn of(result: Result<FrameScore>) -> Self {
        Self { result, kept: None }
    }
}

/// The picture whose sample range refused a pair (`None` for any other
/// error), looking through the device a multi-scorer names.
pub(super) fn refused_picture(e: &Error) -> Option<PlaneRole> {
    match e {
        Error::SampleRange { plane, .. } => *plane,
        Error::OnDevice { source, .. } => refused_picture(source),
        _ => None,
    }
}

/// A frame held for later ones: its score, or a pair refused for its
/// distorted picture with what its reference gave.
#[derive(Debug)]
enum Held {
    Scored(FrameScore),
    Refused(Error, FrameScore),
}

impl Held {
    fn values(&self) -> &FrameScore {
        match self {
            Held::Scored(s) | Held::Refused(_, s) => s,
        }
    }
}

/// A queue's results on their way out, in order (see the module note).
#[derive(Debug)]
pub(super) struct Stream {
    set: MetricSet,
    models: Models,
    /// The most later frames a frame's values read.
    after: usize,
    /// Every value a frame's finish and its models read, by name.
    names: Vec<OutputName>,
    /// Scored frames waiting for later ones: consecutive, oldest first.
    held: VecDeque<(u64, Held)>,
    /// Complete results, oldest first.
    ready: VecDeque<(u64, Result<FrameScore>)>,
    /// Results come in from the backend: the index of the next one.
    pushed: u64,
    /// Where streams end: the pair counts at which [`Stream::finish`] was
    /// called whose last result is not in yet, oldest first.
    ends: VecDeque<u64>,
    /// Whether the oldest held frame is its stream's first (a window that
    /// starts there finishes it as a stream's first frame).
    at_stream_start: bool,
    /// Whether the next result in starts a stream after an error (its
    /// temporal values are rewritten as a first frame's).
    restart_next: bool,
}

impl Stream {
    /// The stream of a queue scoring `set` with `models`.
    pub(super) fn new(set: &MetricSet, models: &Models) -> Self {
        let chroma = set.chroma();
        let mut names: Vec<OutputName> = Vec::new();
        for c in set.configs() {
            for n in c.extractor().collected_names(chroma) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        let after = set
            .configs()
            .iter()
            .map(|c| c.extractor().frames_after())
            .max()
            .unwrap_or(0);
        Self {
            set: set.clone(),
            models: models.clone(),
            after,
            names,
            held: VecDeque::new(),
            ready: VecDeque::new(),
            pushed: 0,
            ends: VecDeque::new(),
            at_stream_start: true,
            restart_next: false,
        }
    }

    /// Whether results go out as they come in (no value needs a later
    /// frame, no model).
    fn passes_through(&self) -> bool {
        self.after == 0 && self.models.is_empty()
    }

    /// The next complete result: one already complete, else what `raw` (the
    /// backend's next result in order, with its index) gives completes;
    /// `None` when `raw` gives none first.
    pub(super) fn next(
        &mut self,
        mut raw: impl FnMut() -> Option<(u64, Raw)>,
    ) -> Option<(u64, Result<FrameScore>)> {
        loop {
            if let Some(done) = self.ready.pop_front() {
                return Some(done);
            }
            let (index, raw) = raw()?;
            self.push(index, raw);
        }
    }

    /// Takes the backend's next result, in order.
    fn push(&mut self, index: u64, raw: Raw) {
        self.pushed = index + 1;
        if self.passes_through() {
            self.ready.push_back((index, raw.result));
            return;
        }
        let mut held = match (raw.result, raw.kept) {
            (Ok(score), _) => Held::Scored(score),
            (Err(e), Some(kept)) => Held::Refused(e, kept),
            (Err(e), None) => {
                // The frames before it end a stream there: each keeps what
                // the frames up to the error give (the last its own motion);
                // the next frame starts another.
                self.release_held();
                self.ready.push_back((index, Err(e)));
                self.restart_next = true;
                self.end_reached();
                return;
            }
        };
        if std::mem::take(&mut self.restart_next) {
            let (w, h, _) = self.set.geometry();
            let (Held::Scored(s) | Held::Refused(_, s)) = &mut held;
            for c in self.set.configs() {
                c.extractor().restart(&mut s.outputs, (w, h));
            }
        }
        self.held.push_back((index, held));
        while self.held.len() > self.after {
            self.complete_oldest();
        }
        self.end_reached();
    }

    /// Ends the stream after `submitted` pairs (the pairs after them start
    /// another): the held results complete once every pair's result is in.
    pub(super) fn finish(&mut self, submitted: u64) {
        if self.ends.back() != Some(&submitted) {
            self.ends.push_back(submitted);
        }
        self.end_reached();
    }

    /// Completes the held results when every result of a finished stream is
    /// in.
    fn end_reached(&mut self) {
        while self.ends.front().is_some_and(|&end| end <= self.pushed) {
            self.ends.pop_front();
            self.release_held();
        }
    }

    /// Results in here: held for later frames, or complete and not taken.
    pub(super) fn len(&self) -> usize {
        self.held.len() + self.ready.len()
    }

    /// Completes every held frame as the last frames of a stream; the
    /// next frame starts another.
    fn release_held(&mut self) {
        while !self.held.is_empty() {
            self.complete_oldest();
        }
        self.at_stream_start = true;
    }

    /// Completes the oldest held frame from the frames held after it: the
    /// metrics' finishes on the window, then the models on its row.
    fn complete_oldest(&mut self) {
        let mut columns = Columns::new(self.names.clone()).with_run_start(self.at_stream_start);
        for (_, held) in &self.held {
            let score = held.values();
            columns.push_row(|name| score.value(name));
        }
        for c in self.set.configs() {
            c.extractor().finish_run(&mut columns);
        }
        let Some((index, held)) = self.held.pop_front() else {
            return;
        };
        self.at_stream_start = false;
        let mut score = match held {
            Held::Scored(score) => score,
            Held::Refused(e, _) => {
                self.ready.push_back((index, Err(e)));
                return;
            }
        };
        let row: Vec<(String, f64)> = columns
            .names()
            .iter()
            .filter_map(|n| Some((n.to_string(), *columns.get(n)?.first()?)))
            .collect();
        for (name, value) in &row {
            score.outputs.set(name, *value);
        }
        let result = if self.models.is_empty() {
            Ok(score)
        } else {
            self.models.predict(&row).map(|values| {
                for (name, v) in self.models.output_names().into_iter().zip(values) {
                    score.outputs.push(name, v);
                }
                score
            })
        };
        self.ready.push_back((index, result));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::config::parse_list;

    fn motion_frame(motion: f64) -> FrameScore {
        let mut s = FrameScore::empty();
        s.outputs.push("integer_motion2", f64::NAN);
        s.outputs.push("integer_motion", motion);
        s
    }

    fn motion_stream() -> Stream {
        let set = MetricSet::new(&parse_list(&["motion"]).unwrap(), 64, 64, 8, None).unwrap();
        Stream::new(&set, &Models::default())
    }

    fn motion2(r: &(u64, Result<FrameScore>)) -> (u64, f64) {
        let s = r.1.as_ref().expect("a score");
        (r.0, s.value("integer_motion2").unwrap())
    }

    #[test]
    fn holds_a_frame_for_the_next_frames_motion() {
        let mut st = motion_stream();
        let mut raw = vec![(0, Ok(motion_frame(0.0))), (1, Ok(motion_frame(3.0)))].into_iter();
        // Frame 0 completes once frame 1 is in; frame 1 waits.
        let first = st
            .next(|| raw.next().map(|(i, r)| (i, Raw::of(r))))
            .expect("frame 0");
        assert_eq!(motion2(&first), (0, 0.0));
        assert!(st
            .next(|| raw.next().map(|(i, r)| (i, Raw::of(r))))
            .is_none());
        assert_eq!(st.len(), 1);
        st.finish(2);
        let last = st.next(|| None).expect("frame 1");
        assert_eq!(motion2(&last), (1, 3.0));
        assert!(st.next(|| None).is_none());
    }

    #[test]
    fn an_error_ends_the_window_and_keeps_its_place() {
        let mut st = motion_stream();
        let mut raw = vec![
            (0, Ok(motion_frame(0.0))),
            (1, Ok(motion_frame(2.0))),
            (2, Err(crate::Error::Internal("lost".into()))),
            (3, Ok(motion_frame(5.0))),
            (4, Ok(motion_frame(4.0))),
        ]
        .into_iter();
        let mut out = Vec::new();
        while let Some(r) = st.next(|| raw.next().map(|(i, r)| (i, Raw::of(r)))) {
            out.push(r);
        }
        assert_eq!(motion2(&out[0]), (0, 0.0));
        assert_eq!(motion2(&out[1]), (1, 2.0));
        assert!(matches!(out[2], (2, Err(crate::Error::Internal(_)))));
        // Frame 3 starts a new stream: its motion is a first frame's, 0.
        assert_eq!(motion2(&out[3]), (3, 0.0));
        assert_eq!(out.len(), 4);
        st.finish(5);
        assert_eq!(motion2(&st.next(|| None).expect("frame 4")), (4, 4.0));
    }

    #[test]
    fn a_finished_stream_is_followed_by_another() {
        let mut st = motion_stream();
        let mut raw = vec![(0, Ok(motion_frame(0.0))), (1, Ok(motion_frame(2.0)))].into_iter();
        st.finish(1);
        let out: Vec<_> =
            std::iter::from_fn(|| st.next(|| raw.next().map(|(i, r)| (i, Raw::of(r))))).collect();
        // Frame 0 ends the first stream (its own motion); frame 1 waits.
        assert_eq!(out.iter().map(motion2).collect::<Vec<_>>(), [(0, 0.0)]);
        assert_eq!(st.len(), 1);
        st.finish(2);
        assert_eq!(motion2(&st.next(|| None).expect("frame 1")), (1, 2.0));
    }

    /// libvmaf 3.2.0's motion3 finishes a stream's first frame otherwise
    /// than the others: each window of the stream (a frame and the next)
    /// gives what the whole stream gives, and a second stream's first frame
    /// is a first frame again.
    #[test]
    fn a_window_finishes_3_2_0s_motion3_as_the_whole_stream() {
        use crate::feature::motion::{v32, MotionOptions, MotionVersion};
        use crate::metric::MetricConfig;
        // With a blend, so that frame 0's rule differs from the others'.
        let motion = MotionOptions {
            blend_factor: 0.5,
            blend_offset: 2.0,
            ..MotionOptions::for_version(MotionVersion::V3_2_0)
        };
        let opts = motion.v32();
        let set = MetricSet::new(&[MetricConfig::Motion(motion)], 64, 64, 8, None).unwrap();
        let names = opts.output_names();
        let frame = |m: f64| {
            let mut s = FrameScore::empty();
            s.outputs.push(names[0].clone(), m);
            s.outputs.push(names[1].clone(), f64::NAN);
            s.outputs.push(names[2].clone(), f64::NAN);
            s
        };
        let values = [0.0, 5.0, 8.0, 7.0];
        let whole = v32::motion2_motion3(&values, &opts, true);
        let mut st = Stream::new(&set, &Models::default());
        for _ in 0..2 {
            let mut raw = values
                .iter()
                .enumerate()
                .map(|(n, &m)| (n as u64, Ok(frame(m))))
                .collect::<Vec<_>>()
                .into_iter();
            let mut out: Vec<_> =
                std::iter::from_fn(|| st.next(|| raw.next().map(|(i, r)| (i, Raw::of(r)))))
                    .collect();
            st.finish(values.len() as u64);
            out.extend(std::iter::from_fn(|| st.next(|| None)));
            let got: Vec<(f64, f64)> = out
                .iter()
                .map(|(_, r)| {
                    let s = r.as_ref().expect("a score");
                    (s.value(&names[1]).unwrap(), s.value(&names[2]).unwrap())
                })
                .collect();
            assert_eq!(got, whole);
        }
        assert_ne!(
            whole[1].1,
            v32::motion2_motion3(&values[1..], &opts, true)[0].1
        );
    }

    #[test]
    fn finish_before_the_last_results_waits_for_them() {
        let mut st = motion_stream();
        st.finish(2);
        let mut raw = vec![(0, Ok(motion_frame(0.0))), (1, Ok(motion_frame(1.0)))].into_iter();
        let out: Vec<_> =
            std::iter::from_fn(|| st.next(|| raw.next().map(|(i, r)| (i, Raw::of(r))))).collect();
        assert_eq!(
            out.iter().map(motion2).collect::<Vec<_>>(),
            [(0, 0.0), (1, 1.0)]
        );
    }
}
