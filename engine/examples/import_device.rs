//! A host application's own Vulkan device, imported: this program creates an
//! instance (with the Khronos validation layer when `VKSSIM_VALIDATION=1`) and
//! a device with `shaderInt64` (plus `shaderFloat64` and `timelineSemaphore`
//! where offered), hands them to `Engine::import` with a queue lock, scores a
//! host pair and a pair it wrote on the GPU (chained with a timeline
//! semaphore), and checks both against the CPU twin. It then drops the engine
//! and checks that its device still works (vkssim destroyed nothing of it),
//! and that an import of a device without `shaderInt64` is refused with an
//! error naming it. Any validation message fails the run.
//!
//! Run: `VKSSIM_VALIDATION=1 cargo run -p vkssim --example import_device`

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use vkssim::api::ScoreQueue;
use vkssim::metric::MetricConfig;
use vkssim::SsimOptions;

use ash::vk;
use common::*;
use vkssim::api::{
    extension_names, DevicePlane, EnabledFeatures, Engine, HostPlane, ImportDesc, Pair, QueueLock,
    SampleFormat, ScorerDesc, SemaphoreRef,
};
use vkssim::Error;

/// The host's queue lock (a spin lock, as a C host's lock/unlock pair would
/// be), with counters to show that vkssim used it.
#[derive(Default)]
struct HostQueueLock {
    busy: AtomicBool,
    locks: AtomicUsize,
    unlocks: AtomicUsize,
}

impl QueueLock for HostQueueLock {
    fn lock(&self, _family: u32, _index: u32) {
        while self
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::thread::yield_now();
        }
        self.locks.fetch_add(1, Ordering::SeqCst);
    }
    fn unlock(&self, _family: u32, _index: u32) {
        self.unlocks.fetch_add(1, Ordering::SeqCst);
        self.busy.store(false, Ordering::Release);
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("import_device: {e}");
        std::process::exit(1);
    }
}

struct Host {
    entry: ash::Entry,
    instance: ash::Instance,
    messenger: Option<common::host::Messenger>,
    physical_device: vk::PhysicalDevice,
    family: u32,
    name: String,
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let validation = std::env::var("VKSSIM_VALIDATION").is_ok_and(|v| v == "1");
    // SAFETY: plain Vulkan calls on objects this function creates and destroys.
    unsafe {
        let host = create_instance(validation)?;
        println!(
            "host device: {} (validation {})",
            host.name,
            if validation { "on" } else { "off" }
        );
        refused_without_int64(&host)?;
        let props = host
            .instance
            .get_physical_device_properties(host.physical_device);
        let supported = host
            .instance
            .get_physical_device_features(host.physical_device);
        let timeline = props.api_version >= vk::API_VERSION_1_2;
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_float64(supported.shader_float64 == vk::TRUE);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let mut chain = vk::PhysicalDeviceFeatures2::default().features(features);
        if timeline {
            chain = chain.push_next(&mut v12);
        }
        let device = create_device(&host, &mut chain)?;
        // What the device was created with, read from the same chain.
        let enabled = EnabledFeatures::from_chain(&chain);
        let queue = device.get_device_queue(host.family, 0);

        let lock = Arc::new(HostQueueLock::default());
        let lock_arc: Arc<dyn QueueLock> = lock.clone();
        let mut desc = ImportDesc::new(
            host.entry.clone(),
            host.instance.clone(),
            host.physical_device,
            device.clone(),
            enabled,
        );
        desc.queue_family = host.family;
        desc.queue_lock = Some(lock_arc);
        if host.messenger.is_some() {
            // vkssim names its objects through the host's debug-utils.
            desc.instance_extensions = extension_names(&[ash::ext::debug_utils::NAME]);
        }
        let engine = Engine::import(desc)?;
        if engine.supports_timeline_semaphores() != timeline {
            return Err("the import did not take timelineSemaphore from the chain".into());
        }
        println!(
            "imported: {} (imported = {})",
            engine.device_name(),
            engine.is_imported()
        );

        let (width, height, bit_depth) = (320u32, 240u32, 8u32);
        let ssim = SsimOptions {
            enable_db: true,
            ..SsimOptions::default()
        };
        let desc = ScorerDesc::new(width, height, bit_depth)
            .with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
        let r = host_plane(width, height, bit_depth, |y| row_word(y, 3, bit_depth));
        let d = host_plane(width, height, bit_depth, |y| {
            distorted_word(y, 3, bit_depth)
        });
        let got = engine.score_pair(
            &desc,
            HostPlane::u8(&r.bytes, width as usize),
            HostPlane::u8(&d.bytes, width as usize),
        )?;
        check(
            "imported device, host pair (score_pair)",
            got,
            cpu_score(&r, &d, &ssim),
            &ssim,
        );

        // A pair the host writes on the GPU, chained by a semaphore.
        let mut scorer = engine.scorer(&desc)?;
        let size = width as u64 * height as u64;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let bufs = [
            create_buffer(
                &host.instance,
                host.physical_device,
                &device,
                size,
                usage,
                local,
            )?,
            create_buffer(
                &host.instance,
                host.physical_device,
                &device,
                size,
                usage,
                local,
            )?,
        ];
        let (pool, cmd) = command_buffer(&device, host.family)?;
        device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        record_fill(&device, cmd, bufs[0].buffer, 0, width as u64, height, |y| {
            row_word(y, 5, 8)
        });
        record_fill(&device, cmd, bufs[1].buffer, 0, width as u64, height, |y| {
            distorted_word(y, 5, 8)
        });
        transfer_to_all(&device, cmd);
        device.end_command_buffer(cmd)?;
        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let mut sem_info = vk::SemaphoreCreateInfo::default();
        if timeline {
            sem_info = sem_info.push_next(&mut type_info);
        }
        let sem = device.create_semaphore(&sem_info, None)?;
        let (wait_value, done_value) = if timeline {
            (Some(1), Some(2))
        } else {
            (None, None)
        };
        {
            let cmds = [cmd];
            let sems = [sem];
            let values = [1u64];
            let mut tl =
                vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&values);
            let mut submit = vk::SubmitInfo::default()
                .command_buffers(&cmds)
                .signal_semaphores(&sems);
            if timeline {
                submit = submit.push_next(&mut tl);
            }
            lock.lock(host.family, 0);
            let r = device.queue_submit(queue, &[submit], vk::Fence::null());
            lock.unlock(host.family, 0);
            r?;
        }
        let plane = |b: &RawBuffer| DevicePlane::new(b.buffer, width as u64, SampleFormat::U8);
        let signals: Vec<SemaphoreRef> = if timeline {
            vec![SemaphoreRef::new(sem, done_value)]
        } else {
            Vec::new()
        };
        let (reference, distorted) = (
            engine.import_buffer(plane(&bufs[0]))?,
            engine.import_buffer(plane(&bufs[1]))?,
        );
        let mut pair = Pair::new(&reference, &distorted).wait(SemaphoreRef::new(sem, wait_value));
        for s in signals {
            pair = pair.signal(s);
        }
        scorer.submit(pair)?;
        if timeline {
            // The host can wait for the score on the GPU timeline too.
            let sems = [sem];
            let values = [2u64];
            device.wait_semaphores(
                &vk::SemaphoreWaitInfo::default()
                    .semaphores(&sems)
                    .values(&values),
                10_000_000_000, // 10 s: an error, never a hang
            )?;
        }
        let got = scorer.wait().ok_or("no result")??;
        let want = cpu_score(
            &host_plane(width, height, 8, |y| row_word(y, 5, 8)),
            &host_plane(width, height, 8, |y| distorted_word(y, 5, 8)),
            &ssim,
        );
        check(
            &format!(
                "imported device, GPU-written pair ({} semaphore)",
                if timeline { "timeline" } else { "binary" }
            ),
            got,
            want,
            &ssim,
        );
        drop(scorer);
        drop(engine);
        let (locks, unlocks) = (
            lock.locks.load(Ordering::SeqCst),
            lock.unlocks.load(Ordering::SeqCst),
        );
        println!("host queue lock: taken {locks} times, released {unlocks} times");
        if locks != unlocks || locks < 3 {
            return Err(
                format!("queue lock taken {locks} times and released {unlocks} times").into(),
            );
        }

        // The device must still work after the engine is gone.
        let check_buf = create_buffer(
            &host.instance,
            host.physical_device,
            &device,
            4096,
            vk::BufferUsageFlags::TRANSFER_DST,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        device.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
        device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        device.cmd_fill_buffer(cmd, check_buf.buffer, 0, 4096, 0xC0FF_EE00);
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        );
        device.end_command_buffer(cmd)?;
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let cmds = [cmd];
        device.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            fence,
        )?;
        device.wait_for_fences(&[fence], true, u64::MAX)?;
        let ptr = device.map_memory(check_buf.memory, 0, 4096, vk::MemoryMapFlags::empty())?;
        let words = std::slice::from_raw_parts(ptr as *const u32, 1024);
        let intact = words.iter().all(|&w| w == 0xC0FF_EE00);
        device.unmap_memory(check_buf.memory);
        if !intact {
            return Err("the host's device gave wrong results after the engine was dropped".into());
        }
        println!("host device still works after the engine was dropped");

        device.destroy_fence(fence, None);
        destroy_buffer(&device, &check_buf);
        device.destroy_semaphore(sem, None);
        device.destroy_command_pool(pool, None);
        for b in &bufs {
            destroy_buffer(&device, b);
        }
        device.destroy_device(None);
        if let Some((du, m)) = &host.messenger {
            du.destroy_debug_utils_messenger(*m, None);
        }
        host.instance.destroy_instance(None);
    }
    check_validation(&common::host::messages());
    Ok(())
}

/// The host's instance (Vulkan 1.2 where the loader has it), with validation
/// (synchronization validation too) and a messenger when asked, and the first
/// device with `shaderInt64` and a
/// compute queue.
unsafe fn create_instance(validation: bool) -> Result<Host, Box<dyn std::error::Error>> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let (entry, instance, messenger, _) =
            common::host::instance(c"vkssim import example", validation)?;
        for pd in instance.enumerate_physical_devices()? {
            let features = instance.get_physical_device_features(pd);
            let families = instance.get_physical_device_queue_family_properties(pd);
            let family = families
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE));
            if let (vk::TRUE, Some(family)) = (features.shader_int64, family) {
                let props = instance.get_physical_device_properties(pd);
                let name = props
                    .device_name_as_c_str()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Ok(Host {
                    entry,
                    instance,
                    messenger,
                    physical_device: pd,
                    family: family as u32,
                    name,
                });
            }
        }
        Err("no Vulkan device with shaderInt64 and a compute queue".into())
    }
}

/// A device on the host's physical device with one queue of its family and
/// the features of `chain`.
unsafe fn create_device(
    host: &Host,
    chain: &mut vk::PhysicalDeviceFeatures2<'_>,
) -> Result<ash::Device, vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(host.family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(chain);
        host.instance
            .create_device(host.physical_device, &info, None)
    }
}

/// An import of a device created without `shaderInt64` must be refused with an
/// error that names it.
unsafe fn refused_without_int64(host: &Host) -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let mut chain = vk::PhysicalDeviceFeatures2::default();
        let device = create_device(host, &mut chain)?;
        let mut desc = ImportDesc::new(
            host.entry.clone(),
            host.instance.clone(),
            host.physical_device,
            device.clone(),
            EnabledFeatures::from_chain(&chain),
        );
        desc.queue_family = host.family;
        let result = Engine::import(desc);
        device.destroy_device(None);
        match result {
            Err(e @ Error::MissingFeature { .. }) if e.to_string().contains("shaderInt64") => {
                println!("import without shaderInt64 refused: {e}");
                Ok(())
            }
            Err(e) => Err(format!(
                "import without shaderInt64 failed with an unexpected error: {e}"
            )
            .into()),
            Ok(_) => Err("import without shaderInt64 was accepted".into()),
        }
    }
}
