//! [`CpuScorer`]: the CPU backend behind [`crate::FrameScorer`]. A pool of worker
//! threads scores whole frames in parallel (one frame per worker at a time), and
//! results come back in submission order.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::metrics::score_metrics_in;
use crate::frame::bytes_per_sample;
use crate::metric::MetricSet;
use crate::reorder::Reorder;
use crate::{Error, FrameScore, FrameScorer, LumaFrame, LumaView, Result};

/// One submitted pair: each frame's luma, followed in its bytes by its Cb and
/// Cr planes when the metrics read chroma ([`MetricSet::needs_chroma`]).
struct Job {
    index: u64,
    reference: LumaFrame,
    distorted: LumaFrame,
    /// The previous frame's reference luma, for a temporal metric
    /// ([`MetricSet::needs_previous_reference`]; `None` for the first frame).
    previous: Option<Arc<LumaFrame>>,
}

/// A result on its way back, tagged with its submission index.
type Done = (u64, Result<FrameScore>);

/// Planes of scored frames kept for reuse ([`CpuScorer::take_buffer`]), so
/// that a caller filling frames in place does not fault in fresh pages for
/// every frame; at most `cap` are kept (none before the first
/// `take_buffer`).
#[derive(Default)]
struct Spare {
    buffers: Mutex<Vec<Vec<u8>>>,
    cap: AtomicUsize,
}

impl Spare {
    fn put(&self, bytes: Vec<u8>) {
        let mut b = self.buffers.lock().unwrap_or_else(|p| p.into_inner());
        if b.len() < self.cap.load(Ordering::Relaxed) {
            b.push(bytes);
        }
    }
}

/// Scores frame pairs on `threads` worker threads with
/// [`super::metrics::score_metrics`]: every metric of its [`MetricSet`]
/// (each worker keeps its frame buffers from frame to frame).
///
/// A frame that fails (bad geometry, a plane too small, even a panic inside the
/// scorer) gives an error as that frame's result; the scorer keeps going.
pub struct CpuScorer {
    threads: usize,
    /// Pairs inside the pool at most ([`FrameScorer::queue_depth`]).
    depth: usize,
    /// Planes handed back for reuse.
    spare: Arc<Spare>,
    jobs: Option<crossbeam_channel::Sender<Job>>,
    done: Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
    /// Results received but not yet handed out, by submission index (the
    /// next to hand out is its next index).
    ready: Reorder<Result<FrameScore>>,
    next_submit: u64,
    /// Results received from the workers so far (taken or not).
    received: u64,
    /// Whether a job carries the previous frame's reference.
    needs_previous: bool,
    /// The last submitted reference's luma, when jobs carry it.
    last_reference: Option<Arc<LumaFrame>>,
}

impl CpuScorer {
    /// Starts `threads` workers (`0`: one per available core) scoring the
    /// metrics of `set`.
    pub fn new(set: MetricSet, threads: usize) -> Result<Self> {
        let threads = if threads == 0 {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        } else {
            threads
        };
        // One job queue that every worker takes from.
        let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        // Nothing is kept until a caller takes buffers (`take_buffer`).
        let spare = Arc::new(Spare::default());
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads {
            let job_rx = job_rx.clone();
            let done_tx = done_tx.clone();
            let spare = Arc::clone(&spare);
            let set = set.clone();
            let handle = std::thread::Builder::new()
                .name(format!("vkssim-cpu-{i}"))
                .spawn(move || worker(&job_rx, &done_tx, &spare, &set))
                .map_err(|e| Error::Internal(format!("cannot start CPU worker thread {i}: {e}")))?;
            workers.push(handle);
        }
        Ok(Self {
            threads,
            depth: 2 * threads,
            spare,
            jobs: Some(job_tx),
            done: done_rx,
            workers,
            ready: Reorder::new(),
            next_submit: 0,
            received: 0,
            needs_previous: set.needs_previous_reference(),
            last_reference: None,
        })
    }

    /// [`CpuScorer::new`] for `float_ssim` alone with `options`, each frame
    /// checked as it is scored (frames of any size).
    pub fn float_ssim(options: crate::SsimOptions, threads: usize) -> Result<Self> {
        Self::new(MetricSet::float_ssim_any_size(options), threads)
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Keeps at most `depth` pairs (at least 1) inside the pool; twice the
    /// threads by default.
    pub fn set_queue_depth(&mut self, depth: usize) {
        self.depth = depth.max(1);
    }

    /// A buffer of `len` bytes for a plane to be filled and submitted: one of
    /// a scored frame's planes when one of that size is spare (its contents
    /// are stale: overwrite them all), else a new zeroed one.
    pub fn take_buffer(&self, len: usize) -> Vec<u8> {
        self.spare
            .cap
            .store(spare_cap(self.depth), Ordering::Relaxed);
        let mut b = self.spare.buffers.lock().unwrap_or_else(|p| p.into_inner());
        match b.iter().position(|v| v.len() == len) {
            Some(k) => b.swap_remove(k),
            None => {
                drop(b);
                vec![0; len]
            }
        }
    }

    /// Gives back a buffer from [`CpuScorer::take_buffer`] that was not
    /// submitted.
    pub fn recycle(&self, bytes: Vec<u8>) {
        self.spare.put(bytes);
    }

    /// Ends the stream of pairs: the next pair submitted is a first frame
    /// (no previous reference; the jobs already submitted keep theirs).
    pub fn end_stream(&mut self) {
        self.last_reference = None;
    }

    /// Makes `previous` (a reference luma plane, packed) the previous frame's
    /// reference of the next pair submitted, whatever was submitted before:
    /// for a pair whose previous frame another scorer took. Nothing to do
    /// without a temporal metric.
    pub(crate) fn carry_previous(&mut self, previous: Arc<LumaFrame>) {
        if self.needs_previous {
            self.last_reference = Some(previous);
        }
    }

    fn store(&mut self, (index, result): Done) {
        self.received += 1;
        self.ready.insert(index, result);
    }

    /// The error for a result that can never come (every worker is gone).
    fn lost(&self, index: u64) -> Error {
        Error::Internal(format!(
            "the CPU workers stopped before scoring frame {index}"
        ))
    }
}

/// Spare planes kept, once a caller takes buffers, for a queue of `depth`
/// pairs: both planes of as many pairs as are filled meanwhile, and a few.
fn spare_cap(depth: usize) -> usize {
    2 * depth + 4
}

/// A worker: takes jobs until the queue closes, scores each, sends the result
/// and puts the frame's planes aside for reuse.
fn worker(
    jobs: &crossbeam_channel::Receiver<Job>,
    done: &Sender<Done>,
    spare: &Spare,
    set: &MetricSet,
) {
    // The worker's buffers, kept from frame to frame.
    let mut work = Vec::new();
    while let Ok(job) = jobs.recv() {
        let result = catch_unwind(AssertUnwindSafe(|| {
            let r = frame_views(&job.reference, set)?;
            let d = frame_views(&job.distorted, set)?;
            let previous = job.previous.as_ref().map(|p| p.view());
            score_metrics_in(&r, &d, previous.as_ref(), set, &mut work)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Error::Internal(format!(
                "scoring frame {} panicked: {what}",
                job.index
            )))
        });
        spare.put(job.reference.bytes);
        spare.put(job.distorted.bytes);
        if done.send((job.index, result)).is_err() {
            return;
        }
    }
}

/// The planes of a submitted frame: its luma, then with chroma
/// ([`MetricSet::needs_chroma`]) the Cb and Cr planes that follow it in its
/// bytes (sizes from the frame's own luma size and the set's layout).
fn frame_views<'a>(f: &'a LumaFrame, set: &MetricSet) -> Result<Vec<LumaView<'a>>> {
    if !set.needs_chroma() {
        return Ok(vec![f.view()]);
    }
    let bps = bytes_per_sample(f.bit_depth);
    let luma = f.width as usize * f.height as usize * bps;
    let (cw, ch) = set.chroma().plane_size(f.width, f.height);
    let plane = cw as usize * ch as usize * bps;
    let needed = luma + 2 * plane;
    if f.bytes.len() < needed {
        return Err(Error::BufferSize {
            what: format!(
                "{} {}x{} {}-bit frame's luma, Cb and Cr planes ({})",
                crate::words::article(f.width.into()),
                f.width,
                f.height,
                f.bit_depth,
                set.chroma()
            ),
            needed,
            actual: f.bytes.len(),
        });
    }
    let b = &f.bytes;
    let view = |w: u32, h: u32, bytes| LumaView::new(w, h, f.bit_depth, w as usize * bps, bytes);
    Ok(vec![
        view(f.width, f.height, &b[..luma])?,
        view(cw, ch, &b[luma..luma + plane])?,
        view(cw, ch, &b[luma + plane..needed])?,
    ])
}

impl FrameScorer for CpuScorer {
    fn submit(&mut self, reference: LumaFrame, distorted: LumaFrame) -> Result<()> {
        // Keep at most queue_depth pairs inside the pool; results already
        // received (taken or not) do not count, so this never waits on the caller.
        while self.next_submit - self.received >= self.queue_depth() as u64 {
            match self.done.recv() {
                Ok(d) => self.store(d),
                Err(_) => return Err(self.lost(self.next_submit)),
            }
        }
        let index = self.next_submit;
        let previous = if self.needs_previous {
            let luma = reference.width as usize
                * reference.height as usize
                * bytes_per_sample(reference.bit_depth);
            let current = Arc::new(LumaFrame {
                bytes: reference.bytes[..luma.min(reference.bytes.len())].to_vec(),
                ..reference
            });
            self.last_reference.replace(current)
        } else {
            None
        };
        let job = Job {
            index,
            reference,
            distorted,
            previous,
        };
        let sent = self.jobs.as_ref().map(|tx| tx.send(job).is_ok());
        if sent != Some(true) {
            return Err(self.lost(index));
        }
        self.next_submit += 1;
        Ok(())
    }

    fn poll_next(&mut self) -> Option<Result<FrameScore>> {
        loop {
            match self.done.try_recv() {
                Ok(d) => self.store(d),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if self.in_flight() > 0 && !self.ready.has_ready() {
                        let index = self.ready.skip();
                        return Some(Err(self.lost(index)));
                    }
                    break;
                }
            }
        }
        self.ready.pop_ready()
    }

    fn wait_next(&mut self) -> Option<Result<FrameScore>> {
        if self.in_flight() == 0 {
            return None;
        }
        while !self.ready.has_ready() {
            match self.done.recv() {
                Ok(d) => self.store(d),
                Err(_) => {
                    let index = self.ready.skip();
                    return Some(Err(self.lost(index)));
                }
            }
        }
        self.ready.pop_ready()
    }

    fn in_flight(&self) -> usize {
        (self.next_submit - self.ready.next_index()) as usize
    }

    fn queue_depth(&self) -> usize {
        self.depth
    }
}

impl Drop for CpuScorer {
    fn drop(&mut self) {
        // Closing the job queue ends every worker after its current frame.
        self.jobs = None;
        for handle in self.workers.drain(..) {
            // A worker never panics outside catch_unwind; nothing to report if
            // one did.
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::score_frame;
    use crate::SsimOptions;

    fn ssim_set(opts: SsimOptions) -> MetricSet {
        MetricSet::float_ssim(opts, 64, 64, 8).unwrap()
    }

    fn pair(width: u32, height: u32, seed: u8) -> (LumaFrame, LumaFrame) {
        let mut a = LumaFrame::zeroed(width, height, 8);
        let mut b = a.clone();
        for (i, (x, y)) in a.bytes.iter_mut().zip(b.bytes.iter_mut()).enumerate() {
            *x = (i as u8).wrapping_mul(seed);
            *y = (i as u8).wrapping_mul(seed).wrapping_add((i % 7) as u8);
        }
        (a, b)
    }

    #[test]
    fn results_come_back_in_submission_order() {
        let opts = SsimOptions::default();
        let pairs: Vec<_> = (1..=9u8).map(|s| pair(48 + s as u32, 40, s)).collect();
        let expected: Vec<_> = pairs
            .iter()
            .map(|(a, b)| score_frame(&a.view(), &b.view(), &opts).unwrap())
            .collect();
        for threads in [1, 2, 3] {
            let mut scorer = CpuScorer::new(ssim_set(opts), threads).unwrap();
            assert_eq!(scorer.queue_depth(), 2 * threads);
            let mut got = Vec::new();
            for (a, b) in pairs.iter().cloned() {
                scorer.submit(a, b).unwrap();
                while let Some(r) = scorer.poll_next() {
                    got.push(r.unwrap());
                }
            }
            while let Some(r) = scorer.wait_next() {
                got.push(r.unwrap());
            }
            assert_eq!(got, expected, "{threads} threads");
            assert_eq!(scorer.in_flight(), 0);
            assert!(scorer.wait_next().is_none());
        }
    }

    #[test]
    fn a_bad_frame_is_an_error_in_its_place() {
        let opts = SsimOptions::default();
        let mut scorer = CpuScorer::new(ssim_set(opts), 2).unwrap();
        let (a, b) = pair(40, 40, 3);
        let (small, _) = pair(8, 40, 3);
        scorer.submit(a.clone(), b.clone()).unwrap();
        scorer.submit(small.clone(), small).unwrap();
        scorer
            .submit(a.clone(), LumaFrame::zeroed(41, 40, 8))
            .unwrap();
        scorer.submit(a, b).unwrap();
        assert!(scorer.wait_next().unwrap().is_ok());
        assert!(matches!(
            scorer.wait_next().unwrap(),
            Err(Error::PlaneTooSmall { .. })
        ));
        assert!(matches!(
            scorer.wait_next().unwrap(),
            Err(Error::GeometryMismatch(_))
        ));
        assert!(scorer.wait_next().unwrap().is_ok());
        assert!(scorer.wait_next().is_none());
    }

    #[test]
    fn zero_threads_means_every_core() {
        let scorer = CpuScorer::new(ssim_set(SsimOptions::default()), 0).unwrap();
        assert!(scorer.threads() >= 1);
        assert_eq!(scorer.queue_depth(), 2 * scorer.threads());
    }
}
