//! Samples above the bit depth (10 and 12-bit) found on the device by the
//! decimate pass: the frame's result is [`Error::SampleRange`] naming the frame,
//! the plane and the first such sample (raster order, the host check's
//! answer), on both upload paths and both arithmetic paths, at every scale
//! (including samples no decimation window reads); clean frames around it
//! still score like the CPU twin, and the record is reset for the slot's next
//! frame. Validation is on; any message fails.

mod vk_support;

use vk_support::*;
use vkssim::testing::FrameScorer;
use vkssim::vk::UploadPath;
use vkssim::{io, testing::cpu, Component, Error, LumaFrame, PlaneRole, SampleAt, SsimOptions};

/// Positions (x, y) of bad samples in one plane.
type Spots<'a> = &'a [(u32, u32)];

/// Sets the sample at (x, y) of a 16-bit-stored plane to `v`.
fn set(f: &mut LumaFrame, x: u32, y: u32, v: u16) {
    let i = (y * f.width + x) as usize * 2;
    f.bytes[i..i + 2].copy_from_slice(&v.to_le_bytes());
}

fn check(width: u32, height: u32, bit_depth: u32, scale: u32, upload: UploadPath, no_fp64: bool) {
    let opts = SsimOptions {
        scale,
        ..Default::default()
    };
    let mut scorer = scorer_for((width, height, bit_depth), &opts, upload, no_fp64);
    let bad = (1u16 << bit_depth) + 3;
    let (w, h) = (width, height);
    // Per frame: the bad samples of the reference and of the distorted plane.
    let spots: [(Spots, Spots); 7] = [
        (&[], &[]),
        (&[(w - 1, h - 1), (w - 2, h - 1)], &[]),
        (&[], &[(0, 0)]),
        (&[], &[]),
        (&[(w - 1, 3), (5, h - 1)], &[(1, 1)]),
        (&[], &[(w / 2, h / 2), (w - 1, h / 2)]),
        (&[], &[]),
    ];
    let pairs: Vec<(LumaFrame, LumaFrame)> = spots
        .iter()
        .enumerate()
        .map(|(k, (rs, ds))| {
            let mut r = frame(w, h, bit_depth, 10 + k as u32);
            let mut d = frame(w, h, bit_depth, 50 + k as u32);
            for &(x, y) in rs.iter() {
                set(&mut r, x, y, bad);
            }
            for &(x, y) in ds.iter() {
                set(&mut d, x, y, bad + 1);
            }
            (r, d)
        })
        .collect();
    for (r, d) in &pairs {
        scorer.submit(r.clone(), d.clone()).unwrap();
    }
    let label = format!("{w}x{h} {bit_depth}-bit scale {scale} {upload:?} no_fp64 {no_fp64}");
    for (k, (r, d)) in pairs.iter().enumerate() {
        let got = scorer.wait_next().expect("a result per frame");
        let host = [(r, PlaneRole::Reference), (d, PlaneRole::Distorted)]
            .into_iter()
            .find_map(|(f, name)| {
                io::range::first_out_of_range(&f.bytes, bit_depth).map(|hit| (hit, name))
            });
        match (got, host) {
            (Ok(score), None) => {
                let want = cpu::score_frame(&r.view(), &d.view(), &opts).unwrap();
                assert_eq!(
                    score.ssim().to_bits(),
                    want.ssim().to_bits(),
                    "{label}: frame {k}"
                );
            }
            (
                Err(Error::SampleRange {
                    plane,
                    component,
                    at,
                    frame,
                    x,
                    y,
                    value,
                    max,
                    bit_depth: b,
                }),
                Some(((i, v), name)),
            ) => {
                assert_eq!(
                    (plane, component, at),
                    (Some(name), Component::Luma, SampleAt::Device),
                    "{label}: frame {k}"
                );
                assert_eq!(frame, k as u64, "{label}");
                assert_eq!(
                    (x, y),
                    ((i as u32) % w, (i as u32) / w),
                    "{label}: frame {k}"
                );
                assert_eq!((value, max, b), (v as u32, (1 << bit_depth) - 1, bit_depth));
            }
            (got, host) => panic!("{label}: frame {k}: GPU {got:?}, host check {host:?}"),
        }
    }
    assert_no_validation_messages(&scorer);
}

/// Sizes and scales whose decimation windows leave columns or rows unread
/// (even sizes with a remainder), odd sizes, and scale 1 (an even and an odd
/// width: rows end inside an upload word); each on both upload
/// paths, the first also without fp64.
#[test]
fn samples_above_the_bit_depth_are_found_on_the_device() {
    if !gpu_present() {
        return;
    }
    let sizes = [
        (100, 70, 10, 3),
        (97, 61, 12, 2),
        (64, 48, 10, 1),
        (67, 45, 12, 1),
        (90, 95, 12, 4),
        (130, 128, 10, 0),
    ];
    let runs = sizes
        .iter()
        .flat_map(|&g| [(g, UploadPath::Direct), (g, UploadPath::Staging)])
        .map(|(g, upload)| (g, upload, false))
        .chain(std::iter::once((sizes[0], UploadPath::Direct, true)));
    for ((w, h, depth, scale), upload, no_fp64) in runs {
        check(w, h, depth, scale, upload, no_fp64);
    }
}
