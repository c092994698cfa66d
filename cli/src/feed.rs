//! The Vulkan engine's fast feed: several threads fill the scorer's upload slots
//! at once ([`vkssim::vk::VkScorer::acquire_slot`]), each writing one pair's luma
//! straight into mapped upload memory (positional reads of regular files through
//! [`vkssim::io::FrameIndex`], or a copy of frames held in memory), with no
//! intermediate frame buffer; the main thread submits the slots in order and
//! collects the results.
//!
//! A failed read stops the run: pairs before it are still scored and returned
//! with the error.

use std::collections::BTreeMap;
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};

use vkssim::io::FrameIndex;
use vkssim::vk::{UploadSlot, VkScorer};
use vkssim::{FrameScore, FrameScorer};

/// Where a pair's samples come from.
pub enum Source<'a> {
    /// Two regular files: pair `k` is (reference frame, distorted frame).
    Files {
        /// Positional access to the reference.
        reference: &'a FrameIndex,
        /// Positional access to the distorted input.
        distorted: &'a FrameIndex,
        /// The frame numbers of each pair, in scoring order.
        pairs: &'a [(u64, u64)],
    },
    /// The same pair of packed planes `count` times.
    Memory {
        /// Reference plane.
        reference: &'a [u8],
        /// Distorted plane.
        distorted: &'a [u8],
        /// Pairs to score.
        count: u64,
    },
}

impl Source<'_> {
    fn len(&self) -> u64 {
        match self {
            Source::Files { pairs, .. } => pairs.len() as u64,
            Source::Memory { count, .. } => *count,
        }
    }

    /// Writes pair `k` into `a` (reference) and `b` (distorted). File samples
    /// are not range-checked here (that would read the upload memory back,
    /// which is very slow when it is write-combined device memory): the Vulkan
    /// scorer's decimate pass checks them, and [`file_range_error`] names the
    /// file and frame of what it finds.
    fn fill(&self, k: u64, a: &mut [u8], b: &mut [u8]) -> vkssim::Result<()> {
        match self {
            Source::Files {
                reference,
                distorted,
                pairs,
            } => {
                let (fr, fd) = pairs[k as usize];
                reference.read_luma_at_unchecked(fr, a)?;
                distorted.read_luma_at_unchecked(fd, b)
            }
            Source::Memory {
                reference,
                distorted,
                ..
            } => {
                a.copy_from_slice(&reference[..a.len()]);
                b.copy_from_slice(&distorted[..b.len()]);
                Ok(())
            }
        }
    }
}

/// The scorer's [`vkssim::Error::SampleRange`] for a plane of pair `pair` of
/// `source` (its `path` names the plane, its `frame` the scorer's count) with
/// the file and the file's frame index instead; any other error unchanged.
fn file_range_error(e: vkssim::Error, source: &Source<'_>, pair: usize) -> vkssim::Error {
    let Source::Files {
        reference,
        distorted,
        pairs,
    } = source
    else {
        return e;
    };
    match (e, pairs.get(pair)) {
        (
            vkssim::Error::SampleRange {
                path,
                x,
                y,
                value,
                max,
                bit_depth,
                ..
            },
            Some(&(fr, fd)),
        ) if path.as_os_str() == "reference plane" || path.as_os_str() == "distorted plane" => {
            let (file, frame) = if path.as_os_str() == "reference plane" {
                (reference.path(), fr)
            } else {
                (distorted.path(), fd)
            };
            vkssim::Error::SampleRange {
                path: file.to_path_buf(),
                frame,
                x,
                y,
                value,
                max,
                bit_depth,
            }
        }
        (e, _) => e,
    }
}

/// What a run produced: the scores of the pairs scored, in order (pair `k` of
/// the source is `scores[k]`), and the error that stopped it, if any.
pub struct Fed {
    /// Scores, in order, up to the first failure.
    pub scores: Vec<FrameScore>,
    /// The first error (a read or a scoring failure).
    pub error: Option<vkssim::Error>,
    /// Where the submitting thread's time went.
    pub main: MainTimes,
}

/// The submitting thread's time, by what it was doing (ns).
#[derive(Debug, Clone, Copy, Default)]
pub struct MainTimes {
    /// Taking slots (waits for the oldest frame when the ring is full).
    pub acquire_ns: u64,
    /// Waiting for a reader to finish a pair.
    pub read_wait_ns: u64,
    /// Submitting filled slots.
    pub submit_ns: u64,
    /// Collecting results (including the final drain).
    pub collect_ns: u64,
}

/// Default reader threads: the cores less three (the submitting thread and
/// the engine's summing threads need some), from 1 to 12.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .saturating_sub(3)
        .clamp(1, 12)
}

/// Frames in flight that keep `threads` readers busy: each holds a slot while
/// it reads, and the GPU and the summing threads hold a few more.
pub fn frames_in_flight_for(threads: usize) -> usize {
    2 * threads + 4
}

/// Scores every pair of `source` on `scorer`, filling slots on `threads`
/// threads. `on_score` sees each score as it arrives (for progress).
pub fn run(
    scorer: &mut VkScorer,
    source: &Source<'_>,
    threads: usize,
    mut on_score: impl FnMut(usize),
) -> Fed {
    let total = source.len();
    let depth = scorer.slots();
    let mut fed = Fed {
        scores: Vec::with_capacity(total as usize),
        error: None,
        main: MainTimes::default(),
    };
    let mut main = MainTimes::default();
    let ns = |t: std::time::Instant| t.elapsed().as_nanos() as u64;
    // Every submitted pair precedes any failed read, so scores are kept up to
    // the first failed frame only.
    let mut broken = false;
    let mut take = |fed: &mut Fed, r: vkssim::Result<FrameScore>| match r {
        Ok(s) if !broken => {
            fed.scores.push(s);
            on_score(fed.scores.len());
        }
        Ok(_) => {}
        Err(e) => {
            broken = true;
            let e = file_range_error(e, source, fed.scores.len());
            fed.error.get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = channel::<(u64, UploadSlot)>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (done_tx, done_rx) = channel::<(u64, UploadSlot, vkssim::Result<()>)>();
        for _ in 0..threads.max(1) {
            let job_rx = Arc::clone(&job_rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok((k, mut slot)) = job else { return };
                    // SAFETY: the scorer outlives this scope and gets the slot
                    // back only after this thread returns it below.
                    let (a, b) = unsafe { slot.planes_mut() };
                    let r = source.fill(k, a, b);
                    if done_tx.send((k, slot, r)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let (mut issued, mut submitted) = (0u64, 0u64);
        let mut out = 0usize;
        let mut ready: BTreeMap<u64, (UploadSlot, vkssim::Result<()>)> = BTreeMap::new();
        let mut stop = false;
        loop {
            while !stop && issued < total && out < depth {
                let t = std::time::Instant::now();
                let acquired = scorer.acquire_slot();
                main.acquire_ns += ns(t);
                match acquired {
                    Ok(slot) => {
                        if job_tx.send((issued, slot)).is_err() {
                            stop = true;
                            break;
                        }
                        issued += 1;
                        out += 1;
                    }
                    Err(e) => {
                        fed.error.get_or_insert(e);
                        stop = true;
                    }
                }
                let t = std::time::Instant::now();
                while let Some(r) = scorer.poll_next() {
                    take(&mut fed, r);
                }
                main.collect_ns += ns(t);
            }
            if out == 0 {
                break;
            }
            let t = std::time::Instant::now();
            let received = done_rx.recv();
            main.read_wait_ns += ns(t);
            let Ok((k, slot, r)) = received else {
                break;
            };
            let t = std::time::Instant::now();
            ready.insert(k, (slot, r));
            while let Some((slot, r)) = ready.remove(&submitted) {
                submitted += 1;
                out -= 1;
                match r {
                    Ok(()) if !stop => {
                        if let Err(e) = scorer.submit_slot(slot) {
                            fed.error.get_or_insert(e);
                            stop = true;
                        }
                    }
                    other => {
                        if let Err(e) = other {
                            fed.error.get_or_insert(e);
                        }
                        stop = true;
                        scorer.abandon_slot(slot);
                    }
                }
            }
            main.submit_ns += ns(t);
            let t = std::time::Instant::now();
            while let Some(r) = scorer.poll_next() {
                take(&mut fed, r);
            }
            main.collect_ns += ns(t);
        }
        drop(job_tx);
    });
    let t = std::time::Instant::now();
    while let Some(r) = scorer.wait_next() {
        take(&mut fed, r);
    }
    main.collect_ns += ns(t);
    fed.main = main;
    fed
}

/// `vkssim score` through the fast feed, when it applies: the scorer is the
/// Vulkan engine and both inputs are regular files (positional reads). Pairs
/// follow `sel` (skips, `--frame_cnt`, `--subsample`; lengths were checked by
/// the caller). `None` when it does not apply (the caller runs the ordinary
/// pipeline).
pub fn run_selection(
    reference: &dyn vkssim::io::LumaReader,
    distorted: &dyn vkssim::io::LumaReader,
    sel: crate::pipeline::Selection,
    scorer: &mut dyn FrameScorer,
    threads: usize,
    progress: &crate::progress::Progress,
) -> Option<crate::pipeline::Outcome> {
    let vk = scorer.as_any_mut()?.downcast_mut::<VkScorer>()?;
    let (ri, di) = (reference.frame_index()?, distorted.frame_index()?);
    let (r0, d0) = (
        reference.frames_read() + sel.skip_ref,
        distorted.frames_read() + sel.skip_dist,
    );
    let limit = if sel.frame_cnt == 0 {
        u64::MAX
    } else {
        sel.frame_cnt
    };
    let step = sel.subsample.max(1);
    let common = ri
        .len()
        .saturating_sub(r0)
        .min(di.len().saturating_sub(d0))
        .min(limit);
    let indices: Vec<u64> = (0..common).filter(|i| i % step == 0).collect();
    let pairs: Vec<(u64, u64)> = indices.iter().map(|&i| (r0 + i, d0 + i)).collect();
    let start = std::time::Instant::now();
    let source = Source::Files {
        reference: &ri,
        distorted: &di,
        pairs: &pairs,
    };
    let fed = run(vk, &source, threads, |n| progress.set_scored(n as u64));
    let error = fed.error.map(|e| {
        let k = fed.scores.len();
        let at = indices.get(k).copied().unwrap_or(common);
        anyhow::Error::new(e).context(format!("scoring pair {at}"))
    });
    let error = error.or_else(|| {
        (common == 0).then(|| {
            anyhow::Error::new(vkssim::Error::NoFrames(format!(
                "{} and {}",
                reference.path().display(),
                distorted.path().display()
            )))
        })
    });
    Some(crate::pipeline::Outcome {
        frames: indices.into_iter().zip(fed.scores).collect(),
        pairs_read: common,
        elapsed: start.elapsed(),
        error,
    })
}
