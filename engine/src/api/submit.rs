//! One way in: a [`Pair`] of frame [`Source`]s (host planes, shared reference
//! planes, imported device planes), with the semaphores a device-resident
//! pair waits on and signals, given to [`Scorer::submit`](crate::api::ScoreQueue::submit). Frame slots filled
//! in place go back through the [`super::FrameSlots`] they came from.

use std::sync::{Arc, Weak};

use super::imported::ImportedPlane;
use super::plane::{HostPlane, SemaphoreRef};
use super::refused::range_refusal;
use super::scorer::{Inner, Scorer};
use crate::vk::scorer::ExternalSemaphore;
use crate::vk::shared_plane::SharedPlane;
use crate::{Component, Error, FrameScorer, LumaFrame, PlaneRole, Result};

/// Where one plane of a pair is.
///
/// ```no_run
/// use vkssim::api::{HostPlane, Source};
/// let luma = vec![0u8; 64 * 64];
/// let source: Source = HostPlane::u8(&luma, 64).into();
/// # let _ = source;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// In host memory (copied before [`Scorer::submit`](crate::api::ScoreQueue::submit) returns).
    Host(HostPlane<'a>),
    /// A reference plane already on the device, shared by the scorers of a
    /// ladder ([`super::SharedPlanes::upload`], or
    /// [`super::SharedPlanes::upload_picture`] with its Cb and Cr planes for
    /// a scorer whose psnr reads chroma); the distorted frame of its pair
    /// comes from host memory.
    Shared(&'a SharedPlane),
    /// A plane of the host's imported buffer or image
    /// ([`super::Engine::import_buffer`], [`super::Engine::import_image`]).
    Imported(&'a ImportedPlane),
}

impl<'a> From<HostPlane<'a>> for Source<'a> {
    fn from(p: HostPlane<'a>) -> Self {
        Source::Host(p)
    }
}

impl<'a> From<&'a SharedPlane> for Source<'a> {
    fn from(p: &'a SharedPlane) -> Self {
        Source::Shared(p)
    }
}

impl<'a> From<&'a ImportedPlane> for Source<'a> {
    fn from(p: &'a ImportedPlane) -> Self {
        Source::Imported(p)
    }
}

/// A reference and a distorted plane scored together, and for a
/// device-resident pair the semaphores its work waits on before it starts and
/// signals when its results are written.
///
/// The planes may be: both on the host; a shared reference and a host
/// distorted plane; or both imported (then waits and signals may be given).
///
/// ```no_run
/// use vkssim::api::{HostPlane, Pair};
/// let (r, d) = (vec![16u8; 64 * 64], vec![17u8; 64 * 64]);
/// let pair = Pair::new(HostPlane::u8(&r, 64), HostPlane::u8(&d, 64));
/// # let _ = pair;
/// ```
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    reference: Source<'a>,
    distorted: Source<'a>,
    /// The Cb and Cr planes of the reference, then of the distorted frame.
    chroma: [Option<[HostPlane<'a>; 2]>; 2],
    /// The previous frame's reference luma ([`Pair::with_previous_reference`]).
    previous: Option<HostPlane<'a>>,
    waits: Vec<SemaphoreRef>,
    signals: Vec<SemaphoreRef>,
}

impl<'a> Pair<'a> {
    /// `reference` and `distorted`, no semaphores.
    pub fn new(reference: impl Into<Source<'a>>, distorted: impl Into<Source<'a>>) -> Self {
        Self {
            reference: reference.into(),
            distorted: distorted.into(),
            chroma: [None, None],
            previous: None,
            waits: Vec::new(),
            signals: Vec::new(),
        }
    }

    /// The same pair with the Cb and Cr planes of each frame, in host memory
    /// (`[cb, cr]` of the reference, then of the distorted frame), each of
    /// the chroma size of the scorer's layout as a file stores it (sides
    /// rounded up: [`crate::io::Chroma::plane_size`]). Read only by a scorer
    /// whose metrics read chroma ([`crate::metric::MetricSet::needs_chroma`]),
    /// which refuses a pair without them; host luma planes only (with a
    /// shared reference, whose plane holds its chroma, give the distorted
    /// frame's: [`Pair::with_distorted_chroma`]).
    ///
    /// ```
    /// use vkssim::api::{HostPlane, Pair};
    /// let (y, c) = (vec![16u8; 64 * 64], vec![128u8; 32 * 32]);
    /// let (luma, cb) = (HostPlane::u8(&y, 64), HostPlane::u8(&c, 32));
    /// let pair = Pair::new(luma, luma).with_chroma([cb, cb], [cb, cb]);
    /// # let _ = pair;
    /// ```
    pub fn with_chroma(
        mut self,
        reference: [HostPlane<'a>; 2],
        distorted: [HostPlane<'a>; 2],
    ) -> Self {
        self.chroma = [Some(reference), Some(distorted)];
        self
    }

    /// The same pair with the Cb and Cr planes of the distorted frame only
    /// (`[cb, cr]`, sizes as in [`Pair::with_chroma`]): for a shared
    /// reference that holds the whole picture
    /// ([`super::SharedPlanes::upload_picture`]) scored by a scorer whose
    /// metrics read chroma.
    ///
    /// ```
    /// use vkssim::api::{HostPlane, Pair, SharedPlane};
    /// fn pair<'a>(reference: &'a SharedPlane, y: &'a [u8], cb: &'a [u8], cr: &'a [u8]) -> Pair<'a> {
    ///     Pair::new(reference, HostPlane::u8(y, 64))
    ///         .with_distorted_chroma([HostPlane::u8(cb, 32), HostPlane::u8(cr, 32)])
    /// }
    /// # let _ = pair;
    /// ```
    pub fn with_distorted_chroma(mut self, distorted: [HostPlane<'a>; 2]) -> Self {
        self.chroma[1] = Some(distorted);
        self
    }

    /// The same pair carrying its previous frame's reference luma plane (in
    /// host memory, the scorer's size): a temporal metric (`motion`) reads
    /// it as the previous frame's reference, whatever the scorer scored
    /// before, so the pair is not a stream's first frame. This is what a
    /// pair needs when another scorer took its previous pair: a
    /// [`super::MultiScorer`] of several engines deals runs of pairs to each
    /// and carries the previous reference of each run's first pair itself,
    /// from the host planes of the pair before; where that pair's reference
    /// was a shared or imported plane it asks for this plane
    /// ([`super::MultiScorer::needs_previous_reference`]). Any kind of pair
    /// may carry it; a scorer without a temporal metric ignores it.
    ///
    /// ```
    /// use vkssim::api::{HostPlane, Pair};
    /// let (before, r, d) = (vec![15u8; 64 * 64], vec![16u8; 64 * 64], vec![17u8; 64 * 64]);
    /// let pair = Pair::new(HostPlane::u8(&r, 64), HostPlane::u8(&d, 64))
    ///     .with_previous_reference(HostPlane::u8(&before, 64));
    /// # let _ = pair;
    /// ```
    pub fn with_previous_reference(mut self, previous: HostPlane<'a>) -> Self {
        self.previous = Some(previous);
        self
    }

    /// Whether the pair carries its previous frame's reference
    /// ([`Pair::with_previous_reference`]).
    pub fn carries_previous_reference(&self) -> bool {
        self.previous.is_some()
    }

    /// The reference's luma plane packed for frames of `geometry`, when it
    /// is in host memory (`None` for a shared or imported plane, or one
    /// the scorer will refuse).
    pub(super) fn host_reference_luma(&self, geometry: (u32, u32, u32)) -> Option<LumaFrame> {
        let Source::Host(plane) = self.reference else {
            return None;
        };
        let mut out = LumaFrame::zeroed(0, 0, geometry.2);
        let which = (PlaneRole::Reference, Component::Luma);
        plane.pack_into(&mut out, geometry, which, 0).ok()?;
        Some(out)
    }

    /// The same pair, its work waiting for `semaphore` (at every stage)
    /// first. For imported planes only.
    ///
    /// # Safety
    /// `semaphore` must be a valid semaphore of the engine's device; a binary
    /// one must have a signal submitted (or submitted before the pair's work
    /// can start), as `vkQueueSubmit` requires.
    pub unsafe fn wait(mut self, semaphore: SemaphoreRef) -> Self {
        self.waits.push(semaphore);
        self
    }

    /// The same pair, signalling `semaphore` when its results are written
    /// (and images are back in their final layout, released to their
    /// family). For imported planes only.
    ///
    /// # Safety
    /// `semaphore` must be a valid semaphore of the engine's device; a binary
    /// one must be unsignalled with no signal pending, as `vkQueueSubmit`
    /// requires.
    pub unsafe fn signal(mut self, semaphore: SemaphoreRef) -> Self {
        self.signals.push(semaphore);
        self
    }
}

impl Scorer {
    /// Queues a pair: [`ScoreQueue::submit`] for a [`Scorer`].
    pub(super) fn submit_pair(&mut self, pair: Pair<'_>) -> Result<()> {
        self.submit_pair_carrying(pair, None)
    }

    /// [`Scorer::submit_pair`], the pair carrying `carried` as its previous
    /// frame's reference luma (packed) unless it carries its own
    /// ([`Pair::with_previous_reference`]).
    pub(super) fn submit_pair_carrying(
        &mut self,
        pair: Pair<'_>,
        carried: Option<Arc<LumaFrame>>,
    ) -> Result<()> {
        let frame = self.submitted;
        let device_pair = |what: &str| {
            Error::InvalidOption(format!(
                "frame {frame}: {what}; a pair's planes are both on the host, a shared \
                 reference with a host distorted plane, or both imported"
            ))
        };
        let has_semaphores = !pair.waits.is_empty() || !pair.signals.is_empty();
        let imported = matches!(
            (pair.reference, pair.distorted),
            (Source::Imported(_), Source::Imported(_))
        );
        if has_semaphores && !imported {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: semaphores are for pairs of imported planes; a pair with host \
                 or shared planes is done when its result comes back"
            )));
        }
        let needs_chroma = self.metrics().needs_chroma();
        // The Cb and Cr planes read from the host: both frames', or with a
        // shared reference (whose plane holds its own) the distorted frame's.
        let chroma = match (needs_chroma, pair.reference, pair.chroma) {
            (false, ..) => [None, None],
            (true, Source::Host(_), [Some(_), Some(_)])
            | (true, Source::Shared(_), [None, Some(_)]) => pair.chroma,
            (true, Source::Host(_), [None, Some(_)]) => {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the scorer's metrics read chroma: give the Cb and Cr planes \
                     of both frames (Pair::with_chroma); only a shared reference holds its own"
                )))
            }
            (true, Source::Shared(_), [Some(_), _]) => {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: Cb and Cr planes given for a shared reference, whose plane \
                     holds them already (SharedPlanes::upload_picture): give the distorted \
                     frame's only (Pair::with_distorted_chroma)"
                )))
            }
            (true, Source::Host(_) | Source::Shared(_), _) => {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the scorer's metrics read chroma ({} frames): give the \
                     pair's Cb and Cr planes (Pair::with_chroma; with a shared reference, the \
                     distorted frame's: Pair::with_distorted_chroma; in C, \
                     vkssim_scorer_submit_host_planes and, with a shared reference, \
                     vkssim_scorer_submit_host_shared_planes)",
                    self.metrics().chroma()
                )))
            }
            (true, Source::Imported(_), _) => {
                let readers = self.metrics().chroma_readers().join(" and ");
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the scorer's {readers} reads chroma, but an imported plane \
                     (buffer or image) gives luma only: score imported pairs with {readers}'s \
                     enable_chroma=false, or give the frames from host memory with their Cb \
                     and Cr planes (Pair::with_chroma, SharedPlanes::upload_picture; in C, \
                     vkssim_scorer_submit_host_planes, vkssim_shared_planes_upload_picture)"
                )));
            }
        };
        let previous = match pair.previous {
            Some(plane) => Some(Arc::new(self.pack_previous(&plane)?)),
            None => carried,
        };
        match (pair.reference, pair.distorted) {
            (Source::Host(r), Source::Host(d)) => self.submit_host(
                r,
                d,
                chroma[0].zip(chroma[1]).map(|(r, d)| [r, d]),
                previous,
            ),
            (Source::Shared(r), Source::Host(d)) => self.submit_shared(r, d, chroma[1], previous),
            (Source::Imported(r), Source::Imported(d)) => {
                self.submit_imported([r, d], (&pair.waits, &pair.signals), previous)
            }
            (_, Source::Shared(_)) => Err(device_pair("a shared plane as the distorted plane")),
            (Source::Imported(_), _) | (_, Source::Imported(_)) => {
                Err(device_pair("an imported plane with a plane that is not"))
            }
        }
    }

    /// A previous frame's reference luma plane packed for this scorer (its
    /// errors say it is the one the pair carries).
    fn pack_previous(&self, plane: &HostPlane<'_>) -> Result<LumaFrame> {
        let d = self.desc();
        let mut out = LumaFrame::zeroed(0, 0, d.bit_depth);
        let which = (PlaneRole::Reference, Component::Luma);
        let carried = "the previous frame's reference the pair carries";
        match plane.pack_into(
            &mut out,
            (d.width, d.height, d.bit_depth),
            which,
            self.submitted,
        ) {
            Ok(()) => Ok(out),
            Err(Error::InvalidOption(m)) => Err(Error::InvalidOption(format!("{m} ({carried})"))),
            Err(Error::BufferSize {
                what,
                needed,
                actual,
            }) => Err(Error::BufferSize {
                what: format!("{what}, {carried}"),
                needed,
                actual,
            }),
            Err(e) => Err(e),
        }
    }

    /// A pair from host memory (with its chroma planes when the metrics read
    /// them: packed after each luma plane), carrying `previous` (see
    /// [`Pair::with_previous_reference`]).
    fn submit_host(
        &mut self,
        reference: HostPlane<'_>,
        distorted: HostPlane<'_>,
        chroma: Option<[[HostPlane<'_>; 2]; 2]>,
        previous: Option<Arc<LumaFrame>>,
    ) -> Result<()> {
        let desc = self.desc().clone();
        let g = (desc.width, desc.height, desc.bit_depth);
        let frame = self.submitted;
        let mut r = LumaFrame::zeroed(0, 0, desc.bit_depth);
        let mut d = LumaFrame::zeroed(0, 0, desc.bit_depth);
        // A sample above the bit depth refuses the pair, which keeps its
        // place with samples 0 in what was refused (`super::refused`); any
        // other error refuses the submission.
        let mut refused = None;
        let mut note = |role: PlaneRole, packed: Result<()>| {
            let e = range_refusal(packed)?;
            refused = refused.take().or(e.map(|e| (role, e)));
            Ok::<(), Error>(())
        };
        let luma = (PlaneRole::Reference, Component::Luma);
        note(
            PlaneRole::Reference,
            reference.pack_into(&mut r, g, luma, frame),
        )?;
        let luma = (PlaneRole::Distorted, Component::Luma);
        note(
            PlaneRole::Distorted,
            distorted.pack_into(&mut d, g, luma, frame),
        )?;
        if let Some(chroma) = chroma {
            for ((planes, role), out) in chroma
                .iter()
                .zip([PlaneRole::Reference, PlaneRole::Distorted])
                .zip([&mut r, &mut d])
            {
                note(role, self.append_chroma(planes, out, role))?;
            }
        }
        if let Some((role, _)) = &refused {
            let len = self.frame_len();
            d = LumaFrame::zeroed(desc.width, desc.height, desc.bit_depth);
            d.bytes.resize(len, 0);
            if *role == PlaneRole::Reference {
                r = d.clone();
            }
        }
        self.take_returns();
        // Each frame holds its whole picture (the luma plane, then the Cb
        // and Cr planes when the metrics read chroma): one copy into the
        // scorer's upload memory.
        match &mut self.inner {
            Inner::Vk(v) => v.submit_carrying(r, d, previous.as_ref().map(|p| &p.bytes[..]))?,
            Inner::Cpu(c) => {
                if let Some(p) = previous {
                    c.carry_previous(p);
                }
                c.submit(r, d)?
            }
        }
        if let Some((_, e)) = refused {
            self.refusals.push(frame, e);
        }
        self.submitted += 1;
        Ok(())
    }

    /// Bytes of a whole frame as the scorer reads it: the luma plane, then
    /// the Cb and Cr planes when its metrics read chroma.
    fn frame_len(&self) -> usize {
        let d = self.desc();
        let bps = crate::frame::bytes_per_sample(d.bit_depth);
        let luma = d.width as usize * d.height as usize * bps;
        if !self.metrics().needs_chroma() {
            return luma;
        }
        let (cw, ch) = self.metrics().chroma_plane_size();
        luma + 2 * cw as usize * ch as usize * bps
    }

    /// Packs the Cb and Cr `planes` of a frame after its luma plane in `out`
    /// (checked against the scorer's chroma size).
    fn append_chroma(
        &self,
        planes: &[HostPlane<'_>; 2],
        out: &mut LumaFrame,
        role: PlaneRole,
    ) -> Result<()> {
        let (cw, ch) = self.metrics().chroma_plane_size();
        let bit_depth = self.desc().bit_depth;
        let mut packed = LumaFrame::zeroed(0, 0, bit_depth);
        for (k, plane) in planes.iter().enumerate() {
            let which = (role, Component::at(1 + k));
            plane.pack_into(&mut packed, (cw, ch, bit_depth), which, self.submitted)?;
            out.bytes.extend_from_slice(&packed.bytes);
        }
        Ok(())
    }

    /// A shared reference already on the device and a host distorted frame
    /// (its luma plane, and its Cb and Cr planes when the metrics read
    /// chroma: the shared plane then holds the reference's whole picture).
    fn submit_shared(
        &mut self,
        reference: &SharedPlane,
        distorted: HostPlane<'_>,
        chroma: Option<[HostPlane<'_>; 2]>,
        previous: Option<Arc<LumaFrame>>,
    ) -> Result<()> {
        let desc = self.desc().clone();
        let g = (desc.width, desc.height, desc.bit_depth);
        let mut d = LumaFrame::zeroed(0, 0, desc.bit_depth);
        let which = (PlaneRole::Distorted, Component::Luma);
        // A sample above the bit depth refuses the pair, which keeps its
        // place with a distorted frame of samples 0 (`super::refused`).
        let index = self.submitted;
        let mut refused = range_refusal(distorted.pack_into(&mut d, g, which, index))?;
        if let (Some(planes), None) = (&chroma, &refused) {
            refused = range_refusal(self.append_chroma(planes, &mut d, PlaneRole::Distorted))?;
        }
        if refused.is_some() {
            d.bytes = vec![0; self.frame_len()];
        }
        let mut slots = self.slots();
        let mut slot = slots.acquire()?;
        slot.share_reference(reference)?;
        let frame = slot.frames_mut().1;
        if frame.len() != d.bytes.len() {
            return Err(Error::Internal(format!(
                "a distorted frame of {} bytes for a slot of {}",
                d.bytes.len(),
                frame.len()
            )));
        }
        frame.copy_from_slice(&d.bytes);
        slots.submit_with(slot, previous, false)?;
        if let Some(e) = refused {
            self.refusals.push(index, e);
        }
        Ok(())
    }

    /// Two imported planes, waiting on and signalling semaphores, carrying
    /// `previous` (see [`Pair::with_previous_reference`]).
    fn submit_imported(
        &mut self,
        planes: [&ImportedPlane; 2],
        (waits, signals): (&[SemaphoreRef], &[SemaphoreRef]),
        previous: Option<Arc<LumaFrame>>,
    ) -> Result<()> {
        let frame = self.submitted;
        let desc = self.desc().clone();
        let roles = [PlaneRole::Reference, PlaneRole::Distorted];
        let Inner::Vk(inner) = &mut self.inner else {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: imported device planes given to a CPU scorer"
            )));
        };
        for (plane, role) in planes.iter().zip(roles) {
            if !Weak::ptr_eq(&plane.gpu, &Arc::downgrade(inner.gpu())) {
                let imported_on = plane
                    .gpu
                    .upgrade()
                    .map_or("that is gone".to_string(), |g| g.device_name().to_string());
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the {role} plane was imported on device {imported_on} \
                     but the scorer runs on device {}",
                    inner.gpu().device_name()
                )));
            }
            if let Some(what) = plane.samples.misfit(desc.width, desc.bit_depth) {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the {role} plane {what}"
                )));
            }
        }
        if let (Some(a), Some(b)) = (planes[0].image_layer, planes[1].image_layer) {
            if a == b {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the reference and distorted planes are the same image layer"
                )));
            }
        }
        if !self.timeline && waits.iter().chain(signals).any(|s| s.value.is_some()) {
            return Err(Error::Unsupported(format!(
                "frame {frame}: a timeline semaphore value, but the engine's device has no \
                 timelineSemaphore feature enabled (see Engine::supports_timeline_semaphores)"
            )));
        }
        let sems = |s: &[SemaphoreRef]| -> Vec<ExternalSemaphore> {
            s.iter()
                .map(|s| ExternalSemaphore {
                    semaphore: s.semaphore,
                    value: s.value,
                })
                .collect()
        };
        let holds = [&planes[0].hold, &planes[1].hold];
        let previous = previous.as_ref().map(|p| &p.bytes[..]);
        // SAFETY: the planes were imported on this device under
        // `import_buffer`/`import_image`'s contract (valid until released,
        // which the slot's holds delay until the pair is done); the
        // semaphores were given under `Pair::wait`/`Pair::signal`'s.
        unsafe { inner.submit_external(holds, &sems(waits), &sems(signals), previous) }?;
        self.submitted += 1;
        Ok(())
    }
}
