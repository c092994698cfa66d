//! The codec side: opens the stream's decoder as `ffmpeg` does (the codec's
//! default decoder, `avcodec_find_decoder`; frame and slice threads, as many
//! as the host has cores unless told), and says whether a decoded frame is
//! one the decoder reports as damaged ([`damage`]).

use std::path::Path;

use ffmpeg_next::ffi;
use ffmpeg_next::{codec, decoder, frame, Packet};

use super::demux::Demuxer;
use super::{log, message, version};
use crate::io::DecodeOptions;
use crate::{Error, Result};

/// An open video decoder.
pub(super) struct Decoder {
    video: decoder::Video,
    /// The id in the context's `opaque` field (see [`log`]).
    pub(super) id: usize,
    /// The codec's name (`h264`), for messages.
    pub(super) codec: String,
}

impl Decoder {
    /// The decoder of `demuxer`'s stream. No decoder for its codec in this
    /// FFmpeg: [`Error::UnsupportedCodec`]; one that fails to open:
    /// [`Error::Decode`] at frame 0.
    pub(super) fn open(demuxer: &Demuxer, options: &DecodeOptions, path: &Path) -> Result<Self> {
        let parameters = demuxer.parameters();
        let id = parameters.id();
        let codec_name = match id {
            codec::Id::None => "(one FFmpeg does not know)".to_string(),
            id => id.name().to_string(),
        };
        let Some(codec) = decoder::find(id) else {
            return Err(Error::UnsupportedCodec {
                path: path.to_path_buf(),
                codec: codec_name,
                ffmpeg: version(),
            });
        };
        let log_id = log::new_id();
        let failed = |e: ffmpeg_next::Error| Error::Decode {
            path: path.to_path_buf(),
            frame: 0,
            codec: codec_name.clone(),
            reason: message(log_id, &e),
        };
        let mut context = codec::Context::from_parameters(parameters).map_err(failed)?;
        let time_base = demuxer.time_base();
        // SAFETY: the context is allocated and not open yet; these are plain
        // fields that avcodec_open2 reads.
        unsafe {
            let c = context.as_mut_ptr();
            (*c).opaque = log_id as *mut std::ffi::c_void;
            (*c).thread_count = options.threads.min(i32::MAX as usize) as i32;
            (*c).thread_type = ffi::FF_THREAD_FRAME | ffi::FF_THREAD_SLICE;
            (*c).pkt_timebase = time_base.into();
        }
        let video = context
            .decoder()
            .open_as(codec)
            .and_then(|o| o.video())
            .map_err(failed)?;
        Ok(Self {
            video,
            id: log_id,
            codec: codec_name,
        })
    }

    /// The decoder's frame width, height and pixel format so far.
    pub(super) fn width(&self) -> u32 {
        self.video.width()
    }

    /// See [`Decoder::width`].
    pub(super) fn height(&self) -> u32 {
        self.video.height()
    }

    /// See [`Decoder::width`].
    pub(super) fn format(&self) -> ffmpeg_next::format::Pixel {
        self.video.format()
    }

    /// `avcodec_send_packet`.
    pub(super) fn send(&mut self, packet: &Packet) -> std::result::Result<(), ffmpeg_next::Error> {
        self.video.send_packet(packet)
    }

    /// Signals the end of the stream (the decoder then drains).
    pub(super) fn send_eof(&mut self) -> std::result::Result<(), ffmpeg_next::Error> {
        self.video.send_eof()
    }

    /// `avcodec_receive_frame`.
    pub(super) fn receive(
        &mut self,
        frame: &mut frame::Video,
    ) -> std::result::Result<(), ffmpeg_next::Error> {
        self.video.receive_frame(frame)
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        log::forget(self.id);
    }
}

/// What the decoder says is wrong with `frame`: its corrupt flag and decode
/// error flags, in words; `None` for a clean frame.
pub(super) fn damage(frame: &frame::Video) -> Option<String> {
    // SAFETY: `frame` holds a valid decoded AVFrame; these are plain fields.
    let (flags, errors) = unsafe {
        let f = &*frame.as_ptr();
        (f.flags, f.decode_error_flags)
    };
    let mut what = Vec::new();
    for (bit, words) in [
        (ffi::FF_DECODE_ERROR_INVALID_BITSTREAM, "invalid bitstream"),
        (ffi::FF_DECODE_ERROR_MISSING_REFERENCE, "missing reference"),
        (
            ffi::FF_DECODE_ERROR_CONCEALMENT_ACTIVE,
            "concealment active",
        ),
        (ffi::FF_DECODE_ERROR_DECODE_SLICES, "slices not decoded"),
    ] {
        if errors & bit != 0 {
            what.push(words);
        }
    }
    if flags & ffi::AV_FRAME_FLAG_CORRUPT != 0 && what.is_empty() {
        what.push("the decoder marked the frame corrupt");
    }
    (!what.is_empty()).then(|| what.join(", "))
}
