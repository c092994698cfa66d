//! Inputs decoded on the GPU (`--decode gpu`, or `.h264`/`.264` in a build
//! without FFmpeg): H.264, as Annex B files or in any container libavformat
//! demuxes, decoded by Vulkan Video and scored there (`vkssim::video`) when
//! vkssim is built with the `vulkan-video` feature and a device decodes
//! H.264; otherwise an error that says what is missing. The flags
//! that only make sense for decoded frames (raw geometry, skips, subsampling,
//! the CPU backend) are refused by the plan ([`crate::plan`]).

use std::process::ExitCode;

use anyhow::Result;

use crate::plan::ScorePlan;

/// `vkssim score` on H.264 Annex B inputs (`plan`'s checks and preflight
/// made: both inputs are H.264 and no flag for decoded frames is given).
#[cfg(feature = "vulkan-video")]
pub fn run(plan: &ScorePlan) -> Result<ExitCode> {
    use anyhow::{anyhow, Context};
    use vkssim::video::{StreamPair, VideoDevice};
    // Each container's video stream must be H.264: said before the device
    // is looked for.
    #[cfg(feature = "ffmpeg")]
    for (role, path) in plan.inputs.named() {
        if !crate::plan::is_h264(path) {
            vkssim::io::ffmpeg::AnnexB::open(path, &plan.inputs.decode)
                .with_context(|| format!("the {role} for GPU decoding"))?;
        }
    }
    let mut pair = StreamPair::new(&plan.inputs.reference, plan.inputs.dist());
    pair.metrics = plan.features.configs().to_vec();
    pair.max_frames = plan.selection.frame_cnt;
    pair.allow_length_mismatch = plan.selection.allow_length_mismatch;
    // A metric GPU-decoded frames cannot give is said before a device is
    // looked for.
    pair.check_metrics().map_err(|e| {
        let flag = plan
            .features
            .chroma_readers()
            .first()
            .map_or(String::new(), |m| {
                format!("--feature {}=enable_chroma=false, or ", m.feature())
            });
        let host = if cfg!(feature = "ffmpeg") {
            "--decode cpu"
        } else {
            "ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ..."
        };
        anyhow!("{e} ({flag}{host})")
    })?;
    if plan.backend.env.validation {
        // gpu-video creates the Vulkan instance: the loader adds the layer.
        std::env::set_var("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation");
    }
    let video = VideoDevice::open(&crate::backend::vk_options(&plan.backend, None))
        .context("starting Vulkan Video H.264 decoding")?;
    tracing::info!(
        device = video.name(),
        "decoding H.264 and scoring on the GPU"
    );
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
    // The frames' size, or (nothing decoded) one every metric takes, for
    // the report's columns.
    let configs = plan.features.configs();
    let metrics = vkssim::metric::MetricSet::new(configs, size.0, size.1, 8, None)
        .or_else(|_| vkssim::metric::MetricSet::new(configs, 1920, 1080, 8, None))?;
    let report = super::report::report(plan, &metrics, size, fps, &frames)?;
    let output = plan.outputs.targets[0].as_deref();
    super::report::write_scores(output, plan.outputs.format, report, error)
}

/// Without the `vulkan-video` feature: an error saying what H.264 input needs.
#[cfg(not(feature = "vulkan-video"))]
pub fn run(plan: &ScorePlan) -> Result<ExitCode> {
    use anyhow::bail;
    bail!(
        "{}: H.264 Annex B input needs vkssim built with the vulkan-video feature \
         (cargo build --release -p vkssim-cli --features vulkan-video) and a GPU with Vulkan \
         Video H.264 decode (see `vkssim devices`); or decode it first: \
         ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ...",
        plan.inputs.reference.display()
    )
}
