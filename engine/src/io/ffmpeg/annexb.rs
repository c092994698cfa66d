//! H.264 from any container as an Annex B byte stream, for a decoder that
//! takes one (Vulkan Video): [`AnnexB`] demuxes the video stream with
//! libavformat and converts its packets from MP4/MKV's length-prefixed form
//! (`avcc`) packet by packet; a stream already in Annex B (MPEG-TS, raw
//! `.h264`) passes through unchanged. The bytes equal what `ffmpeg -i IN
//! -map 0:v:N -c:v copy -bsf:v h264_mp4toannexb -f h264` writes.

use std::path::{Path, PathBuf};

use ffmpeg_next::{codec, Packet};

use super::avcc::Avcc;
use super::demux::{Demuxer, Read};
use crate::io::DecodeOptions;
use crate::{Error, Result};

/// The packets of an H.264 stream as Annex B (see the module documentation).
pub struct AnnexB {
    path: PathBuf,
    demuxer: Demuxer,
    /// The conversion, `None` when the packets are Annex B already.
    avcc: Option<Avcc>,
    packet: Packet,
    /// Packets read.
    packets: u64,
    /// The last packet converted.
    out: Vec<u8>,
}

impl AnnexB {
    /// Opens `path`'s video stream (`options.stream`; the other options are
    /// the decoder's and not used). Errors as [`crate::io::ffmpeg`]'s for a
    /// container; a video stream that is not H.264 is
    /// [`Error::Unsupported`] naming its codec; extradata that is neither
    /// avcC nor Annex B is [`Error::Demux`].
    pub fn open(path: &Path, options: &DecodeOptions) -> Result<Self> {
        let demuxer = Demuxer::open(path, options, false)?;
        let parameters = demuxer.parameters();
        if parameters.id() != codec::Id::H264 {
            return Err(Error::Unsupported(format!(
                "{}: its video stream is {}, and GPU decoding (Vulkan Video) takes H.264 only",
                path.display(),
                parameters.id().name()
            )));
        }
        // SAFETY: the parameters are the open stream's; `extradata` holds
        // `extradata_size` bytes when it is not null, and is copied at once.
        let extradata = unsafe {
            let p = &*parameters.as_ptr();
            match (p.extradata.is_null(), usize::try_from(p.extradata_size)) {
                (false, Ok(n)) => std::slice::from_raw_parts(p.extradata, n).to_vec(),
                _ => Vec::new(),
            }
        };
        let avcc = Avcc::parse(&extradata).map_err(|reason| Error::Demux {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            demuxer,
            avcc,
            packet: Packet::empty(),
            packets: 0,
            out: Vec::new(),
        })
    }

    /// The next packet's bytes in Annex B (a whole access unit, in decoding
    /// order); `None` at the end of the stream. A read error, or a packet
    /// whose NAL unit lengths run past it, is [`Error::Demux`]; a file cut
    /// short is [`Error::CutShort`] in place of the end (its `frames` the
    /// packets read).
    pub fn next_packet(&mut self) -> Result<Option<&[u8]>> {
        match self.demuxer.read(&mut self.packet, &self.path)? {
            Read::Packet => self.packets += 1,
            Read::End => return Ok(None),
            Read::Cut(reason) => {
                return Err(Error::CutShort {
                    path: self.path.clone(),
                    frames: self.packets,
                    reason,
                })
            }
        }
        let data = self.packet.data().unwrap_or(&[]);
        let Some(avcc) = &mut self.avcc else {
            return Ok(Some(data));
        };
        self.out.clear();
        avcc.convert(data, &mut self.out)
            .map_err(|reason| Error::Demux {
                path: self.path.clone(),
                reason: format!("packet at byte {}: {reason}", self.packet.position()),
            })?;
        Ok(Some(&self.out))
    }
}
