//! Reading ahead before the scoring engine starts. When an input is a stream (a
//! pipe, standard input), nothing is known of it but its header: each input's
//! skip is done and its first frame read before the engine takes memory sized
//! by the geometry. A header claiming huge frames followed by a few bytes then
//! fails with the truncated frame, having taken memory only for what came; an
//! input with nothing left after its skip is reported, with what each input
//! holds, before any work.

use std::path::Path;
use std::thread;

use anyhow::anyhow;
use vkssim::io::{Check, FrameIndex, LumaReader, Planes, VideoFormat};
use vkssim::{Error, LumaFrame, Result};

use super::{read_error, Selection};
use crate::plan::{Opt, Spelling};

/// What reading ahead found in one input.
enum Head {
    /// The first frame to score.
    Frame(LumaFrame),
    /// The input ended during its skip or right after it, having this many
    /// frames in all.
    Ended(u64),
    /// Reading failed.
    Failed(Error),
}

/// Skips `skip` frames of `reader` and reads the next: its luma plane, or
/// with `chroma` its luma, Cb and Cr planes (packed in the frame's bytes).
fn read_head(reader: &mut dyn LumaReader, skip: u64, chroma: bool) -> Head {
    match reader.skip(skip) {
        Ok(n) if n < skip => return Head::Ended(reader.frames_read()),
        Ok(_) => {}
        Err(e) => return Head::Failed(e),
    }
    if chroma {
        let f = reader.format();
        let mut frame = LumaFrame::zeroed(f.width, f.height, f.bit_depth);
        frame.bytes.resize(f.planes_bytes(), 0);
        return match reader.read(&mut frame.bytes, Planes::All, Check::Range) {
            Ok(true) => Head::Frame(frame),
            Ok(false) => Head::Ended(reader.frames_read()),
            Err(e) => Head::Failed(e),
        };
    }
    match reader.read_frame() {
        Ok(Some(frame)) => Head::Frame(frame),
        Ok(None) => Head::Ended(reader.frames_read()),
        Err(e) => Head::Failed(e),
    }
}

/// Inputs ready for [`super::run`].
pub type Primed = (Box<dyn LumaReader>, Box<dyn LumaReader>, Selection);

/// When either input is a stream: does each input's skip and reads its first
/// frame to score (both inputs at once, as one producer may write them in
/// step), and returns readers that hand that frame out first, with `sel`'s
/// skips set to zero (they are done). Regular files, whose lengths the caller
/// checked, come back as they are.
///
/// Fails, naming the input and frame, when a read fails (a truncated first
/// frame included), and with both inputs' frame counts when one has no frame
/// left to score. With `chroma`, the frame read ahead holds the chroma planes
/// too (the run's metrics read them).
pub fn prime(
    reference: Box<dyn LumaReader>,
    distorted: Box<dyn LumaReader>,
    sel: Selection,
    chroma: bool,
) -> anyhow::Result<Primed> {
    if reference.frame_count().is_some() && distorted.frame_count().is_some() {
        return Ok((reference, distorted, sel));
    }
    let (mut r, mut d) = (reference, distorted);
    let (hr, hd) = thread::scope(|s| {
        let reading = thread::Builder::new()
            .name("vkssim-read-ahead".into())
            .spawn_scoped(s, || read_head(&mut *r, sel.skip_ref, chroma));
        let hd = read_head(&mut *d, sel.skip_dist, chroma);
        let hr = reading.ok().map(|t| {
            t.join().unwrap_or_else(|_| {
                Head::Failed(Error::Internal("the reference read-ahead panicked".into()))
            })
        });
        (hr, hd)
    });
    // No thread to spare: one input after the other.
    let hr = hr.unwrap_or_else(|| read_head(&mut *r, sel.skip_ref, chroma));
    match (hr, hd) {
        (Head::Failed(e), _) => Err(read_error(e, "reference", r.path(), 0)),
        (_, Head::Failed(e)) => Err(read_error(e, "distorted input", d.path(), 0)),
        (Head::Frame(a), Head::Frame(b)) => {
            let done = Selection {
                skip_ref: 0,
                skip_dist: 0,
                ..sel
            };
            Ok((Ahead::boxed(r, a), Ahead::boxed(d, b), done))
        }
        (a, b) => Err(nothing_to_score(
            &Tally::of_head(&*r, &a, sel.skip_ref),
            &Tally::of_head(&*d, &b, sel.skip_dist),
            sel.spelling,
        )),
    }
}

/// A ladder's inputs after [`prime_ladder`]: the reference, and for each
/// distorted input its reader and selection, or why it has nothing to score.
pub type PrimedLadder = (
    Box<dyn LumaReader>,
    Vec<anyhow::Result<(Box<dyn LumaReader>, Selection)>>,
);

/// [`prime`] for one reference and several distorted inputs: the reference is
/// read ahead once (when any pair has a stream), each distorted input as its
/// pair alone would be, all at once (one producer may write them in step).
/// A failed read of the reference fails the whole run; a distorted input that
/// fails, or a pair with nothing to score, fails that pair only, with the
/// message its run alone gives.
pub fn prime_ladder(
    reference: Box<dyn LumaReader>,
    distorted: Vec<Box<dyn LumaReader>>,
    sel: Selection,
    chroma: bool,
) -> anyhow::Result<PrimedLadder> {
    let file = |r: &dyn LumaReader| r.frame_count().is_some();
    let primes: Vec<bool> = distorted
        .iter()
        .map(|d| !(file(&*reference) && file(&**d)))
        .collect();
    if !primes.iter().any(|&p| p) {
        return Ok((
            reference,
            distorted.into_iter().map(|d| Ok((d, sel))).collect(),
        ));
    }
    let (mut r, mut ds) = (reference, distorted);
    let (hr, hds) = thread::scope(|s| {
        let readers: Vec<_> = ds
            .iter_mut()
            .zip(&primes)
            .map(|(d, &p)| {
                p.then(|| {
                    thread::Builder::new()
                        .name("vkssim-read-ahead".into())
                        .spawn_scoped(s, || read_head(&mut **d, sel.skip_dist, chroma))
                })
            })
            .collect();
        let hr = read_head(&mut *r, sel.skip_ref, chroma);
        let hds: Vec<Option<Head>> = readers
            .into_iter()
            .map(|t| {
                t.map(|t| match t {
                    Ok(t) => t.join().unwrap_or_else(|_| {
                        Head::Failed(Error::Internal("a distorted read-ahead panicked".into()))
                    }),
                    Err(e) => Head::Failed(Error::Internal(format!("no read-ahead thread: {e}"))),
                })
            })
            .collect();
        (hr, hds)
    });
    if let Head::Failed(e) = hr {
        return Err(read_error(e, "reference", r.path(), 0));
    }
    let primed = Selection {
        skip_ref: 0,
        skip_dist: 0,
        ..sel
    };
    let lanes = ds
        .into_iter()
        .zip(hds)
        .map(|(d, hd)| match (&hr, hd) {
            (_, Some(Head::Failed(e))) => Err(read_error(e, "distorted input", d.path(), 0)),
            (Head::Frame(_), Some(Head::Frame(b))) => Ok((Ahead::boxed(d, b), primed)),
            (Head::Frame(_), None) => Ok((d, Selection { skip_ref: 0, ..sel })),
            (hr, hd) => {
                let hd = hd.unwrap_or(Head::Ended(d.frames_read()));
                Err(nothing_to_score(
                    &Tally::of_head(&*r, hr, sel.skip_ref),
                    &Tally::of_head(&*d, &hd, sel.skip_dist),
                    sel.spelling,
                ))
            }
        })
        .collect();
    // A regular file stays readable by position (each lane can read it
    // alone: a stalled lane then holds back none, see [`super::Tee`]).
    let r = match hr {
        Head::Frame(a) if r.frame_index().is_some() => Ahead::positional(r, a),
        Head::Frame(a) => Ahead::boxed(r, a),
        _ => r,
    };
    Ok((r, lanes))
}

/// A reader whose first frame was read ahead: hands it out first. A
/// positional one (a regular file) also keeps its [`FrameIndex`], through
/// which that frame is read again where it lies.
struct Ahead {
    inner: Box<dyn LumaReader>,
    head: Option<LumaFrame>,
    index: Option<FrameIndex>,
}

impl Ahead {
    fn boxed(inner: Box<dyn LumaReader>, head: LumaFrame) -> Box<dyn LumaReader> {
        Box::new(Self {
            inner,
            head: Some(head),
            index: None,
        })
    }

    /// [`Ahead::boxed`] for a regular file, which also stays readable by
    /// position ([`LumaReader::frame_index`]: from its
    /// [`LumaReader::frames_read`], `head` is read again where it lies).
    fn positional(inner: Box<dyn LumaReader>, head: LumaFrame) -> Box<dyn LumaReader> {
        let index = inner.frame_index();
        Box::new(Self {
            inner,
            head: Some(head),
            index,
        })
    }

    /// Copies the frame read ahead (its samples checked when it was read)
    /// into `dst`: its first `n` bytes (the luma plane, or with chroma the
    /// luma, Cb and Cr planes).
    fn hand_out(&self, head: LumaFrame, dst: &mut [u8], n: usize) -> Result<bool> {
        if head.bytes.len() < n {
            return Err(Error::Internal(format!(
                "the frame read ahead holds {} bytes, {n} asked for",
                head.bytes.len()
            )));
        }
        if dst.len() < n {
            return Err(Error::BufferSize {
                what: format!(
                    "{} {} luma plane",
                    vkssim::words::article(self.format().width.into()),
                    self.format()
                ),
                needed: n,
                actual: dst.len(),
            });
        }
        dst[..n].copy_from_slice(&head.bytes[..n]);
        Ok(true)
    }
}

impl LumaReader for Ahead {
    fn format(&self) -> VideoFormat {
        self.inner.format()
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }

    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        let n = match planes {
            Planes::Luma => self.format().luma_bytes(),
            Planes::All => self.format().planes_bytes(),
        };
        match self.head.take() {
            Some(head) => self.hand_out(head, dst, n),
            None => self.inner.read(dst, planes, check),
        }
    }

    fn is_y4m(&self) -> bool {
        self.inner.is_y4m()
    }

    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        let n = self.format().luma_bytes();
        match self.head.take() {
            Some(mut head) => {
                head.bytes.truncate(n);
                Ok(Some(head))
            }
            None => self.inner.read_frame(),
        }
    }

    fn skip(&mut self, frames: u64) -> Result<u64> {
        if frames > 0 && self.head.take().is_some() {
            return Ok(1 + self.inner.skip(frames - 1)?);
        }
        self.inner.skip(frames)
    }

    fn frames_read(&self) -> u64 {
        self.inner.frames_read() - u64::from(self.head.is_some())
    }

    fn frame_count(&self) -> Option<u64> {
        self.inner.frame_count()
    }

    fn frame_index(&self) -> Option<FrameIndex> {
        self.index.clone()
    }
}

/// How many frames an input holds, for the message saying there is nothing to
/// score.
pub struct Tally<'a> {
    /// The input's name.
    pub path: &'a Path,
    /// Frames from where reading starts, the skipped ones included: all of
    /// them, or (with `more`) those read before reading stopped.
    pub frames: u64,
    /// A stream with more frames than `frames`, not read further.
    pub more: bool,
    /// Frames skipped at its start.
    pub skip: u64,
}

impl<'a> Tally<'a> {
    /// An input whose length is known (a regular file), from where it is.
    pub fn known(reader: &'a dyn LumaReader, skip: u64) -> Self {
        let total = reader.frame_count().unwrap_or(0);
        Self {
            path: reader.path(),
            frames: total.saturating_sub(reader.frames_read()),
            more: false,
            skip,
        }
    }

    /// An input after [`read_head`].
    fn of_head(reader: &'a dyn LumaReader, head: &Head, skip: u64) -> Self {
        let (frames, more) = match (head, reader.frame_count()) {
            (Head::Ended(n), _) => (*n, false),
            (_, Some(n)) => (n, false),
            _ => (reader.frames_read(), true),
        };
        Self {
            path: reader.path(),
            frames,
            more,
            skip,
        }
    }

    /// `x.y4m has 0 frames (3 less --frame_skip_ref 5)`, the skip `skip`
    /// named as `spelling` names it.
    fn describe(&self, skip: Opt, spelling: Spelling) -> String {
        let skipped = spelling.number(skip, self.skip);
        let left = self.frames.saturating_sub(self.skip);
        let count = if self.more {
            format!("at least {}", frames(left))
        } else {
            frames(left)
        };
        let why = match (self.more, self.skip) {
            (false, 0) => String::new(),
            (false, _) => format!(" ({} less {skipped})", self.frames),
            (true, 0) => " (a stream, not read further)".into(),
            (true, _) => format!(" (after {skipped}; a stream, not read further)"),
        };
        format!("{} has {count}{why}", self.path.display())
    }
}

/// `1 frame`, `3 frames`.
pub(super) fn frames(n: u64) -> String {
    vkssim::words::count(n, "frame")
}

/// The error when one input has no frame to score (after its skip): says how
/// many each has.
pub fn nothing_to_score(reference: &Tally, distorted: &Tally, spelling: Spelling) -> anyhow::Error {
    let after = if reference.skip > 0 || distorted.skip > 0 {
        "after skipping, "
    } else {
        ""
    };
    anyhow!(
        "no frames to score: {after}the reference {} and the distorted input {}",
        reference.describe(Opt::FrameSkipRef, spelling),
        distorted.describe(Opt::FrameSkipDist, spelling)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(frames: u64, more: bool, skip: u64) -> Tally<'static> {
        Tally {
            path: Path::new("x.y4m"),
            frames,
            more,
            skip,
        }
    }

    #[test]
    fn tallies_say_what_is_left() {
        assert_eq!(
            tally(3, false, 5).describe(Opt::FrameSkipRef, Spelling::Flags),
            "x.y4m has 0 frames (3 less --frame_skip_ref 5)"
        );
        assert_eq!(
            tally(3, false, 5).describe(Opt::FrameSkipRef, Spelling::Keywords),
            "x.y4m has 0 frames (3 less frame_skip_ref=5)"
        );
        assert_eq!(
            tally(1, false, 0).describe(Opt::FrameSkipRef, Spelling::Flags),
            "x.y4m has 1 frame"
        );
        assert_eq!(
            tally(3, true, 2).describe(Opt::FrameSkipDist, Spelling::Flags),
            "x.y4m has at least 1 frame (after --frame_skip_dist 2; a stream, not read further)"
        );
        let e =
            nothing_to_score(&tally(0, false, 0), &tally(1, true, 0), Spelling::Flags).to_string();
        assert_eq!(
            e,
            "no frames to score: the reference x.y4m has 0 frames and the distorted input \
             x.y4m has at least 1 frame (a stream, not read further)"
        );
    }
}
