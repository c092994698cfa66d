//! Bit-exact comparison of vkssim's results with libvmaf's, for any backend: the
//! option sets the corpus is scored under, the equality check (same f64 bits,
//! with a message naming clip, frame, options and metric), and a driver that runs
//! a [`FrameScorer`] over a clip and checks every frame against libvmaf.

use vkssim::testing::FrameScorer;
use vkssim::{FrameScore, LumaFrame, SsimOptions};

use crate::corpus::Clip;
use crate::oracle::{libvmaf_float_ssim, LibvmafFrame};

/// The option sets every corpus clip is scored under, with libvmaf's spelling.
pub fn option_sets() -> [(&'static str, SsimOptions); 5] {
    let o = SsimOptions::default();
    [
        ("default", o),
        (
            "enable_lcs",
            SsimOptions {
                enable_lcs: true,
                ..o
            },
        ),
        (
            "enable_db",
            SsimOptions {
                enable_db: true,
                ..o
            },
        ),
        (
            "enable_db:clip_db",
            SsimOptions {
                enable_db: true,
                clip_db: true,
                ..o
            },
        ),
        (
            "enable_lcs:enable_db:clip_db",
            SsimOptions {
                enable_lcs: true,
                enable_db: true,
                clip_db: true,
                ..o
            },
        ),
    ]
}

/// Panics unless `got` and `want` are the same f64 bits; `what` names the clip,
/// frame, options and metric.
pub fn assert_same(what: &str, got: f64, want: f64) {
    assert!(
        got.to_bits() == want.to_bits(),
        "{what}: vkssim {got:?} ({:#018x}) != libvmaf {want:?} ({:#018x})",
        got.to_bits(),
        want.to_bits()
    );
}

/// Checks one vkssim frame against libvmaf's under `opts`: `float_ssim` (the dB
/// figure with `enable_db`), and `_l`, `_c`, `_s` with `enable_lcs`.
pub fn assert_frame(what: &str, got: &FrameScore, want: &LibvmafFrame, opts: &SsimOptions) {
    assert_same(
        &format!("{what} float_ssim"),
        got.float_ssim(),
        want.float_ssim,
    );
    assert_eq!(got.db().is_some(), opts.enable_db, "{what}: dB presence");
    assert_eq!(
        got.lcs().is_some(),
        opts.enable_lcs,
        "{what}: l/c/s presence"
    );
    if let (Some([l, c, s]), Some(g)) = (want.lcs, got.lcs()) {
        assert_same(&format!("{what} float_ssim_l"), g[0], l);
        assert_same(&format!("{what} float_ssim_c"), g[1], c);
        assert_same(&format!("{what} float_ssim_s"), g[2], s);
    }
}

/// libvmaf's frames for `pairs` under `opts`.
pub fn libvmaf_frames(pairs: &[(LumaFrame, LumaFrame)], opts: &SsimOptions) -> Vec<LibvmafFrame> {
    libvmaf_float_ssim(pairs.iter().map(|(r, d)| (r.view(), d.view())), opts)
}

/// Submits every pair to `scorer` (keeping at most its queue depth in flight),
/// collects the results in order, and checks each against `want` (libvmaf's
/// frames for the same pairs and options). `label` names the backend.
pub fn check_scorer(
    label: &str,
    clip: &Clip,
    opt_name: &str,
    opts: &SsimOptions,
    pairs: &[(LumaFrame, LumaFrame)],
    want: &[LibvmafFrame],
    scorer: &mut dyn FrameScorer,
) {
    assert_eq!(
        pairs.len(),
        want.len(),
        "{}: one libvmaf frame per pair",
        clip.name
    );
    let mut got = Vec::with_capacity(pairs.len());
    let take = |got: &mut Vec<FrameScore>, r: Option<vkssim::Result<FrameScore>>| {
        let i = got.len();
        let r =
            r.unwrap_or_else(|| panic!("{} [{opt_name}] {label}: frame {i} missing", clip.name));
        got.push(r.unwrap_or_else(|e| panic!("{} frame {i} [{opt_name}] {label}: {e}", clip.name)));
    };
    for (r, d) in pairs {
        while scorer.in_flight() >= scorer.queue_depth().max(1) {
            take(&mut got, scorer.wait_next());
        }
        scorer
            .submit(r.clone(), d.clone())
            .unwrap_or_else(|e| panic!("{} [{opt_name}] {label}: submit: {e}", clip.name));
    }
    while got.len() < pairs.len() {
        take(&mut got, scorer.wait_next());
    }
    assert!(
        scorer.wait_next().is_none(),
        "{}: {label} returned extra results",
        clip.name
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_frame(
            &format!("{} frame {i} [{opt_name}] {label}", clip.name),
            g,
            w,
            opts,
        );
    }
}
