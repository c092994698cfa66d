//! Fuzzing of the Y4M and raw YUV readers with proptest (a bounded number of
//! cases, so it runs with the other tests): arbitrary bytes, valid streams with
//! mutations, and headers or raw formats claiming frames far larger than the
//! bytes that follow, read from a seekable input (a `Cursor`) and from a pipe
//! (a reader handing out a few bytes per call).
//!
//! Each case checks that reading never panics, that the largest single
//! allocation stays within a bound set by the input's size (not by what its
//! header claims), that every frame returned is a whole luma plane of the
//! format, and that the file and pipe readers agree: both succeed with the same
//! frames, or both fail.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{self, Cursor, Read};

use proptest::prelude::*;
use vkssim::io::{Chroma, LumaReader, VideoFormat, Y4mReader, YuvReader};
use vkssim::Error;

/// The system allocator, noting the largest single request made by each thread
/// (allocations and the new size of reallocations).
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // try_with: a thread being torn down has no slot left; nothing to note then.
    let _ = LARGEST.try_with(|c| c.set(c.get().max(size)));
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; noting a size touches only a thread-local `Cell` (const-initialised,
// so it never allocates).
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this allocator) with
        // `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as for `dealloc`, and the caller upholds `realloc`'s contract
        // for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// Runs `f` and returns its result with the largest single allocation it made.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|c| c.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

/// The most a reader may take at once for an input of `len` bytes: the pipe
/// reader's buffer (256 KiB), the first chunk of a plane (64 KiB), a header line
/// (64 KiB, doubled while growing), and a few times the input itself.
fn bound(len: usize) -> usize {
    (1 << 20) + 4 * len
}

/// A pipe: at most `chunk` bytes per read.
struct Pipe {
    inner: Cursor<Vec<u8>>,
    chunk: usize,
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk);
        self.inner.read(&mut buf[..n])
    }
}

/// What reading an input to its end gave: the luma planes, then `Ok` at a clean
/// end or the error that stopped it (at open or at a frame).
type Outcome = (Vec<Vec<u8>>, Result<(), Error>);

/// Reads every frame of `reader`, checking each is a whole luma plane.
fn drain(reader: Result<impl LumaReader, Error>) -> Outcome {
    let mut r = match reader {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Err(e)),
    };
    let luma = r.format().luma_bytes();
    let mut frames = Vec::new();
    loop {
        match r.read_frame() {
            Ok(Some(f)) => {
                assert_eq!(f.bytes.len(), luma, "a frame is a whole luma plane");
                frames.push(f.bytes);
            }
            Ok(None) => return (frames, Ok(())),
            Err(e) => return (frames, Err(e)),
        }
    }
}

/// Reads `data` as Y4M from a file and from a pipe; checks the bound and that
/// they agree. Returns the file's outcome.
fn y4m_both(data: &[u8], chunk: usize) -> Outcome {
    let (file, a) = largest_allocation(|| {
        drain(Y4mReader::from_seekable(
            Cursor::new(data.to_vec()),
            "f.y4m",
        ))
    });
    let pipe = Pipe {
        inner: Cursor::new(data.to_vec()),
        chunk,
    };
    let (stream, b) = largest_allocation(|| drain(Y4mReader::from_stream(pipe, "-")));
    agree(data, &file, &stream, a.max(b));
    file
}

/// Reads `data` as raw YUV of `format` from a file and from a pipe, like
/// [`y4m_both`].
fn raw_both(data: &[u8], format: VideoFormat, chunk: usize) -> Outcome {
    let (file, a) = largest_allocation(|| {
        drain(YuvReader::from_seekable(
            Cursor::new(data.to_vec()),
            "f.yuv",
            format,
        ))
    });
    let pipe = Pipe {
        inner: Cursor::new(data.to_vec()),
        chunk,
    };
    let (stream, b) = largest_allocation(|| drain(YuvReader::from_stream(pipe, "-", format)));
    agree(data, &file, &stream, a.max(b));
    file
}

fn agree(data: &[u8], file: &Outcome, stream: &Outcome, largest: usize) {
    assert!(
        largest <= bound(data.len()),
        "{largest} bytes allocated at once for an input of {} bytes",
        data.len()
    );
    assert_eq!(
        file.1.is_ok(),
        stream.1.is_ok(),
        "file {:?} vs pipe {:?}",
        file.1,
        stream.1
    );
    if file.1.is_ok() {
        assert_eq!(
            file.0, stream.0,
            "the file and the pipe give the same frames"
        );
    }
    let read: usize = file.0.iter().map(Vec::len).sum();
    assert!(read <= data.len(), "more luma than input");
}

/// Widths and heights: small ones that fit the bytes, and huge claims.
fn dimension() -> impl Strategy<Value = u32> {
    prop_oneof![1u32..12, Just(65536u32), 1000u32..65537]
}

/// A Y4M header line's tags, valid and not, sizes often far beyond the data.
fn y4m_header() -> impl Strategy<Value = Vec<u8>> {
    let tag = prop_oneof![
        dimension().prop_map(|w| format!("W{w}")),
        dimension().prop_map(|h| format!("H{h}")),
        prop::sample::select(vec![
            "C420",
            "C420p16",
            "C444p16",
            "C444alpha",
            "Cmono",
            "Cmono16",
            "C422p10",
            "C411",
            "Cxyz",
        ])
        .prop_map(str::to_string),
        "F[0-9]{1,3}:[0-9]{1,2}|A[0-9]:[0-9]|I[p?tb]|X[ -~]{0,6}|[ -~]{0,4}",
    ];
    // Mostly a W and an H first, so that most headers get as far as the frames.
    let size = prop::option::weighted(0.9, (dimension(), dimension()))
        .prop_map(|wh| wh.map_or(String::new(), |(w, h)| format!("W{w} H{h}")));
    (size, prop::collection::vec(tag, 0..4))
        .prop_map(|(size, tags)| format!("YUV4MPEG2 {size} {}\n", tags.join(" ")).into_bytes())
}

/// Frames' bytes: FRAME lines (good and bad) and arbitrary payload.
fn y4m_body() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(b"FRAME\n".to_vec()),
            Just(b"FRAME Ip XA=1\n".to_vec()),
            Just(b"FRAMEX\n".to_vec()),
            prop::collection::vec(any::<u8>(), 0..300),
        ],
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

/// Mutations of a byte string: flips, cuts and insertions at random places.
#[derive(Debug, Clone)]
enum Edit {
    Flip(prop::sample::Index, u8),
    Cut(prop::sample::Index),
    Insert(prop::sample::Index, Vec<u8>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        any::<prop::sample::Index>().prop_map(Edit::Cut),
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<u8>(), 1..8)
        )
            .prop_map(|(i, b)| Edit::Insert(i, b)),
    ]
}

fn apply(data: &mut Vec<u8>, edits: &[Edit]) {
    for e in edits {
        match e {
            Edit::Flip(i, b) if !data.is_empty() => {
                let i = i.index(data.len());
                data[i] ^= b | 1;
            }
            Edit::Cut(i) => data.truncate(i.index(data.len() + 1)),
            Edit::Insert(i, bytes) => {
                let at = i.index(data.len() + 1);
                data.splice(at..at, bytes.iter().copied());
            }
            Edit::Flip(..) => {}
        }
    }
}

/// A valid 8-bit 4:2:0 Y4M stream of `frames` frames of `w` x `h`.
fn valid_y4m(w: u32, h: u32, frames: usize, seed: u8) -> Vec<u8> {
    let mut data = format!("YUV4MPEG2 W{w} H{h} F25:1 C420\n").into_bytes();
    let size = (w * h + 2 * w.div_ceil(2) * h.div_ceil(2)) as usize;
    for k in 0..frames {
        data.extend_from_slice(b"FRAME\n");
        data.extend((0..size).map(|i| (i as u8).wrapping_mul(seed).wrapping_add(k as u8)));
    }
    data
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..600), chunk in 1usize..64) {
        let (frames, result) = y4m_both(&data, chunk);
        if !data.starts_with(b"YUV4MPEG2 ") {
            prop_assert!(matches!(result, Err(Error::Y4mHeader { .. })), "{:?}", result);
        }
        prop_assert!(in_order(&data, &frames));
        let format = VideoFormat::new(3, 2, 8, Chroma::C420).unwrap();
        raw_oracle(&data, format, raw_both(&data, format, chunk))?;
    }

    #[test]
    fn y4m_headers_and_bodies(head in y4m_header(), body in y4m_body(), chunk in 1usize..64) {
        let mut data = head;
        data.extend(body);
        let (frames, _) = y4m_both(&data, chunk);
        prop_assert!(in_order(&data, &frames));
    }

    #[test]
    fn mutated_y4m_streams(
        w in 1u32..9,
        h in 1u32..9,
        frames in 0usize..4,
        seed in any::<u8>(),
        edits in prop::collection::vec(edit(), 1..4),
        chunk in 1usize..64,
    ) {
        let mut data = valid_y4m(w, h, frames, seed);
        apply(&mut data, &edits);
        let (frames, _) = y4m_both(&data, chunk);
        prop_assert!(in_order(&data, &frames));
    }

    #[test]
    fn raw_formats_against_their_bytes(
        w in dimension(),
        h in dimension(),
        chroma in 0usize..Chroma::ALL.len(),
        bit_depth in prop::sample::select(vec![8u32, 10, 12, 16]),
        data in prop::collection::vec(any::<u8>(), 0..2000),
        chunk in 1usize..300,
    ) {
        let format = VideoFormat::new(w, h, bit_depth, Chroma::ALL[chroma]).unwrap();
        raw_oracle(&data, format, raw_both(&data, format, chunk))?;
    }
}

/// Raw YUV has an exact oracle: the whole frames the bytes hold, or an error
/// saying why not.
fn raw_oracle(
    data: &[u8],
    format: VideoFormat,
    (frames, result): Outcome,
) -> Result<(), TestCaseError> {
    let per = format.frame_bytes() as usize;
    match result {
        Ok(()) => {
            prop_assert_eq!(data.len() % per, 0);
            prop_assert_eq!(frames.len(), data.len() / per);
            for (k, f) in frames.iter().enumerate() {
                prop_assert_eq!(&f[..], &data[k * per..k * per + format.luma_bytes()]);
            }
        }
        Err(Error::TruncatedFrame {
            frame,
            leftover,
            frame_bytes,
            ..
        }) => {
            prop_assert_eq!(frame, (data.len() / per) as u64);
            prop_assert_eq!(leftover, (data.len() % per) as u64);
            prop_assert_eq!(frame_bytes, per as u64);
        }
        Err(Error::SampleRange { .. }) => {
            prop_assert!(format.bit_depth == 10 || format.bit_depth == 12)
        }
        Err(e) => prop_assert!(false, "unexpected error {e}"),
    }
    Ok(())
}

/// Whether every plane is a run of `data`'s bytes, each after the one before:
/// what a reader returns comes from its input, in order.
fn in_order(data: &[u8], planes: &[Vec<u8>]) -> bool {
    let mut from = 0;
    for p in planes {
        match data[from..].windows(p.len()).position(|w| w == &p[..]) {
            Some(i) => from += i + p.len(),
            None => return false,
        }
    }
    true
}

/// The case of the issue: a header claiming 65536x65536 16-bit frames (8 GiB of
/// luma each), then a few bytes. Both readers report the truncated frame 0
/// having taken memory for the bytes that came, not for the claim.
#[test]
fn a_huge_claim_then_a_few_bytes_costs_only_those_bytes() {
    let mut y4m = b"YUV4MPEG2 W65536 H65536 F25:1 C420p16\nFRAME\n".to_vec();
    y4m.extend([7u8; 10]);
    match y4m_both(&y4m, 4096).1 {
        Err(Error::TruncatedFrame {
            frame: 0, leftover, ..
        }) => assert_eq!(leftover, 16),
        other => panic!("{other:?}"),
    }
    let raw = VideoFormat::new(65536, 65536, 16, Chroma::C420).unwrap();
    match raw_both(&[1u8; 100], raw, 4096).1 {
        Err(Error::TruncatedFrame {
            frame: 0,
            leftover: 100,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // An empty input of a huge format: the end is found before any plane.
    assert_eq!(raw_both(&[], raw, 4096).0.len(), 0);
    // A whole small frame after the claim of a huge one still fails, as truncated.
    let mut piped = b"YUV4MPEG2 W65536 H65536 C420p16\nFRAME\n".to_vec();
    piped.extend(vec![0u8; 300_000]);
    let pipe = Pipe {
        inner: Cursor::new(piped),
        chunk: 65536,
    };
    let (outcome, largest) = largest_allocation(|| drain(Y4mReader::from_stream(pipe, "-")));
    assert!(
        matches!(outcome.1, Err(Error::TruncatedFrame { frame: 0, .. })),
        "{:?}",
        outcome.1
    );
    assert!(largest <= bound(300_000), "{largest}");
}
