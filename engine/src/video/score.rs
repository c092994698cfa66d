//! The pairing loop: frames of the two decoded streams taken in display
//! order, checked for matching size, handed to a device-frames
//! [`crate::api::Scorer`] as NV12 image planes, and each score passed on as
//! soon as it is back; each pair's textures are kept until its score is.

use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

use ash::vk;

use super::decode::{Decoded, Stream};
use super::VideoDevice;
use crate::api::{ImagePlane, Pair, ScoreQueue, Scorer, ScorerDesc};
use crate::metric::MetricConfig;
use crate::{Error, FrameScore, Result};

/// The two Annex B streams of a run and how to score them.
///
/// ```no_run
/// use std::path::Path;
/// let pair = vkssim::video::StreamPair::new(Path::new("ref.h264"), Path::new("dist.h264"));
/// # let _ = pair;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct StreamPair<'a> {
    /// The reference stream.
    pub reference: &'a Path,
    /// The distorted stream.
    pub distorted: &'a Path,
    /// The metrics, in output order (default: float_ssim with its default
    /// options). Any metric that scores luma alone runs (VMAF's extractors
    /// included, motion's previous frame kept per run); one that reads
    /// chroma (psnr without `enable_chroma=false`) is refused when the
    /// scorer is made, because the decoded frames reach the scorer as luma.
    pub metrics: Vec<MetricConfig>,
    /// Pairs scored at most (0: all).
    pub max_frames: u64,
    /// Decoded frames each stream may have waiting.
    pub decode_ahead: usize,
    /// Streams of different lengths: score the common frames and stop at the
    /// shorter one's end (otherwise [`Error::LengthMismatch`]).
    pub allow_length_mismatch: bool,
}

impl<'a> StreamPair<'a> {
    /// Checks that every metric can score GPU-decoded frames, before
    /// anything is decoded or any device opened: one that reads chroma
    /// cannot ([`Error::InvalidOption`]), the decoded pictures reaching the
    /// scorer as luma.
    pub fn check_metrics(&self) -> Result<()> {
        match self.metrics.iter().find(|m| m.needs_chroma()) {
            Some(m) => {
                let name = m.feature();
                Err(Error::InvalidOption(format!(
                    "{name} reads chroma, but frames decoded on the GPU reach the scorer as \
                     luma only: ask {name} with enable_chroma=false, or decode {} on the host",
                    self.reference.display()
                )))
            }
            None => Ok(()),
        }
    }

    /// `reference` against `distorted` with default options, every frame.
    ///
    /// ```no_run
    /// # use std::path::Path;
    /// let mut pair = vkssim::video::StreamPair::new(Path::new("a.264"), Path::new("b.264"));
    /// pair.max_frames = 100;
    /// # let _ = pair;
    /// ```
    pub fn new(reference: &'a Path, distorted: &'a Path) -> Self {
        Self {
            reference,
            distorted,
            metrics: vec![MetricConfig::FloatSsim(Default::default())],
            max_frames: 0,
            decode_ahead: 4,
            allow_length_mismatch: false,
        }
    }
}

/// What a run did.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct VideoRun {
    /// Pairs scored.
    pub frames: u64,
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// From the start of decoding to the last score.
    pub elapsed: Duration,
}

/// One scored pair, as [`VideoDevice::score_streams`] passes it on.
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct VideoFrame {
    /// Display-order index of the pair.
    pub index: u64,
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// The score.
    pub score: FrameScore,
}

/// The pairs of a run in flight: the scorer (made for the first pair's size)
/// and each pair's textures, kept until its score is taken.
struct Flight {
    scorer: Option<Scorer>,
    held: VecDeque<[Decoded; 2]>,
    run: VideoRun,
    scored: u64,
}

impl Flight {
    /// Takes the oldest pair's score and passes it on; `false` when it is
    /// held for the next pair's (a temporal metric's, a model's: see
    /// [`ScoreQueue::finish`]).
    fn take(&mut self, on_score: &mut impl FnMut(VideoFrame) -> Result<()>) -> Result<bool> {
        let Some(s) = self.scorer.as_mut() else {
            return Ok(false);
        };
        let Some(score) = s.wait() else {
            return Ok(false);
        };
        let score = score?;
        self.held.pop_front();
        on_score(VideoFrame {
            index: self.scored,
            width: self.run.width,
            height: self.run.height,
            score,
        })?;
        self.scored += 1;
        Ok(true)
    }

    /// Ends the stream (the last pairs' held scores complete) and takes
    /// every pending score.
    fn drain(&mut self, on_score: &mut impl FnMut(VideoFrame) -> Result<()>) -> Result<()> {
        if let Some(s) = self.scorer.as_mut() {
            s.finish();
        }
        while !self.held.is_empty() {
            if !self.take(on_score)? {
                return Err(Error::Internal("a submitted pair gave no result".into()));
            }
        }
        Ok(())
    }
}

impl VideoDevice {
    /// Decodes `pair`'s two streams on the GPU and scores every frame pair in
    /// display order, calling `on_score` as each score is back. When a later
    /// frame fails, the pairs already submitted are still scored and passed
    /// on before the error is returned.
    ///
    /// Errors: a metric that reads chroma ([`StreamPair::check_metrics`],
    /// before anything is decoded), a file that cannot be read or is empty ([`Error::Io`],
    /// [`Error::EmptyInput`]), a decoding failure naming the file and frame
    /// ([`Error::VideoDecode`]), streams of different sizes
    /// ([`Error::GeometryMismatch`]) or lengths ([`Error::LengthMismatch`],
    /// after the common frames are scored), no frame ([`Error::NoFrames`]),
    /// the scorer's errors, and `on_score`'s.
    ///
    /// ```no_run
    /// use std::path::Path;
    /// use vkssim::video::{StreamPair, VideoDevice};
    /// let video = VideoDevice::open(&vkssim::vk::VkOptions::default())?;
    /// let pair = StreamPair::new(Path::new("ref.h264"), Path::new("dist.h264"));
    /// video.score_streams(&pair, |f| {
    ///     println!("{}: {}", f.index, f.score.float_ssim());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn score_streams(
        &self,
        pair: &StreamPair<'_>,
        mut on_score: impl FnMut(VideoFrame) -> Result<()>,
    ) -> Result<VideoRun> {
        pair.check_metrics()?;
        let start = Instant::now();
        let depth = pair.decode_ahead;
        let streams = [
            Stream::start(self.device(), pair.reference, depth)?,
            Stream::start(self.device(), pair.distorted, depth)?,
        ];
        let mut flight = Flight {
            scorer: None,
            held: VecDeque::new(),
            run: VideoRun::default(),
            scored: 0,
        };
        let result = self.pump(pair, &streams, &mut flight, &mut on_score);
        // Scores of pairs already submitted are passed on, error or not.
        let drained = flight.drain(&mut on_score);
        result?;
        drained?;
        if flight.run.frames == 0 {
            return Err(Error::NoFrames(format!(
                "{} and {}",
                pair.reference.display(),
                pair.distorted.display()
            )));
        }
        flight.run.elapsed = start.elapsed();
        Ok(flight.run)
    }

    /// Submits pairs until a stream ends, `max_frames` or an error.
    fn pump(
        &self,
        pair: &StreamPair<'_>,
        streams: &[Stream; 2],
        flight: &mut Flight,
        on_score: &mut impl FnMut(VideoFrame) -> Result<()>,
    ) -> Result<()> {
        loop {
            let run = &flight.run;
            if pair.max_frames != 0 && run.frames == pair.max_frames {
                return Ok(());
            }
            let (r, d) = match (next(&streams[0])?, next(&streams[1])?) {
                (Some(r), Some(d)) => (r, d),
                (None, None) => return Ok(()),
                _ if pair.allow_length_mismatch => return Ok(()),
                (r, _) => return Err(length_mismatch(streams, run.frames, r.is_some())),
            };
            let size = |t: &wgpu::Texture| (t.width(), t.height());
            let (w, h) = size(&r.texture);
            if size(&d.texture) != (w, h) {
                return Err(Error::GeometryMismatch(format!(
                    "frame {}: {} decodes to {w}x{h} but {} to {}x{}",
                    run.frames,
                    streams[0].path.display(),
                    streams[1].path.display(),
                    d.texture.width(),
                    d.texture.height()
                )));
            }
            if flight.scorer.is_none() {
                let desc = ScorerDesc::new(w, h, 8).with_metrics(pair.metrics.clone());
                flight.scorer = Some(self.engine().scorer(&desc)?);
                (flight.run.width, flight.run.height) = (w, h);
            } else if (w, h) != (run.width, run.height) {
                return Err(Error::GeometryMismatch(format!(
                    "frame {}: the streams change size from {}x{} to {w}x{h}",
                    run.frames, run.width, run.height
                )));
            }
            let depth = flight.scorer.as_ref().map_or(1, ScoreQueue::queue_depth);
            if flight.held.len() >= depth {
                // A score held for this pair's stays pending.
                flight.take(on_score)?;
            }
            let planes = [raw_image(&r.texture)?, raw_image(&d.texture)?];
            let nv12 = |image| {
                ImagePlane::new(
                    image,
                    vk::Format::G8_B8R8_2PLANE_420_UNORM,
                    vk::ImageLayout::GENERAL,
                )
            };
            let Some(s) = flight.scorer.as_mut() else {
                return Err(Error::Internal("scorer missing".into()));
            };
            // The imports are dropped once queued: the pair holds them until
            // it is done, and `held` keeps the images alive until its score
            // is taken.
            let [ir, id] = [0, 1].map(|k| {
                // SAFETY: both images are complete NV12 frames of the
                // engine's device in GENERAL layout, CONCURRENT with the
                // engine's family (module docs of `super`), at least w x h,
                // with TRANSFER_SRC usage; nothing writes them while held.
                unsafe { self.engine().import_image(nv12(planes[k])) }
            });
            s.submit(Pair::new(&ir?, &id?))?;
            flight.held.push_back([r, d]);
            flight.run.frames += 1;
        }
    }
}

/// [`Error::LengthMismatch`] once one stream ended after `common` pairs:
/// the longer one (the reference when `reference_longer`) is decoded to its
/// end to count its frames.
fn length_mismatch(streams: &[Stream; 2], common: u64, reference_longer: bool) -> Error {
    let longer = &streams[if reference_longer { 0 } else { 1 }];
    let mut rest = 1;
    loop {
        match next(longer) {
            Ok(Some(_)) => rest += 1,
            Ok(None) => break,
            Err(e) => return e,
        }
    }
    let (reference, distorted) = if reference_longer {
        (common + rest, common)
    } else {
        (common, common + rest)
    };
    Error::LengthMismatch {
        reference,
        distorted,
        common,
    }
}

/// The next decoded frame of `stream`, `None` at its end.
fn next(stream: &Stream) -> Result<Option<Decoded>> {
    match stream.frames.recv() {
        Ok(frame) => frame.map(Some),
        Err(_) => Ok(None),
    }
}

/// The `VkImage` behind a decoded texture.
fn raw_image(texture: &wgpu::Texture) -> Result<vk::Image> {
    // SAFETY: gpu-video's textures are Vulkan ones; the handle is only used
    // while the texture lives.
    let hal = unsafe { texture.as_hal::<wgpu::hal::api::Vulkan>() }
        .ok_or_else(|| Error::Internal("a decoded texture is not a Vulkan one".into()))?;
    // SAFETY: as above.
    Ok(unsafe { hal.raw_handle() })
}
