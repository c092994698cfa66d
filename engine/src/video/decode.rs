//! One H.264 stream decoded on its own thread by a gpu-video
//! `WgpuTexturesDecoder`: an Annex B file (`.h264`, `.264`) is read in
//! chunks, and with the `ffmpeg` feature any other file is demuxed by
//! libavformat and converted to Annex B packet by packet
//! ([`crate::io::ffmpeg::AnnexB`]); the bytes go to the decoder, and each
//! frame it returns (display order) goes to a bounded channel as a
//! [`Decoded`], with the error that ends the stream, if any, last.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use gpu_video::parameters::DecoderParameters;
use gpu_video::{EncodedInputChunk, OutputFrame};

use crate::{Error, Result};

/// Bytes handed to the decoder at a time.
const CHUNK: usize = 1 << 16;

/// A decoded frame: an NV12 texture in `GENERAL` layout, complete.
pub(crate) struct Decoded {
    pub(crate) texture: wgpu::Texture,
}

/// A stream being decoded.
pub(crate) struct Stream {
    pub(crate) path: PathBuf,
    pub(crate) frames: Receiver<Result<Decoded>>,
    thread: Option<JoinHandle<()>>,
}

impl Stream {
    /// Starts decoding `path` on `device`; at most `depth` decoded frames wait
    /// in the channel.
    pub(crate) fn start(
        device: &Arc<gpu_video::VulkanDevice>,
        path: &Path,
        depth: usize,
    ) -> Result<Self> {
        let mut bitstream = Bitstream::open(path)?;
        let decoder = device
            .create_wgpu_textures_decoder_h264(DecoderParameters::default())
            .map_err(|e| decode_error(path, 0, e))?;
        let (tx, rx) = sync_channel(depth.max(1));
        let owned = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name(format!("h264 {}", path.display()))
            .spawn(move || {
                let mut decoder = decoder;
                let mut frame = 0u64;
                let mut send = |out: std::result::Result<Vec<OutputFrame<wgpu::Texture>>, _>| {
                    let frames = match out {
                        Ok(f) => f,
                        Err(e) => {
                            let _ = tx.send(Err(decode_error(&owned, frame, e)));
                            return false;
                        }
                    };
                    for f in frames {
                        frame += 1;
                        if tx.send(Ok(Decoded { texture: f.data })).is_err() {
                            return false;
                        }
                    }
                    true
                };
                loop {
                    let chunk = match bitstream.next() {
                        Ok(Some(chunk)) => chunk,
                        Ok(None) => break,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    let out = decoder.decode(EncodedInputChunk {
                        data: chunk,
                        pts: None,
                    });
                    if !send(out) {
                        return;
                    }
                }
                send(decoder.flush());
            })
            .map_err(|e| Error::Internal(format!("starting a decoder thread: {e}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            frames: rx,
            thread: Some(thread),
        })
    }
}

/// Where a stream's bytes come from.
enum Bitstream {
    /// An Annex B file, whole, and how much of it was handed over.
    File { bytes: Vec<u8>, at: usize },
    /// A container, demuxed and converted to Annex B.
    #[cfg(feature = "ffmpeg")]
    Container(Box<crate::io::ffmpeg::AnnexB>),
}

impl Bitstream {
    /// `path` read whole when its name says Annex B (`.h264`, `.264`) or
    /// vkssim has no FFmpeg; otherwise opened by libavformat.
    fn open(path: &Path) -> Result<Self> {
        let annex_b = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("h264") || e.eq_ignore_ascii_case("264"));
        #[cfg(feature = "ffmpeg")]
        if !annex_b {
            let options = crate::io::DecodeOptions::default();
            let stream = crate::io::ffmpeg::AnnexB::open(path, &options)?;
            return Ok(Self::Container(Box::new(stream)));
        }
        let _ = annex_b;
        let bytes = std::fs::read(path).map_err(|source| Error::io(path.to_path_buf(), source))?;
        if bytes.is_empty() {
            return Err(Error::EmptyInput {
                path: path.to_path_buf(),
                expected: "an H.264 Annex B stream".into(),
            });
        }
        Ok(Self::File { bytes, at: 0 })
    }

    /// The next bytes for the decoder; `None` at the end.
    fn next(&mut self) -> Result<Option<&[u8]>> {
        match self {
            Self::File { bytes, at } => {
                let start = *at;
                if start >= bytes.len() {
                    return Ok(None);
                }
                *at = bytes.len().min(start + CHUNK);
                Ok(Some(&bytes[start..*at]))
            }
            #[cfg(feature = "ffmpeg")]
            Self::Container(stream) => stream.next_packet(),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // Unblock the thread (its sends fail once the receiver is gone).
        let (_, dead) = sync_channel(0);
        drop(std::mem::replace(&mut self.frames, dead));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A gpu-video error at display frame `frame` of `path`.
fn decode_error(path: &Path, frame: u64, e: impl std::fmt::Display) -> Error {
    Error::VideoDecode {
        path: path.to_path_buf(),
        frame,
        reason: e.to_string(),
    }
}
