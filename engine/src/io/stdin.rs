//! Standard input, and named pipes (FIFOs), with the `ffmpeg` feature: an
//! encoded stream (MP4, MKV, MPEG-TS, ...) piped in, written into a FIFO or
//! redirected from a file is recognised by its content and decoded through
//! FFmpeg, like a named file; anything else goes on to the Y4M and raw YUV
//! readers as before ([`open`]). A FIFO whose name ends `.yuv` is raw YUV
//! and is not looked at here.
//!
//! A pipe is looked at once: its first bytes are read, Y4M is told by its
//! magic, and otherwise libavformat probes up to [`PROBE_BYTES`]; the bytes
//! read are put back in front of the rest for whichever reader takes it.
//! A pipe that libavformat only guesses at (no magic number) is raw YUV when
//! the raw layout is given, and libavformat's otherwise (an H.264 elementary
//! stream has no magic). libavformat reads a pipe front to back, so an MP4
//! whose index follows its frames cannot come through one: that is an error
//! saying so.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use super::ffmpeg::{probe, FfmpegReader, Source, PROBE_BYTES};
use super::probe::{content_says_encoded, encoded_or_error, read_up_to, Plain, Y4M_MAGIC};
use super::{DecodeOptions, LumaReader, RawFormat};
use crate::{Error, Result};

/// What standard input turned out to be.
pub(super) enum Stdin {
    /// An encoded stream, open.
    Encoded(Box<dyn LumaReader>),
    /// An input for the Y4M and raw readers (a regular file at its first
    /// position, or a pipe with the bytes read put back in front).
    Plain(Plain),
}

/// Looks at standard input or a FIFO (`input`), named `name` in messages
/// (see the module documentation).
pub(super) fn open(
    input: Plain,
    name: &Path,
    raw: &RawFormat,
    decode: &DecodeOptions,
) -> Result<Stdin> {
    let io = |e| Error::io(name, e);
    let raw_given = raw.complete().is_ok();
    let mut pipe = match input {
        Plain::File(file) => return open_file(file, name, raw, decode),
        Plain::Stream(pipe) => pipe,
    };
    let mut magic = [0u8; Y4M_MAGIC.len()];
    let n = read_up_to(&mut pipe, &mut magic).map_err(io)?;
    let mut prefix = magic[..n].to_vec();
    if n < magic.len() || &magic[..] == Y4M_MAGIC {
        return Ok(plain(Cursor::new(prefix).chain(pipe)));
    }
    prefix.resize(PROBE_BYTES, 0);
    let more = read_up_to(&mut pipe, &mut prefix[n..]).map_err(io)?;
    prefix.truncate(n + more);
    let sure = probe(&prefix).is_some_and(|p| p.sure);
    let stream = Cursor::new(prefix).chain(pipe);
    if raw_given && !sure {
        return Ok(plain(stream));
    }
    let source = Source::Stream(Box::new(stream));
    match FfmpegReader::open_source(name, source, decode, raw_given) {
        Ok(reader) => Ok(Stdin::Encoded(Box::new(reader))),
        // What was read is gone: no reader can take the pipe now.
        Err(Error::Demux { path, reason }) if !raw_given => Err(Error::Demux {
            path,
            reason: format!(
                "{reason}; as raw YUV it would need its width, height, pixel format and \
                 bit depth"
            ),
        }),
        Err(e) => Err(e),
    }
}

/// Standard input redirected from a regular file: through FFmpeg when it
/// starts at the file's start and is neither empty nor Y4M, as a named file
/// would be (with the raw layout given, only when its content says it is
/// encoded); otherwise for the other readers at its first position.
fn open_file(file: File, name: &Path, raw: &RawFormat, decode: &DecodeOptions) -> Result<Stdin> {
    let io = |e| Error::io(name, e);
    let mut magic = [0u8; Y4M_MAGIC.len()];
    let mut f = &file;
    let start = f.stream_position().map_err(io)?;
    let n = read_up_to(&mut f, &mut magic).map_err(io)?;
    f.seek(SeekFrom::Start(start)).map_err(io)?;
    // FFmpeg reads the file from its start: a file already read into is
    // left to the other readers, as before.
    if start != 0 || n == 0 || &magic[..n] == Y4M_MAGIC {
        return Ok(Stdin::Plain(Plain::File(file)));
    }
    let raw_given = raw.complete().is_ok();
    if raw_given && !content_says_encoded(&file, name, name)? {
        return Ok(Stdin::Plain(Plain::File(file)));
    }
    let own = file.try_clone().map_err(io)?;
    let opened = FfmpegReader::open_source(name, Source::File(own), decode, raw_given);
    encoded_or_error(opened, name, raw, false).map(Stdin::Encoded)
}

/// A pipe for the other readers.
fn plain(stream: impl Read + Send + 'static) -> Stdin {
    Stdin::Plain(Plain::Stream(Box::new(stream)))
}
