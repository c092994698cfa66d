//! Property tests of the readers: random geometry, layout, bit depth, frame count,
//! container (raw or Y4M with random FRAME parameters) and source (file or pipe).
//! What is written is read back byte for byte; a random cut gives
//! [`Error::TruncatedFrame`] naming the right frame and leftover; random headers and
//! bodies never panic.

use std::io::Cursor;

use proptest::prelude::*;

use super::probe::{open_seekable, open_stream};
use super::testutil::Trickle;
use super::*;
use crate::Error;
use std::path::PathBuf;

/// Every `C` tag the Y4M reader accepts.
const TAGS: [&str; 21] = [
    "420jpeg", "420mpeg2", "420paldv", "420", "411", "422", "444", "444alpha", "mono", "420p10",
    "420p12", "420p16", "422p10", "422p12", "422p16", "444p10", "444p12", "444p16", "mono10",
    "mono12", "mono16",
];

const CHROMAS: [Chroma; 6] = Chroma::ALL;

/// A generated input and what reading it must give.
#[derive(Debug)]
struct Clip {
    format: VideoFormat,
    data: Vec<u8>,
    /// Bytes before the first frame (the Y4M header).
    header: usize,
    /// Each frame's first byte and the length of its FRAME line (0 for raw).
    frames: Vec<(usize, usize)>,
    lumas: Vec<Vec<u8>>,
    y4m: bool,
}

/// An xorshift generator: random sample values without a strategy per byte.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn build(format: VideoFormat, tag: Option<&str>, lines: &[String], seed: u64) -> Clip {
    let mut data = Vec::new();
    if let Some(tag) = tag {
        data.extend_from_slice(
            format!(
                "YUV4MPEG2 W{} H{} F25:1 C{tag}\n",
                format.width, format.height
            )
            .as_bytes(),
        );
    }
    let header = data.len();
    let mut state = seed | 1;
    let max = (1u64 << format.bit_depth) - 1;
    let samples = format.frame_bytes() as usize / format.bytes_per_sample();
    let luma = format.luma_bytes();
    let mut frames = Vec::new();
    let mut lumas = Vec::new();
    for line in lines {
        frames.push((data.len(), if tag.is_some() { line.len() } else { 0 }));
        if tag.is_some() {
            data.extend_from_slice(line.as_bytes());
        }
        let start = data.len();
        for _ in 0..samples {
            let v = next(&mut state) & max;
            if format.bit_depth == 8 {
                data.push(v as u8);
            } else {
                data.extend_from_slice(&(v as u16).to_le_bytes());
            }
        }
        lumas.push(data[start..start + luma].to_vec());
    }
    Clip {
        format,
        data,
        header,
        frames,
        lumas,
        y4m: tag.is_some(),
    }
}

/// Clips of `min_frames` to 4 frames.
fn clip_strategy(min_frames: usize) -> impl Strategy<Value = Clip> {
    let line = prop_oneof![
        Just("FRAME\n".to_string()),
        "[ -~]{0,12}".prop_map(|p| format!("FRAME {p}\n")),
    ];
    (
        1u32..24,
        1u32..24,
        0usize..CHROMAS.len(),
        prop::sample::select(vec![8u32, 10, 12, 16]),
        prop::option::of(0usize..TAGS.len()),
        prop::collection::vec(line, min_frames..5),
        any::<u64>(),
    )
        .prop_map(|(w, h, chroma, bit_depth, tag, lines, seed)| {
            let (chroma, bit_depth) = match tag {
                Some(t) => y4m::colorspace(TAGS[t]).unwrap(),
                None => (CHROMAS[chroma], bit_depth),
            };
            let format = VideoFormat::new(w, h, bit_depth, chroma).unwrap();
            build(format, tag.map(|t| TAGS[t]), &lines, seed)
        })
}

/// Opens `data` as a file (`chunk` None) or as a pipe handing out `chunk` bytes
/// per read.
fn open(data: &[u8], clip: &Clip, chunk: Option<usize>) -> Result<Box<dyn LumaReader>> {
    let raw = (!clip.y4m).then(|| RawFormat::from(clip.format));
    // Not `-`: standard input with no byte is refused, a pipe of no frame is not.
    let name = PathBuf::from(if chunk.is_some() { "pipe" } else { "clip" });
    match chunk {
        None => open_seekable(
            Cursor::new(data.to_vec()),
            name,
            raw.unwrap_or_default(),
            None,
        ),
        Some(chunk) => open_stream(
            Trickle {
                inner: Cursor::new(data.to_vec()),
                chunk,
            },
            name,
            raw.unwrap_or_default(),
        ),
    }
}

/// Opens and reads every frame: the lumas read, then the error that stopped it.
fn read_all(data: &[u8], clip: &Clip, chunk: Option<usize>) -> (Vec<Vec<u8>>, Result<()>) {
    let mut out = Vec::new();
    let mut r = match open(data, clip, chunk) {
        Ok(r) => r,
        Err(e) => return (out, Err(e)),
    };
    loop {
        match r.read_frame() {
            Ok(Some(f)) => out.push(f.bytes),
            Ok(None) => return (out, Ok(())),
            Err(e) => return (out, Err(e)),
        }
    }
}

proptest! {
    #[test]
    fn reads_back_what_was_written(clip in clip_strategy(0), chunk in prop::option::of(1usize..70)) {
        let mut r = open(&clip.data, &clip, chunk).unwrap();
        prop_assert_eq!(r.format(), clip.format);
        let n = clip.lumas.len() as u64;
        prop_assert_eq!(r.frame_count(), chunk.is_none().then_some(n));
        for luma in &clip.lumas {
            let f = r.read_frame().unwrap().unwrap();
            prop_assert_eq!(&f.bytes, luma);
        }
        prop_assert!(r.read_frame().unwrap().is_none());
        prop_assert_eq!(r.frames_read(), n);
    }

    #[test]
    fn skip_then_read(clip in clip_strategy(0), chunk in prop::option::of(1usize..70), k in 0u64..6) {
        let mut r = open(&clip.data, &clip, chunk).unwrap();
        let n = clip.lumas.len() as u64;
        prop_assert_eq!(r.skip(k).unwrap(), k.min(n));
        prop_assert_eq!(r.frames_read(), k.min(n));
        for luma in &clip.lumas[k.min(n) as usize..] {
            prop_assert_eq!(&r.read_frame().unwrap().unwrap().bytes, luma);
        }
        prop_assert!(r.read_frame().unwrap().is_none());
    }

    #[test]
    fn a_cut_reports_the_frame_and_leftover(
        clip in clip_strategy(1),
        chunk in prop::option::of(1usize..70),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = clip.header + cut.index(clip.data.len() - clip.header + 1);
        let (lumas, result) = read_all(&clip.data[..cut], &clip, chunk);
        // Frames that start before the cut; the last may be incomplete.
        let k = clip.frames.iter().filter(|f| f.0 < cut).count();
        let boundary = cut == clip.data.len()
            || clip.frames.iter().any(|f| f.0 == cut);
        if boundary {
            prop_assert!(result.is_ok(), "{:?}", result);
            prop_assert_eq!(&lumas[..], &clip.lumas[..k]);
        } else {
            let (start, _) = clip.frames[k - 1];
            match result {
                Err(Error::TruncatedFrame { frame, leftover, .. }) => {
                    prop_assert_eq!(frame, k as u64 - 1);
                    prop_assert_eq!(leftover, (cut - start) as u64);
                }
                other => prop_assert!(false, "expected TruncatedFrame, got {:?}", other),
            }
            // What was read before the error is right.
            prop_assert_eq!(&lumas[..], &clip.lumas[..lumas.len()]);
        }
    }

    #[test]
    fn file_index_reads_back_in_any_order(clip in clip_strategy(0), order in any::<u64>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clip");
        std::fs::write(&path, &clip.data).unwrap();
        let raw = (!clip.y4m).then(|| RawFormat::from(clip.format));
        let r = open_input(&path, raw).unwrap();
        let index = r.frame_index().unwrap();
        let n = clip.lumas.len() as u64;
        prop_assert_eq!(index.len(), n);
        let mut buf = vec![0u8; clip.format.luma_bytes()];
        // Every frame once, in the order of a permutation of 0..m (m a power of two
        // >= n): i * odd + order, mod m.
        let m = n.next_power_of_two();
        let mut seen = 0;
        for i in 0..m {
            let f = i.wrapping_mul(order | 1).wrapping_add(order) % m;
            if f < n {
                index.read_luma_at(f, &mut buf).unwrap();
                prop_assert_eq!(&buf, &clip.lumas[f as usize]);
                seen += 1;
            }
        }
        prop_assert_eq!(seen, n);
    }

    #[test]
    fn any_header_line_parses_or_errs(line in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = y4m::parse_header(&line, Path::new("x"));
        let mut prefixed = b"YUV4MPEG2 ".to_vec();
        prefixed.extend_from_slice(&line);
        let _ = y4m::parse_header(&prefixed, Path::new("x"));
    }

    #[test]
    fn garbage_inputs_never_panic(
        tags in prop::collection::vec(
            "W[0-9]{0,3}|H[0-9]{0,3}|C[a-z0-9]{0,8}|C(420|422p10|444alpha|mono16|411)|F[0-9:]{0,5}|I[ptbm?x]?|A[0-9:]{0,4}|X[ -~]{0,5}|[ -~]{0,4}",
            0..8,
        ),
        body in prop::collection::vec(
            prop_oneof![
                Just(b"FRAME\n".to_vec()),
                Just(b"FRAME Ip\n".to_vec()),
                prop::collection::vec(any::<u8>(), 0..64),
            ],
            0..8,
        ),
        raw in prop::option::of((1u32..9, 1u32..9, 0usize..CHROMAS.len(), 0u32..18)),
        y4m in any::<bool>(),
        chunk in prop::option::of(1usize..40),
    ) {
        let mut data = if y4m {
            format!("YUV4MPEG2 {}\n", tags.join(" ")).into_bytes()
        } else {
            Vec::new()
        };
        data.extend(body.concat());
        let raw = raw.map(|(w, h, c, b)| RawFormat::new(w, h, CHROMAS[c], b)).unwrap_or_default();
        let reader = match chunk {
            None => open_seekable(Cursor::new(data), "g".into(), raw, None),
            Some(chunk) => open_stream(Trickle { inner: Cursor::new(data), chunk }, "g".into(), raw),
        };
        if let Ok(mut r) = reader {
            let luma = r.format().luma_bytes();
            if luma <= 1 << 20 {
                let mut buf = vec![0u8; luma];
                for _ in 0..10 {
                    match r.read(&mut buf, Planes::Luma, Check::Range) {
                        Ok(true) => {}
                        _ => break,
                    }
                }
            }
        }
    }
}
