//! [`Tee`]: one reference input shared by the pipeline runs of a ladder (one
//! reference, several distorted inputs). Each reference frame the runs ask for
//! is read once from the reference, in position order (one reader at a time),
//! into a plane kept until every run still going has copied it into its own
//! frame slot; at most `window` planes are kept, so a run that is ahead waits
//! for the slowest one.
//!
//! On a Vulkan device the planes are the device's shared planes
//! ([`vkssim::api::SharedPlanes`], one pool per device of the runs): each
//! reference frame is read straight into device memory once, and every lane
//! scores against that one upload ([`vkssim::api::FrameSlot::share_reference`])
//! instead of copying it into its own slot. Position `p` is the lanes' pair
//! `p / step`, and goes to the pool of the device every lane's scorer deals
//! that pair to ([`DealtPlanes::pool_for`]: the library keeps the dealing
//! rule). Where a pool cannot give a plane (out of device memory), that
//! frame is kept in host memory and copied, as on the CPU; so is a frame
//! whose reference the lanes' scorers carry to the next device's first pair
//! (a temporal metric on several devices: the last pair of each device's
//! run, [`DealtPlanes::reference_carried`]), which takes it from host
//! memory.
//!
//! Each run (a lane) sees the tee through an [`super::Input`] that behaves as
//! the reference would on its own: the same positions, the same ends, the same
//! errors. A lane leaves ([`Tee::leave`]) when its run ends, so that planes it
//! will never ask for are not kept for it.
//!
//! A reference read by position (a regular file) holds no lane back: a lane
//! that has waited [`PATIENCE`] for a full window (planes kept for a lane far
//! behind, say one whose distorted input stalls) detaches, and from then on
//! reads each position it has not found kept straight from the reference
//! into its own slot; no plane is kept for it any more. A stream (a pipe,
//! standard input, an encoded file) is read once, front to back, so every
//! lane waits for the slowest one, at most `window` planes ahead of it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use vkssim::api::{DealtPlanes, PlaneWriter, SharedPlane};
use vkssim::{Error, Result};

use super::input::{Dest, Got, Input};

/// A plane read and the lanes that have not taken it yet.
struct Entry {
    plane: Plane,
    owed: Vec<bool>,
}

/// Where a plane read from the reference is kept.
enum Plane {
    /// Host memory: each lane copies it into its slot.
    Host(Vec<u8>),
    /// A device's shared plane: each lane's slot reads it in place.
    Device(SharedPlane),
}

/// A plane being read.
enum Fresh {
    Host(Vec<u8>),
    Device(PlaneWriter),
}

impl Fresh {
    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Fresh::Host(v) => v,
            Fresh::Device(w) => w.bytes_mut(),
        }
    }

    fn into_plane(self) -> Plane {
        match self {
            Fresh::Host(v) => Plane::Host(v),
            Fresh::Device(w) => Plane::Device(w.share()),
        }
    }
}

struct State {
    /// Planes read, by position.
    cache: BTreeMap<u64, Entry>,
    /// The next position to read (a multiple of the step).
    next: u64,
    /// The positions before this one are known to exist (after a reach).
    reached: u64,
    /// Jobs handed to the reference so far (it serves them in order).
    seq: u64,
    /// Positions being read now (one at a time from a stream).
    pending: BTreeSet<u64>,
    /// Reads of the reference going on (a reach counts).
    busy: usize,
    /// Where the reference ended.
    end: Option<u64>,
    /// Where reading it failed, and how.
    failed: Option<(u64, Error)>,
    /// The lanes still running.
    live: Vec<bool>,
    /// The lanes that read the reference themselves (see the module
    /// documentation): no plane read from now on is kept for them.
    detached: Vec<bool>,
}

/// How long a lane waits for a full window before it reads a reference read
/// by position itself.
pub const PATIENCE: Duration = Duration::from_millis(250);

/// What a lane waits for.
#[derive(Clone, Copy)]
enum Want {
    /// Position `i`'s plane.
    Read(u64),
    /// The positions before `end`.
    Reach(u64),
}

/// See the module documentation.
pub struct Tee<'a> {
    inner: Input<'a>,
    step: u64,
    window: usize,
    plane_len: usize,
    /// Reads of the reference at once: 1 for a stream, more for a file read
    /// by position.
    readers: usize,
    /// Whether the reference is read by position, so that a lane can read
    /// it alone.
    positional: bool,
    /// The devices' shared planes, dealt as the lanes' scorers deal their
    /// pairs (`None`: host memory).
    planes: Option<DealtPlanes>,
    /// Whether a plane was kept in host memory for want of a device plane
    /// (said once).
    fell_back: AtomicBool,
    state: Mutex<State>,
    changed: Condvar,
}

impl<'a> Tee<'a> {
    /// `reference` shared by `lanes` runs whose selection scores every
    /// `step`-th position; at most `window` planes of `plane_len` bytes kept.
    pub fn new(
        reference: Input<'a>,
        lanes: usize,
        step: u64,
        window: usize,
        plane_len: usize,
    ) -> Self {
        Self {
            step: step.max(1),
            window: window.max(1),
            plane_len,
            readers: if reference.is_stream() {
                1
            } else {
                lanes.clamp(2, 8)
            },
            positional: reference.reads_by_position(),
            inner: reference,
            planes: None,
            fell_back: AtomicBool::new(false),
            state: Mutex::new(State {
                cache: BTreeMap::new(),
                next: 0,
                reached: 0,
                seq: 0,
                pending: BTreeSet::new(),
                busy: 0,
                end: None,
                failed: None,
                live: vec![true; lanes],
                detached: vec![false; lanes],
            }),
            changed: Condvar::new(),
        }
    }

    /// The same tee keeping its planes in `planes` (one pool per device,
    /// dealt from the lanes' next pair; see the module documentation), or in
    /// host memory with `None`.
    pub fn with_shared_planes(mut self, planes: Option<DealtPlanes>) -> Self {
        self.planes = planes;
        self
    }

    /// Whether the planes are kept on the devices ([`Tee::with_shared_planes`]).
    pub fn shares_planes(&self) -> bool {
        self.planes.is_some()
    }

    /// Shared planes the devices' pools have made so far.
    pub fn planes_made(&self) -> usize {
        self.planes.as_ref().map_or(0, DealtPlanes::planes_made)
    }

    /// The shared reference.
    pub fn inner(&self) -> &Input<'a> {
        &self.inner
    }

    /// Lane `lane`'s read of position `i` into `dst` (`dest`: how the lane
    /// reads into it, when it reads the reference itself).
    pub fn read(
        &self,
        lane: usize,
        i: u64,
        dst: &mut [u8],
        dest: Dest,
        stop: &AtomicBool,
    ) -> Result<Got> {
        self.serve(lane, Want::Read(i), Some((dst, None)), dest, stop)
    }

    /// Lane `lane`'s read of position `i`: the device plane into `shared`
    /// when the tee keeps it on a device, else copied into `dst`.
    pub fn read_or_share(
        &self,
        lane: usize,
        i: u64,
        dst: &mut [u8],
        dest: Dest,
        shared: &mut Option<SharedPlane>,
        stop: &AtomicBool,
    ) -> Result<Got> {
        self.serve(lane, Want::Read(i), Some((dst, Some(shared))), dest, stop)
    }

    /// Lane `lane`'s check that the positions before `end` exist.
    pub fn reach(&self, lane: usize, end: u64, stop: &AtomicBool) -> Result<Got> {
        self.serve(lane, Want::Reach(end), None, Dest::Checked, stop)
    }

    /// After lane `lane`'s run: the positions from `from` up to `limit` the
    /// reference has. The lane leaves first (it reads nothing more).
    pub fn count_from(&self, lane: usize, from: u64, limit: u64) -> Result<u64> {
        self.leave(lane);
        if !self.inner.is_stream() {
            return self.inner.count_from(from, limit);
        }
        let never = AtomicBool::new(false);
        let have = match self.serve(lane, Want::Reach(limit), None, Dest::Checked, &never)? {
            Got::End(n) => n,
            _ => limit,
        };
        Ok(have.saturating_sub(from))
    }

    /// Lane `lane` reads nothing more: planes kept only for it are dropped.
    pub fn leave(&self, lane: usize) {
        let mut s = self.lock();
        if let Some(live) = s.live.get_mut(lane) {
            *live = false;
        }
        s.cache.retain(|_, e| {
            if let Some(o) = e.owed.get_mut(lane) {
                *o = false;
            }
            e.owed.iter().any(|&o| o)
        });
        drop(s);
        self.changed.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a reader panicked; the state is still whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn serve(
        &self,
        lane: usize,
        want: Want,
        mut dst: Option<Destination<'_>>,
        dest: Dest,
        stop: &AtomicBool,
    ) -> Result<Got> {
        let mut s = self.lock();
        // Since when this read has waited for a full window.
        let mut full_since: Option<Instant> = None;
        loop {
            if let (Want::Read(i), Some((to, _))) = (want, dst.as_mut()) {
                if s.detached[lane] && !s.cache.contains_key(&i) {
                    drop(s);
                    return self.inner.read(0, i, to, dest, stop);
                }
            }
            let to = dst.as_mut().map(|(d, sh)| (&mut **d, sh.as_deref_mut()));
            if let Some(got) = answer(&mut s, lane, want, to)? {
                return Ok(got);
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(Got::Cancelled);
            }
            let read_next = match want {
                Want::Read(i) => s.next <= i,
                Want::Reach(end) => s.next < end,
            };
            let can = if read_next {
                s.busy < self.readers && s.cache.len() + s.busy < self.window
            } else {
                s.busy == 0
            };
            if !can {
                let window_full = read_next && s.cache.len() + s.busy >= self.window;
                if self.positional && window_full {
                    if full_since.get_or_insert_with(Instant::now).elapsed() >= PATIENCE {
                        s.detached[lane] = true;
                        tracing::debug!(lane, "reads the reference by position itself");
                        continue;
                    }
                } else {
                    full_since = None;
                }
                s = self
                    .changed
                    .wait_timeout(s, Duration::from_millis(10))
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
                continue;
            }
            s.busy += 1;
            let (seq, p) = (s.seq, s.next);
            s.seq += 1;
            if read_next {
                s.next = p + self.step;
                s.pending.insert(p);
            }
            drop(s);
            let never = AtomicBool::new(false);
            if read_next {
                let mut plane = self.fresh_plane(p);
                // With pools the lanes score on a device, which range-checks
                // every plane (also one kept in host memory for want of a
                // device plane).
                let dest = if self.planes.is_none() {
                    Dest::Checked
                } else {
                    Dest::Unchecked
                };
                let got = self.inner.read(seq, p, plane.bytes_mut(), dest, &never);
                s = self.lock();
                s.pending.remove(&p);
                match got {
                    Ok(Got::Frame) => {
                        let owed: Vec<bool> = s
                            .live
                            .iter()
                            .zip(&s.detached)
                            .map(|(&l, &d)| l && !d)
                            .collect();
                        if owed.iter().any(|&o| o) {
                            let plane = plane.into_plane();
                            s.cache.insert(p, Entry { plane, owed });
                        }
                    }
                    Ok(Got::End(n)) => s.end = Some(s.end.map_or(n, |m| m.min(n))),
                    Ok(Got::Cancelled) => {}
                    Err(e) => {
                        if !matches!(&s.failed, Some((at, _)) if *at <= p) {
                            s.failed = Some((p, e));
                        }
                    }
                }
            } else {
                let Want::Reach(end) = want else {
                    unreachable!("only a reach gets here without a read")
                };
                let got = self.inner.reach(seq, end, &never);
                s = self.lock();
                match got {
                    Ok(Got::Frame) => s.reached = s.reached.max(end),
                    Ok(Got::End(n)) => s.end = Some(n),
                    Ok(Got::Cancelled) => {}
                    Err(e) => s.failed = Some((end.saturating_sub(1), e)),
                }
            }
            s.busy -= 1;
            self.changed.notify_all();
        }
    }
}

impl Tee<'_> {
    /// A plane to read position `p` into: from its device's pool, else (no
    /// pool, the pool could not make one, or the lanes' scorers carry this
    /// reference to the next device's first pair, which takes it from host
    /// memory: [`DealtPlanes::reference_carried`]) in host memory.
    fn fresh_plane(&self, p: u64) -> Fresh {
        if let Some(planes) = self
            .planes
            .as_ref()
            .filter(|d| !d.reference_carried(p / self.step))
        {
            match planes.pool_for(p / self.step).take() {
                Ok(w) => return Fresh::Device(w),
                Err(e) => {
                    if !self.fell_back.swap(true, Ordering::Relaxed) {
                        tracing::warn!(
                            position = p,
                            "reference frames are copied to each pair when no shared plane \
                             is free: {e}"
                        );
                    }
                }
            }
        }
        Fresh::Host(vec![0u8; self.plane_len])
    }
}

/// Where a lane's read goes: its slot's plane, and where a shared device
/// plane is handed over when the lane takes one.
type Destination<'d> = (&'d mut [u8], Option<&'d mut Option<SharedPlane>>);

/// What the tee can tell lane `lane` now about `want`, if anything.
fn answer(
    s: &mut State,
    lane: usize,
    want: Want,
    dst: Option<Destination<'_>>,
) -> Result<Option<Got>> {
    let failed_at = |s: &State, p: u64| {
        s.failed
            .as_ref()
            .filter(|(at, _)| *at <= p)
            .map(|(_, e)| e.clone())
    };
    match want {
        Want::Read(i) => {
            if let Some(entry) = s.cache.get_mut(&i) {
                match (&entry.plane, dst) {
                    (Plane::Host(plane), Some((dst, _))) => {
                        let n = dst.len().min(plane.len());
                        dst[..n].copy_from_slice(&plane[..n]);
                    }
                    (Plane::Device(plane), Some((_, Some(shared)))) => {
                        *shared = Some(plane.clone());
                    }
                    (Plane::Device(_), Some((_, None))) => {
                        return Err(Error::Internal(
                            "a lane that copies its reference read a plane kept on a device".into(),
                        ))
                    }
                    (_, None) => {}
                }
                if let Some(o) = entry.owed.get_mut(lane) {
                    *o = false;
                }
                if !entry.owed.iter().any(|&o| o) {
                    s.cache.remove(&i);
                }
                return Ok(Some(Got::Frame));
            }
            if let Some(n) = s.end.filter(|&n| n <= i) {
                return Ok(Some(Got::End(n)));
            }
            if let Some(e) = failed_at(s, i) {
                return Err(e);
            }
            if s.pending.contains(&i) {
                return Ok(None);
            }
            if i < s.next {
                return Err(Error::Internal(format!(
                    "the shared reference's position {i} was dropped before every input read it"
                )));
            }
            Ok(None)
        }
        Want::Reach(end) => {
            if let Some(n) = s.end {
                return Ok(Some(if n < end { Got::End(n) } else { Got::Frame }));
            }
            if let Some(e) = failed_at(s, end.saturating_sub(1)) {
                return Err(e);
            }
            if s.reached >= end {
                return Ok(Some(Got::Frame));
            }
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use vkssim::api::ScoreQueue;

    use vkssim::io::{Check, Chroma, LumaReader, Planes, VideoFormat};

    use super::*;

    /// What a reader of luma only says when asked for chroma planes.
    fn luma_only(planes: Planes) -> Result<()> {
        match planes {
            Planes::Luma => Ok(()),
            Planes::All => Err(vkssim::Error::Unsupported(
                "this reader reads the luma plane only, not chroma".into(),
            )),
        }
    }

    /// A stream of `len` one-byte frames, frame `k` holding `k`.
    struct Counter {
        len: u64,
        at: u64,
        path: PathBuf,
    }

    impl LumaReader for Counter {
        fn format(&self) -> VideoFormat {
            VideoFormat {
                width: 1,
                height: 1,
                bit_depth: 8,
                chroma: Chroma::C420,
            }
        }
        fn path(&self) -> &Path {
            &self.path
        }
        fn read(&mut self, dst: &mut [u8], planes: Planes, _: Check) -> Result<bool> {
            luma_only(planes)?;
            if self.at >= self.len {
                return Ok(false);
            }
            dst[0] = self.at as u8;
            self.at += 1;
            Ok(true)
        }
        fn skip(&mut self, frames: u64) -> Result<u64> {
            let n = frames.min(self.len - self.at);
            self.at += n;
            Ok(n)
        }
        fn frames_read(&self) -> u64 {
            self.at
        }
    }

    /// Frames of `64 x 48` 8-bit samples, frame `k` filled with `k`.
    struct Filled {
        at: u64,
        path: PathBuf,
    }

    impl LumaReader for Filled {
        fn format(&self) -> VideoFormat {
            VideoFormat {
                width: 64,
                height: 48,
                bit_depth: 8,
                chroma: Chroma::C420,
            }
        }
        fn path(&self) -> &Path {
            &self.path
        }
        fn read(&mut self, dst: &mut [u8], planes: Planes, _: Check) -> Result<bool> {
            luma_only(planes)?;
            dst.fill(self.at as u8);
            self.at += 1;
            Ok(true)
        }
        fn skip(&mut self, frames: u64) -> Result<u64> {
            self.at += frames;
            Ok(frames)
        }
        fn frames_read(&self) -> u64 {
            self.at
        }
    }

    /// Two devices (two Vulkan devices on the first GPU, each with its pool)
    /// and lanes whose first pair goes to the second: position `p`'s plane is
    /// on device `(1 + p) % 2`, where the lanes' scorers take it (scoring as
    /// the CPU twin), and the other device's scorer refuses it. Validation is
    /// on; any message fails.
    #[test]
    fn device_planes_follow_the_lanes_turn() {
        use vkssim::api::{Engine, ScorerDesc};
        use vkssim::vk::VkOptions;
        if !vkssim::vk::list_devices(false).is_ok_and(|d| !d.is_empty()) {
            eprintln!("skipped: no Vulkan device");
            return;
        }
        let engines: Vec<Engine> = [None, Some(0)]
            .into_iter()
            .map(|device_index| {
                Engine::new(
                    &VkOptions::default()
                        .with_device_index(device_index)
                        .with_validation(true),
                )
                .expect("engine")
            })
            .collect();
        let handle = |e: &Engine| ash::vk::Handle::as_raw(e.device_handles().device.handle());
        assert_ne!(handle(&engines[0]), handle(&engines[1]), "two devices");
        let desc = ScorerDesc::new(64, 48, 8);
        // A multi-scorer whose next pair goes to the second device.
        let mut multi = vkssim::api::MultiScorer::new(&engines, &desc).expect("scorers");
        let (r, d) = (vec![0u8; 64 * 48], vec![9u8; 64 * 48]);
        let host = vkssim::api::HostPlane::u8;
        multi
            .submit(vkssim::api::Pair::new(host(&r, 64), host(&d, 64)))
            .expect("one pair");
        multi.wait().expect("a result").expect("a score");
        assert_eq!(multi.next_engine(), 1);
        let planes = multi.shared_planes().expect("pools");
        let reader = Filled {
            at: 0,
            path: PathBuf::from("planes"),
        };
        let reference = Input::open("reference", Box::new(reader), 0);
        let tee = Tee::new(reference, 1, 1, 4, 64 * 48).with_shared_planes(Some(planes));
        let mut scorers: Vec<_> = engines
            .iter()
            .map(|e| e.scorer(&desc).expect("scorer"))
            .collect();
        let stop = AtomicBool::new(false);
        for p in 0..4u64 {
            let mut shared = None;
            let mut dst = vec![0u8; 64 * 48];
            let got = tee.read_or_share(0, p, &mut dst, Dest::Checked, &mut shared, &stop);
            assert_eq!(got.expect("read"), Got::Frame);
            let plane = shared.expect("a device plane");
            let own = ((1 + p) % 2) as usize;
            for (k, scorer) in scorers.iter_mut().enumerate() {
                let mut slots = scorer.slots();
                let mut slot = slots.acquire().expect("slot");
                slot.share_reference(&plane).expect("same geometry");
                slot.distorted_mut().fill(p as u8);
                let submitted = slots.submit(slot);
                if k == own {
                    submitted.expect("the plane's own device");
                    let score = slots.wait().expect("a result").expect("score");
                    let mut frame = vkssim::LumaFrame::zeroed(64, 48, 8);
                    frame.bytes.fill(p as u8);
                    let want = vkssim::testing::cpu::score_frame(
                        &frame.view(),
                        &frame.view(),
                        &vkssim::SsimOptions::default(),
                    )
                    .expect("cpu");
                    assert_eq!(score, want, "position {p}");
                } else {
                    let e = submitted.expect_err("another device's plane");
                    assert!(e.to_string().contains("shared reference plane"), "{e}");
                }
            }
        }
        tee.leave(0);
        drop(scorers);
        for e in &engines {
            let messages = e.validation_messages();
            assert!(messages.is_empty(), "{}", messages.join("\n"));
        }
    }

    /// A pool that can give no more planes (its limit of one is in use): the
    /// next position is kept in host memory and copied into the lane's slot,
    /// and both pairs score as the CPU twin. Validation is on.
    #[test]
    fn a_full_pool_keeps_the_plane_in_host_memory() {
        use vkssim::api::{Engine, ScorerDesc};
        use vkssim::vk::VkOptions;
        if !vkssim::vk::list_devices(false).is_ok_and(|d| !d.is_empty()) {
            eprintln!("skipped: no Vulkan device");
            return;
        }
        let engine = Engine::new(&VkOptions::default().with_validation(true)).expect("engine");
        let desc = ScorerDesc::new(64, 48, 8);
        let planes = vkssim::api::MultiScorer::new(std::slice::from_ref(&engine), &desc)
            .expect("scorer")
            .shared_planes()
            .expect("pool")
            .with_max_planes(1);
        let reader = Filled {
            at: 0,
            path: PathBuf::from("planes"),
        };
        let reference = Input::open("reference", Box::new(reader), 0);
        let tee = Tee::new(reference, 1, 1, 4, 64 * 48).with_shared_planes(Some(planes));
        let mut scorer = engine.scorer(&desc).expect("scorer");
        let stop = AtomicBool::new(false);
        let mut kept = Vec::new();
        for p in 0..2u64 {
            let mut shared = None;
            let mut slots = scorer.slots();
            let mut slot = slots.acquire().expect("slot");
            let got = {
                let (a, b) = slot.planes_mut();
                b.fill(7);
                tee.read_or_share(0, p, a, Dest::Checked, &mut shared, &stop)
            };
            assert_eq!(got.expect("read"), Got::Frame);
            assert_eq!(shared.is_some(), p == 0, "position {p}");
            if let Some(plane) = &shared {
                slot.share_reference(plane).expect("share");
            }
            slots.submit(slot).expect("submit");
            let score = slots.wait().expect("a result").expect("score");
            let mut r = vkssim::LumaFrame::zeroed(64, 48, 8);
            r.bytes.fill(p as u8);
            let mut d = vkssim::LumaFrame::zeroed(64, 48, 8);
            d.bytes.fill(7);
            let opts = vkssim::SsimOptions::default();
            let want = vkssim::testing::cpu::score_frame(&r.view(), &d.view(), &opts).expect("cpu");
            assert_eq!(score, want, "position {p}");
            // The lane still holds position 0's plane: the pool is full.
            kept.push(shared);
        }
        tee.leave(0);
        drop(scorer);
        let messages = engine.validation_messages();
        assert!(messages.is_empty(), "{}", messages.join("\n"));
    }

    /// Lanes reading every `step`-th position out of order on several
    /// threads, through a window of 2 planes, one lane leaving half-way: each
    /// read gets its own frame, and each lane the stream's end.
    #[test]
    fn lanes_read_each_frame_once_through_a_small_window() {
        for step in [1u64, 3] {
            let reader = Counter {
                len: 40,
                at: 0,
                path: PathBuf::from("counter"),
            };
            let tee = Tee::new(Input::open("reference", Box::new(reader), 0), 3, step, 2, 1);
            let stop = AtomicBool::new(false);
            std::thread::scope(|s| {
                for lane in 0..3usize {
                    let (tee, stop) = (&tee, &stop);
                    s.spawn(move || {
                        let last = if lane == 2 { 20 } else { 40 };
                        let positions: Vec<u64> = (0..last).filter(|i| i % step == 0).collect();
                        // Pairs of positions swapped, as reader threads take them.
                        for pair in positions.chunks(2) {
                            for &i in pair.iter().rev() {
                                let mut dst = [0u8];
                                assert_eq!(
                                    tee.read(lane, i, &mut dst, Dest::Checked, stop).unwrap(),
                                    Got::Frame
                                );
                                assert_eq!(u64::from(dst[0]), i, "lane {lane} position {i}");
                            }
                        }
                        if lane == 2 {
                            tee.leave(lane);
                            return;
                        }
                        let end = positions.last().unwrap() + step;
                        let mut dst = [0u8];
                        assert_eq!(
                            tee.read(lane, end, &mut dst, Dest::Checked, stop).unwrap(),
                            Got::End(40)
                        );
                        tee.leave(lane);
                    });
                }
            });
            assert!(tee.lock().cache.is_empty());
        }
    }
}
