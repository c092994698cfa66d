//! H.264 in MP4/MKV form (avcC: NAL units prefixed by their length, the SPS
//! and PPS in the stream's extradata) turned into Annex B (NAL units after
//! start codes, parameter sets in the stream), as FFmpeg's
//! `h264_mp4toannexb` bitstream filter writes it, so that a decoder that
//! takes Annex B (Vulkan Video) gets the same bytes `ffmpeg -bsf:v
//! h264_mp4toannexb -f h264` would give it:
//!
//! - the extradata's parameter sets, each after a 4-byte start code, go in
//!   front of the first IDR slice of an IDR picture whose packets carried no
//!   SPS and PPS of their own (only the PPS when an SPS was carried), and the
//!   extradata's SPS in front of a carried PPS that came without one;
//! - a NAL unit gets a 4-byte start code when it is a parameter set or the
//!   first thing written for its packet, a 3-byte one otherwise;
//! - whether a new IDR picture needs the parameter sets is remembered across
//!   packets: a non-IDR slice starts a new wait for one, an IDR slice with
//!   `first_mb_in_slice` 0 after another IDR picture is a new picture.
//!
//! Extradata already in Annex B form (or none) means the packets are Annex B
//! already (MPEG-TS, raw `.h264`): [`Avcc::parse`] gives `None`.

/// NAL unit types used here.
const SLICE: u8 = 1;
const IDR: u8 = 5;
const SPS: u8 = 7;
const PPS: u8 = 8;

const START: [u8; 4] = [0, 0, 0, 1];

/// The conversion state of one stream.
#[derive(Debug)]
pub(super) struct Avcc {
    /// Bytes of each NAL unit's length prefix (1, 2 or 4).
    length_size: usize,
    /// The extradata's SPS units, each after a 4-byte start code.
    sps: Vec<u8>,
    /// Its PPS units, the same way.
    pps: Vec<u8>,
    /// The next IDR slice starts a picture that may need the parameter sets.
    new_idr: bool,
    /// An SPS was carried since the last non-IDR slice.
    sps_seen: bool,
    /// A PPS was carried since the last non-IDR slice.
    pps_seen: bool,
}

impl Avcc {
    /// The conversion for a stream with `extradata`: `None` when the stream
    /// is Annex B already (no extradata, or extradata that starts with a
    /// start code); an error for avcC extradata that is too short or whose
    /// parameter sets run past its end.
    pub(super) fn parse(extradata: &[u8]) -> Result<Option<Self>, String> {
        let annex_b = extradata.starts_with(&[0, 0, 1]) || extradata.starts_with(&START);
        if extradata.is_empty() || annex_b {
            return Ok(None);
        }
        if extradata.len() < 7 {
            return Err(format!(
                "its H.264 extradata ({} bytes) is neither avcC nor Annex B",
                extradata.len()
            ));
        }
        let length_size = usize::from(extradata[4] & 3) + 1;
        let mut at = 5;
        let mut sets = [Vec::new(), Vec::new()];
        for (kind, set) in sets.iter_mut().enumerate() {
            let count = match (kind, extradata.get(at)) {
                (0, Some(&n)) => n & 0x1f,
                (_, Some(&n)) => n,
                (_, None) => 0,
            };
            at += 1;
            for _ in 0..count {
                let size = extradata
                    .get(at..at + 2)
                    .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])));
                let unit = size.and_then(|n| extradata.get(at + 2..at + 2 + n));
                let Some(unit) = unit else {
                    return Err("a parameter set in its avcC extradata runs past its end".into());
                };
                set.extend_from_slice(&START);
                set.extend_from_slice(unit);
                at += 2 + unit.len();
            }
        }
        let [sps, pps] = sets;
        Ok(Some(Self {
            length_size,
            sps,
            pps,
            new_idr: true,
            sps_seen: false,
            pps_seen: false,
        }))
    }

    /// Appends `packet`'s NAL units to `out` in Annex B form (see the module
    /// documentation). A length prefix that runs past the packet is an error.
    pub(super) fn convert(&mut self, packet: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let first = out.len();
        let mut at = 0;
        while at < packet.len() {
            let Some(prefix) = packet.get(at..at + self.length_size) else {
                return Err("a NAL unit's length prefix runs past its packet".into());
            };
            let size = prefix
                .iter()
                .fold(0usize, |n, &b| (n << 8) | usize::from(b));
            at += self.length_size;
            let Some(nal) = packet.get(at..at + size) else {
                return Err(format!(
                    "a NAL unit of {size} bytes runs past its packet ({} bytes left)",
                    packet.len() - at
                ));
            };
            at += size;
            if nal.is_empty() {
                continue;
            }
            let kind = nal[0] & 0x1f;
            match kind {
                SPS => {
                    self.sps_seen = true;
                    self.new_idr = true;
                }
                PPS => {
                    self.pps_seen = true;
                    self.new_idr = true;
                    if !self.sps_seen && !self.sps.is_empty() {
                        out.extend_from_slice(&self.sps);
                        self.sps_seen = true;
                    }
                }
                _ => {}
            }
            if !self.new_idr && kind == IDR && nal.get(1).is_some_and(|b| b & 0x80 != 0) {
                self.new_idr = true;
            }
            if self.new_idr && kind == IDR && !self.sps_seen && !self.pps_seen {
                out.extend_from_slice(&self.sps);
                out.extend_from_slice(&self.pps);
                self.new_idr = false;
            } else if self.new_idr && kind == IDR && self.sps_seen && !self.pps_seen {
                out.extend_from_slice(&self.pps);
            }
            if kind == SPS || kind == PPS || out.len() == first {
                out.extend_from_slice(&START);
            } else {
                out.extend_from_slice(&START[1..]);
            }
            out.extend_from_slice(nal);
            if !self.new_idr && kind == SLICE {
                self.new_idr = true;
                self.sps_seen = false;
                self.pps_seen = false;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// avcC extradata with one SPS and one PPS, 4-byte lengths.
    fn extradata() -> Vec<u8> {
        let mut e = vec![
            1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, 3, 0x67, 0xaa, 0xbb, 1, 0, 2,
        ];
        e.extend([0x68, 0xcc]);
        e
    }

    fn unit(nal: &[u8]) -> Vec<u8> {
        let mut v = (nal.len() as u32).to_be_bytes().to_vec();
        v.extend_from_slice(nal);
        v
    }

    #[test]
    fn parameter_sets_go_before_the_first_idr_slice_only() {
        let mut c = Avcc::parse(&extradata()).unwrap().unwrap();
        let mut packet = unit(&[0x06, 1]);
        packet.extend(unit(&[0x65, 0x88]));
        let mut out = Vec::new();
        c.convert(&packet, &mut out).unwrap();
        let mut want = vec![0, 0, 0, 1, 0x06, 1];
        want.extend([0, 0, 0, 1, 0x67, 0xaa, 0xbb, 0, 0, 0, 1, 0x68, 0xcc]);
        want.extend([0, 0, 1, 0x65, 0x88]);
        assert_eq!(out, want);
        // A second slice of the same IDR picture (first_mb_in_slice > 0).
        out.clear();
        c.convert(&unit(&[0x65, 0x11]), &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 1, 0x65, 0x11]);
    }

    #[test]
    fn annex_b_or_no_extradata_passes_through_and_bad_lengths_fail() {
        assert!(Avcc::parse(&[]).unwrap().is_none());
        assert!(Avcc::parse(&[0, 0, 0, 1, 0x67, 1, 2]).unwrap().is_none());
        assert!(Avcc::parse(&[1, 2, 3]).is_err());
        let mut c = Avcc::parse(&extradata()).unwrap().unwrap();
        let e = c.convert(&[0, 0, 0, 9, 0x65], &mut Vec::new()).unwrap_err();
        assert!(e.contains("runs past its packet"), "{e}");
    }
}
