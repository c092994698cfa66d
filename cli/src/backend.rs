//! Picks the scoring engine behind `--backend`: the CPU twin now; the Vulkan
//! engine plugs in here (one match arm) once `vkssim::vk` provides its scorer.

use anyhow::{bail, Context, Result};
use vkssim::{FrameScorer, SsimOptions};

use crate::args::Backend;

/// A started scorer and a one-line description of it for messages.
pub struct Engine {
    /// The scorer.
    pub scorer: Box<dyn FrameScorer>,
    /// e.g. `cpu (2 threads)`.
    pub description: String,
}

/// Starts the scorer `backend` names for frames of `width` x `height` at
/// `bit_depth`, with `options`; `threads` sizes the CPU pool (0: one per core).
pub fn start(
    backend: Backend,
    options: SsimOptions,
    threads: usize,
    width: u32,
    height: u32,
    bit_depth: u32,
) -> Result<Engine> {
    // Every backend scores the same geometry; the CPU twin's check says, before
    // any frame is read, whether it can be scored at all.
    vkssim::cpu::check_geometry(width, height, bit_depth, &options)
        .with_context(|| format!("cannot score {width}x{height} {bit_depth}-bit frames"))?;
    match backend {
        Backend::Cpu => {
            let scorer =
                vkssim::cpu::CpuScorer::new(options, threads).context("starting the CPU scorer")?;
            let n = scorer.threads();
            Ok(Engine {
                description: format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" }),
                scorer: Box::new(scorer),
            })
        }
        Backend::Vulkan => {
            bail!("the Vulkan backend is not part of this build yet; use --backend cpu")
        }
    }
}
