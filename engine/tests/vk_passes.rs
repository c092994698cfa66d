//! The GPU against the CPU twin pass by pass, on lavapipe with validation on:
//! decimated planes, horizontal and vertical Gaussian planes and per-pixel
//! terms must be bit-identical, on both upload paths and both arithmetic paths.

mod vk_support;

use vk_support::*;
use vkssim::testing::cpu::{self, gaussian, Plane};
use vkssim::vk::{ArithVariant, UploadPath};
use vkssim::SsimOptions;

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn assert_same32(what: &str, gpu: &[f32], cpu: &[f32]) {
    if let Some(i) = first_difference(&bits32(gpu), &bits32(cpu)) {
        panic!(
            "{what}: GPU and CPU differ at {i} of {} (GPU {:?}, CPU {:?})",
            cpu.len(),
            gpu.get(i),
            cpu.get(i)
        );
    }
}

fn assert_same64(what: &str, gpu: &[f64], cpu: &[f64]) {
    if let Some(i) = first_difference(&bits64(gpu), &bits64(cpu)) {
        panic!(
            "{what}: GPU and CPU differ at {i} of {} (GPU {:?}, CPU {:?})",
            cpu.len(),
            gpu.get(i),
            cpu.get(i)
        );
    }
}

/// One geometry: every pass of one frame pair, GPU against CPU.
fn check(width: u32, height: u32, bit_depth: u32, scale: u32, upload: UploadPath, no_fp64: bool) {
    let opts = SsimOptions {
        scale,
        enable_lcs: true,
        ..Default::default()
    };
    let mut scorer = scorer_for((width, height, bit_depth), &opts, upload, no_fp64);
    if no_fp64 {
        assert_eq!(scorer.arithmetic(), ArithVariant::SoftF64);
    }
    let r = frame(width, height, bit_depth, 1);
    let d = frame(width, height, bit_depth, 2);
    let gpu = scorer.debug_frame(&r, &d).expect("GPU frame");
    let label = format!(
        "{width}x{height} {bit_depth}-bit scale {scale} {upload:?} {}",
        scorer.arithmetic().name()
    );

    let g = cpu::check_geometry(width, height, bit_depth, &opts).unwrap();
    let cr = cpu::decimate::decimate_luma(&r.view(), g.scale).unwrap();
    let cc = cpu::decimate::decimate_luma(&d.view(), g.scale).unwrap();
    assert_same32(
        &format!("{label}: decimated reference"),
        &gpu.decimated_ref,
        &cr.data,
    );
    assert_same32(
        &format!("{label}: decimated distorted"),
        &gpu.decimated_dist,
        &cc.data,
    );

    let (rr, c2, rc) = gaussian::products(&cr, &cc).unwrap();
    let sources: [&Plane; 5] = [&cr, &cc, &rr, &c2, &rc];
    for (k, src) in sources.iter().enumerate() {
        let h = gaussian::horizontal(src).unwrap();
        assert_same32(
            &format!("{label}: horizontal plane {k}"),
            &gpu.hfilter[k],
            &h.data,
        );
    }
    let f = cpu::gaussian_filter_all(&cr, &cc).unwrap();
    let planes = [&f.mu_r, &f.mu_c, &f.s_rr, &f.s_cc, &f.s_rc];
    for (k, p) in planes.iter().enumerate() {
        assert_same32(
            &format!("{label}: vertical plane {k}"),
            &gpu.vfilter[k],
            &p.data,
        );
    }
    let t = cpu::lcs_terms(&f);
    assert_same64(&format!("{label}: ssim terms"), &gpu.ssim_terms, &t.ssim);
    let lcs = gpu.lcs_terms.as_ref().expect("lcs terms");
    assert_same64(&format!("{label}: l terms"), &lcs[0], &t.l);
    assert_same64(&format!("{label}: c terms"), &lcs[1], &t.c);
    assert_same64(&format!("{label}: s terms"), &lcs[2], &t.s);

    let want = cpu::score_frame(&r.view(), &d.view(), &opts).unwrap();
    assert_eq!(gpu.score, want, "{label}: frame score");
    assert_no_validation_messages(&scorer);
}

const CASES: [(u32, u32, u32, u32); 12] = [
    (130, 90, 8, 4),
    (265, 139, 12, 8),
    (141, 100, 16, 4),
    (90, 66, 16, 2),
    (64, 48, 8, 1),
    (97, 61, 10, 2),
    (80, 80, 16, 3),
    (121, 67, 12, 1),
    (300, 200, 8, 5),
    (257, 131, 8, 7),
    (600, 300, 10, 0),
    (72, 72, 8, 6),
];

#[test]
fn every_pass_matches_the_cpu_twin_direct_upload() {
    if !gpu_present() {
        return;
    }
    for (w, h, depth, scale) in CASES {
        check(w, h, depth, scale, UploadPath::Direct, false);
    }
}

#[test]
fn every_pass_matches_the_cpu_twin_staging_upload() {
    if !gpu_present() {
        return;
    }
    for (w, h, depth, scale) in CASES {
        check(w, h, depth, scale, UploadPath::Staging, false);
    }
}

#[test]
fn every_pass_matches_the_cpu_twin_without_fp64() {
    if !gpu_present() {
        return;
    }
    if !vkssim::testing::soft_f64_available() {
        panic!("the software fp64 shaders are not built (glsl/include/soft_f64.glsl missing)");
    }
    for (w, h, depth, scale) in CASES {
        check(w, h, depth, scale, UploadPath::Direct, true);
    }
}
