//! Frame slots: a [`Scorer`]'s upload memory handed out to be filled in place
//! ([`FrameSlots`], [`FrameSlot`]), so that readers on several threads write a
//! pair's luma straight where the scorer reads it (mapped device or staging
//! memory on a Vulkan device, host memory on the CPU twin), with no frame
//! buffer in between.
//!
//! Safety by construction: [`Scorer::slots`] borrows the scorer mutably for
//! the lifetime `'s` of every [`FrameSlot<'s>`] it hands out, so the memory a
//! slot points at can neither be freed nor reused while the slot lives; a slot
//! dropped unsubmitted returns to the ring, and [`Scorer::slots`] takes back
//! any slot of an earlier borrow that was leaked.

use std::marker::PhantomData;
use std::sync::mpsc::Sender;
use std::sync::Arc;

use super::queue::ScoreQueue;
use super::scorer::{Inner, Scorer};
use crate::frame::{bytes_per_sample, PlaneGeometry};
use crate::io::range::first_out_of_range;
use crate::vk::shared_plane::SharedPlane;
use crate::vk::UploadSlot;
use crate::{Component, Error, FrameScore, FrameScorer, LumaFrame, PlaneRole, Result, SampleAt};

/// A slot dropped unsubmitted, on its way back to its scorer.
pub(super) enum Returned {
    /// A Vulkan ring slot.
    Vk(UploadSlot),
    /// A host-memory slot of the CPU twin (its planes go back to the
    /// scorer for reuse).
    Host(Vec<u8>, Vec<u8>),
}

/// Where a slot's planes live.
enum Memory {
    /// A Vulkan ring slot's mapped upload (or staging) memory.
    Mapped(UploadSlot),
    /// Host memory, handed to the CPU twin on submission.
    Host(Vec<u8>, Vec<u8>),
}

/// A scorer lent out to fill frame slots (see the module documentation):
/// [`FrameSlots::acquire`] hands out slots, [`FrameSlots::submit`](crate::api::ScoreQueue::submit) scores them
/// in the order submitted, and [`FrameSlots::poll`](crate::api::ScoreQueue::poll) / [`FrameSlots::wait`](crate::api::ScoreQueue::wait)
/// return the results.
pub struct FrameSlots<'s> {
    scorer: &'s mut Scorer,
}

/// One pair's planes in a scorer's upload memory, to be filled (from any
/// thread: it is `Send`) and given back with [`FrameSlots::submit`](crate::api::ScoreQueue::submit). Dropped
/// unsubmitted, it returns to the ring unused.
pub struct FrameSlot<'s> {
    memory: Option<Memory>,
    /// Bytes of a luma plane.
    len: usize,
    /// Bytes of a whole frame as the scorer reads it: the luma plane, then
    /// the Cb and Cr planes when its metrics read chroma.
    frame_len: usize,
    /// Samples per row of a chroma plane (when read).
    chroma_width: u32,
    /// Samples per row (for the position in a range error).
    width: u32,
    bit_depth: u32,
    /// Whether each plane was written through a checked copy
    /// ([`FrameSlot::copy_from`]) rather than [`FrameSlot::planes_mut`].
    checked: [bool; 2],
    /// Whether the scorer checks the sample range itself (the Vulkan
    /// scorer's decimate pass), so that submission does not read the planes
    /// back.
    range_on_device: bool,
    host_cached: bool,
    /// The reference plane read instead of the slot's own
    /// ([`FrameSlot::share_reference`]).
    shared_reference: Option<SharedPlane>,
    /// The reference frame written in host memory instead of the slot's
    /// mapped memory, copied in on submission and kept: a
    /// [`super::MultiSlots`] slot whose reference the next engine's first
    /// pair carries ([`FrameSlot::keep_reference`]).
    kept: Option<Vec<u8>>,
    scorer: u64,
    back: Sender<Returned>,
    _memory: PhantomData<&'s mut [u8]>,
}

impl Scorer {
    /// Lends the scorer out to fill frame slots in place (see [`FrameSlots`]).
    /// Slots handed out by an earlier borrow and never given back (leaked with
    /// `std::mem::forget`) return to the ring now: their borrow has ended, so
    /// nothing can write them.
    pub fn slots(&mut self) -> FrameSlots<'_> {
        self.take_returns();
        match &mut self.inner {
            Inner::Vk(v) => v.reclaim_slots(),
            Inner::Cpu(_) => self.host_slots = 0,
        }
        FrameSlots { scorer: self }
    }

    /// Puts slots dropped unsubmitted back into the ring.
    pub(super) fn take_returns(&mut self) {
        while let Ok(r) = self.returns.1.try_recv() {
            match (r, &mut self.inner) {
                (Returned::Vk(slot), Inner::Vk(v)) => v.abandon_slot(slot),
                (Returned::Host(r, d), Inner::Cpu(c)) => {
                    c.recycle(r);
                    c.recycle(d);
                    self.host_slots = self.host_slots.saturating_sub(1);
                }
                (_, _) => {}
            }
        }
    }
}

impl<'s> FrameSlots<'s> {
    /// A free slot. When every slot is busy this waits for the oldest pair in
    /// flight (its result is queued for [`FrameSlots::poll`](crate::api::ScoreQueue::poll)); when every slot
    /// is handed out ([`FrameSlots::queue_depth`](crate::api::ScoreQueue::queue_depth) of them) it is an error.
    pub fn acquire(&mut self) -> Result<FrameSlot<'s>> {
        let s = &mut *self.scorer;
        s.take_returns();
        let d = s.desc().clone();
        let len = d.width as usize * d.height as usize * bytes_per_sample(d.bit_depth);
        let (chroma_width, frame_len) = if s.metrics().needs_chroma() {
            let (cw, ch) = s.metrics().chroma_plane_size();
            let plane = cw as usize * ch as usize * bytes_per_sample(d.bit_depth);
            (cw, len + 2 * plane)
        } else {
            (0, len)
        };
        let (memory, host_cached, range_on_device) = match &mut s.inner {
            // The pictures go straight into the device slot's upload memory
            // (luma, then Cb and Cr when a metric reads chroma); the device
            // checks every plane's sample range.
            Inner::Vk(v) => {
                let u = v.acquire_slot()?;
                if u.frame_len() != frame_len {
                    let got = u.frame_len();
                    v.abandon_slot(u);
                    return Err(Error::Internal(format!(
                        "a frame slot holds {got} bytes per frame, the metrics read {frame_len}"
                    )));
                }
                (Memory::Mapped(u), v.upload_is_host_cached(), true)
            }
            Inner::Cpu(c) => {
                let depth = c.queue_depth();
                if s.host_slots >= depth {
                    return Err(Error::InvalidOption(format!(
                        "all {depth} frame slots are handed out; submit one before taking another"
                    )));
                }
                s.host_slots += 1;
                (
                    Memory::Host(c.take_buffer(frame_len), c.take_buffer(frame_len)),
                    true,
                    false,
                )
            }
        };
        Ok(FrameSlot {
            memory: Some(memory),
            len,
            frame_len,
            chroma_width,
            width: d.width,
            bit_depth: d.bit_depth,
            checked: [false; 2],
            range_on_device,
            host_cached,
            shared_reference: None,
            kept: None,
            scorer: s.id,
            back: s.returns.0.clone(),
            _memory: PhantomData,
        })
    }

    /// The scorer, for its read-only accessors.
    pub fn scorer(&self) -> &Scorer {
        self.scorer
    }

    /// The scorer's next result before its stream (see [`Scorer::next_raw`]).
    pub(super) fn next_raw(&mut self, blocking: bool) -> Option<(u64, super::stream::Raw)> {
        self.scorer.next_raw(blocking)
    }

    /// See [`Scorer::end_backend_stream`].
    pub(super) fn end_backend_stream(&mut self) {
        self.scorer.end_backend_stream();
    }
}

/// Frame slots filled in place ([`FrameSlot`], from [`FrameSlots::acquire`]);
/// results and indices are the scorer's (a pair submitted here and one
/// submitted on the scorer share one count).
impl<'s> ScoreQueue for FrameSlots<'s> {
    type Input<'p> = FrameSlot<'s>;

    /// Scores `slot`'s pair as the next one (results come back in the order
    /// pairs are submitted, whatever the order slots were handed out in).
    /// Blocks while [`ScoreQueue::queue_depth`] pairs are being scored.
    ///
    /// Errors: a slot of another scorer; device errors. A 10 or 12-bit
    /// sample above the bit depth (checked on submission by the CPU twin, on
    /// the device by a Vulkan scorer: [`FrameSlot::range_checked_on_device`])
    /// makes the pair's result [`Error::SampleRange`]; the pair keeps its
    /// place in the stream as [`Scorer::submit`](crate::api::ScoreQueue::submit)
    /// says. A slot refused before submission ([`FrameSlot::copy_from`],
    /// [`FrameSlot::check`]) and dropped is no part of the stream.
    fn submit(&mut self, slot: FrameSlot<'s>) -> Result<()> {
        self.submit_with(slot, None, false).map(|_| ())
    }

    fn poll_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.scorer.poll_indexed()
    }

    fn wait_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.scorer.wait_indexed()
    }

    fn finish(&mut self) {
        self.scorer.finish();
    }

    fn submitted(&self) -> u64 {
        self.scorer.submitted()
    }

    fn in_flight(&self) -> usize {
        self.scorer.in_flight()
    }

    /// Slots that may be handed out at once.
    fn queue_depth(&self) -> usize {
        self.scorer.queue_depth()
    }
}

impl<'s> FrameSlots<'s> {
    /// [`ScoreQueue::submit`], the pair carrying `previous` as its previous
    /// frame's reference luma (packed; see
    /// [`super::Pair::with_previous_reference`]); with `keep`, gives back
    /// the pair's reference luma when it is in host memory (the CPU twin's
    /// slots, or one that kept its reference: [`FrameSlot::keep_reference`]).
    pub(super) fn submit_with(
        &mut self,
        mut slot: FrameSlot<'s>,
        previous: Option<Arc<LumaFrame>>,
        keep: bool,
    ) -> Result<Option<Arc<LumaFrame>>> {
        let s = &mut *self.scorer;
        s.take_returns();
        if slot.scorer != s.id {
            return Err(Error::InvalidOption(
                "a frame slot given to another scorer than the one that handed it out".into(),
            ));
        }
        let frame = s.submitted;
        // A sample above the bit depth refuses the pair, which keeps its
        // place with samples 0 in what was refused (`super::refused`).
        let mut refused = None;
        for (k, which) in [(0, PlaneRole::Reference), (1, PlaneRole::Distorted)] {
            if !slot.checked[k] && !slot.range_on_device && slot.shared_reference.is_none() {
                if let Err(e) = slot.check_plane(k, which, frame) {
                    refused = refused.or(Some((k, e)));
                }
            }
        }
        if let Some((k, _)) = &refused {
            let (r, d) = slot.frames_mut();
            d.fill(0);
            if *k == 0 {
                r.fill(0);
            }
        }
        let d = s.desc().clone();
        let luma = |mut bytes: Vec<u8>| {
            bytes.truncate(slot.len);
            Arc::new(LumaFrame {
                width: d.width,
                height: d.height,
                bit_depth: d.bit_depth,
                bytes,
            })
        };
        let mut kept = None;
        match (slot.memory.take(), &mut s.inner) {
            (Some(Memory::Mapped(mut u)), Inner::Vk(v)) => {
                if let Some(r) = slot.kept.take().filter(|_| slot.shared_reference.is_none()) {
                    // SAFETY: as in `FrameSlot::planes_mut` (the slot is
                    // still out: it is given back below).
                    unsafe { u.frames_mut() }
                        .0
                        .copy_from_slice(&r[..slot.frame_len]);
                    kept = keep.then(|| luma(r));
                }
                let previous = previous.as_ref().map(|p| &p.bytes[..]);
                v.submit_slot_sharing(u, slot.shared_reference.as_ref(), previous)?
            }
            (Some(Memory::Host(r, dd)), Inner::Cpu(c)) => {
                s.host_slots = s.host_slots.saturating_sub(1);
                if keep {
                    kept = Some(luma(r[..slot.len].to_vec()));
                }
                let frame = |bytes| LumaFrame {
                    width: d.width,
                    height: d.height,
                    bit_depth: d.bit_depth,
                    bytes,
                };
                if let Some(p) = previous {
                    c.carry_previous(p);
                }
                c.submit(frame(r), frame(dd))?;
            }
            _ => return Err(Error::Internal("a frame slot of the wrong backend".into())),
        }
        if let Some((_, e)) = refused {
            s.refusals.push(frame, e);
        }
        s.submitted += 1;
        Ok(kept)
    }
}

impl FrameSlot<'_> {
    /// Bytes of each plane: a packed luma plane, one byte per sample at 8 bits,
    /// two little-endian bytes above.
    pub fn plane_len(&self) -> usize {
        self.len
    }

    /// Bytes of each whole frame ([`FrameSlot::frames_mut`]): the luma plane,
    /// then the Cb and Cr planes when the scorer's metrics read chroma
    /// ([`crate::metric::MetricSet::needs_chroma`]); else
    /// [`FrameSlot::plane_len`].
    pub fn frame_len(&self) -> usize {
        self.frame_len
    }

    /// Whether the scorer reads the frames' chroma planes (write them through
    /// [`FrameSlot::frames_mut`]).
    pub fn reads_chroma(&self) -> bool {
        self.frame_len > self.len
    }

    /// Whether reading the planes back is cheap (host-cached memory). When it
    /// is not (write-combined device memory behind the BAR), write them once,
    /// in order, and do not read them back (the Vulkan scorer checks the
    /// sample range on the device: [`FrameSlot::range_checked_on_device`]).
    pub fn is_host_cached(&self) -> bool {
        self.host_cached
    }

    /// Whether the scorer checks the sample range of the planes itself, on the
    /// device (a Vulkan scorer: its decimate pass reads every sample, and a
    /// sample above the bit depth makes the pair's result
    /// [`Error::SampleRange`] naming `reference plane` or `distorted plane`
    /// and the sample's position), so that nothing reads the planes back on
    /// the host. False for the CPU twin, which checks a plane written through
    /// [`FrameSlot::planes_mut`] on submission.
    pub fn range_checked_on_device(&self) -> bool {
        self.range_on_device
    }

    /// The reference and distorted planes, to be written in place
    /// ([`FrameSlot::plane_len`] bytes each). At 10 and 12 bits their samples
    /// are range-checked: on the device by a Vulkan scorer, on submission by
    /// the CPU twin.
    pub fn planes_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        self.checked = [false; 2];
        let len = self.len;
        match self.memory.as_mut() {
            Some(Memory::Mapped(u)) => {
                // SAFETY: the scorer that handed out this slot is mutably
                // borrowed for the slot's lifetime (`FrameSlots<'s>`), so it
                // can neither drop nor free the slot's memory, and it neither
                // reuses nor writes that memory while the slot is out (it is in
                // the ring's `filling` set until submitted or returned).
                let (r, d) = unsafe { u.planes_mut() };
                match self.kept.as_mut() {
                    Some(k) => (&mut k[..len], d),
                    None => (r, d),
                }
            }
            Some(Memory::Host(r, d)) => (&mut r[..self.len], &mut d[..self.len]),
            None => (&mut [], &mut []),
        }
    }

    /// The reference and distorted frames, to be written in place
    /// ([`FrameSlot::frame_len`] bytes each): the luma plane, then with
    /// chroma ([`FrameSlot::reads_chroma`]) the Cb and Cr planes, packed, as
    /// a raw YUV file stores a frame. Without chroma, the planes of
    /// [`FrameSlot::planes_mut`].
    pub fn frames_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        if !self.reads_chroma() {
            return self.planes_mut();
        }
        self.checked = [false; 2];
        match self.memory.as_mut() {
            Some(Memory::Mapped(u)) => {
                // SAFETY: as in `planes_mut`.
                let (r, d) = unsafe { u.frames_mut() };
                match self.kept.as_mut() {
                    Some(k) => (&mut k[..], d),
                    None => (r, d),
                }
            }
            Some(Memory::Host(r, d)) => (&mut r[..], &mut d[..]),
            None => (&mut [], &mut []),
        }
    }

    /// Makes `plane` this slot's reference: the pair is scored against it,
    /// read where it lies on the device, and the slot's own reference plane is
    /// not read (write only the distorted one: [`FrameSlot::distorted_mut`]).
    /// This is how an encoding ladder uploads each reference frame once for
    /// all its encodes ([`crate::api::Engine::shared_planes`]). Its samples
    /// are range-checked on the device like the slot's own.
    ///
    /// Errors: a slot of the CPU twin ([`Error::InvalidOption`]: copy the
    /// reference into the slot instead); a plane of another geometry
    /// ([`Error::GeometryMismatch`]). A plane of another device is refused on
    /// submission.
    pub fn share_reference(&mut self, plane: &SharedPlane) -> Result<()> {
        if !matches!(self.memory, Some(Memory::Mapped(_))) {
            return Err(Error::InvalidOption(
                "a frame slot of the CPU twin reads its reference from the slot: copy the \
                 reference plane into it"
                    .into(),
            ));
        }
        let (width, height, bit_depth) = plane.geometry();
        let rows = self.len / (self.width.max(1) as usize * bytes_per_sample(self.bit_depth));
        PlaneGeometry::new(width, height, bit_depth).expect_same(
            "a shared reference plane given to a frame slot",
            PlaneGeometry::new(self.width, rows as u32, self.bit_depth),
            "the slot",
        )?;
        self.shared_reference = Some(plane.clone());
        Ok(())
    }

    /// Makes the slot's reference frame host memory, from now on until
    /// submission (where it is copied into the slot's memory and given back
    /// to [`super::MultiSlots`], which carries its luma to the next engine's
    /// first pair: [`super::Pair::with_previous_reference`]): for a slot in
    /// a Vulkan ring, whose mapped memory is not read back. Nothing to do
    /// for the CPU twin's slots (host memory already).
    pub(super) fn keep_reference(&mut self) {
        if matches!(self.memory, Some(Memory::Mapped(_))) && self.kept.is_none() {
            self.kept = Some(vec![0; self.frame_len]);
        }
    }

    /// The distorted plane, to be written in place (as
    /// [`FrameSlot::planes_mut`]).
    pub fn distorted_mut(&mut self) -> &mut [u8] {
        self.planes_mut().1
    }

    /// Copies the two packed frames in ([`FrameSlot::frame_len`] bytes each:
    /// the luma plane, then the Cb and Cr planes when the scorer reads
    /// chroma), after checking their length and (at 10 and 12 bits) their
    /// sample range in the caller's memory, so that submission need not read
    /// the slot back.
    ///
    /// Errors: a plane of the wrong length ([`Error::BufferSize`]), a sample
    /// above the bit depth ([`Error::SampleRange`]).
    pub fn copy_from(&mut self, reference: &[u8], distorted: &[u8]) -> Result<()> {
        for (plane, which) in [
            (reference, PlaneRole::Reference),
            (distorted, PlaneRole::Distorted),
        ] {
            if plane.len() != self.frame_len {
                return Err(Error::BufferSize {
                    what: format!("the {which} frame of a frame slot"),
                    needed: self.frame_len,
                    actual: plane.len(),
                });
            }
            self.check_bytes(plane, which, 0)?;
        }
        let (a, b) = self.frames_mut();
        a.copy_from_slice(reference);
        b.copy_from_slice(distorted);
        self.checked = [true; 2];
        Ok(())
    }

    /// Checks, at 10 and 12 bits, the samples of the planes written through
    /// [`FrameSlot::planes_mut`] now, on the calling thread (e.g. a reader's),
    /// instead of on submission. A sample's position is given within the
    /// slot's plane; `frame` is 0 (the slot has no frame number yet).
    ///
    /// Errors: a sample above the bit depth ([`Error::SampleRange`]).
    pub fn check(&mut self) -> Result<()> {
        for (k, which) in [(0, PlaneRole::Reference), (1, PlaneRole::Distorted)] {
            if !self.checked[k] {
                self.check_plane(k, which, 0)?;
                self.checked[k] = true;
            }
        }
        Ok(())
    }

    /// Checks the sample range of frame `k` (0 reference, 1 distorted) as
    /// submitted.
    fn check_plane(&self, k: usize, which: PlaneRole, frame: u64) -> Result<()> {
        self.check_bytes(self.plane(k), which, frame)
    }

    /// Checks the sample range of a frame's bytes: the luma plane, then the
    /// chroma planes that follow it when the scorer reads them (each checked
    /// with its own row width).
    fn check_bytes(&self, bytes: &[u8], which: PlaneRole, frame: u64) -> Result<()> {
        let luma = self.len.min(bytes.len());
        let (width, depth) = (self.width, self.bit_depth);
        check_range(&bytes[..luma], width, depth, which, Component::Luma, frame)?;
        if self.reads_chroma() {
            let plane = (self.frame_len - self.len) / 2;
            for (k, c) in bytes[luma..].chunks(plane.max(1)).enumerate() {
                let (cw, component) = (self.chroma_width, Component::at(1 + k));
                check_range(c, cw, depth, which, component, frame)?;
            }
        }
        Ok(())
    }

    /// Plane `k` (0 reference, 1 distorted) for reading.
    fn plane(&self, k: usize) -> &[u8] {
        if let Some(r) = self.kept.as_ref().filter(|_| k == 0) {
            return &r[..self.len];
        }
        match self.memory.as_ref() {
            Some(Memory::Mapped(u)) => {
                // SAFETY: as in `planes_mut`; `&self` makes this the only
                // access while it lives.
                unsafe { u.plane(k) }
            }
            Some(Memory::Host(r, d)) => [r, d][k],
            None => &[],
        }
    }
}

/// [`Error::SampleRange`] for the first sample of `plane` (plane `component`
/// of `which`'s frame `frame`, rows of `width` samples) above `bit_depth`.
fn check_range(
    plane: &[u8],
    width: u32,
    bit_depth: u32,
    which: PlaneRole,
    component: Component,
    frame: u64,
) -> Result<()> {
    match first_out_of_range(plane, bit_depth) {
        None => Ok(()),
        Some((i, value)) => Err(Error::SampleRange {
            plane: Some(which),
            component,
            at: SampleAt::Slot,
            frame,
            x: (i % width.max(1) as usize) as u32,
            y: (i / width.max(1) as usize) as u32,
            value: value as u32,
            max: (1u32 << bit_depth) - 1,
            bit_depth,
        }),
    }
}

impl Drop for FrameSlot<'_> {
    fn drop(&mut self) {
        let back = match self.memory.take() {
            Some(Memory::Mapped(u)) => Returned::Vk(u),
            Some(Memory::Host(r, d)) => Returned::Host(r, d),
            None => return,
        };
        // The scorer outlives the slot, and with it the receiver.
        let _ = self.back.send(back);
    }
}

impl std::fmt::Debug for FrameSlot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameSlot")
            .field("plane_len", &self.len)
            .field("host_cached", &self.host_cached)
            .finish()
    }
}

impl std::fmt::Debug for FrameSlots<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameSlots")
            .field("scorer", &self.scorer)
            .finish()
    }
}

/// Compile-time proof that slots can go to reader threads.
#[allow(dead_code)]
fn assert_slot_is_send() {
    fn send<T: Send>() {}
    send::<FrameSlot<'static>>();
}
