//! The exact CPU twin of libvmaf's `psnr`: the integer sum of squared errors
//! of each plane ([`plane_sse`]), then the metric's fp64 finish
//! ([`crate::metric::psnr::frame_outputs`]).
//!
//! 8-bit: per row a wrapping uint32 sum of `e * e` (`e = ref - dis`), added
//! into a uint64. 10 to 16-bit: `e = |ref - dis|`, `e * e` in uint32 (at most
//! 65535², no overflow), summed into a uint64. This is libvmaf 3.x's
//! arithmetic; 2.3.1 squares in int32 at high bit depth, which overflows for
//! `|e| > 46340` (only at 16 bits).
//!
//! The planes come as [`LumaView`]s: the type is a plain plane of samples
//! (width, height, bit depth, stride, bytes), chroma planes included.

use crate::frame::PlaneGeometry;
use crate::io::Chroma;
use crate::metric::outputs::MetricOutputs;
use crate::metric::psnr::{check_geometry, frame_outputs, keep_sse, PsnrGeometry, PsnrOptions};
use crate::metric::SideValues;
use crate::{Error, FrameScore, LumaView, Result};

use super::samples::check_view;

/// The exact sum of squared errors of two planes of the same geometry.
///
/// Errors: [`Error::GeometryMismatch`] when they differ in size or bit depth,
/// [`Error::Unsupported`] / [`Error::BufferSize`] / [`Error::InvalidOption`]
/// for a view that does not hold what it claims.
pub fn plane_sse(reference: &LumaView<'_>, distorted: &LumaView<'_>) -> Result<u64> {
    check_view(reference)?;
    check_view(distorted)?;
    let geometry = |v: &LumaView<'_>| PlaneGeometry::new(v.width, v.height, v.bit_depth);
    geometry(reference).expect_same("the reference plane", geometry(distorted), "the distorted")?;
    let w = reference.width as usize;
    let mut sse = 0u64;
    for y in 0..reference.height as usize {
        let (r0, d0) = (y * reference.row_stride, y * distorted.row_stride);
        if reference.bit_depth == 8 {
            sse += row_sse_8(&reference.bytes[r0..r0 + w], &distorted.bytes[d0..d0 + w]) as u64;
        } else {
            sse += row_sse_16(
                &reference.bytes[r0..r0 + 2 * w],
                &distorted.bytes[d0..d0 + 2 * w],
            );
        }
    }
    Ok(sse)
}

super::simd::dispatch_avx2! {
    /// One 8-bit row's wrapping uint32 sum of squared differences, written
    /// to `out` (see [`row_sse_8_portable`]).
    fn row_sse_8_into / row_sse_8_avx2 => row_sse_8_portable(r: &[u8], d: &[u8], out: &mut u32)
}

/// One 8-bit row's sum, as libvmaf's uint32 row accumulator holds it.
#[inline]
fn row_sse_8(r: &[u8], d: &[u8]) -> u32 {
    let mut out = 0;
    row_sse_8_into(r, d, &mut out);
    out
}

/// The portable kernel of [`row_sse_8_into`]. Wrapping addition is
/// associative, so summing in any order gives libvmaf's uint32.
#[inline(always)]
fn row_sse_8_portable(r: &[u8], d: &[u8], out: &mut u32) {
    let mut acc = 0u32;
    for (&a, &b) in r.iter().zip(d) {
        let e = a as i32 - b as i32;
        acc = acc.wrapping_add((e * e) as u32);
    }
    *out = acc;
}

super::simd::dispatch_avx2! {
    /// One high-bit-depth row's sum of squared differences (little-endian
    /// uint16 samples), written to `out` (see [`row_sse_16_portable`]).
    fn row_sse_16_into / row_sse_16_avx2 => row_sse_16_portable(r: &[u8], d: &[u8], out: &mut u64)
}

#[inline]
fn row_sse_16(r: &[u8], d: &[u8]) -> u64 {
    let mut out = 0;
    row_sse_16_into(r, d, &mut out);
    out
}

/// The portable kernel of [`row_sse_16_into`]: `e = |r - d|` as uint32,
/// `e * e` in uint32 (exact), summed in uint64 (exact for any row).
#[inline(always)]
fn row_sse_16_portable(r: &[u8], d: &[u8], out: &mut u64) {
    let mut acc = 0u64;
    for (a, b) in r.chunks_exact(2).zip(d.chunks_exact(2)) {
        let x = u16::from_le_bytes([a[0], a[1]]) as u32;
        let y = u16::from_le_bytes([b[0], b[1]]) as u32;
        let e = x.abs_diff(y);
        acc += (e * e) as u64;
    }
    *out = acc;
}

/// One frame's `psnr`: the exact sums of squared errors of each plane scored
/// and the outputs libvmaf reports for it.
#[derive(Debug, Clone, PartialEq)]
pub struct PsnrFrame {
    /// Sum of squared errors per plane (0 for planes not scored).
    pub sse: [u64; 3],
    /// The frame's values, by libvmaf name and in its order.
    pub outputs: MetricOutputs,
    /// The sums kept for the run's `apsnr`.
    pub side: SideValues,
}

/// The planes `g` scores, as views of exactly their scored size: luma as it
/// is, and each chroma plane as its top-left `g.plane_sizes[p]` region. A
/// chroma plane may come at that size or rounded up (`(w + 1) / 2`, as files
/// store it); anything else, or another bit depth, is
/// [`Error::GeometryMismatch`] naming the plane.
fn scored_planes<'a>(
    what: &str,
    planes: &[LumaView<'a>],
    g: &PsnrGeometry,
) -> Result<[Option<LumaView<'a>>; 3]> {
    if planes.len() < g.planes {
        return Err(Error::InvalidOption(format!(
            "psnr needs {} planes of the {what} (luma and chroma), {} given",
            g.planes,
            planes.len()
        )));
    }
    const NAMES: [&str; 3] = ["luma", "Cb", "Cr"];
    let stored = g.chroma.plane_size(g.width, g.height);
    let mut out = [None; 3];
    for (p, view) in planes.iter().take(g.planes).enumerate() {
        let (w, h) = g.plane_sizes[p];
        let (sw, sh) = if p == 0 { (w, h) } else { stored };
        let fits = (view.width == w || view.width == sw) && (view.height == h || view.height == sh);
        if !fits || view.bit_depth != g.bit_depth {
            let got = PlaneGeometry::new(view.width, view.height, view.bit_depth);
            return Err(Error::GeometryMismatch(format!(
                "the {what}'s {} plane is {got}, but a {} {}x{} {}-bit picture's is {sw}x{sh}",
                NAMES[p], g.chroma, g.width, g.height, g.bit_depth
            )));
        }
        check_view(view)?;
        out[p] = Some(LumaView {
            width: w,
            height: h,
            ..*view
        });
    }
    Ok(out)
}

/// libvmaf's `psnr` for one reference / distorted pair, bit for bit (3.x's
/// arithmetic at 16 bits). `reference` and `distorted` hold the luma plane,
/// then (with `enable_chroma`, and unless `chroma` is [`Chroma::Mono`]) the
/// Cb and Cr planes, as a file stores them (sides rounded up) or at
/// libvmaf's picture sizes (truncated); only the truncated top-left region
/// is scored, as libvmaf scores it.
///
/// Errors: those of [`check_geometry`] (before any work), then a plane of the
/// wrong size or depth ([`Error::GeometryMismatch`]) or too few planes.
pub fn score_psnr(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    chroma: Chroma,
    opts: &PsnrOptions,
) -> Result<PsnrFrame> {
    let luma = reference.first().ok_or_else(|| {
        Error::InvalidOption("psnr needs the reference's planes, none given".into())
    })?;
    let g = check_geometry(luma.width, luma.height, luma.bit_depth, chroma, opts)?;
    let r = scored_planes("reference", reference, &g)?;
    let d = scored_planes("distorted", distorted, &g)?;
    let mut sse = [0u64; 3];
    for (p, (r, d)) in r.iter().zip(&d).enumerate() {
        if let (Some(r), Some(d)) = (r, d) {
            sse[p] = plane_sse(r, d)?;
        }
    }
    let mut side = SideValues::default();
    keep_sse(&sse, &g, &mut side);
    Ok(PsnrFrame {
        sse,
        outputs: frame_outputs(&sse, &g, opts),
        side,
    })
}

/// `psnr`'s CPU twin: [`score_psnr`] on the planes it reads.
impl super::metrics::CpuTwin for PsnrOptions {
    fn score(
        &self,
        pair: &super::metrics::TwinPair<'_, '_>,
        _work: &mut super::metrics::TwinWork,
        out: &mut FrameScore,
    ) -> Result<()> {
        let f = score_psnr(pair.reference, pair.distorted, pair.chroma, self)?;
        out.outputs.extend(&f.outputs);
        out.side.extend(&f.side);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LumaFrame;

    fn plane(w: u32, h: u32, depth: u32, f: impl Fn(u32, u32) -> u32) -> LumaFrame {
        let mut p = LumaFrame::zeroed(w, h, depth);
        for y in 0..h {
            for x in 0..w {
                let v = f(x, y);
                let i = (y * w + x) as usize;
                if depth == 8 {
                    p.bytes[i] = v as u8;
                } else {
                    p.bytes[2 * i..2 * i + 2].copy_from_slice(&(v as u16).to_le_bytes());
                }
            }
        }
        p
    }

    #[test]
    fn sse_is_exact_at_every_depth() {
        for depth in [8u32, 10, 12, 16] {
            let max = (1u32 << depth) - 1;
            let a = plane(37, 5, depth, |x, y| (x * 7919 + y * 104_729) % (max + 1));
            let b = plane(37, 5, depth, |x, y| (x * 31 + y * 17 + 3) % (max + 1));
            let mut want = 0u128;
            for y in 0..5 {
                for x in 0..37 {
                    let (u, v) = (a.view().sample(x, y), b.view().sample(x, y));
                    want += (u as i128 - v as i128).pow(2) as u128;
                }
            }
            assert_eq!(
                plane_sse(&a.view(), &b.view()).unwrap() as u128,
                want,
                "{depth}-bit"
            );
        }
        // Full-scale 16-bit errors (where libvmaf 2.3.1's int32 square overflows).
        let a = plane(64, 2, 16, |_, _| 0);
        let b = plane(64, 2, 16, |_, _| 65535);
        assert_eq!(
            plane_sse(&a.view(), &b.view()).unwrap(),
            128 * 65535u64 * 65535
        );
    }

    #[test]
    fn portable_and_avx2_agree() {
        let a = plane(1000, 3, 8, |x, y| (x * 13 + y) % 256);
        let b = plane(1000, 3, 8, |x, y| (x * 7 + y * 5) % 256);
        let c = plane(999, 3, 16, |x, y| (x * 977 + y * 3) % 65536);
        let d = plane(999, 3, 16, |x, y| (x * 65 + y * 7777) % 65536);
        let wide = [
            plane_sse(&a.view(), &b.view()).unwrap(),
            plane_sse(&c.view(), &d.view()).unwrap(),
        ];
        super::super::simd::FORCE_PORTABLE.with(|f| f.set(true));
        let portable = [
            plane_sse(&a.view(), &b.view()).unwrap(),
            plane_sse(&c.view(), &d.view()).unwrap(),
        ];
        super::super::simd::FORCE_PORTABLE.with(|f| f.set(false));
        assert_eq!(wide, portable);
    }

    #[test]
    fn frames_check_their_planes() {
        let y = plane(9, 7, 10, |x, _| x);
        let c = plane(5, 4, 10, |x, _| x);
        let opts = PsnrOptions::default();
        let r = [y.view(), c.view(), c.view()];
        let f = score_psnr(&r, &r, Chroma::C420, &opts).unwrap();
        assert_eq!(f.sse, [0; 3]);
        assert_eq!(f.outputs.get("psnr_cr"), Some(72.0));
        // Chroma as stored (5x4) or as scored (4x3): the same sums.
        let scored = plane(4, 3, 10, |x, _| x);
        let s = [y.view(), scored.view(), scored.view()];
        assert!(score_psnr(&s, &s, Chroma::C420, &opts).is_ok());
        let d = plane(5, 4, 10, |x, y| x + 3 * y * (y / 3));
        let dd = [y.view(), d.view(), d.view()];
        // Row 3 differs, but only rows 0..3 of the 5x4 plane are scored.
        assert_eq!(
            score_psnr(&r, &dd, Chroma::C420, &opts).unwrap().sse,
            [0; 3]
        );
        // 4:2:2 chroma of a 9x7 picture is 5x7 (4x7 scored), not 5x4.
        let e = score_psnr(&r, &r, Chroma::C422, &opts).unwrap_err();
        assert!(e.to_string().contains("Cb plane"), "{e}");
        let e = score_psnr(&r[..1], &r, Chroma::C420, &opts).unwrap_err();
        assert!(e.to_string().contains("3 planes"), "{e}");
        let luma_only = PsnrOptions {
            enable_chroma: false,
            ..opts
        };
        let f = score_psnr(&r[..1], &r[..1], Chroma::C420, &luma_only).unwrap();
        assert_eq!(f.outputs.names().collect::<Vec<_>>(), ["psnr_y"]);
        let d8 = plane(9, 7, 8, |x, _| x);
        assert!(matches!(
            plane_sse(&y.view(), &d8.view()),
            Err(Error::GeometryMismatch(_))
        ));
    }
}
