//! The frames of the `image_frames` example's host: images and staging
//! buffers filled on the host's image queue family, released to the engine's
//! family, and taken back after vkssim's signal ([`Images::frame`]), with the
//! semaphores that chain them.

use ash::vk;
use vkssim::api::SemaphoreRef;
use vkssim::LumaFrame;

use super::host::{multi_planar, usage, Host};

/// One pair's host objects: two images (or an image and an `EXCLUSIVE`
/// buffer holding the distorted plane) and the command buffers that fill them
/// and take them back.
pub struct Frame {
    pub images: Vec<vk::Image>,
    pub buffer: Option<vk::Buffer>,
    /// Row pitch of `buffer`.
    pub row_pitch: u64,
    layout: vk::ImageLayout,
    pub fill: vk::CommandBuffer,
    pub back: vk::CommandBuffer,
}

/// Everything the frames allocate, destroyed together.
pub struct Images {
    pool: vk::CommandPool,
    images: Vec<vk::Image>,
    buffers: Vec<vk::Buffer>,
    memory: Vec<vk::DeviceMemory>,
    binary: Vec<vk::Semaphore>,
    timeline: Option<(vk::Semaphore, u64)>,
    count: usize,
}

impl Images {
    /// An empty set with a command pool on the image family.
    ///
    /// # Safety
    /// `host` must be alive.
    pub unsafe fn new(host: &Host) -> Result<Self, vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let pool = host.device.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(host.image_family),
                None,
            )?;
            host.name(pool, "image_frames pool");
            Ok(Self {
                pool,
                images: Vec::new(),
                buffers: Vec::new(),
                memory: Vec::new(),
                binary: Vec::new(),
                timeline: None,
                count: 0,
            })
        }
    }

    /// A semaphore pair: the fill signals the first, vkssim waits on it and
    /// signals the second, the return waits on that.
    ///
    /// # Safety
    /// `host` must be the one these objects were made on.
    pub unsafe fn semaphores(
        &mut self,
        host: &Host,
        timeline: bool,
    ) -> Result<(SemaphoreRef, SemaphoreRef), vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            if timeline {
                let (sem, value) = match self.timeline {
                    Some(t) => t,
                    None => {
                        let mut ty = vk::SemaphoreTypeCreateInfo::default()
                            .semaphore_type(vk::SemaphoreType::TIMELINE);
                        let info = vk::SemaphoreCreateInfo::default().push_next(&mut ty);
                        let s = host.device.create_semaphore(&info, None)?;
                        host.name(s, "image_frames timeline");
                        (s, 0)
                    }
                };
                self.timeline = Some((sem, value + 2));
                let at = |v| SemaphoreRef::timeline(sem, v);
                return Ok((at(value + 1), at(value + 2)));
            }
            let mut one = |what: &str| -> Result<SemaphoreRef, vk::Result> {
                let s = host
                    .device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?;
                host.name(s, &format!("image_frames {what} {}", self.binary.len()));
                self.binary.push(s);
                Ok(SemaphoreRef::binary(s))
            };
            Ok((one("filled")?, one("scored")?))
        }
    }

    /// Device memory for `req` with `props` (the caller binds it).
    ///
    /// # Safety
    /// `host` must be the one these objects were made on.
    unsafe fn memory(
        &mut self,
        host: &Host,
        req: vk::MemoryRequirements,
        props: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory, vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let mem = host
                .instance
                .get_physical_device_memory_properties(host.physical_device);
            let index = (0..mem.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && mem.memory_types[i as usize].property_flags.contains(props)
                })
                .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
            let m = host.device.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(index),
                None,
            )?;
            self.memory.push(m);
            Ok(m)
        }
    }

    /// A buffer of `size` bytes in memory with `props`, named `name`.
    ///
    /// # Safety
    /// `host` must be the one these objects were made on.
    unsafe fn buffer(
        &mut self,
        host: &Host,
        size: u64,
        usage: vk::BufferUsageFlags,
        props: vk::MemoryPropertyFlags,
        name: &str,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(usage)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            let b = host.device.create_buffer(&info, None)?;
            self.buffers.push(b);
            host.name(b, name);
            let m = self.memory(host, host.device.get_buffer_memory_requirements(b), props)?;
            host.device.bind_buffer_memory(b, m, 0)?;
            Ok((b, m))
        }
    }

    /// Two images of `format` (one wider and taller than the planes) in
    /// `layout`, plane 0 holding `planes` (`<< shift`, junk in the padding
    /// bits), filled on the image family and released to the engine's; with
    /// `exclusive`, the distorted plane goes into an `EXCLUSIVE` buffer
    /// instead. The command buffers are recorded, not submitted.
    ///
    /// # Safety
    /// `host` must be the one these objects were made on; both planes must have
    /// one size and bit depth.
    pub unsafe fn frame(
        &mut self,
        host: &Host,
        (format, shift, sampled): (vk::Format, u32, bool),
        (layout, final_layout): (vk::ImageLayout, vk::ImageLayout),
        planes: [&LumaFrame; 2],
        exclusive: bool,
    ) -> Result<Frame, vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let d = &host.device;
            let k = self.count;
            self.count += 1;
            let (w, h) = (planes[0].width, planes[0].height);
            let (iw, ih) = ((w + 1) & !1, (h + 1) & !1);
            let bps = if planes[0].bit_depth > 8 { 2 } else { 1 };
            let half = (iw * ih * bps) as u64;
            let (staging, staging_mem) = self.buffer(
                host,
                2 * half,
                vk::BufferUsageFlags::TRANSFER_SRC,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
                &format!("image_frames staging {k}"),
            )?;
            let ptr = d.map_memory(staging_mem, 0, 2 * half, vk::MemoryMapFlags::empty())?;
            let bytes = std::slice::from_raw_parts_mut(ptr as *mut u8, 2 * half as usize);
            let mut junk = 0x2468_ACE1u32 ^ k as u32;
            for (p, plane) in planes.iter().enumerate() {
                for y in 0..ih {
                    for x in 0..iw {
                        junk ^= junk << 13;
                        junk ^= junk >> 17;
                        junk ^= junk << 5;
                        let v = if x < w && y < h {
                            let i = (y * w + x) as usize;
                            let v = if bps == 2 {
                                u16::from_le_bytes([plane.bytes[2 * i], plane.bytes[2 * i + 1]])
                                    as u32
                            } else {
                                plane.bytes[i] as u32
                            };
                            (v << shift) | (junk & ((1 << shift) - 1))
                        } else {
                            junk
                        };
                        let at = p * half as usize + ((y * iw + x) * bps) as usize;
                        bytes[at..at + bps as usize]
                            .copy_from_slice(&v.to_le_bytes()[..bps as usize]);
                    }
                }
            }
            d.unmap_memory(staging_mem);

            let mut images = Vec::new();
            let n_images = if exclusive { 1 } else { 2 };
            for p in 0..n_images {
                let info = vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(format)
                    .extent(vk::Extent3D {
                        width: iw,
                        height: ih,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(usage(sampled))
                    .sharing_mode(vk::SharingMode::EXCLUSIVE)
                    .initial_layout(vk::ImageLayout::UNDEFINED);
                let image = d.create_image(&info, None)?;
                self.images.push(image);
                host.name(
                    image,
                    &format!("image_frames frame {k} image {p} ({format:?})"),
                );
                let m = self.memory(
                    host,
                    d.get_image_memory_requirements(image),
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )?;
                d.bind_image_memory(image, m, 0)?;
                images.push(image);
            }
            let buffer = if exclusive {
                let usage = vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST
                    | vk::BufferUsageFlags::STORAGE_BUFFER;
                let name = format!("image_frames frame {k} exclusive buffer");
                Some(
                    self.buffer(
                        host,
                        half,
                        usage,
                        vk::MemoryPropertyFlags::DEVICE_LOCAL,
                        &name,
                    )?
                    .0,
                )
            } else {
                None
            };
            let cmds = d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(2),
            )?;
            host.name(cmds[0], &format!("image_frames frame {k} fill"));
            host.name(cmds[1], &format!("image_frames frame {k} return"));
            let frame = Frame {
                images,
                buffer,
                row_pitch: (iw * bps) as u64,
                layout,
                fill: cmds[0],
                back: cmds[1],
            };
            let aspect = if multi_planar(format) {
                vk::ImageAspectFlags::PLANE_0
            } else {
                vk::ImageAspectFlags::COLOR
            };
            record_fill(host, &frame, staging, (iw, ih, half), aspect)?;
            record_return(host, &frame, final_layout)?;
            Ok(frame)
        }
    }

    /// Destroys everything (the device must be idle).
    ///
    /// # Safety
    /// The device must be idle.
    pub unsafe fn destroy(self, host: &Host) {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let d = &host.device;
            for i in self.images {
                d.destroy_image(i, None);
            }
            for b in self.buffers {
                d.destroy_buffer(b, None);
            }
            for m in self.memory {
                d.free_memory(m, None);
            }
            for s in self.binary {
                d.destroy_semaphore(s, None);
            }
            if let Some((s, _)) = self.timeline {
                d.destroy_semaphore(s, None);
            }
            d.destroy_command_pool(self.pool, None);
        }
    }
}

/// One image barrier over the whole image (every plane).
///
/// # Safety
/// `cmd` must be recording on the host's device and `image` be one of its
/// images.
#[allow(clippy::too_many_arguments)]
unsafe fn image_barrier(
    host: &Host,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
    (src_family, dst_family): (u32, u32),
    (src_stage, src_access): (vk::PipelineStageFlags, vk::AccessFlags),
    (dst_stage, dst_access): (vk::PipelineStageFlags, vk::AccessFlags),
) {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let b = vk::ImageMemoryBarrier::default()
            .old_layout(old)
            .new_layout(new)
            .src_queue_family_index(src_family)
            .dst_queue_family_index(dst_family)
            .src_access_mask(src_access)
            .dst_access_mask(dst_access)
            .image(image)
            .subresource_range(
                vk::ImageSubresourceRange::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .level_count(1)
                    .layer_count(1),
            );
        host.device.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[b],
        );
    }
}

/// A buffer barrier over the whole buffer.
///
/// # Safety
/// `cmd` must be recording on the host's device and `buffer` be one of its
/// buffers.
unsafe fn buffer_barrier(
    host: &Host,
    cmd: vk::CommandBuffer,
    buffer: vk::Buffer,
    (src_family, dst_family): (u32, u32),
    (src_stage, src_access): (vk::PipelineStageFlags, vk::AccessFlags),
    (dst_stage, dst_access): (vk::PipelineStageFlags, vk::AccessFlags),
) {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let b = vk::BufferMemoryBarrier::default()
            .src_queue_family_index(src_family)
            .dst_queue_family_index(dst_family)
            .src_access_mask(src_access)
            .dst_access_mask(dst_access)
            .buffer(buffer)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        host.device.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[b],
            &[],
        );
    }
}

const IGNORED: (u32, u32) = (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED);

/// Records `frame.fill`: staging to plane 0 of each image (then to the
/// frame's layout) and to the exclusive buffer, then the release of each to
/// the engine's family when the families differ.
///
/// # Safety
/// `frame`'s command buffers must be in the initial state and its objects, and
/// `staging`, valid objects of the host's device.
unsafe fn record_fill(
    host: &Host,
    frame: &Frame,
    staging: vk::Buffer,
    (iw, ih, half): (u32, u32, u64),
    aspect: vk::ImageAspectFlags,
) -> Result<(), vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let d = &host.device;
        let cmd = frame.fill;
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        let transfer = vk::PipelineStageFlags::TRANSFER;
        let all = vk::PipelineStageFlags::ALL_COMMANDS;
        let write = vk::AccessFlags::TRANSFER_WRITE;
        let any = vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE;
        let none = vk::AccessFlags::empty();
        let release = (host.image_family, host.engine_family);
        for (p, &image) in frame.images.iter().enumerate() {
            let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
            let top = vk::PipelineStageFlags::TOP_OF_PIPE;
            image_barrier(
                host,
                cmd,
                image,
                (vk::ImageLayout::UNDEFINED, dst),
                IGNORED,
                (top, none),
                (transfer, write),
            );
            let region = [vk::BufferImageCopy::default()
                .buffer_offset(p as u64 * half)
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(aspect)
                        .layer_count(1),
                )
                .image_extent(vk::Extent3D {
                    width: iw,
                    height: ih,
                    depth: 1,
                })];
            d.cmd_copy_buffer_to_image(cmd, staging, image, dst, &region);
            let layout = frame.layout;
            image_barrier(
                host,
                cmd,
                image,
                (dst, layout),
                IGNORED,
                (transfer, write),
                (all, any),
            );
            if host.transfers() {
                let bottom = vk::PipelineStageFlags::BOTTOM_OF_PIPE;
                image_barrier(
                    host,
                    cmd,
                    image,
                    (layout, layout),
                    release,
                    (all, vk::AccessFlags::MEMORY_WRITE),
                    (bottom, none),
                );
            }
        }
        if let Some(buffer) = frame.buffer {
            let region = [vk::BufferCopy::default().src_offset(half).size(half)];
            d.cmd_copy_buffer(cmd, staging, buffer, &region);
            if host.transfers() {
                let bottom = vk::PipelineStageFlags::BOTTOM_OF_PIPE;
                buffer_barrier(
                    host,
                    cmd,
                    buffer,
                    release,
                    (transfer, write),
                    (bottom, none),
                );
            } else {
                buffer_barrier(host, cmd, buffer, IGNORED, (transfer, write), (all, any));
            }
        }
        d.end_command_buffer(cmd)
    }
}

/// Records `frame.back`: the acquire of each image (in `final_layout`) and of
/// the buffer from the engine's family, when the families differ.
///
/// # Safety
/// `frame`'s command buffers must be in the initial state and its objects valid
/// objects of the host's device.
unsafe fn record_return(
    host: &Host,
    frame: &Frame,
    final_layout: vk::ImageLayout,
) -> Result<(), vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let d = &host.device;
        let cmd = frame.back;
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        if host.transfers() {
            let acquire = (host.engine_family, host.image_family);
            let top = (
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::AccessFlags::empty(),
            );
            let all = (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
            );
            for &image in &frame.images {
                image_barrier(
                    host,
                    cmd,
                    image,
                    (final_layout, final_layout),
                    acquire,
                    top,
                    all,
                );
            }
            if let Some(buffer) = frame.buffer {
                buffer_barrier(host, cmd, buffer, acquire, top, all);
            }
        }
        d.end_command_buffer(cmd)
    }
}
