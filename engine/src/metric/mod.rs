//! The metrics vkssim computes, each as parameters, a per-frame finish and
//! feature names that every engine shares ([`ssim`]: libvmaf's `float_ssim`;
//! [`scale`]: its decimation factor). A second metric (float_ms_ssim, psnr)
//! would be a sibling module; the engines' rings and pipelines do not change.

pub mod scale;
pub mod ssim;
