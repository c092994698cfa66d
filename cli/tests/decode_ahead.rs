//! Decoding ahead (an encoded regular file's frames are decoded on a thread
//! of their own, `vkssim-decode-<file name>`, into a bounded queue): where it
//! can go wrong. A reader dropped mid-stream (its thread blocked on a full
//! queue) stops and joins its thread at once; frames, errors and their order
//! (a damaged stream's error after the same good frames, with the same
//! message and frame number) are those of inline decoding, which a FIFO
//! gets; skipping reads the same frames as reading.
//!
//! The tests count the process's decoding threads by name, so they run one
//! at a time (a lock).
#![cfg(all(feature = "ffmpeg", target_os = "linux"))]

mod common;
mod encoded_clips;

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use encoded_clips::{damaged, encoded};
use vkssim::io::ffmpeg::FfmpegReader;
use vkssim::io::{open_input_with, Check, DecodeErrors, DecodeOptions, LumaReader, Planes};

/// Held by each test: the thread counts are the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process's threads whose name starts `vkssim-decode` (Linux keeps 15
/// bytes of a name: `vkssim-decode-` and the file name's first letter).
fn decoding_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("vkssim-decode"))
        .count()
}

/// Waits up to 20 s for `decoding_threads()` to be `n`; panics otherwise.
fn wait_for_threads(n: usize, what: &str) {
    let start = Instant::now();
    while decoding_threads() != n {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what}: {} decoding threads, not {n}",
            decoding_threads()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A read's outcome: the luma, the end, or the error's words.
#[derive(Debug, PartialEq)]
enum Read {
    Frame(Vec<u8>),
    End,
    Error(String),
}

/// Every read of `r` until its end, errors included in their places (at most
/// `limit` reads; the input's name in an error's words becomes `INPUT`).
fn reads(r: &mut dyn LumaReader, limit: usize) -> Vec<Read> {
    let name = r.path().display().to_string();
    let mut luma = vec![0u8; r.format().luma_bytes()];
    let mut all = Vec::new();
    while all.len() < limit {
        let read = match r.read(&mut luma, Planes::Luma, Check::Range) {
            Ok(true) => Read::Frame(luma.clone()),
            Ok(false) => Read::End,
            Err(e) => Read::Error(e.to_string().replace(&name, "INPUT")),
        };
        let end = read == Read::End;
        all.push(read);
        if end {
            break;
        }
    }
    all
}

/// [`reads`] of `path` through a FIFO (decoded inline: a pipe is never
/// decoded ahead), checking that no decoding thread runs meanwhile.
fn reads_inline(path: &Path, options: &DecodeOptions, limit: usize) -> Vec<Read> {
    wait_for_threads(0, "before reading a FIFO");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.mkv");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let data = std::fs::read(path).unwrap();
    let to = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(to).unwrap();
        // The reader may stop early: a broken pipe is no failure here.
        let _ = f.write_all(&data);
    });
    let mut r = FfmpegReader::open(&fifo, options).unwrap();
    let all = reads(&mut r, limit);
    assert_eq!(decoding_threads(), 0, "a FIFO was decoded ahead");
    drop(r);
    writer.join().unwrap();
    all
}

/// Dropping a reader stops its decoding thread and joins it, whether the
/// thread is blocked on a full queue, decoding, or not started (a reader
/// that read nothing has none); the drop takes no longer than a frame's
/// decoding, never hangs.
#[test]
fn dropping_a_reader_mid_stream_stops_and_joins_its_thread() {
    let _one = one_at_a_time();
    let clip = encoded("ahead-drop.mkv", "320x180", 120, "-c:v libx264 -g 30 -bf 2");
    let options = DecodeOptions::default();
    wait_for_threads(0, "before");

    // Opened, nothing read: decoding has not moved to a thread.
    let r = open_input_with(&clip, None, &options).unwrap();
    assert_eq!(decoding_threads(), 0, "a thread before the first read");
    drop(r);

    for read in [1, 3, 60] {
        let mut r = open_input_with(&clip, None, &options).unwrap();
        let mut luma = vec![0u8; r.format().luma_bytes()];
        for _ in 0..read {
            assert!(r.read(&mut luma, Planes::Luma, Check::Range).unwrap());
        }
        wait_for_threads(1, "reading");
        // Time for the queue to fill: the thread then waits to hand over.
        std::thread::sleep(Duration::from_millis(300));
        let (done, dropped) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            drop(r);
            let _ = done.send(());
        });
        dropped
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("dropping the reader after {read} frames hangs"));
        wait_for_threads(0, "after the drop");
    }

    // Read to the end: the thread ends by itself.
    let mut r = open_input_with(&clip, None, &options).unwrap();
    let all = reads(&mut *r, 1000);
    assert_eq!(all.len(), 121);
    assert_eq!(all.last(), Some(&Read::End));
    wait_for_threads(0, "at the end");
    assert_eq!(reads(&mut *r, 10), vec![Read::End], "a read after the end");
}

/// A damaged stream read ahead gives the same frames, then the same errors
/// (message and frame number) in the same places, as read inline: the
/// error comes after the frames decoded before it, none lost or added, and
/// decoding goes on after it as inline (one decoder thread, so that the
/// decoder's own reports come in one order).
#[test]
fn a_damaged_streams_errors_come_after_the_same_frames_ahead_as_inline() {
    let _one = one_at_a_time();
    let clean = encoded("ahead-clean.mkv", "192x108", 40, "-c:v libx264 -g 10 -bf 2");
    let bad = damaged(&clean, "ahead-damaged.mkv");
    for errors in [DecodeErrors::Error, DecodeErrors::Conceal] {
        let options = DecodeOptions {
            errors,
            threads: 1,
            ..DecodeOptions::default()
        };
        let inline = reads_inline(&bad, &options, 200);
        let mut r = open_input_with(&bad, None, &options).unwrap();
        let ahead = reads(&mut *r, 200);
        let frames = |all: &[Read]| all.iter().filter(|r| matches!(r, Read::Frame(_))).count();
        let failures: Vec<&Read> = ahead
            .iter()
            .filter(|r| matches!(r, Read::Error(_)))
            .collect();
        match errors {
            DecodeErrors::Error => {
                let first = ahead.iter().position(|r| matches!(r, Read::Error(_)));
                let first = first.expect("the damaged clip decoded without an error");
                assert!(first > 0, "no good frame before the error");
                let Read::Error(e) = &ahead[first] else {
                    unreachable!()
                };
                assert!(e.starts_with("INPUT: frame "), "{e}");
            }
            DecodeErrors::Conceal => {
                assert!(failures.is_empty(), "concealing: {failures:?}");
                assert_eq!(frames(&ahead), 40);
            }
        }
        assert_eq!(ahead.len(), inline.len(), "{errors:?}: reads");
        for (i, (a, b)) in ahead.iter().zip(&inline).enumerate() {
            assert!(a == b, "{errors:?}: read {i} differs: {a:?} / {b:?}");
        }
        drop(r);
    }
}

/// Skipping frames (before the first read, between reads, past the end)
/// reads the same frames as reading them all.
#[test]
fn skipping_reads_the_same_frames_as_reading() {
    let _one = one_at_a_time();
    let clip = encoded(
        "ahead-skip.mp4",
        "192x108",
        30,
        "-c:v libx264 -g 10 -bf 3 -movflags +faststart",
    );
    let options = DecodeOptions::default();
    let mut r = open_input_with(&clip, None, &options).unwrap();
    let all = reads(&mut *r, 100);
    assert_eq!(all.len(), 31);
    assert_eq!(reads_inline(&clip, &options, 100), all, "inline");

    let mut r = open_input_with(&clip, None, &options).unwrap();
    let mut luma = vec![0u8; r.format().luma_bytes()];
    assert_eq!(r.skip(5).unwrap(), 5);
    assert!(r.read(&mut luma, Planes::Luma, Check::Range).unwrap());
    assert_eq!(Read::Frame(luma.clone()), all[5]);
    assert_eq!(r.skip(10).unwrap(), 10);
    assert!(r.read(&mut luma, Planes::Luma, Check::Range).unwrap());
    assert_eq!(Read::Frame(luma.clone()), all[16]);
    assert_eq!(r.frames_read(), 17);
    assert_eq!(r.skip(100).unwrap(), 13, "past the end");
    assert!(!r.read(&mut luma, Planes::Luma, Check::Range).unwrap());
    drop(r);
    wait_for_threads(0, "after skipping");
}
