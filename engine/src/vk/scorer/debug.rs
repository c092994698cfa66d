//! The copy back of one device buffer (a fallback frame's terms, the
//! pass-by-pass read-backs for tests).

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::{not_mapped, VkScorer};
use crate::vk::commands;
use crate::Result;

impl VkScorer {
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
