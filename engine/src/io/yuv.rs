//! Raw planar YUV: frames of luma then chroma (4:2:0, 4:2:2, 4:4:4, ...), 8-bit or
//! 10/12/16-bit little-endian, no header. The format comes from the caller.
//!
//! From a regular file the size is checked when the reader is made, so a file that
//! is not a whole number of frames fails before any scoring; luma is read straight
//! into the caller's buffer and chroma is skipped with a seek. From a pipe, chroma
//! passes through one reused buffer, and a short last frame is reported when the
//! stream ends.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::frames::{Frames, LumaDst};
use super::index::{FrameIndex, Offsets};
use super::source::{ByteSource, Seekable, Stream};
use super::{Check, LumaReader, Planes, VideoFormat};
use crate::{Error, LumaFrame, Result};

/// Reads the luma of raw planar YUV frames.
pub struct YuvReader {
    frames: Frames,
    /// Where the first frame starts in a seekable input.
    first: u64,
}

impl YuvReader {
    /// Reads the next frame's luma into `dst` (see [`LumaReader::read`]).
    fn read_into(&mut self, dst: LumaDst<'_>) -> Result<bool> {
        if let LumaDst::Into(d) | LumaDst::Unchecked(d) = &dst {
            self.frames.check_dst(d)?;
        }
        let got = self.frames.read_planes(dst, 0)?;
        if got {
            self.frames.next += 1;
        }
        Ok(got)
    }

    /// A reader over a seekable input (a regular file) from its current position.
    /// Fails with [`Error::TruncatedFrame`] if the bytes left are not a whole number
    /// of frames.
    pub fn from_seekable<R: Read + Seek + Send + 'static>(
        inner: R,
        path: impl Into<PathBuf>,
        format: VideoFormat,
    ) -> Result<Self> {
        let path = path.into();
        format.validate()?;
        let src = Seekable::new(inner).map_err(|e| Error::io(path.clone(), e))?;
        let mut reader = Self::with_source(Box::new(src), path, format);
        reader.count_frames()?;
        Ok(reader)
    }

    /// A reader over a stream (a pipe, standard input) read front to back.
    pub fn from_stream<R: Read + Send + 'static>(
        inner: R,
        path: impl Into<PathBuf>,
        format: VideoFormat,
    ) -> Result<Self> {
        format.validate()?;
        Ok(Self::with_source(
            Box::new(Stream::new(inner)),
            path.into(),
            format,
        ))
    }

    fn with_source(src: Box<dyn ByteSource>, path: PathBuf, format: VideoFormat) -> Self {
        let first = src.position();
        Self {
            first,
            frames: Frames {
                src,
                format,
                path,
                next: 0,
                total: None,
                file: None,
            },
        }
    }

    /// Lets [`LumaReader::frame_index`] read `file` by offset: the file this
    /// reader's seekable input reads.
    pub(crate) fn set_file(&mut self, file: Arc<File>) {
        self.frames.file = Some(file);
    }

    /// Counts the frames of a seekable input, refusing a partial last frame.
    fn count_frames(&mut self) -> Result<()> {
        let f = &mut self.frames;
        if let Some(left) = f.src.remaining() {
            let per = f.format.frame_bytes();
            let whole = left / per;
            if left % per != 0 {
                f.next = whole;
                return Err(f.truncated(left % per, per));
            }
            f.total = Some(whole);
        }
        Ok(())
    }
}

impl LumaReader for YuvReader {
    fn format(&self) -> VideoFormat {
        self.frames.format
    }

    fn path(&self) -> &Path {
        &self.frames.path
    }

    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        if planes == Planes::All {
            self.frames.check_planes_dst(dst)?;
        }
        self.read_into(LumaDst::of(dst, planes, check))
    }

    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        let frame = self.frames.read_frame(0)?;
        if frame.is_some() {
            self.frames.next += 1;
        }
        Ok(frame)
    }

    fn skip(&mut self, frames: u64) -> Result<u64> {
        let f = &mut self.frames;
        let per = f.format.frame_bytes();
        if let Some(left) = f.src.remaining() {
            // A seekable input: one seek over every whole frame.
            let n = frames.min(left / per);
            let done = f.src.skip_bytes(n * per).map_err(|e| f.io(e))?;
            f.next += done / per;
            if done != n * per {
                return Err(f.truncated(done % per, per));
            }
            if n < frames && left % per != 0 {
                return Err(f.truncated(left % per, per));
            }
            return Ok(n);
        }
        let mut n = 0;
        while n < frames && f.read_planes(LumaDst::Skip, 0)? {
            f.next += 1;
            n += 1;
        }
        Ok(n)
    }

    fn frames_read(&self) -> u64 {
        self.frames.next
    }

    fn frame_count(&self) -> Option<u64> {
        self.frames.total
    }

    fn frame_index(&self) -> Option<FrameIndex> {
        self.frames.index(Offsets::Uniform {
            first: self.first,
            stride: self.frames.format.frame_bytes(),
            count: self.frames.total?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::testutil::{pattern_video, Trickle};
    use crate::io::Chroma;
    use std::io::Cursor;

    fn both(data: &[u8], format: VideoFormat) -> Vec<Result<YuvReader>> {
        vec![
            YuvReader::from_seekable(Cursor::new(data.to_vec()), "clip.yuv", format),
            YuvReader::from_stream(
                Trickle {
                    inner: Cursor::new(data.to_vec()),
                    chunk: 7,
                },
                "-",
                format,
            ),
        ]
    }

    #[test]
    fn reads_every_layout_odd_sizes() {
        for chroma in [Chroma::C420, Chroma::C422, Chroma::C444, Chroma::Mono] {
            for bit_depth in [8, 10, 12, 16] {
                let format = VideoFormat::new(5, 3, bit_depth, chroma).unwrap();
                let (data, lumas) = pattern_video(&format, 3, b"");
                for reader in both(&data, format) {
                    let mut r = reader.unwrap();
                    for (i, luma) in lumas.iter().enumerate() {
                        assert_eq!(r.frames_read(), i as u64);
                        let frame = r.read_frame().unwrap().unwrap();
                        assert_eq!(&frame.bytes, luma, "{format} frame {i}");
                        assert_eq!((frame.width, frame.height), (5, 3));
                    }
                    assert!(r.read_frame().unwrap().is_none());
                    assert!(r.read_frame().unwrap().is_none());
                    assert_eq!(r.frames_read(), 3);
                }
            }
        }
    }

    #[test]
    fn frame_count_is_known_for_files_only() {
        let format = VideoFormat::new(4, 2, 8, Chroma::C420).unwrap();
        let (data, _) = pattern_video(&format, 4, b"");
        let r = both(&data, format);
        assert_eq!(r[0].as_ref().unwrap().frame_count(), Some(4));
        assert_eq!(r[1].as_ref().unwrap().frame_count(), None);
    }

    #[test]
    fn skip_then_read() {
        let format = VideoFormat::new(3, 3, 10, Chroma::C422).unwrap();
        let (data, lumas) = pattern_video(&format, 5, b"");
        for reader in both(&data, format) {
            let mut r = reader.unwrap();
            assert_eq!(r.skip(2).unwrap(), 2);
            assert_eq!(r.read_frame().unwrap().unwrap().bytes, lumas[2]);
            assert_eq!(r.skip(10).unwrap(), 2);
            assert_eq!(r.frames_read(), 5);
            assert!(r.read_frame().unwrap().is_none());
        }
    }

    #[test]
    fn empty_input_has_no_frames() {
        let format = VideoFormat::new(3, 3, 8, Chroma::C420).unwrap();
        for reader in both(&[], format) {
            let mut r = reader.unwrap();
            assert!(r.read_frame().unwrap().is_none());
            assert_eq!(r.skip(3).unwrap(), 0);
        }
    }

    #[test]
    fn truncated_file_fails_up_front() {
        let format = VideoFormat::new(5, 3, 8, Chroma::C420).unwrap();
        let (mut data, _) = pattern_video(&format, 2, b"");
        data.extend_from_slice(&[1, 2, 3]);
        let err = YuvReader::from_seekable(Cursor::new(data), "clip.yuv", format)
            .err()
            .unwrap();
        match err {
            Error::TruncatedFrame {
                path,
                frame,
                leftover,
                frame_bytes,
            } => {
                assert_eq!(path, Path::new("clip.yuv"));
                assert_eq!((frame, leftover, frame_bytes), (2, 3, 27));
            }
            e => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn truncated_stream_fails_at_the_end() {
        let format = VideoFormat::new(5, 3, 8, Chroma::C420).unwrap();
        let (data, _) = pattern_video(&format, 2, b"");
        // Cut inside luma, then inside chroma.
        for cut in [27 + 4, 27 + 20] {
            let mut r = both(&data[..cut], format).pop().unwrap().unwrap();
            assert!(r.read_frame().unwrap().is_some());
            match r.read_frame() {
                Err(Error::TruncatedFrame {
                    frame, leftover, ..
                }) => assert_eq!((frame, leftover), (1, cut as u64 - 27)),
                other => panic!("unexpected {other:?}"),
            }
            let mut r = both(&data[..cut], format).pop().unwrap().unwrap();
            assert!(matches!(
                r.skip(5),
                Err(Error::TruncatedFrame { frame: 1, .. })
            ));
        }
    }

    #[test]
    fn short_buffer_is_refused() {
        let format = VideoFormat::new(5, 3, 16, Chroma::C444).unwrap();
        let (data, lumas) = pattern_video(&format, 1, b"");
        let mut r = both(&data, format).remove(0).unwrap();
        let mut small = vec![0u8; 29];
        assert!(matches!(
            r.read(&mut small, Planes::Luma, Check::Range),
            Err(Error::BufferSize {
                needed: 30,
                actual: 29,
                ..
            })
        ));
        // A larger buffer is fine: only the first luma_bytes are written.
        let mut big = vec![0xAAu8; 40];
        assert!(r.read(&mut big, Planes::Luma, Check::Range).unwrap());
        assert_eq!(&big[..30], &lumas[0][..]);
        assert!(big[30..].iter().all(|&b| b == 0xAA));
    }

    #[test]
    fn out_of_range_sample_is_refused() {
        let format = VideoFormat::new(5, 3, 10, Chroma::C420).unwrap();
        let (mut data, _) = pattern_video(&format, 2, b"");
        let frame_bytes = format.frame_bytes() as usize;
        // Frame 1, sample (3, 2) = index 13, set to 1024.
        let at = frame_bytes + 2 * 13;
        data[at..at + 2].copy_from_slice(&1024u16.to_le_bytes());
        for reader in both(&data, format) {
            let mut r = reader.unwrap();
            assert!(r.read_frame().unwrap().is_some());
            match r.read_frame() {
                Err(Error::SampleRange {
                    frame,
                    x,
                    y,
                    value,
                    max,
                    ..
                }) => assert_eq!((frame, x, y, value, max), (1, 3, 2, 1024, 1023)),
                other => panic!("unexpected {other:?}"),
            }
        }
    }
}
