//! Picks the scoring engine behind `--backend`: a [`vkssim::api::Scorer`] on
//! the Vulkan engine ([`vkssim::api::Engine`]), on the exact CPU twin
//! ([`vkssim::api::Scorer::cpu`]), or `auto` (the default). Both give the same
//! numbers, bit for bit.
//!
//! `auto` scores on the Vulkan engine, except (with a note on standard error,
//! unless `-q`):
//! - when the device Vulkan would pick is a CPU implementation (lavapipe,
//!   SwiftShader: `VK_PHYSICAL_DEVICE_TYPE_CPU`), on which the CPU twin is
//!   several times faster; `--device N` or `--backend vulkan` still use it;
//! - when Vulkan cannot start ([`vkssim::Error::vulkan_unavailable`]): no
//!   loader, a broken loader or driver, no device, a device lacking a feature,
//!   or out of memory or a failed initialisation at start.
//!
//! The same rule holds for every metric (`float_ssim`, `psnr`,
//! `float_ms_ssim`): each has its passes on the Vulkan engine, and on the
//! H200 the GPU scored psnr and float_ms_ssim 50 to 69 times faster than
//! `vmaf` on 16 threads (BENCHMARKS.md "Several metrics on the H200").
//!
//! Anything else (a failed self-test, a lost device, a missing validation layer,
//! a `--device` index that does not exist) is reported, not papered over.

use anyhow::{Context, Result};
use vkssim::api::{DealtPlanes, MultiScorer, Scorer, ScorerDesc};
use vkssim::metric::{MetricSet, Models, MotionVersion};
use vkssim::vk::{DeviceReport, UploadPath, VkOptions};
use vkssim::Error;

use crate::args::{Backend, DeviceChoice, Upload};
use crate::plan::{BackendPlan, Opt, Spelling};
use crate::stdio;

/// A started scorer (one per device with `--device N,M` or `all`) and a
/// one-line description of it for messages.
pub struct Engine {
    /// The scorer(s), pairs dealt over them in turn.
    pub scorer: MultiScorer,
    /// The Vulkan engines behind `scorer`, in its dealing order (none on the
    /// CPU twin), kept for as long as the run.
    _engines: Vec<vkssim::api::Engine>,
    /// e.g. `cpu (2 threads)` or `vulkan (llvmpipe ..., fp64, direct upload)`.
    pub description: String,
    /// Whether it is the CPU twin.
    pub on_cpu: bool,
}

/// Starts the scorer `args` asks for, for frames of `width` x `height` at
/// `bit_depth`, computing `metrics`; `readers` threads will fill each device's
/// frame slots at once (0: no hint), which sizes the frames in flight unless
/// `--frames-in-flight` does ([`vkssim::api::in_flight`]). `quiet` silences
/// the note printed when `auto` chooses the CPU.
pub fn start(
    args: &BackendPlan,
    metrics: &MetricSet,
    size: (u32, u32, u32),
    readers: usize,
    quiet: bool,
) -> Result<Engine> {
    let models = (&Models::default(), MotionVersion::default());
    start_with_models(args, metrics, models, size, readers, quiet)
}

/// [`start`], the scorer also running the VMAF `models` on each frame's
/// values with `motion`'s version of motion (its results carry their
/// outputs: [`ScorerDesc::with_models`]; `metrics` holds the extractors
/// they read), for a front end that hands out frames as they are scored.
pub fn start_with_models(
    args: &BackendPlan,
    metrics: &MetricSet,
    (models, motion): (&Models, MotionVersion),
    (width, height, bit_depth): (u32, u32, u32),
    readers: usize,
    quiet: bool,
) -> Result<Engine> {
    let note = |line: String| {
        if !quiet {
            stdio::note(line);
        }
    };
    // Luma-only frames (mono) too: psnr then scores luma alone, as libvmaf
    // does for 4:0:0 pictures.
    let desc = ScorerDesc::new(width, height, bit_depth)
        .with_metrics(metrics.configs().to_vec())
        .with_models(models.clone())
        .with_motion_version(motion)
        .with_chroma(metrics.chroma())
        .with_frames_in_flight(args.frames_in_flight)
        .with_reader_threads(readers)
        .with_expected_pairs(args.expected_pairs);
    // Every backend scores the same geometry; this check says, before any
    // frame is read or any device opened, whether it can be scored at all.
    desc.metric_set()
        .with_context(|| format!("cannot score {width}x{height} {bit_depth}-bit frames"))?;
    // The CPU twin keeps its own queue (twice its threads): frames in flight
    // are the Vulkan ring's.
    let start_cpu = |threads| start_cpu(&desc.clone().with_frames_in_flight(0), threads);
    match args.backend {
        // A device with the CPU backend is refused by BackendPlan::resolve.
        Backend::Cpu => start_cpu(args.threads),
        Backend::Vulkan => start_vulkan(args, &desc)
            .map_err(|e| vulkan_error(e, args.device.as_ref(), args.spelling)),
        Backend::Auto if !metrics.not_on_vulkan().is_empty() => {
            let names = metrics.not_on_vulkan();
            let verb = if names.len() == 1 { "has" } else { "have" };
            note(format!(
                "vkssim: {} {verb} no Vulkan passes yet; scoring on the CPU twin",
                names.join(", ")
            ));
            start_cpu(args.threads)
        }
        Backend::Auto => {
            if let Some(name) = cpu_implementation_chosen(args) {
                note(format!(
                    "vkssim: the only Vulkan device is a CPU implementation ({name}); scoring \
                     on the CPU twin, which is faster ({} uses the device)",
                    args.spelling.word(Opt::Backend, "vulkan")
                ));
                return start_cpu(args.threads);
            }
            match start_vulkan(args, &desc) {
                Ok(engine) => Ok(engine),
                Err(e) if e.vulkan_unavailable() => {
                    note(format!(
                        "vkssim: no usable Vulkan ({e}); scoring on the CPU"
                    ));
                    start_cpu(args.threads)
                }
                Err(e) => Err(vulkan_error(e, args.device.as_ref(), args.spelling)),
            }
        }
    }
}

/// With `auto` and no `--device`: the name of the device Vulkan would pick,
/// when it is a CPU implementation. `None` when it is not, or when Vulkan
/// cannot list devices (starting the engine then says why).
fn cpu_implementation_chosen(args: &BackendPlan) -> Option<String> {
    if args.device.is_some() {
        return None;
    }
    let devices = vkssim::vk::list_devices(args.env.validation).ok()?;
    default_is_cpu(&devices)
}

/// The default device's name, when it is a CPU implementation.
fn default_is_cpu(devices: &[DeviceReport]) -> Option<String> {
    devices
        .iter()
        .find(|d| d.default_choice)
        .filter(|d| d.is_cpu())
        .map(|d| d.name.clone())
}

/// The CLI's error for a failed start of the Vulkan engine: the flags that
/// would help (named as `spelling` names them), and for a `--device` that
/// does not exist, how many there are.
fn vulkan_error(e: Error, device: Option<&DeviceChoice>, spelling: Spelling) -> anyhow::Error {
    let cpu = spelling.word(Opt::Backend, "cpu");
    match e {
        Error::OnDevice { device, source } if matches!(*source, Error::NoSuchDevice { .. }) => {
            vulkan_error(*source, None, spelling).context(device)
        }
        Error::NoSuchDevice { index, count } => {
            let there = match count {
                0 => "there is no Vulkan device".to_string(),
                1 => "there is 1 Vulkan device (index 0)".to_string(),
                n => format!("there are {n} Vulkan devices (0 to {})", n - 1),
            };
            anyhow::Error::new(NoSuchDevice(format!(
                "{}: {there}; see `vkssim devices`",
                spelling.number(Opt::Device, index)
            )))
        }
        e @ Error::MissingFeature { .. } if device.is_none() => {
            anyhow::Error::new(e).context(format!(
                "starting the Vulkan backend ({} picks another device; {cpu} scores without a GPU)",
                spelling.number(Opt::Device, "N")
            ))
        }
        e => anyhow::Error::new(e).context(format!(
            "starting the Vulkan backend ({cpu} scores without a GPU)"
        )),
    }
}

/// `--device` names a device that does not exist: the message says which
/// there are (a type of its own, so front ends can tell it apart).
#[derive(Debug)]
pub struct NoSuchDevice(pub String);

impl std::fmt::Display for NoSuchDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoSuchDevice {}

/// The CPU twin, with `threads` workers (0: one per core).
fn start_cpu(desc: &ScorerDesc, threads: usize) -> Result<Engine> {
    let scorer = Scorer::cpu(desc, threads).context("starting the CPU scorer")?;
    let n = scorer.cpu_threads().unwrap_or(1);
    let scorer = MultiScorer::from_scorers(vec![scorer], vec!["the CPU twin".into()])?;
    Ok(Engine {
        description: format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" }),
        scorer,
        _engines: Vec::new(),
        on_cpu: true,
    })
}

/// The engine options `args` (and the environment) ask for, on device
/// `device_index` (`None`: the best).
pub(crate) fn vk_options(args: &BackendPlan, device_index: Option<usize>) -> VkOptions {
    VkOptions::default()
        .with_device_index(device_index)
        .with_upload(match args.upload {
            Upload::Auto => UploadPath::Auto,
            Upload::Direct => UploadPath::Direct,
            Upload::Staging => UploadPath::Staging,
        })
        .with_no_fp64(args.no_fp64)
        .with_frames_in_flight(args.frames_in_flight)
        .with_validation(args.env.validation)
        .with_sum_threads(args.env.sum_threads)
        .with_force_host_sum(args.env.force_host_sum)
        .with_copy_terms(args.env.copy_terms)
        .with_time_each_pass(args.env.time_each_pass)
        .with_pipeline_statistics(args.env.pipeline_statistics)
}

/// The devices `--device` names (`None`: the best one).
pub fn device_indices(args: &BackendPlan) -> Result<Vec<Option<usize>>, Error> {
    Ok(match &args.device {
        None => vec![None],
        Some(DeviceChoice::List(v)) => v.iter().map(|&i| Some(i)).collect(),
        Some(DeviceChoice::All) => vkssim::api::usable_devices(args.env.validation)?
            .into_iter()
            .map(Some)
            .collect(),
    })
}

/// How many devices `--device` names (1 without it); `all` counts the
/// usable ones (1 when they cannot be listed: starting says why).
pub fn device_count(args: &BackendPlan) -> usize {
    device_indices(args).map(|v| v.len()).unwrap_or(1).max(1)
}

/// The devices a run scores on (1 on the CPU backend) and its reader threads:
/// `--read-threads`, or the default for those devices.
pub fn read_threads(args: &BackendPlan) -> (usize, usize) {
    let devices = match args.backend {
        Backend::Cpu => 1,
        _ => device_count(args),
    };
    let threads = match args.read_threads {
        0 => crate::pipeline::default_threads_for(devices),
        n => n,
    };
    (devices, threads)
}

fn start_vulkan(args: &BackendPlan, desc: &ScorerDesc) -> Result<Engine, Error> {
    let indices = device_indices(args)?;
    let several = indices.len() > 1;
    // Each device scores its share of the run's pairs (its ring's hint).
    let desc = &desc.for_engines(indices.len());
    let mut scorers = Vec::new();
    let mut names = Vec::new();
    let mut devices = Vec::new();
    for index in indices {
        let started = vkssim::api::Engine::new(&vk_options(args, index))
            .and_then(|engine| Ok((engine.scorer(desc)?, engine)));
        match (started, index) {
            (Ok((scorer, engine)), Some(i)) if several => {
                names.push(format!("{i} ({})", engine.device_name()));
                scorers.push(scorer);
                devices.push(engine);
            }
            (Ok((scorer, engine)), _) => {
                names.push(engine.device_name().to_string());
                scorers.push(scorer);
                devices.push(engine);
            }
            (Err(e), Some(i)) if several => {
                return Err(Error::OnDevice {
                    device: format!("Vulkan device {i}"),
                    source: Box::new(e),
                })
            }
            (Err(e), _) => return Err(e),
        }
    }
    let first = &scorers[0];
    let upload = match first.upload_path() {
        Some(UploadPath::Direct) => "direct upload",
        Some(UploadPath::Staging) => "staging upload",
        _ => "automatic upload",
    };
    let arithmetic = first.arithmetic().name();
    let description = if several {
        format!(
            "vulkan ({} devices: {}; {arithmetic} arithmetic, {upload})",
            names.len(),
            names.join(", ")
        )
    } else {
        format!("vulkan ({}, {arithmetic} arithmetic, {upload})", names[0])
    };
    Ok(Engine {
        scorer: MultiScorer::from_scorers(scorers, engine_names(&names))?,
        _engines: devices,
        description,
        on_cpu: false,
    })
}

/// The names of `devices` (as the description lists them) for errors on
/// them ([`Error::OnDevice`]: `on Vulkan device 0 (name): ...`).
fn engine_names(devices: &[String]) -> Vec<String> {
    devices
        .iter()
        .map(|d| format!("Vulkan device {d}"))
        .collect()
}

/// One pool of shared reference planes per device of `engine`, dealt as its
/// scorer deals pairs (a ladder's reference, uploaded once per device:
/// [`crate::pipeline::Tee`]); none on the CPU twin, or when a pool cannot be
/// made (the reference is then copied into each pair's slot).
pub fn shared_planes(engine: &Engine) -> Option<DealtPlanes> {
    if engine.on_cpu {
        return None;
    }
    match engine.scorer.shared_planes() {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!("the reference is copied into each pair's slot: {e}");
            None
        }
    }
}

/// `vkssim devices`: every Vulkan device and what vkssim would do on it.
pub fn list_devices(validation: bool) -> Result<()> {
    let devices = vkssim::vk::list_devices(validation).context("listing Vulkan devices")?;
    let mut text = String::new();
    if devices.is_empty() {
        text.push_str("no Vulkan device found (--backend cpu scores without one)\n");
    }
    for d in devices {
        text.push_str(&format!("{d}\n"));
    }
    stdio::print(&text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkssim::api::ScoreQueue;

    fn device(index: usize, device_type: &str, default_choice: bool) -> DeviceReport {
        DeviceReport {
            index,
            name: format!("device {index}"),
            device_type: device_type.into(),
            driver: String::new(),
            api_version: "1.3.0".into(),
            shader_int64: true,
            shader_float64: true,
            memory_model: vkssim::vk::MemoryModel::Unified,
            queue_families: Vec::new(),
            video_decode_h264: String::new(),
            default_choice,
            path: String::new(),
        }
    }

    #[test]
    fn an_error_on_the_cpu_twin_names_no_vulkan_device() {
        use vkssim::api::{HostPlane, Pair};
        let mut engine = start_cpu(&ScorerDesc::new(64, 48, 8), 1).unwrap();
        let (short, whole) = (vec![0u8; 10], vec![0u8; 64 * 48]);
        let e = engine
            .scorer
            .submit(Pair::new(
                HostPlane::u8(&short, 64),
                HostPlane::u8(&whole, 64),
            ))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("on the CPU twin: "), "{e}");
        assert!(!e.contains("Vulkan"), "{e}");
    }

    #[test]
    fn auto_leaves_a_cpu_implementation_for_the_cpu_twin() {
        let lavapipe = [device(0, "CPU", true)];
        assert_eq!(default_is_cpu(&lavapipe).as_deref(), Some("device 0"));
        let gpu_and_lavapipe = [device(0, "CPU", false), device(1, "discrete GPU", true)];
        assert_eq!(default_is_cpu(&gpu_and_lavapipe), None);
        assert_eq!(default_is_cpu(&[]), None);
        // No usable device at all: starting the engine says why.
        assert_eq!(default_is_cpu(&[device(0, "CPU", false)]), None);
    }

    #[test]
    fn a_missing_device_index_names_the_count() {
        let e = |count| {
            let e = Error::NoSuchDevice { index: 99, count };
            vulkan_error(e, None, Spelling::Flags).to_string()
        };
        assert_eq!(
            e(1),
            "--device 99: there is 1 Vulkan device (index 0); see `vkssim devices`"
        );
        assert_eq!(
            e(3),
            "--device 99: there are 3 Vulkan devices (0 to 2); see `vkssim devices`"
        );
        assert_eq!(
            e(0),
            "--device 99: there is no Vulkan device; see `vkssim devices`"
        );
        let e = Error::NoSuchDevice {
            index: 99,
            count: 0,
        };
        assert_eq!(
            vulkan_error(e, None, Spelling::Keywords).to_string(),
            "device=99: there is no Vulkan device; see `vkssim devices`"
        );
    }
}
