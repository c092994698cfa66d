//! The metrics vkssim computes, each as options, constants, a size check, a
//! per-frame finish from what the engines' passes sum, and libvmaf's output
//! names: [`ssim`] (`float_ssim`, with its decimation factor in [`scale`]),
//! [`psnr`] and [`ms_ssim`] (`float_ms_ssim`). [`config`] names one metric and
//! its options in the `vmaf` command line's syntax; [`outputs`] holds a frame's
//! values by name, in libvmaf's order; [`set`] checks the metrics of one
//! scorer against its frames; [`SideValues`] hold what a metric keeps of a frame
//! for its end-of-run values; [`summary`] pools a run's frames and gives its
//! aggregate values. The engines' rings and pipelines do not
//! depend on which metric runs; `docs/metrics.md` says how the next ones
//! (VMAF's `integer_vif`, `integer_adm`, `integer_motion`, and `cambi`) plug in.

pub mod config;
pub mod extractor;
pub mod models;
pub mod ms_ssim;
pub mod outputs;
pub mod psnr;
pub mod scale;
pub mod set;
mod side;
pub mod ssim;
pub mod summary;

pub use crate::feature::adm::AdmOptions;
pub use crate::feature::motion::{MotionOptions, MotionVersion};
pub use crate::feature::vif::VifOptions;
pub use config::MetricConfig;
pub use extractor::{Extractor, Needs, OutputName};
pub use models::Models;
pub use outputs::MetricOutputs;
pub use set::MetricSet;
pub use side::SideValues;
pub use summary::Summary;
