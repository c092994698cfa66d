//! `.h264`/`.264` inputs (H.264 Annex B): decoded on the GPU by Vulkan Video
//! and scored there (`vkssim::video`) when vkssim is built with the
//! `vulkan-video` feature and a device decodes H.264; otherwise an error that
//! says what is missing. Both inputs must then be Annex B streams; the flags
//! that only make sense for decoded frames (raw geometry, skips, subsampling,
//! the CPU backend) are refused.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use vkssim::SsimOptions;

use crate::args::{Backend, ScoreArgs};
use crate::chrome_trace::TraceGuard;

/// Whether `path` names an H.264 Annex B stream (`.h264` or `.264`).
pub fn is_h264(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("h264") || e.eq_ignore_ascii_case("264"))
}

/// `vkssim score` on H.264 Annex B inputs.
pub fn run(
    args: &ScoreArgs,
    options: SsimOptions,
    trace: &mut Option<TraceGuard>,
) -> Result<ExitCode> {
    for (which, path) in [
        ("reference", args.reference.as_path()),
        ("distorted", args.dist()),
    ] {
        if !is_h264(path) {
            bail!(
                "the {which} input {} is not an H.264 Annex B stream (.h264/.264) but the other \
                 input is; give both as .h264, or decode both (ffmpeg -i IN -f yuv4mpegpipe OUT.y4m)",
                path.display()
            );
        }
    }
    let refused = [
        (args.width.is_some(), "-w/--width"),
        (args.height.is_some(), "-h/--height"),
        (args.pixel_format.is_some(), "-p/--pixel_format"),
        (args.bitdepth.is_some(), "-b/--bitdepth"),
        (args.frame_skip_ref != 0, "--frame_skip_ref"),
        (args.frame_skip_dist != 0, "--frame_skip_dist"),
        (args.subsample > 1, "--subsample"),
        (args.engine.backend == Backend::Cpu, "--backend cpu"),
        (args.engine.device.is_some(), "--device"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!(
            "{flag} does not apply to H.264 inputs, which are decoded and scored on the GPU's \
             Vulkan Video decoder (the first device that has one); decode them first \
             (ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ...) to use it"
        );
    }
    super::files::preflight(args, trace)?;
    decode_and_score(args, options)
}

#[cfg(feature = "vulkan-video")]
fn decode_and_score(args: &ScoreArgs, options: SsimOptions) -> Result<ExitCode> {
    use anyhow::{anyhow, Context};
    use vkssim::video::{StreamPair, VideoDevice};
    if args.engine.env.validation {
        // gpu-video creates the Vulkan instance: the loader adds the layer.
        std::env::set_var("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation");
    }
    let video = VideoDevice::open(&crate::backend::vk_options(&args.engine, None))
        .context("starting Vulkan Video H.264 decoding")?;
    tracing::info!(
        device = video.name(),
        "decoding H.264 and scoring on the GPU"
    );
    let mut pair = StreamPair::new(&args.reference, args.dist());
    pair.ssim = options;
    pair.max_frames = args.frame_cnt;
    pair.allow_length_mismatch = args.allow_length_mismatch;
    let mut frames = Vec::new();
    let mut size = (0, 0);
    let result = video.score_streams(&pair, |f| {
        size = (f.width, f.height);
        frames.push((f.index, f.score));
        Ok(())
    });
    let (fps, error) = match result {
        Ok(run) => (
            run.frames as f64 / run.elapsed.as_secs_f64().max(1e-9),
            None,
        ),
        Err(e) => (0.0, Some(anyhow!(e))),
    };
    let report = super::report(args, &options, size, fps, &frames);
    super::write_scores(args.output.as_deref(), args.format(), None, report, error)
}

#[cfg(not(feature = "vulkan-video"))]
fn decode_and_score(args: &ScoreArgs, _options: SsimOptions) -> Result<ExitCode> {
    bail!(
        "{}: H.264 Annex B input needs vkssim built with the vulkan-video feature \
         (cargo build --release -p vkssim-cli --features vulkan-video) and a GPU with Vulkan \
         Video H.264 decode (see `vkssim devices`); or decode it first: \
         ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ...",
        args.reference.display()
    )
}
