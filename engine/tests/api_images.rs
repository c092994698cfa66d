//! Refusals of imported images and of pairs of them (`Engine::import_image`,
//! `Scorer::submit`; the scoring itself is checked by the `image_frames`
//! example under validation, with the luma metrics too): each names what is
//! wrong and happens before any device work, so the handles here are never
//! used. A scorer whose psnr reads chroma refuses imported planes.

mod vk_support;

use ash::vk;
use ash::vk::Handle;
use vk_support::gpu_present;
use vkssim::api::ScoreQueue;
use vkssim::api::{
    image_format_supported, DevicePlane, Engine, ImagePlane, Pair, SampleFormat, Scorer, ScorerDesc,
};
use vkssim::io::Chroma;
use vkssim::metric::config::parse_list;
use vkssim::vk::VkOptions;
use vkssim::Error;

#[test]
fn image_sources_are_checked_before_any_device_work() {
    if !gpu_present() {
        return;
    }
    let engine = Engine::new(&VkOptions::default().with_validation(true)).expect("engine");
    let desc = ScorerDesc::new(64, 48, 10);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    let fake = vk::Image::from_raw(0x1000);
    let other = vk::Image::from_raw(0x2000);
    let general = vk::ImageLayout::GENERAL;
    let p010 = vk::Format::G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16;
    let good = ImagePlane::new(other, p010, general);
    // SAFETY: the imports here are only given to submissions refused before
    // the handles are used.
    let good = unsafe { engine.import_image(good) }.expect("import");
    // The import's refusal, or else the pair's.
    let refused = |scorer: &mut Scorer, p: ImagePlane| -> String {
        // SAFETY: as above.
        let r = unsafe { engine.import_image(p) }
            .and_then(|imported| scorer.submit(Pair::new(&imported, &good)));
        match r {
            Err(e @ Error::InvalidOption(_)) => e.to_string(),
            other => panic!("{p:?}: expected a refusal, got {other:?}"),
        }
    };
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, vk::Format::R8_UNORM, general),
    );
    assert!(e.contains("10-bit"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, vk::Format::R12X4_UNORM_PACK16, general),
    );
    assert!(e.contains("12-bit samples"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, vk::Format::R8G8_UNORM, general),
    );
    assert!(e.contains("multi-planar formats"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(vk::Image::null(), p010, general),
    );
    assert!(e.contains("VK_NULL_HANDLE"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, p010, vk::ImageLayout::UNDEFINED),
    );
    assert!(e.contains("UNDEFINED"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, p010, general).with_queue_family(99),
    );
    assert!(e.contains("queue family 99"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, vk::Format::R16_UNORM, general).with_msb_bits(12),
    );
    assert!(e.contains("12-bit"), "{e}");
    let e = refused(
        &mut scorer,
        ImagePlane::new(fake, p010, general).with_msb_bits(12),
    );
    assert!(e.contains("msb_bits 12"), "{e}");
    let e = scorer
        .submit(Pair::new(&good, &good))
        .unwrap_err()
        .to_string();
    assert!(e.contains("same image layer"), "{e}");
    // An EXCLUSIVE buffer of an unknown family.
    let plane = DevicePlane::new(vk::Buffer::from_raw(0x3000), 128, SampleFormat::U16)
        .with_queue_family(77);
    // SAFETY: refused before the handle is used.
    let r = unsafe { engine.import_buffer(plane) };
    assert!(
        matches!(&r, Err(Error::InvalidOption(m)) if m.contains("queue family 77")),
        "{r:?}"
    );
    assert_eq!(scorer.in_flight(), 0);
    assert!(image_format_supported(
        vk::Format::G16_B16_R16_3PLANE_444_UNORM
    ));
    assert!(!image_format_supported(vk::Format::R8G8B8A8_UNORM));
    assert!(
        engine.validation_messages().is_empty(),
        "{:?}",
        engine.validation_messages()
    );
}

/// A scorer whose psnr reads chroma refuses pairs of imported images and
/// buffers (they give luma only), before any device work, saying what to do;
/// the luma metrics on images are checked by the `image_frames` example.
#[test]
fn psnr_with_chroma_refuses_imported_planes() {
    if !gpu_present() {
        return;
    }
    let engine = Engine::new(&VkOptions::default().with_validation(true)).expect("engine");
    let desc = ScorerDesc::new(64, 48, 8)
        .with_metrics(parse_list(&["psnr=enable_chroma=true", "float_ssim"]).expect("metrics"))
        .with_chroma(Chroma::C420);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    let general = vk::ImageLayout::GENERAL;
    let nv12 = vk::Format::G8_B8R8_2PLANE_420_UNORM;
    let images = [0x1000, 0x2000].map(|h| {
        let plane = ImagePlane::new(vk::Image::from_raw(h), nv12, general);
        // SAFETY: the imports here are only given to submissions refused
        // before the handles are used.
        unsafe { engine.import_image(plane) }.expect("import")
    });
    let buffers = [0x3000, 0x4000].map(|h| {
        let plane = DevicePlane::new(vk::Buffer::from_raw(h), 64, SampleFormat::U8);
        // SAFETY: as above.
        unsafe { engine.import_buffer(plane) }.expect("import")
    });
    for [r, d] in [&images, &buffers] {
        match scorer.submit(Pair::new(r, d)) {
            Err(Error::InvalidOption(m)) => assert!(
                m.contains("gives luma only") && m.contains("enable_chroma=false"),
                "{m}"
            ),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(scorer.in_flight(), 0);
    assert!(
        engine.validation_messages().is_empty(),
        "{:?}",
        engine.validation_messages()
    );
}
