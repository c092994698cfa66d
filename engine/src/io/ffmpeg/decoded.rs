//! The decoding state of one input: its demuxer and decoder, the packets fed
//! and the frames received, in presentation order ([`Decoded::next_frame`]),
//! each checked (damage the decoder reports, a size or pixel format other
//! than the first frame's) before it is handed on. It owns everything that
//! decoding touches, so that it can run on a thread of its own (see the
//! `ahead` module); [`super::FfmpegReader`] keeps what delivering a frame
//! needs (the scaler, the format, the count of frames read).

use std::path::PathBuf;

use ffmpeg_next::{format::Pixel, frame, Packet};

use super::decode::{self, Decoder};
use super::demux::{Demuxer, Read};
use super::{log, message, pixfmt};
use crate::io::DecodeErrors;
use crate::{Error, Result};

/// A stream being decoded, frame by frame.
pub(super) struct Decoded {
    /// The input's name, for messages.
    path: PathBuf,
    demuxer: Demuxer,
    decoder: Decoder,
    packet: Packet,
    /// The decoder was told the stream ended.
    draining: bool,
    /// The decoder has given its last frame.
    ended: bool,
    /// Why the input is cut short, once its reads have found that (the
    /// decoder then drains what it holds before the error is given).
    cut: Option<String>,
    /// Frames the decoder has output (and the checks passed).
    decoded: u64,
    errors: DecodeErrors,
    /// The first frame's pixel format, width and height: every later
    /// frame's must be the same.
    first: Option<(Pixel, u32, u32)>,
}

impl Decoded {
    /// Decodes `demuxer`'s stream with `decoder`; `path` names it in errors.
    pub(super) fn new(
        path: PathBuf,
        demuxer: Demuxer,
        decoder: Decoder,
        errors: DecodeErrors,
    ) -> Self {
        Self {
            path,
            demuxer,
            decoder,
            packet: Packet::empty(),
            draining: false,
            ended: false,
            cut: None,
            decoded: 0,
            errors,
            first: None,
        }
    }

    /// The decoder (its format so far, its codec's name).
    pub(super) fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// The next decoded frame; `None` at the end of the stream. A packet the
    /// decoder refuses or a damaged frame is [`Error::Decode`] (unless
    /// concealed), a frame of another size or format
    /// [`Error::StreamChange`]; a read that fails
    /// is [`Error::Demux`]. After an error the next call goes on with the
    /// stream (as the decoder can).
    ///
    /// An input cut short ([`Read::Cut`]) gives its frames up to the cut and
    /// then [`Error::CutShort`] instead of the end; any error once the reads
    /// have reached the cut (the decoder failing on a packet cut in two) is
    /// that error too, and the stream ends there.
    pub(super) fn next_frame(&mut self) -> Result<Option<frame::Video>> {
        self.next_checked().map_err(|e| self.or_cut(e))
    }

    fn next_checked(&mut self) -> Result<Option<frame::Video>> {
        use ffmpeg_next::Error as E;
        const EAGAIN: i32 = ffmpeg_next::util::error::EAGAIN;
        let mut frame = frame::Video::empty();
        while !self.ended {
            match self.decoder.receive(&mut frame) {
                Ok(()) => {
                    self.check_frame(&frame)?;
                    self.decoded += 1;
                    return Ok(Some(frame));
                }
                Err(E::Other { errno: EAGAIN }) if !self.draining => self.feed()?,
                Err(E::Other { errno: EAGAIN }) | Err(E::Eof) => {
                    self.ended = true;
                    // Errors logged after the last frame (while draining).
                    let logged = log::take(self.decoder.id);
                    self.damaged(None, logged)?;
                    if let Some(reason) = self.cut.take() {
                        return Err(self.cut_error(reason));
                    }
                }
                Err(e) => self.decoder_failed(e)?,
            }
        }
        Ok(None)
    }

    /// `e`, or [`Error::CutShort`] (ending the stream) when the input is
    /// known to be cut short where reading has got to.
    fn or_cut(&mut self, e: Error) -> Error {
        if matches!(e, Error::CutShort { .. }) {
            return e;
        }
        match self.cut.take().or_else(|| self.demuxer.cut_short()) {
            Some(reason) => {
                tracing::debug!("{e} (at the cut)");
                self.ended = true;
                self.cut_error(reason)
            }
            None => e,
        }
    }

    fn cut_error(&self, reason: String) -> Error {
        Error::CutShort {
            path: self.path.clone(),
            frames: self.decoded,
            reason,
        }
    }

    fn decode_error(&self, reason: String) -> Error {
        Error::Decode {
            path: self.path.clone(),
            frame: self.decoded,
            codec: self.decoder.codec.clone(),
            reason,
        }
    }

    /// A failure of the decoder: an error, or with [`DecodeErrors::Conceal`]
    /// a warning (the packet is dropped, as `ffmpeg` does).
    fn decoder_failed(&mut self, e: ffmpeg_next::Error) -> Result<()> {
        let error = self.decode_error(message(self.decoder.id, &e));
        match self.errors {
            DecodeErrors::Error => Err(error),
            DecodeErrors::Conceal => {
                tracing::warn!("{error} (concealed)");
                Ok(())
            }
        }
    }

    /// Hands the decoder the stream's next packet, or the end of the stream.
    fn feed(&mut self) -> Result<()> {
        let read = self.demuxer.read(&mut self.packet, &self.path)?;
        if let Read::Packet = read {
            if let Err(e) = self.decoder.send(&self.packet) {
                self.decoder_failed(e)?;
            }
        } else {
            if let Read::Cut(reason) = read {
                self.cut = Some(reason);
            }
            self.draining = true;
            if let Err(e) = self.decoder.send_eof() {
                self.decoder_failed(e)?;
            }
        }
        Ok(())
    }

    /// Refuses a damaged frame (unless concealment is accepted) and a frame
    /// whose size or pixel format is not the stream's first.
    fn check_frame(&mut self, frame: &frame::Video) -> Result<()> {
        // The frame's own flags, and the errors the decoder logged since the
        // last frame: with frame threads the flags can be copied to the
        // output frame before its decoding has set them, but the messages of
        // every frame decoded from earlier packets are logged by now, so a
        // damaged frame is caught at it or at a frame before it.
        let damage = decode::damage(frame);
        let logged = log::take(self.decoder.id);
        self.damaged(damage, logged)?;
        let this = (frame.format(), frame.width(), frame.height());
        let Some(first) = self.first else {
            self.first = Some(this);
            return Ok(());
        };
        if this != first {
            return Err(self.change(first, this));
        }
        Ok(())
    }

    /// [`Error::StreamChange`] at this frame, from `first` to `this`.
    fn change(&self, first: (Pixel, u32, u32), this: (Pixel, u32, u32)) -> Error {
        let ((p0, w0, h0), (p, w, h)) = (first, this);
        let (size0, size) = (format!("{w0}x{h0}"), format!("{w}x{h}"));
        let (name0, name) = (pixfmt::name(p0), pixfmt::name(p));
        let (what, from, to) = match (size0 == size, p0 == p) {
            (false, true) => ("size", size0, size),
            (true, false) => ("pixel format", name0, name),
            _ => (
                "size and pixel format",
                format!("{size0} {name0}"),
                format!("{size} {name}"),
            ),
        };
        Error::StreamChange {
            path: self.path.clone(),
            frame: self.decoded,
            what: what.to_string(),
            from,
            to,
        }
    }

    /// Refuses (or, concealing, warns about) damage that the frame's flags
    /// or the decoder's log report.
    fn damaged(&mut self, damage: Option<String>, logged: Option<String>) -> Result<()> {
        let reason = match (logged, damage) {
            (None, None) => return Ok(()),
            (Some(l), Some(d)) => format!("{l} ({d})"),
            // Logged while frames are decoded ahead (threads, reordering):
            // the damaged frame is this one or one after it.
            (Some(l), None) => format!(
                "{l} (reported before this frame was output: the damaged frame is this \
                 one or a later one)"
            ),
            (None, Some(d)) => d,
        };
        let error = self.decode_error(reason);
        match self.errors {
            DecodeErrors::Error => Err(error),
            DecodeErrors::Conceal => {
                tracing::warn!("{error} (concealed frame kept)");
                Ok(())
            }
        }
    }
}
