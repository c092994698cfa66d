//! Which engine a run scores on, as `--backend`, `--threads`, `--device`,
//! `--upload`, `--no-fp64`, `--frames-in-flight`, `--read-threads` and the
//! `VKSSIM_*` variables ask, checked once: [`BackendPlan`] is what
//! [`crate::backend`] starts. `score` and `bench` both resolve it.

use anyhow::{bail, Result};

use crate::args::{Backend, DeviceChoice, EngineArgs, Upload};
use crate::env_vars::EnvOptions;
use crate::plan::{Opt, Spelling};

/// The scoring engine a run asks for. A device is never named with the CPU
/// backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendPlan {
    /// The engine: `auto`, the CPU twin, or Vulkan.
    pub backend: Backend,
    /// Worker threads of the CPU twin (0: one per core).
    pub threads: usize,
    /// The Vulkan device(s) (`None`: the best one).
    pub device: Option<DeviceChoice>,
    /// The Vulkan upload path.
    pub upload: Upload,
    /// Software fp64 shaders even on a device with shaderFloat64.
    pub no_fp64: bool,
    /// Vulkan frames in flight (0: the engine picks).
    pub frames_in_flight: usize,
    /// Threads reading the inputs (0: picked for the devices).
    pub read_threads: usize,
    /// How many pairs the run will score at most, when the inputs' lengths
    /// or `--frame_cnt` say (a hint for the Vulkan ring's length:
    /// [`vkssim::api::ScorerDesc::expected_pairs`]); `None` until the inputs
    /// are opened.
    pub expected_pairs: Option<u64>,
    /// What the `VKSSIM_*` environment variables ask.
    pub env: EnvOptions,
    /// How its messages name the options.
    pub spelling: Spelling,
}

impl BackendPlan {
    /// The engine `args` ask for; refuses `--device` with `--backend cpu`
    /// (naming them as `spelling` does).
    pub fn resolve(args: &EngineArgs, spelling: Spelling) -> Result<Self> {
        Self {
            backend: args.backend,
            threads: args.threads,
            device: args.device.clone(),
            upload: args.upload,
            no_fp64: args.no_fp64,
            frames_in_flight: args.frames_in_flight,
            read_threads: args.read_threads,
            expected_pairs: None,
            env: args.env,
            spelling,
        }
        .checked()
    }

    /// The same run on the CPU twin (the bench's comparison), checked as
    /// [`Self::resolve`] checks.
    pub fn on_cpu(&self) -> Result<Self> {
        Self {
            backend: Backend::Cpu,
            ..self.clone()
        }
        .checked()
    }

    fn checked(self) -> Result<Self> {
        if self.backend == Backend::Cpu {
            if let Some(device) = &self.device {
                let s = self.spelling;
                bail!(
                    "{} picks a Vulkan device, and {} scores on the CPU twin, which uses none: drop one of them",
                    s.device(device),
                    s.word(Opt::Backend, "cpu")
                );
            }
        }
        Ok(self)
    }
}
