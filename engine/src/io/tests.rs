//! Tests of [`open_input`]: format detection, the raw format's checks, and errors
//! for files that are missing, unreadable or not what they claim.

use std::io::Write;
use std::path::Path;

use super::probe::{open_seekable, open_stream};
use super::testutil::pattern_video;
use super::*;
use crate::Error;
use std::path::PathBuf;

/// A temporary file named `name` holding `data`.
fn temp(name: &str, data: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    (dir, path)
}

fn y4m_clip(head: &str, frames: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
    let format = y4m::parse_header(head.as_bytes(), Path::new("x"))
        .unwrap()
        .format;
    let (body, lumas) = pattern_video(&format, frames, b"FRAME\n");
    let mut data = format!("{head}\n").into_bytes();
    data.extend_from_slice(&body);
    (data, lumas)
}

fn read_all(r: &mut dyn LumaReader) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(f) = r.read_frame().unwrap() {
        out.push(f.bytes);
    }
    out
}

#[test]
fn raw_yuv_file() {
    let format = VideoFormat::new(7, 5, 12, Chroma::C422).unwrap();
    let (data, lumas) = pattern_video(&format, 3, b"");
    let (_dir, path) = temp("clip.yuv", &data);
    let mut r = open_input(&path, Some(format.into())).unwrap();
    assert_eq!(r.format(), format);
    assert_eq!(r.path(), path);
    assert_eq!(r.frame_count(), Some(3));
    assert_eq!(read_all(&mut r), lumas);
}

/// Raw YUV given with its format, named without `.yuv`, whose first bytes
/// are a still image's magic number (JPEG XL's FF 0A: libavformat's
/// `jpegxl_pipe` probe scores it 98): read as the raw YUV it was said to be,
/// not refused as a JPEG XL that does not decode. (A proptest of
/// `FrameIndex` found it: `proptest-regressions/io/proptests.txt`.)
#[cfg(feature = "ffmpeg")]
#[test]
fn raw_yuv_starting_like_a_still_image_is_raw() {
    let format = VideoFormat::new(2, 2, 8, Chroma::C420).unwrap();
    let (_dir, path) = temp("frame", &[255, 10, 10, 8, 26, 14]);
    let mut r = open_input(&path, Some(format.into())).unwrap();
    assert_eq!(r.format(), format);
    assert_eq!(read_all(&mut r), vec![vec![255, 10, 10, 8]]);
}

#[test]
fn y4m_is_found_by_its_magic_whatever_the_name() {
    let (data, lumas) = y4m_clip("YUV4MPEG2 W6 H4 F25:1 C444p16", 2);
    let (_dir, path) = temp("clip.yuv", &data);
    let mut r = open_input(&path, None).unwrap();
    assert_eq!(
        r.format(),
        VideoFormat::new(6, 4, 16, Chroma::C444).unwrap()
    );
    assert_eq!(read_all(&mut r), lumas);
}

#[test]
fn y4m_with_agreeing_or_conflicting_raw_options() {
    let (data, _) = y4m_clip("YUV4MPEG2 W6 H4 F25:1 C420p10", 1);
    let (_dir, path) = temp("clip.y4m", &data);
    let agree = RawFormat {
        width: Some(6),
        bit_depth: Some(10),
        ..RawFormat::default()
    };
    assert!(open_input(&path, Some(agree)).is_ok());
    let conflict = RawFormat::new(6, 4, Chroma::C420, 8);
    match open_input(&path, Some(conflict)).err().unwrap() {
        Error::InvalidOption(m) => assert!(m.contains("bit depth 8"), "{m}"),
        e => panic!("{e}"),
    }
}

#[test]
fn y4m_name_without_magic() {
    let (_dir, path) = temp("clip.Y4M", b"\x10\x20\x30 not a header\n");
    assert!(matches!(
        open_input(&path, Some(RawFormat::new(2, 2, Chroma::C420, 8))),
        Err(Error::Y4mHeader { .. })
    ));
}

#[test]
fn raw_needs_every_field() {
    let (_dir, path) = temp("clip.yuv", &[0; 6]);
    match open_input(&path, None).err().unwrap() {
        Error::InvalidOption(m) => {
            assert!(
                m.contains("missing: width, height, pixel format, bit depth"),
                "{m}"
            )
        }
        e => panic!("{e}"),
    }
    let partial = RawFormat {
        width: Some(2),
        height: Some(2),
        ..RawFormat::default()
    };
    match open_input(&path, Some(partial)).err().unwrap() {
        Error::InvalidOption(m) => assert!(m.contains("missing: pixel format, bit depth"), "{m}"),
        e => panic!("{e}"),
    }
    assert!(matches!(
        open_input(&path, Some(RawFormat::new(2, 2, Chroma::C420, 9))),
        Err(Error::Unsupported(_))
    ));
}

#[test]
fn raw_file_not_whole_frames() {
    let (_dir, path) = temp("clip.yuv", &[0; 6 * 3 + 4]);
    match open_input(&path, Some(RawFormat::new(2, 2, Chroma::C420, 8))).err() {
        Some(Error::TruncatedFrame {
            path: p,
            frame,
            leftover,
            frame_bytes,
        }) => {
            assert_eq!(p, path);
            assert_eq!((frame, leftover, frame_bytes), (3, 4, 6));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn empty_files() {
    let (_dir, path) = temp("empty.yuv", b"");
    let mut r = open_input(&path, Some(RawFormat::new(2, 2, Chroma::C420, 8))).unwrap();
    assert_eq!(r.frame_count(), Some(0));
    assert!(r.read_frame().unwrap().is_none());
    // Without a raw format it cannot be raw YUV, and a Y4M file has a header.
    match open_input(&path, None) {
        Err(e @ Error::EmptyInput { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("the file is empty (0 bytes)"), "{msg}");
            assert!(msg.contains("expected a Y4M stream"), "{msg}");
        }
        other => panic!("{:?}", other.err()),
    }
    let (_dir, path) = temp("empty.y4m", b"");
    assert!(matches!(
        open_input(&path, None),
        Err(Error::EmptyInput { .. })
    ));
}

/// Standard input with no byte (empty, or closed, which reads as empty) is
/// refused whatever the format: a pipe or a redirected empty file.
#[test]
fn empty_standard_input_says_so() {
    let raw = RawFormat::new(4, 2, Chroma::C420, 8);
    for raw in [RawFormat::default(), raw] {
        let name = PathBuf::from("-");
        let results = [
            open_stream(std::io::empty(), name.clone(), raw),
            open_seekable(std::io::Cursor::new(Vec::new()), name, raw, None),
        ];
        for r in results {
            let msg = r
                .err()
                .expect("an empty standard input is refused")
                .to_string();
            assert!(
                msg.starts_with("-: standard input is empty (0 bytes); expected "),
                "{msg}"
            );
            let expected = if raw.width.is_some() {
                "raw YUV frames of 4x2 420 8-bit (12 bytes each)"
            } else {
                "YUV4MPEG2 W1920 H1080"
            };
            assert!(msg.contains(expected), "{msg}");
        }
    }
}

#[test]
fn missing_file_and_directory_are_io_errors_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.y4m");
    for path in [missing.as_path(), dir.path()] {
        match open_input(path, Some(RawFormat::new(2, 2, Chroma::C420, 8))).err() {
            Some(Error::Io { path: p, .. }) => assert_eq!(p, path),
            other => panic!("{path:?}: {other:?}"),
        }
    }
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = temp("locked.yuv", &[0; 6]);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads anything; then there is nothing to check.
    if std::fs::File::open(&path).is_ok() {
        return;
    }
    assert!(matches!(
        open_input(&path, Some(RawFormat::new(2, 2, Chroma::C420, 8))),
        Err(Error::Io { .. })
    ));
}

/// A named pipe is read as a stream, front to back: a Y4M one and a raw one.
#[cfg(unix)]
#[test]
fn fifo_is_read_as_a_stream() {
    let (y4m, y4m_lumas) = y4m_clip("YUV4MPEG2 W33 H17 C422p10", 4);
    let format = VideoFormat::new(33, 17, 8, Chroma::C420).unwrap();
    let (raw, raw_lumas) = pattern_video(&format, 3, b"");
    for (data, lumas, fmt) in [
        (y4m, y4m_lumas, None),
        (raw, raw_lumas, Some(format.into())),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            f.write_all(&data).unwrap();
        });
        let mut r = open_input(&path, fmt).unwrap();
        assert_eq!(r.frame_count(), None);
        assert_eq!(read_all(&mut r), lumas);
        writer.join().unwrap();
    }
}

/// `-` reads standard input: as a stream from a pipe, with seeks when a regular file
/// is redirected in. The test runs itself again as a child whose standard input is
/// the clip; the child writes what it read to a file the parent checks.
#[cfg(unix)]
#[test]
fn stdin_dash() {
    use std::process::{Command, Stdio};
    const CHILD: &str = "VKSSIM_IO_STDIN_CHILD_OUT";
    if let Some(out) = std::env::var_os(CHILD) {
        let raw = std::env::var("VKSSIM_IO_STDIN_CHILD_RAW").is_ok();
        let raw = raw.then(|| RawFormat::new(9, 7, Chroma::C420, 10));
        let mut r = open_input(Path::new("-"), raw).unwrap();
        assert_eq!(r.path(), Path::new("-"));
        let count = r.frame_count();
        let mut bytes = format!("{count:?}\n").into_bytes();
        bytes.extend(read_all(&mut r).concat());
        std::fs::write(out, bytes).unwrap();
        return;
    }
    let format = VideoFormat::new(9, 7, 10, Chroma::C420).unwrap();
    let (raw_data, raw_lumas) = pattern_video(&format, 3, b"");
    let (y4m_data, y4m_lumas) = y4m_clip("YUV4MPEG2 W9 H7 C420p10", 3);
    for (data, lumas, raw) in [(raw_data, raw_lumas, true), (y4m_data, y4m_lumas, false)] {
        for pipe in [true, false] {
            let (dir, input) = temp("in", &data);
            let out = dir.path().join("out");
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            cmd.args(["--exact", "io::tests::stdin_dash", "--test-threads=1"])
                .env(CHILD, &out)
                .stdout(Stdio::null());
            if raw {
                cmd.env("VKSSIM_IO_STDIN_CHILD_RAW", "1");
            }
            let status = if pipe {
                let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
                child.stdin.take().unwrap().write_all(&data).unwrap();
                child.wait().unwrap()
            } else {
                cmd.stdin(std::fs::File::open(&input).unwrap())
                    .status()
                    .unwrap()
            };
            assert!(status.success(), "child failed (raw {raw}, pipe {pipe})");
            let got = std::fs::read(&out).unwrap();
            let count = if pipe { "None\n" } else { "Some(3)\n" };
            assert_eq!(
                &got[..count.len()],
                count.as_bytes(),
                "raw {raw}, pipe {pipe}"
            );
            assert_eq!(
                &got[count.len()..],
                &lumas.concat()[..],
                "raw {raw}, pipe {pipe}"
            );
        }
    }
}

#[test]
fn frame_index_reads_any_frame_from_any_thread() {
    let format = VideoFormat::new(13, 9, 12, Chroma::C420).unwrap();
    let (raw, raw_lumas) = pattern_video(&format, 5, b"");
    // Y4M frames whose FRAME lines differ in length.
    let mut y4m = b"YUV4MPEG2 W13 H9 C420p12\n".to_vec();
    let mut y4m_lumas = Vec::new();
    for i in 0..5 {
        let line = format!("FRAME{}\n", " Ixx".repeat(i));
        let (body, lumas) = pattern_video(&format, i + 1, line.as_bytes());
        y4m.extend_from_slice(&body[body.len() / (i + 1) * i..]);
        y4m_lumas.push(lumas[i].clone());
    }
    for (name, data, lumas, raw) in [
        ("clip.yuv", raw, raw_lumas, Some(format.into())),
        ("clip.y4m", y4m, y4m_lumas, None),
    ] {
        let (_dir, path) = temp(name, &data);
        let mut r = open_input(&path, raw).unwrap();
        // Frame numbers stay absolute after the reader moves.
        r.skip(2).unwrap();
        let index = r.frame_index().unwrap();
        assert_eq!(index.len(), 5);
        assert_eq!(index.format(), format);
        std::thread::scope(|s| {
            for t in 0..3u64 {
                let index = index.clone();
                let lumas = &lumas;
                s.spawn(move || {
                    let mut buf = vec![0u8; format.luma_bytes()];
                    for f in (0..5u64).rev().filter(|f| f % 3 == t) {
                        index.read_luma_at(f, &mut buf).unwrap();
                        assert_eq!(buf, lumas[f as usize], "{name} frame {f}");
                    }
                });
            }
        });
        // The reader itself was not moved by the index.
        assert_eq!(r.read_frame().unwrap().unwrap().bytes, lumas[2]);
        let mut buf = vec![0u8; format.luma_bytes()];
        assert!(matches!(
            index.read_luma_at(5, &mut buf),
            Err(Error::InvalidOption(_))
        ));
        // A file that shrinks after it was indexed.
        shrink(&path, index.luma_offset(4).unwrap() + 10);
        assert!(matches!(
            index.read_luma_at(4, &mut buf),
            Err(Error::TruncatedFrame {
                frame: 4,
                leftover: 10,
                ..
            })
        ));
    }
}

/// Cuts the file at `path` to `len` bytes (a file that shrank after it was
/// indexed).
fn shrink(path: &std::path::Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// Reads through a bounce buffer of any size give what the direct reads
/// give, luma alone and whole frames; a file that shrank is the same error.
#[test]
fn frame_index_reads_through_a_bounce_buffer_as_directly() {
    let format = VideoFormat::new(13, 9, 10, Chroma::C420).unwrap();
    let (raw, _) = pattern_video(&format, 3, b"");
    let (_dir, path) = temp("bounce.yuv", &raw);
    let r = open_input(&path, Some(format.into())).unwrap();
    let index = r.frame_index().unwrap();
    for planes in [false, true] {
        let len = if planes {
            format.planes_bytes()
        } else {
            format.luma_bytes()
        };
        for frame in 0..3u64 {
            let mut direct = vec![0u8; len];
            if planes {
                index.read_planes_at_unchecked(frame, &mut direct).unwrap();
            } else {
                index.read_luma_at_unchecked(frame, &mut direct).unwrap();
            }
            for bounce_len in [0, 1, 7, 64, len - 1, len, 3 * len] {
                let mut bounce = vec![0u8; bounce_len];
                let mut through = vec![0xa5u8; len];
                index
                    .read_at_through(frame, &mut through, planes, &mut bounce)
                    .unwrap();
                assert_eq!(
                    through, direct,
                    "frame {frame}, planes {planes}, bounce {bounce_len}"
                );
            }
        }
    }
    let mut dst = vec![0u8; format.planes_bytes()];
    assert!(matches!(
        index.read_at_through(3, &mut dst, true, &mut [0u8; 16]),
        Err(Error::InvalidOption(_))
    ));
    shrink(&path, index.luma_offset(2).unwrap() + 20);
    assert!(matches!(
        index.read_at_through(2, &mut dst, true, &mut [0u8; 16]),
        Err(Error::TruncatedFrame {
            frame: 2,
            leftover: 20,
            ..
        })
    ));
}

#[cfg(unix)]
#[test]
fn pipes_have_no_frame_index() {
    let (data, _) = y4m_clip("YUV4MPEG2 W4 H4", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap()
        .success());
    let writer_path = path.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(writer_path)
            .unwrap();
        f.write_all(&data).unwrap();
    });
    let mut r = open_input(&path, None).unwrap();
    assert!(r.frame_index().is_none());
    assert!(r.read_frame().unwrap().is_some());
    writer.join().unwrap();
}

/// Y4M and raw inputs have one stream, and are not resized: asking for
/// another stream, or for another size, is an error naming the file.
#[test]
fn decode_options_on_single_stream_inputs() {
    let (data, _) = y4m_clip("YUV4MPEG2 W8 H4 F25:1 C420", 2);
    let (_dir, path) = temp("clip.y4m", &data);
    let second = DecodeOptions {
        stream: Some(1),
        ..DecodeOptions::default()
    };
    match open_input_with(&path, None, &second).err() {
        Some(Error::NoSuchStream {
            path: p,
            index: 1,
            count: 1,
        }) => assert_eq!(p, path),
        other => panic!("{other:?}"),
    }
    let first = DecodeOptions {
        stream: Some(0),
        ..DecodeOptions::default()
    };
    assert!(open_input_with(&path, None, &first).is_ok());
    let resize = |width, height| DecodeOptions {
        resize: Some(Resize {
            width,
            height,
            algorithm: ScaleAlgorithm::Lanczos,
        }),
        ..DecodeOptions::default()
    };
    match open_input_with(&path, None, &resize(16, 8)).err() {
        Some(Error::Unsupported(m)) => assert!(m.contains("clip.y4m") && m.contains("16x8"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(open_input_with(&path, None, &resize(8, 4)).is_ok());
}

#[test]
fn scale_algorithm_names_round_trip() {
    for a in ScaleAlgorithm::ALL {
        assert_eq!(a.name().parse::<ScaleAlgorithm>().unwrap(), a);
    }
    assert!(matches!(
        "sinc".parse::<ScaleAlgorithm>(),
        Err(Error::Unsupported(m)) if m.contains("bicubic")
    ));
}
