//! The pass-by-pass read-back for tests ([`DebugFrame`]): one frame scored
//! synchronously, with every pass's output copied back to the host; and the
//! copy back of one device buffer (also the terms of a fallback frame).

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::metric::float_ssim::FloatSsimGpu;
use super::recorder::build_program;
use super::{not_mapped, VkScorer};
use crate::vk::commands;
use crate::vk::memory::Buffer;
use crate::{Error, FrameScore, LumaFrame, Result};

/// What every pass reads and writes for one frame, copied back for tests
/// ([`VkScorer::debug_frame`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DebugFrame {
    /// Decimated (or converted, at scale 1) reference plane, `sw x sh`.
    pub decimated_ref: Vec<f32>,
    /// Decimated distorted plane.
    pub decimated_dist: Vec<f32>,
    /// Horizontal Gaussian of r, c, r*r, c*c, r*c, each `(sw - 10) x sh`.
    pub hfilter: [Vec<f32>; 5],
    /// mu_r, mu_c, s_rr, s_cc, s_rc, each `(sw - 10) x (sh - 10)`.
    pub vfilter: [Vec<f32>; 5],
    /// Per-pixel ssim terms, raster order.
    pub ssim_terms: Vec<f64>,
    /// Per-pixel l, c and s terms (with `enable_lcs`).
    pub lcs_terms: Option<[Vec<f64>; 3]>,
    /// The frame's score.
    pub score: FrameScore,
}

impl VkScorer {
    /// Scores one pair synchronously and copies back every pass's output, for
    /// pass-by-pass comparison with the CPU twin. Frames already submitted are
    /// finished first (their results stay queued).
    pub fn debug_frame(
        &mut self,
        reference: &LumaFrame,
        distorted: &LumaFrame,
    ) -> Result<DebugFrame> {
        if self.state.filling() > 0 {
            return Err(Error::InvalidOption(
                "debug_frame while upload slots are handed out".into(),
            ));
        }
        while self.state.pending() > 0 {
            self.finish_oldest();
        }
        if !self.ssim_passes {
            return Err(Error::InvalidOption(
                "debug_frame on a scorer without float_ssim".into(),
            ));
        }
        let i = self.free_host_slot()?;
        // The slot's commands with the debug planes written, for this frame
        // only.
        let debug = build_program(&self.gpu_metrics, true)?;
        self.record_with(i, &debug)?;
        let run = self
            .start(i, reference, distorted)
            .and_then(|_| self.wait(i))
            .and_then(|_| self.score(i));
        let restored = self.record(i);
        let score = run?;
        restored?;
        let s = self.sizes;
        let bufs = self.ssim_buffers(i)?;
        let read = |k: usize| self.read_back_with(&bufs[k], false, <[u8]>::to_vec);
        let dec = read(FloatSsimGpu::DEC)?;
        let hf = read(FloatSsimGpu::HFILT)?;
        let vf = read(FloatSsimGpu::VFILT)?;
        let terms = read(FloatSsimGpu::TERMS)?;
        let f32s = |b: &[u8], k: usize, len: u64| -> Vec<f32> {
            let len = len as usize;
            b[k * len * 4..(k + 1) * len * 4]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let f64s = |k: usize| -> Vec<f64> {
            let len = s.valid_len() as usize;
            terms[k * len * 8..(k + 1) * len * 8]
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect()
        };
        Ok(DebugFrame {
            decimated_ref: f32s(&dec, 0, s.dec_len()),
            decimated_dist: f32s(&dec, 1, s.dec_len()),
            hfilter: std::array::from_fn(|k| f32s(&hf, k, s.hfilt_len())),
            vfilter: std::array::from_fn(|k| f32s(&vf, k, s.valid_len())),
            ssim_terms: f64s(0),
            lcs_terms: self.opts.enable_lcs.then(|| [f64s(1), f64s(2), f64s(3)]),
            score,
        })
    }

    /// Slot `i`'s float_ssim buffers (see [`FloatSsimGpu`]); an error
    /// when its passes do not run.
    pub(super) fn ssim_buffers(&self, i: usize) -> Result<&[Buffer]> {
        match self.slots[i].bufs.first() {
            Some(b) if self.ssim_passes => Ok(b),
            _ => Err(Error::Internal(
                "float_ssim's buffers of a scorer without it".into(),
            )),
        }
    }

    /// Copies a slot's device buffer into host-visible memory (waits for the
    /// copy), on the compute queue, after the slot's work, and gives its bytes
    /// to `f` (with `copy`, a copy of them made in one block first).
    pub(super) fn read_back_with<R>(
        &self,
        src: &crate::vk::memory::Buffer,
        copy: bool,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let gpu = &self.gpu;
        let mut dst = gpu.create_buffer(
            &format!("{} read-back", src.name),
            src.size,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let result = (|| -> Result<R> {
            let cmd =
                commands::allocate_command_buffer(gpu, self.compute_pool, "vkssim read-back")?;
            let run = (|| -> Result<()> {
                commands::begin(gpu, cmd)?;
                // SAFETY: `cmd` is recording (begun above) on the compute family; for the submission, it was ended above and is not pending.
                unsafe {
                    commands::barrier(
                        gpu,
                        cmd,
                        (
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_WRITE,
                        ),
                        (
                            vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::TRANSFER_READ,
                        ),
                    )
                };
                let region = [vk::BufferCopy::default().size(src.size)];
                // SAFETY: `cmd` is recording; both buffers hold `src.size` bytes.
                unsafe {
                    gpu.device
                        .raw
                        .cmd_copy_buffer(cmd, src.raw, dst.raw, &region)
                };
                // SAFETY: `cmd` is recording (begun above) on the compute family; for the submission, it was ended above and is not pending.
                unsafe {
                    commands::barrier(
                        gpu,
                        cmd,
                        (
                            vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::TRANSFER_WRITE,
                        ),
                        (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
                    )
                };
                commands::end(gpu, cmd)?;
                // SAFETY: `cmd` is recording (begun above) on the compute family; for the submission, it was ended above and is not pending.
                unsafe {
                    commands::submit_and_wait(
                        gpu,
                        gpu.device.compute_queue,
                        cmd,
                        "reading back a buffer",
                    )
                }
            })();
            // SAFETY: the command buffer finished (or never ran).
            unsafe {
                gpu.device
                    .raw
                    .free_command_buffers(self.compute_pool, &[cmd])
            };
            run?;
            let bytes = dst.mapped().ok_or_else(not_mapped)?;
            if copy {
                let local: Vec<u8> = bytes.to_vec();
                Ok(f(local.as_slice()))
            } else {
                Ok(f(bytes))
            }
        })();
        gpu.destroy_buffer(&mut dst);
        result
    }
}
