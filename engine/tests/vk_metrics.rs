//! The Vulkan passes of `psnr` and `float_ms_ssim` against their exact CPU
//! twins, on lavapipe with validation on (any message fails): pass by pass
//! (psnr's sum of squared errors per plane, every level of the MS-SSIM
//! pyramid bit for bit) and whole frames (every output's fp64 bits), on both
//! upload paths and both arithmetic paths (native fp64 and the software fp64
//! forced by `no_fp64`). Small frames: lavapipe is slow.

mod vk_support;

use vk_support::*;
use vkssim::io::Chroma;
use vkssim::metric::{MetricConfig, MetricOutputs};
use vkssim::testing::cpu::{self, ms_ssim, psnr as cpu_psnr};
use vkssim::testing::VkScorer;
use vkssim::vk::{ArithVariant, UploadPath};
use vkssim::{Component, LumaFrame, LumaView};

/// (upload path, no_fp64) of every configuration checked.
const PATHS: [(UploadPath, bool); 4] = [
    (UploadPath::Direct, false),
    (UploadPath::Staging, false),
    (UploadPath::Direct, true),
    (UploadPath::Staging, true),
];

/// A picture: luma, then (unless mono) Cb and Cr as a file stores them.
struct Picture {
    planes: Vec<LumaFrame>,
}

impl Picture {
    fn new(w: u32, h: u32, depth: u32, chroma: Chroma, seed: u32) -> Self {
        let mut planes = vec![frame(w, h, depth, seed)];
        if chroma != Chroma::Mono {
            let (cw, ch) = chroma.plane_size(w, h);
            planes.push(frame(cw, ch, depth, seed + 100));
            planes.push(frame(cw, ch, depth, seed + 200));
        }
        Picture { planes }
    }

    /// Every sample v replaced by max - v.
    fn inverted(&self) -> Self {
        let planes = self
            .planes
            .iter()
            .map(|p| {
                let mut q = p.clone();
                let max = (1u32 << p.bit_depth) - 1;
                for y in 0..p.height {
                    for x in 0..p.width {
                        let v = max - p.view().sample(x as usize, y as usize);
                        let i = (y * p.width + x) as usize;
                        if p.bit_depth == 8 {
                            q.bytes[i] = v as u8;
                        } else {
                            q.bytes[2 * i..2 * i + 2].copy_from_slice(&(v as u16).to_le_bytes());
                        }
                    }
                }
                q
            })
            .collect();
        Picture { planes }
    }

    fn views(&self) -> Vec<LumaView<'_>> {
        self.planes.iter().map(|p| p.view()).collect()
    }
}

fn scorer(
    size: (u32, u32, u32),
    chroma: Chroma,
    metrics: &[MetricConfig],
    (upload, no_fp64): (UploadPath, bool),
    in_flight: usize,
) -> VkScorer {
    let s = VkScorer::with_metrics(size, chroma, metrics, &vk_opts(upload, no_fp64, in_flight))
        .unwrap_or_else(|e| panic!("creating the scorer: {e}"));
    assert_eq!(
        s.arithmetic() == ArithVariant::SoftF64,
        no_fp64,
        "arithmetic path"
    );
    assert_eq!(s.upload_path(), upload);
    s
}

/// The CPU twins' outputs for `metrics`, in the list's order.
fn cpu_outputs(
    r: &Picture,
    d: &Picture,
    chroma: Chroma,
    metrics: &[MetricConfig],
) -> MetricOutputs {
    let (rv, dv) = (r.views(), d.views());
    let mut out = MetricOutputs::new();
    for m in metrics {
        match m {
            MetricConfig::FloatSsim(o) => {
                let s = cpu::score_frame(&rv[0], &dv[0], o).unwrap();
                let values = [Some(s.float_ssim()), s.l(), s.c(), s.s()];
                for (name, v) in vkssim::metric::ssim::feature_names(o)
                    .into_iter()
                    .zip(values)
                {
                    out.push(name, v.unwrap());
                }
            }
            MetricConfig::Psnr(o) => {
                out.extend(&cpu_psnr::score_psnr(&rv, &dv, chroma, o).unwrap().outputs);
            }
            MetricConfig::FloatMsSsim(o) => {
                out.extend(&ms_ssim::score_ms_ssim(&rv[0], &dv[0], o).unwrap());
            }
            other => panic!("a metric this test does not know: {other}"),
        }
    }
    out
}

/// The same names in the same order, each value's fp64 bits equal.
fn assert_outputs_equal(label: &str, gpu: &MetricOutputs, cpu: &MetricOutputs) {
    let g: Vec<(&str, u64)> = gpu.iter().map(|(n, v)| (n, v.to_bits())).collect();
    let c: Vec<(&str, u64)> = cpu.iter().map(|(n, v)| (n, v.to_bits())).collect();
    assert_eq!(g, c, "{label}: GPU {gpu:?}\nCPU {cpu:?}");
}

fn metrics(specs: &[&str]) -> Vec<MetricConfig> {
    vkssim::metric::config::parse_list(specs).unwrap()
}

/// psnr's per-plane sums and outputs against the CPU twin.
fn check_psnr(
    w: u32,
    h: u32,
    depth: u32,
    chroma: Chroma,
    specs: &[&str],
    path: (UploadPath, bool),
) {
    let list = metrics(specs);
    let label = format!("{w}x{h} {depth}-bit {chroma} {specs:?} {path:?}");
    let mut s = scorer((w, h, depth), chroma, &list, path, 2);
    let r = Picture::new(w, h, depth, chroma, 1);
    for d in [Picture::new(w, h, depth, chroma, 2), r.inverted()] {
        let gpu = s.debug_metrics(&r.views(), &d.views()).expect("GPU frame");
        let want = cpu_outputs(&r, &d, chroma, &list);
        assert_outputs_equal(&label, &gpu.outputs, &want);
        let MetricConfig::Psnr(o) = list.iter().find(|m| m.feature() == "psnr").unwrap() else {
            unreachable!()
        };
        let cpu_sse = cpu_psnr::score_psnr(&r.views(), &d.views(), chroma, o)
            .unwrap()
            .sse;
        assert_eq!(
            gpu.psnr_sse,
            Some(cpu_sse),
            "{label}: sums of squared errors"
        );
        assert!(cpu_sse[0] > 0, "{label}: the pictures differ");
    }
    // Identical pictures: every plane at psnr's ceiling.
    let same = s.score_picture(&r.views(), &r.views()).unwrap();
    assert_outputs_equal(&label, &same, &cpu_outputs(&r, &r, chroma, &list));
    assert_no_validation_messages(&s);
}

const PSNR_CASES: [(u32, u32, u32, Chroma); 6] = [
    (33, 17, 8, Chroma::C420),
    (31, 23, 10, Chroma::C422),
    (29, 19, 12, Chroma::C444),
    (27, 25, 16, Chroma::C420),
    (300, 13, 8, Chroma::C444),
    (24, 22, 10, Chroma::Mono),
];

#[test]
fn psnr_matches_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth, chroma) in PSNR_CASES {
            check_psnr(w, h, depth, chroma, &["psnr=enable_mse=true"], path);
        }
    }
}

#[test]
fn psnr_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let path = (UploadPath::Direct, false);
    for specs in [
        &["psnr=min_sse=0.5:reduced_hbd_peak=true"][..],
        &["psnr=enable_chroma=false:enable_mse=true"][..],
        &["psnr=enable_apsnr=true", "float_ssim=enable_lcs=true"][..],
    ] {
        check_psnr(35, 21, 10, Chroma::C420, specs, path);
        check_psnr(35, 21, 8, Chroma::C422, specs, path);
    }
}

/// Two fp32 planes of the same size, bit for bit.
fn assert_same_plane(what: &str, gpu: &cpu::Plane, cpu: &cpu::Plane) {
    assert_eq!(
        (gpu.width, gpu.height),
        (cpu.width, cpu.height),
        "{what}: size"
    );
    let bits = |p: &cpu::Plane| p.data.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
    if let Some(i) = first_difference(&bits(gpu), &bits(cpu)) {
        panic!(
            "{what}: GPU and CPU differ at ({}, {}) (GPU {:?}, CPU {:?})",
            i % cpu.width as usize,
            i / cpu.width as usize,
            gpu.data.get(i),
            cpu.data.get(i)
        );
    }
}

/// float_ms_ssim's pyramid, level by level, and its outputs against the CPU
/// twin, for different and for inverted content; identical content scores 1.
fn check_ms_ssim(w: u32, h: u32, depth: u32, specs: &[&str], path: (UploadPath, bool)) {
    let list = metrics(specs);
    let label = format!("{w}x{h} {depth}-bit {specs:?} {path:?}");
    let mut s = scorer((w, h, depth), Chroma::C420, &list, path, 2);
    let r = Picture::new(w, h, depth, Chroma::Mono, 1);
    let pairs = [
        (Picture::new(w, h, depth, Chroma::Mono, 2), false),
        (r.inverted(), true),
    ];
    for (d, inverted) in pairs {
        let gpu = s.debug_metrics(&r.views(), &d.views()).expect("GPU frame");
        let cr = ms_ssim::pyramid(cpu::luma_to_plane(&r.views()[0]).unwrap()).unwrap();
        let cd = ms_ssim::pyramid(cpu::luma_to_plane(&d.views()[0]).unwrap()).unwrap();
        assert_eq!(gpu.pyramid.len(), 5, "{label}");
        for (k, ((gr, gd), (pr, pd))) in gpu.pyramid.iter().zip(cr.iter().zip(&cd)).enumerate() {
            assert_same_plane(&format!("{label}: scale {k} reference"), gr, pr);
            assert_same_plane(&format!("{label}: scale {k} distorted"), gd, pd);
        }
        let want = cpu_outputs(&r, &d, Chroma::C420, &list);
        assert_outputs_equal(&label, &gpu.outputs, &want);
        // Inverted content: a negative structure mean, so libvmaf's NaN.
        if inverted && !specs[0].contains("enable_db") {
            assert!(
                gpu.outputs.get("float_ms_ssim").unwrap().is_nan(),
                "{label}"
            );
        }
    }
    let same = s.score_picture(&r.views(), &r.views()).unwrap();
    assert_outputs_equal(&label, &same, &cpu_outputs(&r, &r, Chroma::C420, &list));
    if !specs[0].contains("enable_db") {
        assert_eq!(same.get("float_ms_ssim"), Some(1.0), "{label}");
    }
    assert_no_validation_messages(&s);
}

#[test]
fn ms_ssim_matches_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        check_ms_ssim(176, 176, 8, &["float_ms_ssim=enable_lcs=true"], path);
        check_ms_ssim(181, 177, 10, &["float_ms_ssim=enable_lcs=true"], path);
    }
}

/// The host's raster-order sums of each scale's terms (forced) give the
/// same outputs as the device's fixed-point sums settle.
#[test]
fn ms_ssim_host_sums_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let list = metrics(&["float_ms_ssim=enable_lcs=true", "psnr"]);
    let (w, h, depth) = (183, 176, 8);
    let opts = vk_opts(UploadPath::Direct, false, 1).with_force_host_sum(true);
    let mut s = VkScorer::with_metrics((w, h, depth), Chroma::C420, &list, &opts).unwrap();
    let r = Picture::new(w, h, depth, Chroma::C420, 3);
    for d in [Picture::new(w, h, depth, Chroma::C420, 4), r.inverted()] {
        let got = s.score_picture(&r.views(), &d.views()).unwrap();
        assert_outputs_equal("host sums", &got, &cpu_outputs(&r, &d, Chroma::C420, &list));
    }
    assert!(s.stats().host_sum_fallbacks >= 2);
    assert_no_validation_messages(&s);
}

#[test]
fn ms_ssim_depths_and_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let path = (UploadPath::Direct, false);
    check_ms_ssim(190, 179, 16, &["float_ms_ssim=enable_lcs=true"], path);
    check_ms_ssim(177, 183, 12, &["float_ms_ssim"], path);
    check_ms_ssim(
        176,
        180,
        8,
        &["float_ms_ssim=enable_db=true:clip_db=true"],
        path,
    );
}

/// All three metrics in one scorer, several frames in flight: each frame's
/// outputs, in submission order, equal the CPU twins'.
#[test]
fn three_metrics_in_one_ring_match_the_cpu_twins() {
    if !gpu_present() {
        return;
    }
    let list = metrics(&[
        "float_ssim=enable_lcs=true",
        "psnr=enable_mse=true",
        "float_ms_ssim=enable_lcs=true",
    ]);
    let (w, h, depth, chroma) = (179, 177, 10, Chroma::C420);
    for path in [(UploadPath::Staging, false), (UploadPath::Direct, true)] {
        let mut s = scorer((w, h, depth), chroma, &list, path, 2);
        let r = Picture::new(w, h, depth, chroma, 7);
        let ds: Vec<Picture> = (0..4)
            .map(|k| Picture::new(w, h, depth, chroma, 10 + k))
            .collect();
        let mut got = Vec::new();
        for d in &ds {
            s.submit_picture(&r.views(), &d.views()).unwrap();
            while let Some(score) = vkssim::testing::FrameScorer::poll_next(&mut s) {
                score.unwrap();
                got.push(s.take_metric_outputs().unwrap());
            }
        }
        while let Some(score) = vkssim::testing::FrameScorer::wait_next(&mut s) {
            score.unwrap();
            got.push(s.take_metric_outputs().unwrap());
        }
        assert_eq!(got.len(), ds.len());
        for (k, (g, d)) in got.iter().zip(&ds).enumerate() {
            let label = format!("frame {k} {path:?}");
            assert_outputs_equal(&label, g, &cpu_outputs(&r, d, chroma, &list));
        }
        assert!(s.take_metric_outputs().is_none());
        // Every stage each metric declares (float_ssim's passes, psnr's,
        // float_ms_ssim's fifteen) ends at exactly one timed step; steps
        // where metrics run side by side join their stages' names.
        let mut ended: Vec<String> = s
            .pass_names()
            .iter()
            .flat_map(|n| n.split(" + ").map(str::to_string))
            .collect();
        ended.sort();
        let mut declared: Vec<String> = vkssim::testing::PASSES
            .iter()
            .map(|p| p.to_string())
            .collect();
        declared.push("psnr".into());
        declared.push("ms_ssim samples".into());
        declared.extend((1..5).map(|k| format!("ms_ssim lowpass {k}")));
        declared.extend(
            (0..5).flat_map(|k| [format!("ms_ssim hfilter {k}"), format!("ms_ssim terms {k}")]),
        );
        declared.sort();
        assert_eq!(ended, declared);
        if let Some(ns) = s.last_pass_ns() {
            let names: Vec<String> = ns.into_iter().map(|(n, _)| n).collect();
            assert_eq!(names, s.pass_names());
        }
        assert_no_validation_messages(&s);
    }
}

#[test]
fn bad_lists_and_pictures_are_refused() {
    if !gpu_present() {
        return;
    }
    let opts = vk_opts(UploadPath::Direct, false, 1);
    let e = VkScorer::with_metrics(
        (175, 200, 8),
        Chroma::C420,
        &metrics(&["float_ms_ssim"]),
        &opts,
    )
    .err()
    .unwrap();
    assert!(
        e.to_string()
            .contains("float_ms_ssim cannot score a 175x200 frame"),
        "{e}"
    );
    let e = VkScorer::with_metrics((64, 64, 8), Chroma::C420, &[], &opts)
        .err()
        .unwrap();
    assert!(e.to_string().contains("no metric"), "{e}");
    let mut s =
        VkScorer::with_metrics((33, 17, 8), Chroma::C420, &metrics(&["psnr"]), &opts).unwrap();
    let r = Picture::new(33, 17, 8, Chroma::C420, 1);
    let e = s
        .score_picture(&r.views()[..1], &r.views()[..1])
        .unwrap_err();
    assert!(e.to_string().contains("3 planes of the reference"), "{e}");
    let wrong = Picture::new(33, 17, 8, Chroma::C444, 1);
    let e = s.score_picture(&wrong.views(), &r.views()).unwrap_err();
    assert!(e.to_string().contains("Cb plane"), "{e}");
    // Still scores after the refusals.
    let ok = s.score_picture(&r.views(), &r.views()).unwrap();
    assert_eq!(ok.get("psnr_y"), Some(60.0));
    assert_no_validation_messages(&s);
}

/// `p`'s planes packed one after the other (luma, Cb, Cr), as a raw YUV
/// file stores a frame: what readers write into an upload slot.
fn whole(p: &Picture) -> LumaFrame {
    let luma = &p.planes[0];
    LumaFrame {
        bytes: p
            .planes
            .iter()
            .flat_map(|q| q.bytes.iter().copied())
            .collect(),
        ..luma.clone()
    }
}

/// Scores whole pictures through the ring ([`vkssim::testing::FrameScorer`]:
/// one copy into the upload slot), in order.
fn score_whole(
    s: &mut VkScorer,
    pairs: &[(LumaFrame, LumaFrame)],
) -> Vec<vkssim::Result<MetricOutputs>> {
    use vkssim::testing::FrameScorer;
    let mut got = Vec::new();
    let mut take = |s: &mut VkScorer, r: vkssim::Result<vkssim::FrameScore>| {
        got.push(r.map(|_| s.take_metric_outputs().expect("outputs")));
    };
    for (r, d) in pairs {
        s.submit(r.clone(), d.clone()).expect("submit");
        while let Some(r) = s.poll_next() {
            take(s, r);
        }
    }
    while let Some(r) = s.wait_next() {
        take(s, r);
    }
    got
}

/// Without float_ssim in the list its passes do not run: psnr scores
/// frames smaller than float_ssim's 11 x 11, whole pictures (luma, Cb, Cr)
/// go into the upload slot in one copy, and every output equals the CPU
/// twin's; the frame's score has no float_ssim.
#[test]
fn psnr_alone_takes_small_frames_and_whole_pictures() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth, chroma) in [
            (7, 5, 8, Chroma::C420),
            (9, 4, 10, Chroma::C422),
            (33, 17, 12, Chroma::C444),
        ] {
            let label = format!("{w}x{h} {depth}-bit {chroma} {path:?}");
            let list = metrics(&["psnr=enable_mse=true"]);
            check_psnr(w, h, depth, chroma, &["psnr=enable_mse=true"], path);
            let mut s = scorer((w, h, depth), chroma, &list, path, 2);
            let r = Picture::new(w, h, depth, chroma, 5);
            let ds: Vec<Picture> = (0..3)
                .map(|k| Picture::new(w, h, depth, chroma, 30 + k))
                .collect();
            let pairs: Vec<_> = ds.iter().map(|d| (whole(&r), whole(d))).collect();
            for (k, (g, d)) in score_whole(&mut s, &pairs).iter().zip(&ds).enumerate() {
                let g = g.as_ref().expect("scored");
                assert_outputs_equal(
                    &format!("{label} frame {k}"),
                    g,
                    &cpu_outputs(&r, d, chroma, &list),
                );
            }
            // A luma plane alone is too short for a scorer that reads chroma.
            let e = vkssim::testing::FrameScorer::submit(
                &mut s,
                r.planes[0].clone(),
                r.planes[0].clone(),
            )
            .unwrap_err();
            assert!(
                e.to_string().contains("luma, Cb and Cr planes"),
                "{label}: {e}"
            );
            assert_no_validation_messages(&s);
        }
    }
}

/// A 10 or 12-bit sample above the bit depth in any plane psnr uploads is
/// found on the device (no reader reads the upload memory back): luma,
/// Cb or Cr, inside the scored region or in a stored column or row that
/// libvmaf's truncated chroma leaves out; the reference picture's first,
/// else the distorted's, by its position within its plane; the next frame
/// scores as before.
#[test]
fn samples_above_the_bit_depth_are_found_in_every_uploaded_plane() {
    use vkssim::{Error, PlaneRole, SampleAt};
    if !gpu_present() {
        return;
    }
    let (w, h, chroma) = (33, 17, Chroma::C420);
    // (picture, plane, x, y) of the bad sample; chroma is stored 17 x 9 and
    // scored 16 x 8.
    let cases = [
        (1, 2, 3, 2),
        (0, 1, 16, 0),
        (1, 1, 0, 8),
        (1, 0, 5, 5),
        (0, 0, 32, 16),
    ];
    for depth in [10, 12] {
        for specs in [
            &["psnr"][..],
            &["float_ssim", "psnr"][..],
            &["psnr", "float_ms_ssim"][..],
        ] {
            if specs.contains(&"float_ms_ssim") && depth == 12 {
                continue;
            }
            let (w, h) = if specs.contains(&"float_ms_ssim") {
                (177, 176)
            } else {
                (w, h)
            };
            let list = metrics(specs);
            for path in [(UploadPath::Direct, false), (UploadPath::Staging, false)] {
                let mut s = scorer((w, h, depth), chroma, &list, path, 2);
                let r = Picture::new(w, h, depth, chroma, 8);
                let d = Picture::new(w, h, depth, chroma, 9);
                for (picture, plane, x, y) in cases {
                    let label = format!(
                        "{depth}-bit {specs:?} {path:?} picture {picture} plane {plane} ({x}, {y})"
                    );
                    let mut bad = [whole(&r), whole(&d)];
                    let (cw, ch) = chroma.plane_size(w, h);
                    let (x, y) = if plane == 0 {
                        (x.min(w - 1), y.min(h - 1))
                    } else {
                        (x.min(cw - 1), y.min(ch - 1))
                    };
                    let at = match plane {
                        0 => y * w + x,
                        p => w * h + (p - 1) * cw * ch + y * cw + x,
                    } as usize;
                    let value = (1u16 << depth) + 7;
                    bad[picture].bytes[2 * at..2 * at + 2].copy_from_slice(&value.to_le_bytes());
                    let [br, bd] = bad;
                    let got = score_whole(&mut s, &[(br, bd), (whole(&r), whole(&d))]);
                    match &got[0] {
                        Err(Error::SampleRange {
                            plane: role,
                            component,
                            at: SampleAt::Device,
                            x: gx,
                            y: gy,
                            value: gv,
                            ..
                        }) => {
                            let want = [PlaneRole::Reference, PlaneRole::Distorted][picture];
                            assert_eq!(
                                (*role, *component, *gx, *gy, *gv),
                                (
                                    Some(want),
                                    Component::at(plane as usize),
                                    x,
                                    y,
                                    value as u32
                                ),
                                "{label}"
                            );
                        }
                        other => panic!("{label}: {other:?}"),
                    }
                    let ok = got[1].as_ref().expect("the next frame scores");
                    assert_outputs_equal(&label, ok, &cpu_outputs(&r, &d, chroma, &list));
                }
                assert_no_validation_messages(&s);
            }
        }
    }
}
