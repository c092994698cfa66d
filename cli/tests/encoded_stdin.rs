//! Encoded inputs on standard input (`-r -` or `-d -`): an MP4, MKV or
//! MPEG-TS stream piped in is recognised by its content and scored as the
//! same file named on the command line is; an MP4 whose index follows its
//! frames cannot come through a pipe, and the error says so (redirected from
//! the file, it can). Y4M and raw YUV on standard input are the other test
//! files' (pipeline.rs, input_safety.rs).
#![cfg(feature = "ffmpeg")]

mod common;
mod encoded_clips;

use std::process::{Command, Stdio};

use common::{assert_fails, assert_ok, run, run_cmd, s, vkssim};
use encoded_clips::{encoded, ffmpeg, score_args as args, without_fps};

/// The output of the pair scored as files (every line but fps), checked
/// to hold the 12 frames' float_ssim lines and the pooled one.
fn scored_as_files(
    dir: &std::path::Path,
    reference: &std::path::Path,
    distorted: &std::path::Path,
) -> String {
    let files_out = dir.join("files.json");
    assert_ok(&run(&args(s(reference), s(distorted), &files_out), None));
    let expected = without_fps(&files_out);
    assert!(
        expected.matches("\"float_ssim\"").count() > 12,
        "{expected}"
    );
    expected
}

/// The pair as files, then each container piped in as the reference, and as
/// the distorted input: the same output file every time.
#[test]
fn mp4_mkv_and_ts_piped_in_score_as_the_files_do() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded(
        "stdin-ref.mp4",
        "192x108",
        12,
        "-c:v libx264 -crf 12 -bf 2 -movflags +faststart",
    );
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let expected = scored_as_files(dir.path(), &reference, &distorted);

    let mkv = dir.path().join("ref.mkv");
    let ts = dir.path().join("ref.ts");
    for remuxed in [&mkv, &ts] {
        ffmpeg(&["-i", s(&reference), "-c", "copy", s(remuxed)]);
    }
    for piped in [&reference, &mkv, &ts] {
        let bytes = std::fs::read(piped).unwrap();
        let out = dir.path().join("piped-ref.json");
        assert_ok(&run(&args("-", s(&distorted), &out), Some(&bytes)));
        assert_eq!(without_fps(&out), expected, "{} piped", piped.display());
    }
    let bytes = std::fs::read(&distorted).unwrap();
    let out = dir.path().join("piped-dist.json");
    assert_ok(&run(&args(s(&reference), "-", &out), Some(&bytes)));
    assert_eq!(without_fps(&out), expected, "the distorted MKV piped");
}

/// An MP4 whose index (moov) follows its frames: through a pipe, an error
/// that says why and what to do, status 1; redirected from the file (which
/// can seek), scored.
#[test]
fn an_mp4_with_its_index_at_the_end_cannot_come_through_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let at_end = encoded("moov-at-end.mp4", "192x108", 12, "-c:v libx264 -crf 12");
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let out = dir.path().join("out.json");
    let bytes = std::fs::read(&at_end).unwrap();
    let o = run(&args("-", s(&distorted), &out), Some(&bytes));
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(
        &o,
        &[
            "the reference",
            "index (its moov box) follows its frames",
            "cannot be read from a pipe",
            "-movflags +faststart",
        ],
    );

    let files_out = dir.path().join("files.json");
    assert_ok(&run(&args(s(&at_end), s(&distorted), &files_out), None));
    let redirected = Stdio::from(std::fs::File::open(&at_end).unwrap());
    let mut cmd: Command = vkssim();
    cmd.args(args("-", s(&distorted), &out)).stdin(redirected);
    assert_ok(&run_cmd(&mut cmd, None));
    assert_eq!(without_fps(&out), without_fps(&files_out));
}

/// Bytes that no demuxer knows, piped in without a raw layout: an error
/// naming standard input and what raw YUV would need, never a panic.
#[test]
fn unknown_bytes_piped_in_say_what_they_would_need() {
    let dir = tempfile::tempdir().unwrap();
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let out = dir.path().join("out.json");
    let noise: Vec<u8> = (0..20_000u32).map(|i| (i * 7919 % 251) as u8).collect();
    let o = run(&args("-", s(&distorted), &out), Some(&noise));
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(&o, &["the reference", "width, height, pixel format"]);
}

/// Writes `bytes` into the FIFO `fifo` on a thread of its own (the open
/// waits for vkssim to open the read end); [`Writer::finish`] releases a
/// writer still waiting (vkssim stopped before opening it) and joins it.
struct Writer {
    fifo: std::path::PathBuf,
    thread: std::thread::JoinHandle<()>,
}

impl Writer {
    fn start(fifo: &std::path::Path, bytes: Vec<u8>) -> Self {
        let made = Command::new("mkfifo").arg(fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo {}", fifo.display());
        let path = fifo.to_path_buf();
        let thread = std::thread::spawn(move || {
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) {
                // vkssim may stop reading early (an error): a broken pipe is
                // not this test's failure.
                let _ = f.write_all(&bytes);
            }
        });
        Writer {
            fifo: fifo.to_path_buf(),
            thread,
        }
    }

    fn finish(self) {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening the read end without waiting lets a blocked writer's open
        // return; it then writes into a pipe that this end closes.
        let _reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.fifo);
        self.thread.join().expect("the FIFO writer");
    }
}

/// Both inputs through named FIFOs (an MKV reference, an MPEG-TS distorted,
/// as `mkfifo` and a producer would give them): recognised by their content
/// and scored as the files are; an MP4 whose index follows its frames,
/// through a FIFO, is the pipe's error naming the FIFO.
#[test]
fn encoded_inputs_through_named_fifos_score_as_the_files_do() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded("fifo-ref.mkv", "192x108", 12, "-c:v libx264 -crf 12 -bf 2");
    let distorted = encoded("fifo-dist.ts", "192x108", 12, "-c:v libx264 -crf 40");
    let expected = scored_as_files(dir.path(), &reference, &distorted);

    let (rf, df) = (dir.path().join("ref.fifo"), dir.path().join("dist.fifo"));
    let writers = [
        Writer::start(&rf, std::fs::read(&reference).unwrap()),
        Writer::start(&df, std::fs::read(&distorted).unwrap()),
    ];
    let out = dir.path().join("fifos.json");
    let o = run(&args(s(&rf), s(&df), &out), None);
    writers.into_iter().for_each(Writer::finish);
    assert_ok(&o);
    assert_eq!(without_fps(&out), expected, "both inputs through FIFOs");

    let at_end = encoded("moov-at-end.mp4", "192x108", 12, "-c:v libx264 -crf 12");
    let af = dir.path().join("at-end.fifo");
    let writer = Writer::start(&af, std::fs::read(&at_end).unwrap());
    let o = run(&args(s(&af), s(&distorted), &out), None);
    writer.finish();
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(&o, &["at-end.fifo", "cannot be read from a pipe"]);
}
