//! Frames in `VkImage`s, as Vulkan video tools hold them: this program creates
//! a host instance (the Khronos validation layer with synchronization
//! validation when `VKSSIM_VALIDATION=1`) and a device with a queue of the
//! first compute family (handed to `Engine::import`) and, where the device has
//! one, a queue of another family that owns the images. For each luma format
//! the device can copy (`R8`, `R16`, `R10X6`, `R12X4`; NV12, P010 and other
//! multi-planar formats where offered, else a printed skip) and each starting
//! layout (`GENERAL`, `TRANSFER_SRC_OPTIMAL`, `SHADER_READ_ONLY_OPTIMAL` where
//! the format can be sampled) it fills two images through a staging buffer on
//! the owning queue (MSB-aligned formats get junk in their padding bits),
//! releases them to the engine's family when that differs, and scores them
//! imported once per frame (`Engine::import_image`/`import_buffer`) and given
//! to `Scorer::submit` chained by semaphores (timeline and binary in
//! turn), asking for another final layout; the host then acquires them back.
//! One pair also reads its distorted plane from an `EXCLUSIVE` buffer owned by
//! the host's family. Every score must be bit-identical to the CPU twin on the
//! same samples; it prints `image frames identical: N/N`. Then the luma
//! metrics together (float_ssim, float_ms_ssim, psnr of luma) on `R8`, NV12,
//! MSB-aligned 10-bit `R16` and P010 images at 177x179: every output equal to
//! the CPU twin's (`image frames with metrics identical: N/N`). It exits
//! non-zero on any difference or validation message.
//!
//! Run: `VKSSIM_VALIDATION=1 cargo run -p vkssim --example image_frames`

mod common;

use ash::vk;
use common::frames::Images;
use common::host::Host;
use vkssim::api::ScoreQueue;
use vkssim::api::{
    DevicePlane, Engine, HostPlane, ImagePlane, ImportDesc, Pair, SampleFormat, Scorer, ScorerDesc,
};
use vkssim::io::Chroma;
use vkssim::metric::config::parse_list;
use vkssim::metric::MetricConfig;
use vkssim::{FrameScore, LumaFrame, SsimOptions};

/// Scored region; the images are one sample wider and taller (4:2:0 formats
/// need even sizes), so only their top-left part is read.
const WIDTH: u32 = 97;
const HEIGHT: u32 = 71;

/// One format to try: its name, bit depth, right shift of the stored samples
/// and `ImagePlane::msb_bits`.
struct Case {
    name: &'static str,
    format: vk::Format,
    bit_depth: u32,
    shift: u32,
    msb_bits: u32,
}

const CASES: &[Case] = &[
    case("R8_UNORM", vk::Format::R8_UNORM, 8, 0),
    case("R16_UNORM", vk::Format::R16_UNORM, 16, 0),
    case("R10X6_UNORM_PACK16", vk::Format::R10X6_UNORM_PACK16, 10, 6),
    case("R12X4_UNORM_PACK16", vk::Format::R12X4_UNORM_PACK16, 12, 4),
    msb("R16_UNORM holding 10-bit MSB-aligned", 10),
    msb("R16_UNORM holding 12-bit MSB-aligned", 12),
    case("NV12", vk::Format::G8_B8R8_2PLANE_420_UNORM, 8, 0),
    case(
        "P010",
        vk::Format::G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16,
        10,
        6,
    ),
    case(
        "P012",
        vk::Format::G12X4_B12X4R12X4_2PLANE_420_UNORM_3PACK16,
        12,
        4,
    ),
    case("P016", vk::Format::G16_B16R16_2PLANE_420_UNORM, 16, 0),
    case("I420", vk::Format::G8_B8_R8_3PLANE_420_UNORM, 8, 0),
    case(
        "I422 10-bit",
        vk::Format::G10X6_B10X6_R10X6_3PLANE_422_UNORM_3PACK16,
        10,
        6,
    ),
    case("NV24", vk::Format::G8_B8R8_2PLANE_444_UNORM, 8, 0),
];

const fn case(name: &'static str, format: vk::Format, bit_depth: u32, shift: u32) -> Case {
    Case {
        name,
        format,
        bit_depth,
        shift,
        msb_bits: 0,
    }
}

/// 10 or 12-bit values in the top bits of `R16_UNORM` samples (P010 and P012
/// luma as separate planes).
const fn msb(name: &'static str, bits: u32) -> Case {
    Case {
        name,
        format: vk::Format::R16_UNORM,
        bit_depth: bits,
        shift: 16 - bits,
        msb_bits: bits,
    }
}

const LAYOUTS: [vk::ImageLayout; 3] = [
    vk::ImageLayout::GENERAL,
    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
];

/// A pair submitted and what the CPU twin must give for it.
struct Pending {
    label: String,
    reference: LumaFrame,
    distorted: LumaFrame,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("image_frames: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let validation = std::env::var("VKSSIM_VALIDATION").is_ok_and(|v| v == "1");
    // SAFETY: Vulkan calls on objects this function creates and destroys, in
    // order; the engine is dropped before the device.
    let (identical, total, (metrics_identical, metrics_total)) = unsafe {
        let host = Host::new(validation)?;
        println!(
            "device: {} (validation {}); engine family {}, image family {}",
            host.name,
            if validation { "on" } else { "off" },
            host.engine_family,
            host.image_family
        );
        let result = score_all(&host);
        host.device.device_wait_idle()?;
        let images_and_counts = result?;
        host.destroy();
        images_and_counts
    };
    common::check_validation(&common::host::messages());
    println!("image frames identical: {identical}/{total}");
    println!("image frames with metrics identical: {metrics_identical}/{metrics_total}");
    if identical != total || total == 0 || metrics_identical != metrics_total || metrics_total == 0
    {
        std::process::exit(1);
    }
    Ok(())
}

/// Scores every supported case; returns (identical, total) for float_ssim
/// alone and for the metric set.
///
/// # Safety
/// `host` must be alive until this returns (it waits for the device before).
unsafe fn score_all(host: &Host) -> Result<Counts, Box<dyn std::error::Error>> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let mut desc = ImportDesc::new(
            host.entry.clone(),
            host.instance.clone(),
            host.physical_device,
            host.device.clone(),
            host.features,
        );
        desc.queue_family = host.engine_family;
        desc.instance_extensions = host.instance_extensions.clone();
        let engine = Engine::import(desc)?;
        let mut images = Images::new(host)?;
        let (mut identical, mut total) = (0, 0);
        let opts = SsimOptions {
            enable_lcs: true,
            ..Default::default()
        };
        let mut exclusive_done = false;
        for bit_depth in [8, 10, 12, 16] {
            let ssim = opts;
            let desc = ScorerDesc::new(WIDTH, HEIGHT, bit_depth)
                .with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
            let mut scorer = engine.scorer(&desc)?;
            let mut pending = Vec::new();
            for (c, case) in CASES.iter().enumerate() {
                if case.bit_depth != bit_depth {
                    continue;
                }
                let Some(sampled) = host.image_support(case.format) else {
                    println!(
                        "{}: not offered for transfers on this device, skipped",
                        case.name
                    );
                    continue;
                };
                for (l, &layout) in LAYOUTS.iter().enumerate() {
                    if layout == vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL && !sampled {
                        println!(
                            "{} in {layout:?}: format not sampleable, skipped",
                            case.name
                        );
                        continue;
                    }
                    let final_layout = LAYOUTS[(l + 1) % LAYOUTS.len()];
                    let final_layout =
                        if final_layout == vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL && !sampled {
                            vk::ImageLayout::GENERAL
                        } else {
                            final_layout
                        };
                    let seed = (c * 16 + l) as u32;
                    let r = plane((WIDTH, HEIGHT, bit_depth), seed, None);
                    let d = plane((WIDTH, HEIGHT, bit_depth), seed, Some(&r));
                    let exclusive = !exclusive_done && bit_depth == 8 && l == 1;
                    let timeline = host.timeline && l % 2 == 0;
                    submit_frame(
                        (host, &engine, &mut images),
                        &mut scorer,
                        case,
                        (layout, final_layout),
                        [&r, &d],
                        (exclusive, timeline),
                    )?;
                    let label = format!(
                        "{} {layout:?} -> {final_layout:?}{}{}",
                        case.name,
                        if timeline { ", timeline" } else { ", binary" },
                        if exclusive {
                            ", distorted in an EXCLUSIVE buffer"
                        } else {
                            ""
                        }
                    );
                    exclusive_done |= exclusive;
                    pending.push(Pending {
                        label,
                        reference: r,
                        distorted: d,
                    });
                }
            }
            for p in pending {
                let got = scorer.wait().ok_or("a submitted pair gave no result")??;
                total += 1;
                if same(&got, &cpu(&p, &opts)) {
                    identical += 1;
                    println!("{}: float_ssim {:.17} identical", p.label, got.float_ssim());
                } else {
                    eprintln!(
                        "{}: GPU {got:?} differs from the CPU twin {:?}",
                        p.label,
                        cpu(&p, &opts)
                    );
                }
            }
        }
        let metrics = score_metrics(host, &engine, &mut images)?;
        host.device.device_wait_idle()?;
        images.destroy(host);
        Ok((identical, total, metrics))
    }
}

/// (identical, total) for float_ssim alone, then for the metric set.
type Counts = (usize, usize, (usize, usize));

/// Fills two images (or an image and an `EXCLUSIVE` buffer) of `case` with
/// `[reference, distorted]` on the host's image family, imports them and
/// submits the pair to `scorer` chained by semaphores (timeline or binary),
/// then records the host's taking them back.
///
/// # Safety
/// As [`score_all`]; the engine is the host's device's.
unsafe fn submit_frame(
    (host, engine, images): (&Host, &Engine, &mut Images),
    scorer: &mut Scorer,
    case: &Case,
    layouts: (vk::ImageLayout, vk::ImageLayout),
    planes: [&LumaFrame; 2],
    (exclusive, timeline): (bool, bool),
) -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let sampled = host.image_support(case.format).unwrap_or(false);
        let frame = images.frame(
            host,
            (case.format, case.shift, sampled),
            layouts,
            planes,
            exclusive,
        )?;
        let (wait, signal) = images.semaphores(host, timeline)?;
        host.submit_fill(&frame, wait)?;
        let image = |k: usize| {
            ImagePlane::new(frame.images[k], case.format, layouts.0)
                .with_final_layout(layouts.1)
                .with_queue_family(host.image_family)
                .with_msb_bits(case.msb_bits)
        };
        let distorted = match frame.buffer {
            Some(buffer) => engine.import_buffer(
                DevicePlane::new(buffer, frame.row_pitch, SampleFormat::U8)
                    .with_queue_family(host.image_family),
            )?,
            None => engine.import_image(image(1))?,
        };
        let reference = engine.import_image(image(0))?;
        scorer.submit(Pair::new(&reference, &distorted).wait(wait).signal(signal))?;
        host.submit_return(&frame, signal)?;
        Ok(())
    }
}

/// The luma metrics (float_ssim, float_ms_ssim with its per-scale values,
/// psnr of luma with its MSE) on the luma plane of images, 8-bit (`R8`, NV12)
/// and 10-bit (`R16` holding MSB-aligned 10-bit values, P010) where offered,
/// at an odd size MS-SSIM takes: every output equal to the CPU twin's on the
/// same samples. Returns (identical, total).
///
/// # Safety
/// As [`score_all`].
unsafe fn score_metrics(
    host: &Host,
    engine: &Engine,
    images: &mut Images,
) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let specs = [
        "float_ssim",
        "float_ms_ssim=enable_lcs=true",
        "psnr=enable_chroma=false:enable_mse=true",
    ];
    let (width, height) = (177, 179);
    let names = [
        "R8_UNORM",
        "NV12",
        "R16_UNORM holding 10-bit MSB-aligned",
        "P010",
    ];
    let (mut identical, mut total) = (0, 0);
    for bit_depth in [8, 10] {
        let desc = ScorerDesc::new(width, height, bit_depth)
            .with_metrics(parse_list(&specs)?)
            .with_chroma(Chroma::C420);
        let mut scorer = engine.scorer(&desc)?;
        let mut twin = Scorer::cpu(&desc, 1)?;
        let mut pending = Vec::new();
        for (c, case) in CASES.iter().enumerate() {
            if case.bit_depth != bit_depth || !names.contains(&case.name) {
                continue;
            }
            // SAFETY: as above.
            if unsafe { host.image_support(case.format) }.is_none() {
                println!("{} with metrics: not offered, skipped", case.name);
                continue;
            }
            let seed = 500 + c as u32;
            let r = plane((width, height, bit_depth), seed, None);
            let d = plane((width, height, bit_depth), seed, Some(&r));
            let general = vk::ImageLayout::GENERAL;
            let timeline = host.timeline && c % 2 == 0;
            // SAFETY: as above.
            unsafe {
                submit_frame(
                    (host, engine, images),
                    &mut scorer,
                    case,
                    (general, general),
                    [&r, &d],
                    (false, timeline),
                )
            }?;
            let host_plane = |f: &LumaFrame| -> Vec<u16> { common::as_u16(f) };
            let words = [host_plane(&r), host_plane(&d)];
            let [hr, hd] = [0, 1].map(|k| {
                if bit_depth > 8 {
                    HostPlane::u16(&words[k], width as usize)
                } else {
                    HostPlane::u8(&[&r, &d][k].bytes, width as usize)
                }
            });
            twin.submit(Pair::new(hr, hd))?;
            let want = twin.wait().ok_or("the CPU twin gave no result")??;
            pending.push((case.name, want));
        }
        for (name, want) in pending {
            let got = scorer.wait().ok_or("a submitted pair gave no result")??;
            total += 1;
            let bits = |s: &FrameScore| -> Vec<(String, u64)> {
                s.iter()
                    .map(|(n, v)| (n.to_string(), v.to_bits()))
                    .collect()
            };
            if bits(&got) == bits(&want) && bits(&got).len() == 1 + 16 + 2 {
                identical += 1;
                println!(
                    "{name} {bit_depth}-bit with metrics: {} outputs identical (float_ms_ssim \
                     {:.17})",
                    bits(&got).len(),
                    got.value("float_ms_ssim").unwrap_or(f64::NAN)
                );
            } else {
                eprintln!("{name} {bit_depth}-bit: GPU {got:?} differs from the CPU twin {want:?}");
            }
        }
    }
    Ok((identical, total))
}

fn cpu(p: &Pending, opts: &SsimOptions) -> FrameScore {
    common::cpu_score(&p.reference, &p.distorted, opts)
}

fn same(a: &FrameScore, b: &FrameScore) -> bool {
    let bits = |s: &FrameScore| {
        (
            s.ssim().to_bits(),
            s.lcs().map(|v| v.map(f64::to_bits)),
            s.db().map(f64::to_bits),
        )
    };
    bits(a) == bits(b)
}

/// A deterministic `width x height` plane: a gradient with texture (`like:
/// None`), or a distorted copy of `like` (noise added, clipped to the bit
/// depth).
fn plane(
    (width, height, bit_depth): (u32, u32, u32),
    seed: u32,
    like: Option<&LumaFrame>,
) -> LumaFrame {
    let mut f = LumaFrame::zeroed(width, height, bit_depth);
    let max = (1u32 << bit_depth) - 1;
    let mut state = seed.wrapping_mul(2_654_435_761) | 1;
    for i in 0..(width * height) as usize {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let (x, y) = (i as u32 % width, i as u32 / width);
        let v = match like {
            None => ((x * 3 + y * 2) * (max / 400).max(1) + state % (max / 8 + 1)).min(max),
            Some(r) => (sample(r, i) + state % (max / 16 + 1)).min(max),
        };
        set_sample(&mut f, i, v);
    }
    f
}

/// Sample `i` of a packed plane.
pub fn sample(f: &LumaFrame, i: usize) -> u32 {
    if f.bit_depth > 8 {
        u16::from_le_bytes([f.bytes[2 * i], f.bytes[2 * i + 1]]) as u32
    } else {
        f.bytes[i] as u32
    }
}

fn set_sample(f: &mut LumaFrame, i: usize, v: u32) {
    if f.bit_depth > 8 {
        f.bytes[2 * i..2 * i + 2].copy_from_slice(&(v as u16).to_le_bytes());
    } else {
        f.bytes[i] = v as u8;
    }
}
