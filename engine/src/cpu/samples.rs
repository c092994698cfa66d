//! Stage 1: raw luma samples to fp32, as libvmaf's `picture_copy` does: 8-bit
//! values as they are, 10 / 12 / 16-bit values divided by 4 / 16 / 256 (exact,
//! so every sample is a multiple of 2^-8 in [0, 256)).

use super::Plane;
use crate::frame::bytes_per_sample;
use crate::{Error, LumaView, Result};

/// The fp32 divisor libvmaf applies to a sample of `bit_depth` bits, or an error
/// for a depth it does not read.
pub fn sample_divisor(bit_depth: u32) -> Result<f32> {
    match bit_depth {
        8 => Ok(1.0),
        10 => Ok(4.0),
        12 => Ok(16.0),
        16 => Ok(256.0),
        other => Err(Error::Unsupported(format!(
            "bit depth {other} (float_ssim reads 8, 10, 12 and 16-bit samples)"
        ))),
    }
}

/// Checks that `view` is internally consistent (a bit depth libvmaf reads, a
/// stride that holds a row, a buffer that holds every row), so later stages can
/// index it without failing.
pub fn check_view(view: &LumaView<'_>) -> Result<()> {
    sample_divisor(view.bit_depth)?;
    let row_bytes = view.width as usize * bytes_per_sample(view.bit_depth);
    if view.row_stride < row_bytes {
        return Err(Error::InvalidOption(format!(
            "row stride {} is shorter than a row of {} samples ({row_bytes} bytes)",
            view.row_stride, view.width
        )));
    }
    let needed = if view.height == 0 {
        0
    } else {
        view.row_stride * (view.height as usize - 1) + row_bytes
    };
    if view.bytes.len() < needed {
        return Err(Error::BufferSize {
            what: format!(
                "{} {}x{} {}-bit luma plane",
                crate::words::article(view.width.into()),
                view.width,
                view.height,
                view.bit_depth
            ),
            needed,
            actual: view.bytes.len(),
        });
    }
    Ok(())
}

/// Converts row `y` of a view already checked by [`check_view`] into `dst`
/// (`width` values). `divisor` comes from [`sample_divisor`].
#[inline]
pub(crate) fn convert_row(view: &LumaView<'_>, y: usize, divisor: f32, dst: &mut [f32]) {
    let start = y * view.row_stride;
    if view.bit_depth <= 8 {
        let src = &view.bytes[start..start + dst.len()];
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s as f32;
        }
    } else {
        let src = &view.bytes[start..start + 2 * dst.len()];
        for (d, s) in dst.iter_mut().zip(src.chunks_exact(2)) {
            *d = u16::from_le_bytes([s[0], s[1]]) as f32 / divisor;
        }
    }
}

/// The fp32 plane libvmaf computes SSIM on, before decimation.
pub fn luma_to_plane(view: &LumaView<'_>) -> Result<Plane> {
    let mut plane = Plane::zeroed(0, 0);
    luma_into(view, &mut plane)?;
    Ok(plane)
}

/// [`luma_to_plane`] into `plane`, reusing its buffer (every value is
/// written).
pub(crate) fn luma_into(view: &LumaView<'_>, plane: &mut Plane) -> Result<()> {
    check_view(view)?;
    let divisor = sample_divisor(view.bit_depth)?;
    plane.width = view.width;
    plane.height = view.height;
    plane
        .data
        .resize(view.width as usize * view.height as usize, 0.0);
    for y in 0..view.height as usize {
        convert_row(view, y, divisor, plane.row_mut(y));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LumaFrame;

    #[test]
    fn eight_bit_samples_are_kept() {
        let f = LumaFrame {
            width: 3,
            height: 1,
            bit_depth: 8,
            bytes: vec![0, 7, 255],
        };
        assert_eq!(
            luma_to_plane(&f.view()).unwrap().data,
            vec![0.0, 7.0, 255.0]
        );
    }

    #[test]
    fn high_bit_depths_divide_exactly() {
        for (depth, div) in [(10, 4.0f32), (12, 16.0), (16, 256.0)] {
            let max = (1u32 << depth) - 1;
            let vals = [0u16, 1, 3, max as u16];
            let bytes = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
            let f = LumaFrame {
                width: 4,
                height: 1,
                bit_depth: depth,
                bytes,
            };
            let p = luma_to_plane(&f.view()).unwrap();
            for (got, v) in p.data.iter().zip(vals) {
                assert_eq!(*got as f64, v as f64 / div as f64);
            }
        }
    }

    #[test]
    fn stride_padding_is_skipped() {
        let bytes = vec![1, 2, 99, 3, 4, 99];
        let v = LumaView::new(2, 2, 8, 3, &bytes).unwrap();
        assert_eq!(luma_to_plane(&v).unwrap().data, vec![1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn inconsistent_views_are_errors() {
        let bytes = vec![0u8; 5];
        let bad_depth = LumaView {
            width: 2,
            height: 2,
            bit_depth: 9,
            row_stride: 4,
            bytes: &bytes,
        };
        assert!(matches!(
            luma_to_plane(&bad_depth),
            Err(Error::Unsupported(_))
        ));
        let short = LumaView {
            width: 2,
            height: 2,
            bit_depth: 16,
            row_stride: 4,
            bytes: &bytes,
        };
        assert!(matches!(
            luma_to_plane(&short),
            Err(Error::BufferSize { needed: 8, .. })
        ));
        let narrow = LumaView {
            width: 4,
            height: 1,
            bit_depth: 8,
            row_stride: 2,
            bytes: &bytes,
        };
        assert!(matches!(
            luma_to_plane(&narrow),
            Err(Error::InvalidOption(_))
        ));
    }
}
