//! Reading back what the integer passes of `motion` and `vif` write: a
//! host-visible buffer of 64-bit row records, the first luma sample above
//! the bit depth among one picture's row records (`(value << 32) | column`,
//! all ones for a row (or a row's chunk) without one: `glsl/motion_sad.comp`,
//! `glsl/vif_stats.comp`), and a device plane of one uint per 16-bit sample.

use super::super::{not_mapped, VkScorer};
use super::PlaneRange;
use crate::vk::memory::Buffer;
use crate::Result;

/// The 64-bit little-endian words of host-visible `buf`.
pub(super) fn words(buf: &Buffer) -> Result<Vec<u64>> {
    let bytes = buf.mapped().ok_or_else(not_mapped)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

/// The first luma sample above the bit depth of each picture (none at 8 and
/// 16 bits, where nothing is recorded, and `records` is not read), from
/// `records()`, where picture `p`'s records start at `at + p * height *
/// per_row`: `per_row` per row of `height` (left to right, each covering
/// columns right of the one before), rows top first.
pub(super) fn luma_ranges(
    records: impl FnOnce() -> Result<Vec<u64>>,
    at: usize,
    height: usize,
    per_row: usize,
    bit_depth: u32,
) -> Result<[Option<PlaneRange>; 2]> {
    if bit_depth != 10 && bit_depth != 12 {
        return Ok([None; 2]);
    }
    let records = records()?;
    let n = height * per_row;
    Ok(std::array::from_fn(|p| {
        let start = at + p * n;
        first_above(&records[start..start + n], per_row, p)
    }))
}

/// The first luma sample above the bit depth in picture `picture`'s
/// records `rows` (`per_row` per row, in raster order).
fn first_above(rows: &[u64], per_row: usize, picture: usize) -> Option<PlaneRange> {
    let (i, &rec) = rows.iter().enumerate().find(|(_, &rec)| rec != u64::MAX)?;
    Some(PlaneRange {
        picture,
        plane: 0,
        x: rec as u32,
        y: (i / per_row) as u32,
        value: (rec >> 32) as u32,
    })
}

/// Device buffer `buf` of one uint per sample, copied back, as 16-bit
/// samples.
pub(super) fn samples(s: &VkScorer, buf: &Buffer) -> Result<Vec<u16>> {
    s.read_back_with(buf, false, |b| {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u16)
            .collect()
    })
}

/// A device plane of 16-bit samples packed two to a word, each row of
/// `width` samples starting a word (the last half-word of an odd row is not
/// a sample), read back in raster order.
pub(super) fn packed_samples(s: &VkScorer, buf: &Buffer, width: u32) -> Result<Vec<u16>> {
    let width = width as usize;
    let row_bytes = width.div_ceil(2) * 4;
    s.read_back_with(buf, false, |b| {
        b.chunks_exact(row_bytes)
            .flat_map(|row| {
                row.chunks_exact(2)
                    .take(width)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
            })
            .collect()
    })
}
