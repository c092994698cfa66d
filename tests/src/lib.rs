//! Helpers shared by the cross-crate tests: the libvmaf oracle ([`oracle`]) and
//! libvmaf's stages at any scale ([`stages`]), the ffmpeg clip corpus
//! ([`corpus`]), the generated `psnr` / `float_ms_ssim` corpus
//! ([`metric_clips`]), the `vmaf` CLI at full precision ([`vmaf_cli`]), the bit-exact comparison ([`parity`]), synthetic planes
//! ([`synth`]) and where the tools live ([`paths`]).
//!
//! These helpers serve tests only: on a harness failure (libvmaf returning an
//! error, a malformed generated clip, a missing tool) they panic with a message
//! naming the call, file and frame, which fails the calling test.

pub mod corpus;
pub mod metric_clips;
pub mod oracle;
pub mod parity;
pub mod paths;
pub mod stages;
pub mod synth;
pub mod vmaf_cli;

pub use oracle::{libvmaf_float_ssim, libvmaf_float_ssim_one, LibvmafFrame};
pub use stages::{auto_scale, decimated_size, libvmaf_at_scale, libvmaf_decimate, StageScore};
