//! The run's threads: the main thread hands each job a frame slot, reader
//! threads fill it from both inputs ([`fill`]), and the main thread submits
//! the filled slots in job order, stops at the first read error or early end,
//! and collects the results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::Instant;
use vkssim::api::ScoreQueue;

use anyhow::anyhow;
use vkssim::api::{FrameSlot, MultiScorer, MultiSlots};
use vkssim::testing::Reorder;

use super::collect::Collector;
use super::input::{device_range_error, read_error, Dest, Got, Input};
use super::{MainTimes, Mismatch, Plan};

/// What the threads of a run produced.
pub struct Run {
    /// The results and the first error.
    pub out: Collector,
    /// Pair positions read, scored or not.
    pub pairs_read: u64,
    /// Where one input ended before the other, for the length error.
    pub mismatch: Option<Mismatch>,
    /// The main thread's time.
    pub main: MainTimes,
}

/// Job `j`: a slot to fill with pair `j * step`, or none for the tail job.
struct Job<'s> {
    j: u64,
    slot: Option<FrameSlot<'s>>,
}

/// A job done: its slot and what each input gave.
struct Done<'s> {
    j: u64,
    slot: Option<FrameSlot<'s>>,
    got: [vkssim::Result<Got>; 2],
}

fn ns(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// Runs `plan` (see the module documentation).
pub fn run(
    reference: &Input<'_>,
    distorted: &Input<'_>,
    plan: Plan,
    scorer: &mut MultiScorer,
    threads: usize,
    on_score: &dyn Fn(u64) -> anyhow::Result<()>,
) -> Run {
    let stop = AtomicBool::new(false);
    let mut run = Run {
        out: Collector::default(),
        pairs_read: 0,
        mismatch: None,
        main: MainTimes::default(),
    };
    // Reads into write-combined device memory go through a bounce buffer,
    // except beside a metric whose per-frame work on the host is heavy
    // (float_ms_ssim's, which it slowed; H200: BENCHMARKS.md, "Reads
    // through a bounce buffer").
    let bounce = !scorer
        .metrics()
        .configs()
        .iter()
        .any(|c| c.needs().host_heavy);
    let mut slots = scorer.slots();
    let ahead = reads_ahead(slots.queue_depth());
    let mut finished = false;
    // One job queue that every reader thread takes from, in order.
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job<'_>>();
    let (done_tx, done_rx) = channel::<Done<'_>>();
    std::thread::scope(|scope| {
        for t in 0..threads.max(1) {
            let (job_rx, done_tx, stop) = (&job_rx, done_tx.clone(), &stop);
            let spawned = std::thread::Builder::new()
                .name(format!("vkssim-read-{t}"))
                .spawn_scoped(scope, move || loop {
                    let Ok(Job { j, mut slot }) = job_rx.recv() else {
                        return;
                    };
                    let got = fill(reference, distorted, plan, j, slot.as_mut(), bounce, stop);
                    if done_tx.send(Done { j, slot, got }).is_err() {
                        return;
                    }
                });
            if let Err(e) = spawned {
                if t == 0 {
                    run.out
                        .fail(anyhow!(e).context("starting the first reader thread"));
                    return;
                }
                break;
            }
        }
        drop(done_tx);
        let job_tx = job_tx;
        let (mut issued, mut outstanding) = (0u64, 0usize);
        let mut ready: Reorder<Done<'_>> = Reorder::new();
        let mut stopped = false;
        loop {
            while !stopped && outstanding < ahead && issued < plan.jobs() {
                let slot = if issued < plan.scored {
                    let t = Instant::now();
                    let acquired = slots.acquire();
                    run.main.acquire_ns += ns(t);
                    match acquired {
                        Ok(slot) => Some(slot),
                        Err(e) => {
                            run.out.fail(anyhow!(e).context("taking a frame slot"));
                            stopped = true;
                            break;
                        }
                    }
                } else {
                    None
                };
                if job_tx.send(Job { j: issued, slot }).is_err() {
                    stopped = true;
                    break;
                }
                issued += 1;
                outstanding += 1;
                collect(&mut slots, &mut run, [reference, distorted], on_score);
            }
            if outstanding == 0 {
                break;
            }
            let t = Instant::now();
            let received = done_rx.recv();
            run.main.read_wait_ns += ns(t);
            let Ok(done) = received else { break };
            ready.insert(done.j, done);
            let t = Instant::now();
            while let Some(done) = ready.pop_ready() {
                outstanding -= 1;
                if !stopped && !take(done, reference, distorted, plan, &mut slots, &mut run) {
                    stopped = true;
                }
            }
            run.main.submit_ns += ns(t);
            collect(&mut slots, &mut run, [reference, distorted], on_score);
            if run.out.error.is_some() {
                stopped = true;
            }
            if stopped {
                stop.store(true, Ordering::Relaxed);
            }
        }
        finished = !stopped && ready.next_index() == plan.jobs();
        drop(job_tx);
    });
    if finished && plan.positions != u64::MAX {
        run.pairs_read = plan.positions;
    }
    // Everything in flight was read before any error: collect it (the
    // stream ends here, so a result held for the next frame's motion comes
    // out too).
    let t = Instant::now();
    slots.finish();
    while let Some(res) = slots.wait() {
        take_result(&mut run, res, [reference, distorted], on_score);
    }
    run.main.collect_ns += ns(t);
    run
}

/// Jobs handed to the readers at once for a ring of `slots` slots: all but
/// a quarter of them (at least 2), which hold frames submitted to the
/// device. Were every slot out with the readers, the main thread would take
/// a slot back by waiting for the frame it had just submitted, and the
/// device would score one frame at a time with the host's turnaround in
/// between (H200, 4K VMAF: 19 slots, 18 out reading, the device idle about
/// 200 us a frame). Measured there against half the ring: the same for
/// VMAF, faster for float_ssim, psnr and float_ms_ssim together
/// (BENCHMARKS.md, "Issue 28, third round").
fn reads_ahead(slots: usize) -> usize {
    slots.saturating_sub((slots / 4).max(2)).max(1)
}

/// Takes the results that are ready.
fn collect(
    slots: &mut MultiSlots<'_>,
    run: &mut Run,
    inputs: [&Input<'_>; 2],
    on_score: &dyn Fn(u64) -> anyhow::Result<()>,
) {
    let t = Instant::now();
    while let Some(res) = slots.poll() {
        take_result(run, res, inputs, on_score);
    }
    run.main.collect_ns += ns(t);
}

/// Records the next result, a sample range error found on the device named
/// by the input and its frame ([`device_range_error`]).
fn take_result(
    run: &mut Run,
    res: vkssim::Result<vkssim::FrameScore>,
    [reference, distorted]: [&Input<'_>; 2],
    on_score: &dyn Fn(u64) -> anyhow::Result<()>,
) {
    let res = match run.out.submitted.front() {
        Some(&i) => res.map_err(|e| device_range_error(e, reference, distorted, i)),
        None => res,
    };
    run.out.take(res, on_score);
}

/// Handles the next job in order: submits its pair, or records why the run
/// ends there. Returns whether the run goes on.
fn take<'s>(
    done: Done<'s>,
    reference: &Input<'_>,
    distorted: &Input<'_>,
    plan: Plan,
    slots: &mut MultiSlots<'s>,
    run: &mut Run,
) -> bool {
    let tail = done.j >= plan.scored;
    let i = if tail {
        plan.positions
    } else {
        done.j * plan.step
    };
    let [gr, gd] = done.got;
    let (a, b) = match (gr, gd) {
        (Err(e), _) => {
            run.out
                .fail(read_error(e, reference.role, reference.path(), i));
            return false;
        }
        (_, Err(e)) => {
            run.out
                .fail(read_error(e, distorted.role, distorted.path(), i));
            return false;
        }
        (Ok(a), Ok(b)) => (a, b),
    };
    match (a, b) {
        (Got::Frame, Got::Frame) => {
            let Some(slot) = done.slot else {
                run.pairs_read = plan.positions;
                return true;
            };
            if let Err(e) = slots.submit(slot) {
                run.out
                    .fail(anyhow!(e).context(format!("scoring frame {i}")));
                run.pairs_read = i;
                return false;
            }
            run.out.submitted.push_back(i);
            run.pairs_read = i + 1;
            true
        }
        (Got::Cancelled, _) | (_, Got::Cancelled) => false,
        (a, b) => {
            let end = |g: Got| match g {
                Got::End(n) => Some(n),
                _ => None,
            };
            let (ea, eb) = (end(a), end(b));
            let common = ea.unwrap_or(u64::MAX).min(eb.unwrap_or(u64::MAX));
            run.pairs_read = common;
            if ea != eb {
                run.mismatch = Some(Mismatch {
                    common,
                    reference_ended: ea == Some(common),
                });
            }
            false
        }
    }
}

/// A reader thread's part of job `j`: fills `slot` with pair `j * step` of
/// both inputs (a Vulkan scorer checks the sample range on the device, so
/// the readers do not read the slot back; for the CPU twin they check it;
/// with `bounce`, reads of regular files into write-combined device memory
/// go through the thread's bounce buffer, [`Dest::WriteCombined`]), or for
/// the tail job checks that both inputs reach the plan's end.
fn fill(
    reference: &Input<'_>,
    distorted: &Input<'_>,
    plan: Plan,
    j: u64,
    slot: Option<&mut FrameSlot<'_>>,
    bounce: bool,
    stop: &AtomicBool,
) -> [vkssim::Result<Got>; 2] {
    let streams = reference.is_stream() && distorted.is_stream();
    let Some(slot) = slot else {
        return both(
            streams,
            || reference.reach(j, plan.positions, stop),
            || distorted.reach(j, plan.positions, stop),
        );
    };
    let i = j * plan.step;
    // A slot in host memory for a scorer that does not check the sample
    // range on the device: the reads leave it unchecked and the slot checks
    // both frames once below (one pass over them, not one in each read and
    // another in the slot).
    let check_here = !slot.range_checked_on_device();
    let dest = if !check_here && bounce && !slot.is_host_cached() {
        Dest::WriteCombined
    } else {
        Dest::Unchecked
    };
    let mut shared = None;
    // The whole frames when the scorer reads chroma (the inputs then read
    // their chroma planes too), else the luma planes.
    let (a, b) = slot.frames_mut();
    let got = both(
        streams,
        || reference.read_or_share(j, i, a, dest, &mut shared, stop),
        || distorted.read(j, i, b, dest, stop),
    );
    if let Some(plane) = shared {
        // A ladder's reference, uploaded once for every lane.
        if let Err(e) = slot.share_reference(&plane) {
            return [Err(e), Ok(Got::Frame)];
        }
    }
    if check_here && matches!(got, [Ok(Got::Frame), Ok(Got::Frame)]) {
        // On this thread, not on submission; an error goes to the input
        // whose plane it names, with that input's file and frame.
        if let Err(e) = slot.check() {
            let distorted_at_fault = matches!(
                e,
                vkssim::Error::SampleRange {
                    plane: Some(vkssim::PlaneRole::Distorted),
                    ..
                }
            );
            let e = device_range_error(e, reference, distorted, i);
            return if distorted_at_fault {
                [Ok(Got::Frame), Err(e)]
            } else {
                [Err(e), Ok(Got::Frame)]
            };
        }
    }
    got
}

/// Runs both reads: at once when both inputs are streams (one producer may
/// write them in step, so neither may wait for the other), else in turn.
fn both(
    at_once: bool,
    r: impl FnOnce() -> vkssim::Result<Got> + Send,
    d: impl FnOnce() -> vkssim::Result<Got>,
) -> [vkssim::Result<Got>; 2] {
    if !at_once {
        return [r(), d()];
    }
    std::thread::scope(|s| {
        let reading = s.spawn(r);
        let gd = d();
        let gr = reading.join().unwrap_or_else(|_| {
            Err(vkssim::Error::Internal(
                "the reference reader panicked".into(),
            ))
        });
        [gr, gd]
    })
}

#[cfg(test)]
mod tests {
    use super::reads_ahead;

    #[test]
    fn readers_leave_a_quarter_of_the_ring() {
        let got: Vec<usize> = [0, 1, 2, 3, 8, 19, 28].map(reads_ahead).to_vec();
        assert_eq!(got, [1, 1, 1, 1, 6, 15, 21]);
    }
}
