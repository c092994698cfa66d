//! The sample range check: a 10 or 12-bit sample must fit its bit depth.
//!
//! libvmaf does not check this: it divides whatever 16-bit value it finds by 4 or
//! 16. vkssim refuses such frames instead, with [`crate::Error::SampleRange`]: a
//! value above the maximum almost always means the wrong `--bitdepth` (a 16-bit or
//! big-endian file read as 10-bit), and it would break the bound (samples below 256
//! after scaling) that the GPU's exact int64 decimation relies on. 8 and 16-bit
//! samples always fit, so they are never scanned.

/// The first sample of a packed little-endian plane whose value does not fit in
/// `bit_depth` bits: `(index, value)`, or `None` when every sample fits. Always
/// `None` at 8 and 16 bits.
pub fn first_out_of_range(bytes: &[u8], bit_depth: u32) -> Option<(usize, u16)> {
    if bit_depth <= 8 || bit_depth >= 16 {
        return None;
    }
    let high = !((1u16 << bit_depth) - 1);
    if !any_high_bits(bytes, high) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .enumerate()
        .find(|&(_, v)| v & high != 0)
}

/// Refuses plane `component` of a frame of `format` with a sample above its
/// bit depth: [`crate::Error::SampleRange`] naming `path`, `frame`, the plane
/// and the first such sample's position in it.
pub(crate) fn check_plane(
    plane: &[u8],
    component: crate::Component,
    format: &super::VideoFormat,
    path: &std::path::Path,
    frame: u64,
) -> crate::Result<()> {
    let bit_depth = format.bit_depth;
    match first_out_of_range(plane, bit_depth) {
        None => Ok(()),
        Some((i, value)) => {
            let w = match component {
                crate::Component::Luma => format.width,
                _ => format.chroma.plane_size(format.width, format.height).0,
            }
            .max(1) as usize;
            Err(crate::Error::SampleRange {
                plane: None,
                component,
                at: crate::SampleAt::File(path.to_path_buf()),
                frame,
                x: (i % w) as u32,
                y: (i / w) as u32,
                value: value.into(),
                max: (1 << bit_depth) - 1,
                bit_depth,
            })
        }
    }
}

/// Whether any little-endian 16-bit sample has a bit of `high` set: an OR over the
/// whole plane, eight samples per step, which the compiler vectorises.
/// [`check_plane`] on a frame's luma plane, then on the Cb and Cr planes that
/// follow it in `planes` ([`super::VideoFormat::planes_bytes`]), each with its
/// own row width (a position names the sample within its plane).
pub(crate) fn check_planes(
    planes: &[u8],
    format: &super::VideoFormat,
    path: &std::path::Path,
    frame: u64,
) -> crate::Result<()> {
    let luma = format.luma_bytes().min(planes.len());
    check_plane(&planes[..luma], crate::Component::Luma, format, path, frame)?;
    let plane = format.chroma_plane_bytes().max(1);
    for (k, c) in planes[luma..].chunks(plane).enumerate() {
        check_plane(c, crate::Component::at(1 + k), format, path, frame)?;
    }
    Ok(())
}

fn any_high_bits(bytes: &[u8], high: u16) -> bool {
    let mask = u64::from(high) * 0x0001_0001_0001_0001;
    let words = bytes.chunks_exact(32);
    let tail = words.remainder();
    let mut acc = [0u64; 4];
    for w in words {
        for (i, a) in acc.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&w[8 * i..8 * i + 8]);
            *a |= u64::from_le_bytes(b);
        }
    }
    let mut any = (acc[0] | acc[1] | acc[2] | acc[3]) & mask != 0;
    for s in tail.chunks_exact(2) {
        any |= u16::from_le_bytes([s[0], s[1]]) & high != 0;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(samples: &[u16]) -> Vec<u8> {
        samples.iter().flat_map(|s| s.to_le_bytes()).collect()
    }

    #[test]
    fn in_range_planes_pass() {
        let p = plane(&[1023; 37]);
        assert_eq!(first_out_of_range(&p, 10), None);
        let p = plane(&[4095; 70]);
        assert_eq!(first_out_of_range(&p, 12), None);
        assert_eq!(first_out_of_range(&plane(&[65535; 5]), 16), None);
        assert_eq!(first_out_of_range(&[255; 5], 8), None);
    }

    #[test]
    fn finds_the_first_bad_sample_anywhere() {
        for len in [1usize, 15, 16, 17, 40] {
            for at in 0..len {
                let mut s = vec![1023u16; len];
                s[at] = 1024;
                if at + 1 < len {
                    s[len - 1] = 0x8000;
                }
                assert_eq!(first_out_of_range(&plane(&s), 10), Some((at, 1024)));
                let expect12 = (at + 1 < len).then_some((len - 1, 0x8000));
                assert_eq!(first_out_of_range(&plane(&s), 12), expect12);
            }
        }
    }
}
