//! The exact CPU twin of libvmaf's float_ssim, one module per stage.
