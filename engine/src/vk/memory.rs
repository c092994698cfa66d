//! Buffers and their memory: one named buffer + gpu-allocator allocation per
//! [`Buffer`], created once per geometry and reused for every frame.

use ash::vk;
use gpu_allocator::vulkan::{AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::context::Gpu;
use super::errors::{alloc_error, vk_error};
use crate::{Error, Result};

/// A buffer with its own allocation.
pub struct Buffer {
    /// The buffer handle.
    pub(crate) raw: vk::Buffer,
    allocation: Option<gpu_allocator::vulkan::Allocation>,
    /// Size in bytes.
    pub(crate) size: u64,
    /// Debug name (buffer and allocation).
    pub(crate) name: String,
}

impl Buffer {
    /// The mapped bytes, if the memory is host-visible.
    pub(crate) fn mapped(&self) -> Option<&[u8]> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_slice())
            .map(|s| &s[..self.size as usize])
    }

    /// The property flags of the memory type the buffer lives in.
    pub(crate) fn memory_properties(&self) -> vk::MemoryPropertyFlags {
        self.allocation
            .as_ref()
            .map(|a| a.memory_properties())
            .unwrap_or_default()
    }

    /// The mapped bytes for writing, if the memory is host-visible.
    pub(crate) fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        let size = self.size as usize;
        self.allocation
            .as_mut()
            .and_then(|a| a.mapped_slice_mut())
            .map(|s| &mut s[..size])
    }
}

/// The bytes a buffer asked for `size` bytes takes ([`Gpu::create_buffer`]):
/// at least 4, a multiple of 4.
pub(crate) fn buffer_bytes(size: u64) -> u64 {
    size.max(4).next_multiple_of(4)
}

impl Gpu {
    /// Creates a buffer of `size` bytes (at least 4) named `name`, with
    /// `usage`, in memory for `location`.
    pub(crate) fn create_buffer(
        &self,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Buffer> {
        let size = buffer_bytes(size);
        let device = &self.device.raw;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: the device is valid and the create info is complete.
        let raw = unsafe { device.create_buffer(&info, None) }
            .map_err(|r| vk_error(r, format!("creating buffer {name}")))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        let allocation = {
            let mut allocator = self
                .allocator
                .lock()
                .map_err(|_| Error::Internal("the memory allocator's lock is poisoned".into()))?;
            allocator.allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
        };
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer is unused and unbound.
                unsafe { device.destroy_buffer(raw, None) };
                return Err(alloc_error(e, name));
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is unbound.
        let bound =
            unsafe { device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) };
        if let Err(r) = bound {
            // SAFETY: unused buffer.
            unsafe { device.destroy_buffer(raw, None) };
            if let Ok(mut a) = self.allocator.lock() {
                let _ = a.free(allocation);
            }
            return Err(vk_error(r, format!("binding memory to buffer {name}")));
        }
        self.device.name(raw, name);
        Ok(Buffer {
            raw,
            allocation: Some(allocation),
            size,
            name: name.to_string(),
        })
    }

    /// Creates a buffer per (name, size, usage, location) of `specs`, as
    /// [`Gpu::create_buffer`]: all of them, or none (those made before a
    /// failure are destroyed) and the first error.
    pub(crate) fn create_buffers(
        &self,
        specs: impl IntoIterator<Item = (String, u64, vk::BufferUsageFlags, MemoryLocation)>,
    ) -> Result<Vec<Buffer>> {
        let mut made = Vec::new();
        for (name, size, usage, location) in specs {
            match self.create_buffer(&name, size, usage, location) {
                Ok(b) => made.push(b),
                Err(e) => {
                    for mut b in made {
                        self.destroy_buffer(&mut b);
                    }
                    return Err(e);
                }
            }
        }
        Ok(made)
    }

    /// Destroys a buffer and frees its memory. The device must no longer use it.
    pub(crate) fn destroy_buffer(&self, buffer: &mut Buffer) {
        if buffer.raw != vk::Buffer::null() {
            // SAFETY: the caller guarantees the device no longer uses the buffer.
            unsafe { self.device.raw.destroy_buffer(buffer.raw, None) };
            buffer.raw = vk::Buffer::null();
        }
        if let Some(a) = buffer.allocation.take() {
            if let Ok(mut allocator) = self.allocator.lock() {
                if let Err(e) = allocator.free(a) {
                    tracing::warn!("freeing {}: {e}", buffer.name);
                }
            }
        }
    }
}
