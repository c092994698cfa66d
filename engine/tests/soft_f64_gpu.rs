//! `glsl/include/soft_f64.glsl` on a real Vulkan device, against its Rust twin
//! `vkssim::testing::softfloat` (itself tested bit for bit against the CPU's IEEE arithmetic).
//!
//! 1. The GLSL compiles with `glslc` (`-DSOFT_F64`, warnings as errors, with and
//!    without optimisation), and the SPIR-V is integer-only: no fp64 type or
//!    capability, no float arithmetic, conversion or comparison instruction, and no
//!    extended instruction other than `FindUMsb`/`FindSMsb`.
//! 2. `tests/shaders/soft_f64_check.comp` runs every function on about two million
//!    cases on the first Vulkan device with `shaderInt64` (lavapipe in CI), with the
//!    Khronos validation layer on when it is installed (any message fails the test),
//!    and every result must equal the twin's bit for bit (and native IEEE where the
//!    operation has a native counterpart).
//!
//! On a GPU machine without a toolchain (the H200 through the device tool): build
//! here with `cargo test -p vkssim --test soft_f64_gpu --no-run`, compile the
//! shader with the glslc line in `compile` (`-O`), carry both, and run
//! `SOFT_F64_SPV=check.spv ./soft_f64_gpu on_the_gpu --nocapture`.
//!
//! The harness is deliberately tiny and self-contained (raw ash, one host-visible
//! memory type, one dispatch): it tests the arithmetic, not the engine.

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use ash::vk;
use vkssim::testing::softfloat as sf;

/// Operations of `soft_f64_check.comp`. KEEP IN SYNC with its `switch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
enum Op {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    F32FromF64 = 4,
    F64FromF32 = 5,
    F32Div = 6,
    F32Sqrt = 7,
    F64FromU32 = 8,
    F32FromU64Scaled = 9,
    Neg = 10,
    F32Add = 11,
    F32Sub = 12,
    F32Mul = 13,
}

const OPS: [Op; 14] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::F32FromF64,
    Op::F64FromF32,
    Op::F32Div,
    Op::F32Sqrt,
    Op::F64FromU32,
    Op::F32FromU64Scaled,
    Op::Neg,
    Op::F32Add,
    Op::F32Sub,
    Op::F32Mul,
];

/// Cases per operation (one dispatch holds them all: 14 x 160 Ki / 64 groups).
const CASES_PER_OP: usize = 160 * 1024;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("engine/ has a parent")
        .to_path_buf()
}

/// Compiles `tests/shaders/soft_f64_check.comp` with glslc; returns the SPIR-V words.
fn compile(optimise: bool) -> Vec<u32> {
    let root = repo_root();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("soft_f64_check.spv");
    let mut cmd = Command::new("glslc");
    cmd.args([
        "-fshader-stage=comp",
        "--target-env=vulkan1.1",
        "-Werror",
        "-DSOFT_F64",
    ])
    .arg(format!("-I{}", root.join("glsl/include").display()))
    .arg(root.join("engine/tests/shaders/soft_f64_check.comp"))
    .arg("-o")
    .arg(&out);
    if optimise {
        cmd.arg("-O");
    } else {
        cmd.arg("-O0");
    }
    let result = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run glslc ({e}): install the Debian package `glslc`"));
    assert!(
        result.status.success(),
        "glslc failed on soft_f64.glsl:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    read_spirv(&out)
}

/// SPIR-V opcodes that would mean float arithmetic (or float semantics) on the
/// device: conversions, arithmetic, vector/matrix products, comparisons, NaN/inf
/// tests.
fn is_float_opcode(op: u32) -> bool {
    matches!(op, 109..=112 | 115 | 127 | 129 | 131 | 133 | 136 | 140..=148 | 156 | 157 | 180..=191)
}

#[test]
fn soft_f64_glsl_compiles_to_integer_only_spirv() {
    const OP_EXT_INST: u32 = 12;
    const OP_CAPABILITY: u32 = 17;
    const OP_TYPE_FLOAT: u32 = 22;
    const CAPABILITY_FLOAT64: u32 = 10;
    const GLSL_FIND_SMSB: u32 = 74;
    const GLSL_FIND_UMSB: u32 = 75;
    for optimise in [false, true] {
        let words = compile(optimise);
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic number");
        let mut at = 5;
        let mut instructions = 0;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            let op = words[at] & 0xFFFF;
            assert!(
                count > 0 && at + count <= words.len(),
                "malformed SPIR-V at word {at}"
            );
            let operands = &words[at + 1..at + count];
            assert!(
                !is_float_opcode(op),
                "float instruction (opcode {op}) at word {at}"
            );
            if op == OP_CAPABILITY {
                assert_ne!(operands[0], CAPABILITY_FLOAT64, "Float64 capability");
            }
            if op == OP_TYPE_FLOAT {
                assert_eq!(operands[1], 32, "a float type of width {}", operands[1]);
            }
            if op == OP_EXT_INST {
                assert!(
                    [GLSL_FIND_SMSB, GLSL_FIND_UMSB].contains(&operands[3]),
                    "extended instruction {} at word {at}",
                    operands[3]
                );
            }
            instructions += 1;
            at += count;
        }
        assert!(
            instructions > 500,
            "only {instructions} instructions: soft_f64.glsl missing?"
        );
    }
}

/// SplitMix64, a fixed-seed generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The Gaussian taps of float_ssim.
const TAPS: [f32; 11] = [
    0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006, 0.109361, 0.036001,
    0.007599, 0.001028,
];

/// A binary64 drawn from a mix: raw bits (NaN, inf, subnormal included), values
/// like float_ssim's (fp32 products of samples and taps, their squares, the
/// constants), short significands (exact results and ties), extreme exponents.
fn value64(rng: &mut Rng) -> u64 {
    let sample = |rng: &mut Rng| rng.below(65536) as f32 / 256.0;
    match rng.below(7) {
        0 | 1 => rng.next(),
        2 => f64::from(sample(rng) * TAPS[rng.below(11) as usize]).to_bits(),
        3 => {
            let s = sample(rng);
            f64::from(s * s).to_bits()
        }
        4 => [6.5025f64, 58.5225, 29.26125, 0.0, -0.0, 1.0, f64::INFINITY][rng.below(7) as usize]
            .to_bits(),
        5 => {
            let keep = rng.below(53) as u32;
            rng.next() & !((1u64 << (52 - keep)) - 1)
        }
        _ => {
            let e =
                [rng.below(60), 1990 + rng.below(57), 960 + rng.below(130)][rng.below(3) as usize];
            (rng.next() & 0x800F_FFFF_FFFF_FFFF) | (e << 52)
        }
    }
}

/// A second operand related to `a`: close exponent (cancellation, ties), half an
/// ulp away, or independent.
fn partner64(rng: &mut Rng, a: u64) -> u64 {
    match rng.below(4) {
        0 => value64(rng),
        1 => a ^ (rng.next() & 0x800F_FFFF_FFFF_FFFF) ^ (rng.below(3) << 52),
        2 => {
            let e = ((a >> 52) & 0x7FF).saturating_sub(53).max(1);
            (e << 52) | (rng.next() & 0x8000_0000_0000_0000)
        }
        _ => a ^ 0x8000_0000_0000_0000 ^ (rng.next() & 0xFF),
    }
}

fn value32(rng: &mut Rng) -> u64 {
    let x = match rng.below(5) {
        0 => rng.next() as u32,
        1 => (rng.below(65536) as f32 / 256.0 * TAPS[rng.below(11) as usize]).to_bits(),
        2 => (rng.next() as u32) & 0x807F_FFFF, // subnormal
        3 => ((rng.next() as u32) & 0x7FFF_FFFF) | 0x3F80_0000,
        // Exponents within 4 of each other, short significands: cancellation, ties.
        _ => (0x3F80_0000 + ((rng.below(4) as u32) << 23)) | (rng.next() as u32 & 0x807F_FF00),
    };
    u64::from(x)
}

/// The cases of one operation: (a, b).
fn cases(op: Op, rng: &mut Rng) -> Vec<(u64, u64)> {
    (0..CASES_PER_OP)
        .map(|_| match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div => {
                let a = value64(rng);
                (a, partner64(rng, a))
            }
            Op::F32FromF64 | Op::Neg => {
                let a = value64(rng);
                let tie = if rng.below(2) == 0 {
                    0x1000_0000
                } else {
                    rng.next() & 0x1FFF_FFFF
                };
                (
                    if rng.below(2) == 0 {
                        a
                    } else {
                        (a & !0x1FFF_FFFF) | tie
                    },
                    0,
                )
            }
            Op::F64FromF32 | Op::F32Sqrt | Op::F64FromU32 => (value32(rng), 0),
            Op::F32Div | Op::F32Add | Op::F32Sub | Op::F32Mul => (value32(rng), value32(rng)),
            Op::F32FromU64Scaled => {
                let e2 = rng.below(300) as i32 - 220;
                (rng.next() >> rng.below(64), u64::from(e2 as u32))
            }
        })
        .collect()
}

/// The twin's result, encoded as the shader encodes it.
fn twin(op: Op, a: u64, b: u64) -> u64 {
    let fa = f32::from_bits(a as u32);
    let fb = f32::from_bits(b as u32);
    match op {
        Op::Add => sf::f64_add(a, b),
        Op::Sub => sf::f64_sub(a, b),
        Op::Mul => sf::f64_mul(a, b),
        Op::Div => sf::f64_div(a, b),
        Op::F32FromF64 => u64::from(sf::f32_from_f64(a).to_bits()),
        Op::F64FromF32 => sf::f64_from_f32(fa),
        Op::F32Div => u64::from(sf::f32_div(fa, fb).to_bits()),
        Op::F32Sqrt => u64::from(sf::f32_sqrt(fa).to_bits()),
        Op::F64FromU32 => sf::f64_from_u32(a as u32),
        Op::F32FromU64Scaled => u64::from(sf::f32_from_u64_scaled(a, b as u32 as i32).to_bits()),
        Op::Neg => sf::f64_neg(a),
        Op::F32Add => u64::from(sf::f32_add(fa, fb).to_bits()),
        Op::F32Sub => u64::from(sf::f32_sub(fa, fb).to_bits()),
        Op::F32Mul => u64::from(sf::f32_mul(fa, fb).to_bits()),
    }
}

/// The CPU's native IEEE result where one exists: (bits, is NaN).
fn native(op: Op, a: u64, b: u64) -> Option<(u64, bool)> {
    let (da, db) = (f64::from_bits(a), f64::from_bits(b));
    let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    let d = |x: f64| Some((x.to_bits(), x.is_nan()));
    let f = |x: f32| Some((u64::from(x.to_bits()), x.is_nan()));
    match op {
        Op::Add => d(da + db),
        Op::Sub => d(da - db),
        Op::Mul => d(da * db),
        Op::Div => d(da / db),
        Op::F32FromF64 => f(da as f32),
        Op::F64FromF32 => d(f64::from(fa)),
        Op::F32Div => f(fa / fb),
        Op::F32Add => f(fa + fb),
        Op::F32Sub => f(fa - fb),
        Op::F32Mul => f(fa * fb),
        Op::F32Sqrt => f(fa.sqrt()),
        Op::F64FromU32 => d(f64::from(a as u32)),
        Op::F32FromU64Scaled | Op::Neg => None,
    }
}

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes valid callback data for the duration of the call;
    // its message, when present, is a NUL-terminated string.
    let text = unsafe {
        data.as_ref()
            .and_then(|d| d.message_as_c_str())
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if let Ok(mut log) = MESSAGES.lock() {
        log.push(format!("{severity:?}: {text}"));
    }
    vk::FALSE
}

/// Everything the test creates, destroyed in reverse order on drop.
struct Harness {
    _entry: ash::Entry,
    instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    validation: bool,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory_props: vk::PhysicalDeviceMemoryProperties,
    name: String,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    commands: vk::CommandPool,
    fence: vk::Fence,
}

impl Harness {
    /// Opens the first device with shaderInt64, with validation when installed.
    fn new() -> Harness {
        // SAFETY: loading the system Vulkan loader; nothing else is loaded with it.
        let entry = unsafe { ash::Entry::load() }
            .expect("no Vulkan loader: install libvulkan1 and mesa-vulkan-drivers");
        let validation = c"VK_LAYER_KHRONOS_validation";
        // SAFETY: valid entry; plain queries.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
        let has_validation = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == validation));
        let app = vk::ApplicationInfo::default()
            .application_name(c"vkssim soft_f64 test")
            .api_version(vk::API_VERSION_1_1);
        let layer_names = if has_validation {
            vec![validation.as_ptr()]
        } else {
            vec![]
        };
        let ext_names = if has_validation {
            vec![ash::ext::debug_utils::NAME.as_ptr()]
        } else {
            vec![]
        };
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&ext_names);
        // SAFETY: the create info and the names it points to live across the call.
        let instance = unsafe { entry.create_instance(&info, None) }.expect("vkCreateInstance");
        let debug = has_validation.then(|| {
            let loader = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                )
                .pfn_user_callback(Some(on_message));
            // SAFETY: valid instance with VK_EXT_debug_utils enabled.
            let messenger = unsafe { loader.create_debug_utils_messenger(&info, None) }
                .expect("vkCreateDebugUtilsMessengerEXT");
            (loader, messenger)
        });
        // SAFETY: valid instance; plain queries.
        let physical = unsafe { instance.enumerate_physical_devices() }.expect("devices");
        let (pd, family) = physical
            .iter()
            .find_map(|&pd| {
                // SAFETY: pd comes from this instance.
                let features = unsafe { instance.get_physical_device_features(pd) };
                // SAFETY: as above.
                let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
                let family = families
                    .iter()
                    .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))?;
                (features.shader_int64 == vk::TRUE).then_some((pd, family as u32))
            })
            .expect("no Vulkan device with shaderInt64 and a compute queue");
        // SAFETY: pd comes from this instance.
        let props = unsafe { instance.get_physical_device_properties(pd) };
        let name = props
            .device_name_as_c_str()
            .map(CStr::to_string_lossy)
            .unwrap_or_default();
        // SAFETY: as above.
        let memory_props = unsafe { instance.get_physical_device_memory_properties(pd) };
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let features = vk::PhysicalDeviceFeatures::default().shader_int64(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features);
        // SAFETY: pd supports shaderInt64 and the family exists; info outlives the call.
        let device = unsafe { instance.create_device(pd, &info, None) }.expect("vkCreateDevice");
        // SAFETY: one queue of this family was requested.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Harness {
            _entry: entry,
            instance,
            debug,
            validation: has_validation,
            device,
            queue,
            family,
            memory_props,
            name: name.into_owned(),
            buffers: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            module: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::DescriptorPool::null(),
            commands: vk::CommandPool::null(),
            fence: vk::Fence::null(),
        }
    }

    /// A host-visible, coherent storage buffer of `size` bytes; returns its index.
    fn buffer(&mut self, size: u64) -> usize {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { self.device.create_buffer(&info, None) }.expect("vkCreateBuffer");
        // SAFETY: buffer belongs to this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let type_index = (0..self.memory_props.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && self.memory_props.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            })
            .expect("a host-visible coherent memory type");
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        // SAFETY: valid device; the type index comes from this device's properties.
        let memory =
            unsafe { self.device.allocate_memory(&alloc, None) }.expect("vkAllocateMemory");
        // SAFETY: fresh buffer and memory of a compatible type, offset 0.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }.expect("vkBindBufferMemory");
        self.buffers.push((buffer, memory));
        self.buffers.len() - 1
    }

    /// Maps buffer `index` whole, as u64 words, for `f`.
    fn with_words<R>(&self, index: usize, len: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
        let memory = self.buffers[index].1;
        // SAFETY: host-visible memory of at least len * 8 bytes, not mapped elsewhere;
        // the GPU is idle whenever this is called (before submit, after the fence).
        unsafe {
            let ptr = self
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .expect("vkMapMemory");
            let words = std::slice::from_raw_parts_mut(ptr.cast::<u64>(), len);
            let result = f(words);
            self.device.unmap_memory(memory);
            result
        }
    }

    /// Runs `spirv` over `n` cases: binding 0 = buffer `input`, 1 = `output`.
    fn run(&mut self, spirv: &[u32], input: usize, output: usize, n: u32) {
        let d = &self.device;
        let bindings = [0, 1].map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        });
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(4)];
        // SAFETY: (this whole block) every create info lives across its call, every
        // handle comes from this device, and the command buffer is recorded, submitted
        // and waited for before anything it uses is read or destroyed.
        unsafe {
            self.set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .expect("vkCreateDescriptorSetLayout");
            let layouts = [self.set_layout];
            self.pipeline_layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&push),
                    None,
                )
                .expect("vkCreatePipelineLayout");
            self.module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                .expect("vkCreateShaderModule");
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(self.module)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(self.pipeline_layout);
            self.pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| e)
                .expect("vkCreateComputePipelines")[0];
            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(2)];
            self.pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .expect("vkCreateDescriptorPool");
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(self.pool)
                        .set_layouts(&layouts),
                )
                .expect("vkAllocateDescriptorSets")[0];
            let infos = [input, output].map(|i| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(self.buffers[i].0)
                    .range(vk::WHOLE_SIZE)]
            });
            let writes = [0, 1].map(|b| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&infos[b])
            });
            d.update_descriptor_sets(&writes, &[]);
            self.commands = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                    None,
                )
                .expect("vkCreateCommandPool");
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.commands)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .expect("vkAllocateCommandBuffers")[0];
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .expect("vkBeginCommandBuffer");
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline_layout,
                0,
                &[set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                self.pipeline_layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &n.to_le_bytes(),
            );
            d.cmd_dispatch(cmd, n.div_ceil(64), 1, 1);
            let to_host = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &to_host,
                &[],
                &[],
            );
            d.end_command_buffer(cmd).expect("vkEndCommandBuffer");
            self.fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .expect("vkCreateFence");
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            d.queue_submit(self.queue, &submit, self.fence)
                .expect("vkQueueSubmit");
            d.wait_for_fences(&[self.fence], true, u64::MAX)
                .expect("vkWaitForFences");
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        // SAFETY: every handle was created here from this device/instance (null ones
        // are ignored by Vulkan); the device is idle after device_wait_idle.
        unsafe {
            let d = &self.device;
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.commands, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for (buffer, memory) in self.buffers.drain(..).rev() {
                d.destroy_buffer(buffer, None);
                d.free_memory(memory, None);
            }
            d.destroy_device(None);
            if let Some((loader, messenger)) = self.debug.take() {
                loader.destroy_debug_utils_messenger(messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Reads SPIR-V words from a file (for machines without glslc: see the test below).
fn read_spirv(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        bytes.len() % 4,
        0,
        "{}: not whole SPIR-V words",
        path.display()
    );
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Runs every case on the device. `SOFT_F64_SPV=<file>` uses that SPIR-V instead of
/// compiling with glslc (how it runs on a machine with a GPU but no toolchain).
#[test]
fn soft_f64_glsl_matches_rust_twin_on_the_gpu() {
    let spirv = match std::env::var_os("SOFT_F64_SPV") {
        Some(path) => read_spirv(Path::new(&path)),
        None => compile(true),
    };
    let mut rng = Rng(0x050F_7F64);
    let mut all: Vec<(Op, u64, u64)> = Vec::new();
    for op in OPS {
        all.extend(cases(op, &mut rng).into_iter().map(|(a, b)| (op, a, b)));
    }
    let n = all.len();
    let mut gpu = Harness::new();
    let input = gpu.buffer((3 * n * 8) as u64);
    let output = gpu.buffer((n * 8) as u64);
    gpu.with_words(input, 3 * n, |words| {
        for (i, &(op, a, b)) in all.iter().enumerate() {
            words[3 * i] = op as u64;
            words[3 * i + 1] = a;
            words[3 * i + 2] = b;
        }
    });
    gpu.with_words(output, n, |words| words.fill(0xFFFF_FFFF_FFFF_FFFF));
    gpu.run(&spirv, input, output, n as u32);
    let results = gpu.with_words(output, n, |words| words.to_vec());
    let device = gpu.name.clone();
    let validation = if gpu.validation {
        "on"
    } else {
        "not installed"
    };
    drop(gpu);

    let mut wrong = Vec::new();
    for (i, (&(op, a, b), &got)) in all.iter().zip(&results).enumerate() {
        let want = twin(op, a, b);
        if got != want {
            wrong.push(format!(
                "case {i} {op:?}({a:#018x}, {b:#018x}): GPU {got:#018x}, twin {want:#018x}"
            ));
        }
        if let Some((bits, nan)) = native(op, a, b) {
            let got_nan = match op {
                Op::F32FromF64
                | Op::F32Div
                | Op::F32Sqrt
                | Op::F32Add
                | Op::F32Sub
                | Op::F32Mul => f32::from_bits(got as u32).is_nan(),
                _ => f64::from_bits(got).is_nan(),
            };
            if !(got == bits || (nan && got_nan)) {
                wrong.push(format!(
                    "case {i} {op:?}({a:#018x}, {b:#018x}): GPU {got:#018x}, IEEE {bits:#018x}"
                ));
            }
        }
    }
    let messages = MESSAGES.lock().map(|m| m.clone()).unwrap_or_default();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "{} of {n} results differ on {device}; first ones:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    eprintln!(
        "soft_f64.glsl on {device} (validation {validation}): {n} cases, all bit-identical \
         to the Rust twin"
    );
}
