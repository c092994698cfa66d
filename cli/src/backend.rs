//! Picks the scoring engine behind `--backend`: the Vulkan engine
//! ([`vkssim::vk::VkScorer`]), the exact CPU twin ([`vkssim::cpu::CpuScorer`]), or
//! `auto` (the default): Vulkan when a usable device is there, otherwise the CPU
//! with a note on standard error. Both give the same numbers, bit for bit.

use anyhow::{Context, Result};
use vkssim::vk::{UploadPath, VkOptions, VkScorer};
use vkssim::{Error, FrameScorer, SsimOptions};

use crate::args::{Backend, EngineArgs, Upload};

/// A started scorer and a one-line description of it for messages.
pub struct Engine {
    /// The scorer.
    pub scorer: Box<dyn FrameScorer>,
    /// e.g. `cpu (2 threads)` or `vulkan (llvmpipe ..., fp64, direct upload)`.
    pub description: String,
}

/// Starts the scorer `args` asks for, for frames of `width` x `height` at
/// `bit_depth`, with `options`. `quiet` silences the note printed when `auto`
/// falls back to the CPU.
pub fn start(
    args: &EngineArgs,
    options: SsimOptions,
    width: u32,
    height: u32,
    bit_depth: u32,
    quiet: bool,
) -> Result<Engine> {
    // Every backend scores the same geometry; the CPU twin's check says, before
    // any frame is read or any device opened, whether it can be scored at all.
    vkssim::cpu::check_geometry(width, height, bit_depth, &options)
        .with_context(|| format!("cannot score {width}x{height} {bit_depth}-bit frames"))?;
    match args.backend {
        Backend::Cpu => start_cpu(options, args.threads),
        Backend::Vulkan => start_vulkan(args, options, width, height, bit_depth)
            .context("starting the Vulkan backend (--backend cpu scores without a GPU)"),
        Backend::Auto => match start_vulkan(args, options, width, height, bit_depth) {
            Ok(engine) => Ok(engine),
            Err(e) if no_usable_device(&e) => {
                if !quiet {
                    eprintln!("vkssim: no usable Vulkan device ({e}); scoring on the CPU");
                }
                start_cpu(options, args.threads)
            }
            Err(e) => Err(anyhow::Error::new(e)
                .context("starting the Vulkan backend (--backend cpu scores without a GPU)")),
        },
    }
}

/// Errors that mean "this machine has no device vkssim can use", after which
/// `auto` scores on the CPU. Anything else (a failed self-test, a lost device)
/// is reported, not papered over.
fn no_usable_device(e: &Error) -> bool {
    matches!(
        e,
        Error::NoVulkan(_) | Error::NoDevice(_) | Error::MissingFeature { .. }
    )
}

fn start_cpu(options: SsimOptions, threads: usize) -> Result<Engine> {
    let scorer =
        vkssim::cpu::CpuScorer::new(options, threads).context("starting the CPU scorer")?;
    let n = scorer.threads();
    Ok(Engine {
        description: format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" }),
        scorer: Box::new(scorer),
    })
}

fn start_vulkan(
    args: &EngineArgs,
    options: SsimOptions,
    width: u32,
    height: u32,
    bit_depth: u32,
) -> Result<Engine, Error> {
    let vk_opts = VkOptions {
        device_index: args.device,
        upload: match args.upload {
            Upload::Auto => UploadPath::Auto,
            Upload::Direct => UploadPath::Direct,
            Upload::Staging => UploadPath::Staging,
        },
        no_fp64: args.no_fp64,
        frames_in_flight: args.frames_in_flight,
        ..VkOptions::default()
    };
    let scorer = VkScorer::new(width, height, bit_depth, &options, &vk_opts)?;
    let upload = match scorer.upload_path() {
        UploadPath::Direct => "direct upload",
        UploadPath::Staging => "staging upload",
        UploadPath::Auto => "automatic upload",
    };
    let description = format!(
        "vulkan ({}, {} arithmetic, {upload})",
        scorer.device_name(),
        scorer.arithmetic().name(),
    );
    Ok(Engine {
        scorer: Box::new(scorer),
        description,
    })
}

/// `vkssim devices`: every Vulkan device and what vkssim would do on it.
pub fn list_devices() -> Result<()> {
    let devices = vkssim::vk::list_devices().context("listing Vulkan devices")?;
    if devices.is_empty() {
        println!("no Vulkan device found (--backend cpu scores without one)");
    }
    for d in devices {
        println!("{d}");
    }
    Ok(())
}
