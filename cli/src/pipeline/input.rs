//! One input of the pipeline ([`Input`]): where pair position `i`'s luma comes
//! from, read straight into a frame slot's plane. A regular file is read by
//! position ([`FrameIndex`], any thread, any order); a stream (a pipe,
//! standard input, or an input whose first frame was read ahead) front to
//! back, by one job at a time in job order (its turn); the bench's generated
//! frame is copied from memory.
//!
//! Positions count from the input's first frame to score (after its skip);
//! an input that ends says at which position ([`Got::End`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use vkssim::api::SharedPlane;
use vkssim::io::{Check, FrameIndex, LumaReader, Planes};
use vkssim::{Error, PlaneRole, Result, SampleAt};

use super::tee::Tee;

/// Where a read writes, and so how it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    /// Host memory: the read checks the sample range.
    Checked,
    /// Memory whose sample range is checked elsewhere (on the device by a
    /// Vulkan scorer, or by the frame slot's own check after both reads):
    /// the read does not check it (device memory is written once, never
    /// read back).
    Unchecked,
    /// The same, write-combined (device memory mapped through the BAR): a
    /// regular file's bytes go through the reading thread's bounce buffer
    /// ([`vkssim::io::FrameIndex::read_at_through`]).
    WriteCombined,
}

/// The bounce buffer's size: each read of a regular file into
/// write-combined memory is split into reads of this many bytes into
/// cached memory, each copied on at once (while it is in the cache).
const BOUNCE_BYTES: usize = 256 << 10;

thread_local! {
    /// This thread's bounce buffer ([`Dest::WriteCombined`]).
    static BOUNCE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// What a read found at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Got {
    /// The plane was read (or, for [`Input::reach`], the position reached).
    Frame,
    /// The input ended: it has this many positions.
    End(u64),
    /// Not read: the run is stopping.
    Cancelled,
}

/// A stream's reader and whose turn it is.
struct Stream {
    reader: Box<dyn LumaReader>,
    /// The job allowed to read next.
    turn: u64,
    /// Where it ended, once it did; after a failed read, position 0 (nothing
    /// more is read).
    ended: Option<u64>,
}

enum Kind<'a> {
    /// A regular file; with `wrap`, read again from its start at its end (the
    /// bench's short files).
    Indexed { index: FrameIndex, wrap: bool },
    /// Read front to back, one job at a time.
    Stream {
        state: Mutex<Stream>,
        turn_changed: Condvar,
    },
    /// One plane, the same at every position.
    Memory(&'a [u8]),
    /// A reference shared by the lanes of a ladder, as lane `lane` sees it.
    Tee { tee: &'a Tee<'a>, lane: usize },
}

/// One input (see the module documentation).
pub struct Input<'a> {
    /// `reference` or `distorted`, for messages.
    pub role: &'static str,
    /// The input's name for messages.
    pub path: PathBuf,
    kind: Kind<'a>,
    /// The input's frame number of position 0.
    base: u64,
    /// Whether its length is known without reading it to its end (a regular
    /// file, even one read front to back).
    length_known: bool,
    /// Whether a read takes the chroma planes too (after luma, packed), for
    /// metrics that read them.
    chroma: bool,
}

impl<'a> Input<'a> {
    /// `reader` from its next frame on, after skipping `skip` frames: by
    /// position when it is a regular file, front to back otherwise.
    pub fn open(role: &'static str, reader: Box<dyn LumaReader>, skip: u64) -> Self {
        let path = reader.path().to_path_buf();
        let base = reader.frames_read() + skip;
        let length_known = reader.frame_count().is_some();
        let kind = match reader.frame_index() {
            Some(index) => Kind::Indexed { index, wrap: false },
            None => Kind::Stream {
                state: Mutex::new(Stream {
                    reader,
                    turn: 0,
                    ended: None,
                }),
                turn_changed: Condvar::new(),
            },
        };
        Self {
            role,
            path,
            kind,
            base,
            length_known,
            chroma: false,
        }
    }

    /// The same input, each read taking the frame's luma, Cb and Cr planes
    /// (packed, [`vkssim::io::VideoFormat::planes_bytes`]) when `chroma`.
    pub fn with_chroma(mut self, chroma: bool) -> Self {
        self.chroma = chroma;
        self
    }

    /// Frame `k % len` of `index` at position `k` (never ends).
    pub fn wrapping(role: &'static str, index: FrameIndex) -> Self {
        Self {
            role,
            path: index.path().to_path_buf(),
            kind: Kind::Indexed { index, wrap: true },
            base: 0,
            length_known: true,
            chroma: false,
        }
    }

    /// `plane` at every position (never ends).
    pub fn memory(role: &'static str, name: &str, plane: &'a [u8]) -> Self {
        Self {
            role,
            path: PathBuf::from(name),
            kind: Kind::Memory(plane),
            base: 0,
            length_known: true,
            chroma: false,
        }
    }

    /// `tee`'s reference as lane `lane` of a ladder sees it (the same
    /// positions, ends and errors as the reference on its own).
    pub fn tee(tee: &'a Tee<'a>, lane: usize) -> Self {
        let inner = tee.inner();
        Self {
            role: inner.role,
            path: inner.path.clone(),
            kind: Kind::Tee { tee, lane },
            base: 0,
            length_known: inner.length_known,
            chroma: inner.chroma,
        }
    }

    /// Whether the input is read front to back (its length is not known).
    pub fn is_stream(&self) -> bool {
        match &self.kind {
            Kind::Tee { tee, .. } => tee.inner().is_stream(),
            kind => matches!(kind, Kind::Stream { .. }),
        }
    }

    /// Whether any position can be read at any time, from any thread (a
    /// regular file, or memory), not only in turn.
    pub fn reads_by_position(&self) -> bool {
        matches!(self.kind, Kind::Indexed { .. } | Kind::Memory(_))
    }

    /// Whether the input's length is known without reading it to its end.
    pub fn length_known(&self) -> bool {
        self.length_known
    }

    /// Positions the input has, when known without reading it.
    pub fn known_len(&self) -> Option<u64> {
        match &self.kind {
            Kind::Tee { tee, .. } => tee.inner().known_len(),
            Kind::Indexed { index, wrap: false } => Some(index.len().saturating_sub(self.base)),
            Kind::Indexed { wrap: true, .. } | Kind::Memory(_) => Some(u64::MAX),
            Kind::Stream { .. } => None,
        }
    }

    /// The input's name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The input's own frame number at position `i` (after its skip; for a
    /// wrapping input, within the file).
    pub fn frame_number(&self, i: u64) -> u64 {
        match &self.kind {
            Kind::Indexed { index, wrap: true } if !index.is_empty() => i % index.len(),
            _ => self.base + i,
        }
    }

    /// Reads position `i`'s luma (with chroma: its luma, Cb and Cr planes)
    /// into `dst`, as job `job` (a stream serves its
    /// jobs in order: every job must call this or [`Input::reach`] once).
    /// Unless `dest` is [`Dest::Checked`], the sample range is not checked
    /// here (the frame slot or the device checks it, and
    /// [`device_range_error`] names the input and frame of what it finds).
    pub fn read(
        &self,
        job: u64,
        i: u64,
        dst: &mut [u8],
        dest: Dest,
        stop: &AtomicBool,
    ) -> Result<Got> {
        let checked = dest == Dest::Checked;
        match &self.kind {
            Kind::Indexed { index, wrap } => {
                if stop.load(Ordering::Relaxed) {
                    return Ok(Got::Cancelled);
                }
                let len = index.len();
                let mut frame = self.base + i;
                if *wrap && len > 0 {
                    frame %= len;
                } else if frame >= len {
                    return Ok(Got::End(len.saturating_sub(self.base)));
                }
                match dest {
                    Dest::Checked if self.chroma => index.read_planes_at(frame, dst)?,
                    Dest::Checked => index.read_luma_at(frame, dst)?,
                    Dest::Unchecked if self.chroma => index.read_planes_at_unchecked(frame, dst)?,
                    Dest::Unchecked => index.read_luma_at_unchecked(frame, dst)?,
                    Dest::WriteCombined => BOUNCE.with(|bounce| {
                        let mut bounce = bounce.borrow_mut();
                        if bounce.len() != BOUNCE_BYTES {
                            bounce.resize(BOUNCE_BYTES, 0);
                        }
                        index.read_at_through(frame, dst, self.chroma, &mut bounce)
                    })?,
                }
                Ok(Got::Frame)
            }
            Kind::Memory(plane) => {
                let n = dst.len().min(plane.len());
                dst[..n].copy_from_slice(&plane[..n]);
                Ok(Got::Frame)
            }
            Kind::Tee { tee, lane } => tee.read(*lane, i, dst, dest, stop),
            Kind::Stream {
                state,
                turn_changed,
            } => self.in_turn(state, turn_changed, job, stop, |s| {
                if let Some(got) = s.advance_to(self.base, i)? {
                    return Ok(got);
                }
                let planes = if self.chroma {
                    Planes::All
                } else {
                    Planes::Luma
                };
                let check = if checked { Check::Range } else { Check::Skip };
                let read = s.reader.read(dst, planes, check)?;
                if read {
                    Ok(Got::Frame)
                } else {
                    s.ended = Some(i);
                    Ok(Got::End(i))
                }
            }),
        }
    }

    /// [`Input::read`], except that a ladder's shared reference kept on a
    /// device ([`Tee`]) is handed over in `shared` instead of copied.
    pub fn read_or_share(
        &self,
        job: u64,
        i: u64,
        dst: &mut [u8],
        dest: Dest,
        shared: &mut Option<SharedPlane>,
        stop: &AtomicBool,
    ) -> Result<Got> {
        match &self.kind {
            Kind::Tee { tee, lane } => tee.read_or_share(*lane, i, dst, dest, shared, stop),
            _ => self.read(job, i, dst, dest, stop),
        }
    }

    /// Moves past every position before `end` without reading it, as job
    /// `job`: [`Got::Frame`] when the input has them all.
    pub fn reach(&self, job: u64, end: u64, stop: &AtomicBool) -> Result<Got> {
        match &self.kind {
            Kind::Stream {
                state,
                turn_changed,
            } => self.in_turn(state, turn_changed, job, stop, |s| {
                Ok(s.advance_to(self.base, end)?.unwrap_or(Got::Frame))
            }),
            Kind::Tee { tee, lane } => tee.reach(*lane, end, stop),
            _ => match self.known_len() {
                Some(n) if n < end => Ok(Got::End(n)),
                _ => Ok(Got::Frame),
            },
        }
    }

    /// After the run: the positions from `from` up to `limit` the input has
    /// (counting a stream's to there).
    pub fn count_from(&self, from: u64, limit: u64) -> Result<u64> {
        match &self.kind {
            Kind::Stream { state, .. } => {
                let mut s = lock(state);
                let pos = s.position(self.base);
                let more = match s.ended {
                    Some(_) => 0,
                    None => s.reader.skip(limit.saturating_sub(pos))?,
                };
                Ok((pos + more).saturating_sub(from))
            }
            Kind::Tee { tee, lane } => tee.count_from(*lane, from, limit),
            _ => Ok(self
                .known_len()
                .unwrap_or(u64::MAX)
                .min(limit)
                .saturating_sub(from)),
        }
    }

    /// Runs `f` on the stream when it is job `job`'s turn, then passes the
    /// turn on (whatever `f` did). A failed read ends the stream.
    fn in_turn(
        &self,
        state: &Mutex<Stream>,
        turn_changed: &Condvar,
        job: u64,
        stop: &AtomicBool,
        f: impl FnOnce(&mut Stream) -> Result<Got>,
    ) -> Result<Got> {
        let mut s = lock(state);
        while s.turn != job {
            s = turn_changed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        let got = match s.ended {
            Some(at) => Ok(Got::End(at)),
            None if stop.load(Ordering::Relaxed) => Ok(Got::Cancelled),
            None => f(&mut s),
        };
        if got.is_err() {
            s.ended = Some(0);
        }
        s.turn += 1;
        drop(s);
        turn_changed.notify_all();
        got
    }
}

impl Stream {
    /// The position of the next frame.
    fn position(&self, base: u64) -> u64 {
        self.reader.frames_read().saturating_sub(base)
    }

    /// Skips to position `i`; `Some(End)` when the stream ends first.
    fn advance_to(&mut self, base: u64, i: u64) -> Result<Option<Got>> {
        let current = self.reader.frames_read();
        let gap = (base + i).saturating_sub(current);
        if gap == 0 {
            return Ok(None);
        }
        let n = self.reader.skip(gap)?;
        if n < gap {
            let at = (current + n).saturating_sub(base);
            self.ended = Some(at);
            return Ok(Some(Got::End(at)));
        }
        Ok(None)
    }
}

fn lock(state: &Mutex<Stream>) -> MutexGuard<'_, Stream> {
    // A poisoned lock means a reader panicked mid-read; the state is still
    // what it was, and the run reports that reader's end.
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// The error for a failed read of `input` at pair `index`, naming the input
/// (the reader's own message names the file and the frame within it).
pub fn read_error(e: Error, role: &str, path: &Path, index: u64) -> anyhow::Error {
    let names_file = e.to_string().contains(&*path.to_string_lossy());
    let what = if names_file {
        format!("reading the {role}")
    } else {
        format!("reading the {role} {}", path.display())
    };
    anyhow::anyhow!(e).context(format!("{what} (pair {index})"))
}

/// The scorer's [`Error::SampleRange`] for a plane of pair position `i` (found
/// in a frame slot or on the device: it says which plane, and its `frame` is
/// the scorer's count) with the input's file and its own frame number
/// instead, and without the device that found it (an [`Error::OnDevice`] of
/// several: the input is at fault, not the device); any other error
/// unchanged.
pub fn device_range_error(e: Error, reference: &Input<'_>, distorted: &Input<'_>, i: u64) -> Error {
    let input = |e: &Error| match e {
        Error::SampleRange {
            plane: Some(role),
            at: SampleAt::Slot | SampleAt::Device,
            ..
        } => Some(match role {
            PlaneRole::Reference => reference,
            PlaneRole::Distorted => distorted,
        }),
        _ => None,
    };
    let e = match e {
        Error::OnDevice { source, .. } if input(&source).is_some() => *source,
        e => e,
    };
    match (input(&e), e) {
        (
            Some(input),
            Error::SampleRange {
                plane,
                component,
                x,
                y,
                value,
                max,
                bit_depth,
                ..
            },
        ) => Error::SampleRange {
            plane,
            component,
            at: SampleAt::File(input.path().to_path_buf()),
            frame: input.frame_number(i),
            x,
            y,
            value,
            max,
            bit_depth,
        },
        (_, e) => e,
    }
}
