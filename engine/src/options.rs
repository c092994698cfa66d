//! The `float_ssim` feature options, with libvmaf's names and meanings.

/// Options of libvmaf's `float_ssim` feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SsimOptions {
    /// Decimation factor; 0 picks it from the frame size as libvmaf does (v3.1
    /// semantics: `scale=0` is auto, `scale=N` forces N).
    pub scale: u32,
    /// Also report the luminance, contrast and structure means
    /// (`float_ssim_l`, `float_ssim_c`, `float_ssim_s`).
    pub enable_lcs: bool,
    /// Report `float_ssim` in dB: `-10 * log10(1 - ssim)`.
    pub enable_db: bool,
    /// With `enable_db`, cap the dB figure at the one an error of half a code
    /// value over the whole frame would give.
    pub clip_db: bool,
}
