//! A Y4M mono (`Cmono`) input as the `vmaf` command line reads it: its Y4M
//! reader turns such a stream into 4:2:0 pictures whose chroma planes are
//! flat, and scores those. For a metric that reads chroma (`psnr`), vkssim
//! does the same ([`as_vmaf_reads`]), so that `psnr_cb` and `psnr_cr` (at
//! their ceiling: the two inputs' chroma planes are the same flat plane),
//! `mse_cb`, `apsnr_cb` and the ceilings `min_sse` sets are vmaf's.
//! Luma-only metrics, and raw or encoded luma-only inputs (4:0:0, whose
//! psnr libvmaf scores on luma alone), are left as they are.

use std::path::Path;

use vkssim::io::{Check, Chroma, FrameIndex, LumaReader, Planes, VideoFormat};
use vkssim::{Error, LumaFrame, Result};

use crate::feature::Features;

/// `reader`, or, when it is a Y4M mono input and `features` read chroma,
/// the same frames as 4:2:0 with flat chroma planes.
pub fn as_vmaf_reads(reader: Box<dyn LumaReader>, features: &Features) -> Box<dyn LumaReader> {
    let f = reader.format();
    if reader.is_y4m() && f.chroma == Chroma::Mono && features.needs_chroma() {
        Box::new(FlatChroma { inner: reader })
    } else {
        reader
    }
}

/// A luma-only reader whose frames are 4:2:0 with mid-grey chroma.
struct FlatChroma {
    inner: Box<dyn LumaReader>,
}

impl FlatChroma {
    /// Reads the luma into `dst` (its range checked as `check` says) and
    /// fills the two chroma planes after it.
    fn planes(&mut self, dst: &mut [u8], check: Check) -> Result<bool> {
        let f = self.format();
        let (luma, len) = (f.luma_bytes(), f.planes_bytes());
        if dst.len() < len {
            return Err(Error::BufferSize {
                what: format!(
                    "{} {f} frame's luma and chroma planes",
                    vkssim::words::article(f.width.into())
                ),
                needed: len,
                actual: dst.len(),
            });
        }
        if !self.inner.read(&mut dst[..luma], Planes::Luma, check)? {
            return Ok(false);
        }
        let grey = 128u16 << (f.bit_depth - 8);
        if f.bit_depth == 8 {
            dst[luma..len].fill(grey as u8);
        } else {
            for sample in dst[luma..len].chunks_exact_mut(2) {
                sample.copy_from_slice(&grey.to_le_bytes());
            }
        }
        Ok(true)
    }
}

impl LumaReader for FlatChroma {
    fn format(&self) -> VideoFormat {
        VideoFormat {
            chroma: Chroma::C420,
            ..self.inner.format()
        }
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        match planes {
            Planes::Luma => self.inner.read(dst, Planes::Luma, check),
            Planes::All => self.planes(dst, check),
        }
    }
    fn is_y4m(&self) -> bool {
        true
    }
    fn skip(&mut self, frames: u64) -> Result<u64> {
        self.inner.skip(frames)
    }
    fn frames_read(&self) -> u64 {
        self.inner.frames_read()
    }
    fn frame_count(&self) -> Option<u64> {
        self.inner.frame_count()
    }
    fn frame_count_estimate(&self) -> Option<u64> {
        self.inner.frame_count_estimate()
    }
    /// None: an index reads the file's planes, which hold no chroma.
    fn frame_index(&self) -> Option<FrameIndex> {
        None
    }
    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        self.inner.read_frame()
    }
    fn color_range(&self) -> Option<vkssim::io::DeclaredRange> {
        self.inner.color_range()
    }
    fn stored_format(&self) -> VideoFormat {
        VideoFormat {
            chroma: Chroma::C420,
            ..self.inner.stored_format()
        }
    }
}
