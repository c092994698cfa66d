//! The library's one error enum. Every failure a caller can see is a variant here,
//! worded so that the message alone tells the user which file, which frame and
//! what is wrong.

use std::path::PathBuf;
use std::sync::Arc;

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in vkssim. Errors are `Clone` (an I/O error
/// is shared), so one error can be handed to every user of a failed read.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Opening, reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A raw YUV file ends inside a frame.
    #[error("{path}: frame {frame} is incomplete: the input ends {leftover} bytes into it ({frame_bytes} bytes per frame); the file size is not a whole number of frames")]
    TruncatedFrame {
        /// The file.
        path: PathBuf,
        /// Index of the incomplete frame.
        frame: u64,
        /// Bytes of that frame that were present.
        leftover: u64,
        /// Bytes one whole frame takes.
        frame_bytes: u64,
    },
    /// An input holds no byte at all (an empty file, or standard input empty or
    /// closed), where a Y4M header or raw frames were expected.
    #[error("{}: {} is empty (0 bytes); expected {expected}", .path.display(), empty_input_name(.path))]
    EmptyInput {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// What the input should have held, for the message.
        expected: String,
    },
    /// A Y4M stream header is malformed or names something unsupported.
    #[error("{path}: bad Y4M header: {reason}")]
    Y4mHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A Y4M FRAME line is malformed.
    #[error("{path}: frame {frame}: bad Y4M FRAME line: {reason}")]
    Y4mFrame {
        /// The file.
        path: PathBuf,
        /// Index of the frame.
        frame: u64,
        /// What is wrong.
        reason: String,
    },
    /// A format, bit depth or option vkssim does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An option value is out of range or inconsistent.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// A 10 or 12-bit sample is larger than its bit depth allows (see `io::range`).
    #[error("{}: frame {frame}: the {}sample at x={x}, y={y} is {value}, above {max}, the largest {bit_depth}-bit value; is the bit depth right, and the file little-endian?", sample_place(.plane, .at), component.prefix())]
    SampleRange {
        /// Which plane of the pair, where the finder knows it (a reader of a
        /// file does not: the file names it).
        plane: Option<PlaneRole>,
        /// Which plane of the picture: luma, Cb or Cr (`x` and `y` are within
        /// it).
        component: Component,
        /// Where the plane was read.
        at: SampleAt,
        /// Index of the frame.
        frame: u64,
        /// Column of the sample.
        x: u32,
        /// Row of the sample.
        y: u32,
        /// The sample as read.
        value: u32,
        /// The largest value the bit depth allows.
        max: u32,
        /// The bit depth.
        bit_depth: u32,
    },
    /// Reference and distorted differ in width, height or bit depth.
    #[error("reference and distorted differ: {0}")]
    GeometryMismatch(String),
    /// Reference and distorted have a different number of frames.
    #[error("reference has {} but distorted has {distorted} ({common} in common)", crate::words::count(*.reference, "frame"))]
    LengthMismatch {
        /// Frames in the reference.
        reference: u64,
        /// Frames in the distorted.
        distorted: u64,
        /// Frames both have.
        common: u64,
    },
    /// The input holds no frame to score.
    #[error("{0}: no frames to score")]
    NoFrames(String),
    /// The plane, after decimation, is smaller than the 11x11 Gaussian window.
    #[error("{} {width}x{height} plane at scale {scale} decimates to {scaled_width}x{scaled_height}, smaller than the 11x11 SSIM window", crate::words::article(u64::from(*.width)))]
    PlaneTooSmall {
        /// Luma width.
        width: u32,
        /// Luma height.
        height: u32,
        /// Decimation factor.
        scale: u32,
        /// Width after decimation.
        scaled_width: u32,
        /// Height after decimation.
        scaled_height: u32,
    },
    /// A metric cannot score frames of this size (`float_ms_ssim` needs an
    /// 11 x 11 plane at each of its five scales, so at least 176 x 176 luma).
    #[error("{feature} cannot score {} {width}x{height} frame: it needs at least {min_width}x{min_height} luma samples", crate::words::article(u64::from(*.width)))]
    FrameTooSmall {
        /// libvmaf's name of the metric.
        feature: &'static str,
        /// Luma width.
        width: u32,
        /// Luma height.
        height: u32,
        /// The smallest width it takes.
        min_width: u32,
        /// The smallest height it takes.
        min_height: u32,
    },
    /// A metric failed on a frame where libvmaf fails it too (for example an
    /// infinite MS-SSIM product).
    #[error("{feature}: {reason}")]
    MetricFailed {
        /// libvmaf's name of the metric.
        feature: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The Vulkan loader (libvulkan) could not be loaded or has no usable instance.
    #[error("no Vulkan: {0}; install libvulkan1 and a Vulkan driver (mesa-vulkan-drivers, or the GPU vendor's)")]
    NoVulkan(String),
    /// No Vulkan device is usable (none present, or no driver the loader can use).
    #[error("no usable Vulkan device: {0}")]
    NoDevice(String),
    /// The device index asked for is not one the loader lists.
    #[error("there is no Vulkan device {index}: the Vulkan loader lists {count} (indices from 0)")]
    NoSuchDevice {
        /// The index asked for.
        index: usize,
        /// How many devices the loader lists.
        count: usize,
    },
    /// Validation was asked for but the Khronos validation layer is not there.
    #[error("Vulkan validation was asked for but the Vulkan loader finds no VK_LAYER_KHRONOS_validation layer; install it (Debian and Ubuntu: vulkan-validationlayers)")]
    ValidationLayerMissing,
    /// The Vulkan device lacks a feature vkssim needs.
    #[error("Vulkan device {device} lacks {feature}, which vkssim needs")]
    MissingFeature {
        /// The device's name.
        device: String,
        /// The feature, as Vulkan names it (for example `shaderInt64`).
        feature: &'static str,
    },
    /// The Vulkan device was lost (driver reset, GPU hang or removal).
    #[error("the Vulkan device was lost while {0}")]
    DeviceLost(String),
    /// The Vulkan device ran out of memory.
    #[error("the Vulkan device ran out of memory while {0}; try fewer frames in flight, a larger scale, or the CPU backend")]
    OutOfDeviceMemory(String),
    /// The device memory allocator (gpu-allocator) failed for a reason other
    /// than running out of memory.
    #[error("allocating {what}: {source}")]
    Allocation {
        /// What was being allocated.
        what: String,
        /// The allocator's error.
        #[source]
        source: Arc<gpu_allocator::AllocationError>,
    },
    /// Host-visible memory vkssim made has no mapping (a driver that did not
    /// map it).
    #[error("{0} is not mapped into host memory")]
    NotMapped(String),
    /// Any other Vulkan failure.
    #[error("Vulkan error {result} while {context}")]
    Vulkan {
        /// The Vulkan result code.
        result: ash::vk::Result,
        /// What vkssim was doing.
        context: String,
    },
    /// The device's start-up arithmetic self-test failed: it cannot give exact results.
    #[error("the Vulkan device failed vkssim's arithmetic self-test: {0}; it cannot give exact results (the CPU backend can)")]
    SelfTestFailed(String),
    /// A buffer handed to the library does not match the geometry it claims.
    #[error("buffer of {actual} bytes is too small for {what} ({needed} bytes needed)")]
    BufferSize {
        /// What the buffer holds.
        what: String,
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        actual: usize,
    },
    /// An error on one engine of several ([`crate::api::MultiScorer`]): which
    /// engine, and what went wrong there.
    #[error("on {device}: {source}")]
    OnDevice {
        /// The engine, as its scorer was named: `Vulkan device 1 (name)`
        /// from [`crate::api::MultiScorer::new`], `the CPU twin`, ...
        device: String,
        /// What went wrong on it.
        source: Box<Error>,
    },
    /// A video decoder (Vulkan Video H.264) refused or failed on a stream.
    #[error("{path}: frame {frame}: H.264 decoding failed: {reason}")]
    VideoDecode {
        /// The stream.
        path: PathBuf,
        /// Frames of the stream decoded (in display order) before the failure.
        frame: u64,
        /// The decoder's message.
        reason: String,
    },
    /// An encoded input's container could not be opened or read by FFmpeg's
    /// libavformat (feature `ffmpeg`).
    #[error("{path}: cannot read it as a video container (FFmpeg's libavformat: {reason})")]
    Demux {
        /// The file.
        path: PathBuf,
        /// libavformat's message.
        reason: String,
    },
    /// An encoded input's container ends before its data does: a file cut
    /// short (a copy or download that stopped, a recording still being
    /// written). The frames decoded before the cut were delivered; a
    /// shorter input is not what this is, so no length option accepts it.
    #[error("{path}: the file is cut short: it ends before its data does ({reason}); {}", last_decoded(*.frames))]
    CutShort {
        /// The file.
        path: PathBuf,
        /// Frames decoded (delivered) before the cut; for
        /// `AnnexB` (feature `ffmpeg`), the packets (access units) read.
        frames: u64,
        /// How the cut shows: libavformat's message, or the container's
        /// index pointing past the file's end.
        reason: String,
    },
    /// An encoded stream whose frames change size or pixel format midway
    /// (a new sequence header): the frames before the change were delivered.
    #[error("{path}: the stream changes {what} at frame {frame}, from {from} to {to}, which vkssim does not score (it scores frames of one size and pixel format)")]
    StreamChange {
        /// The file.
        path: PathBuf,
        /// The first frame of the new size or format.
        frame: u64,
        /// `size`, `pixel format`, or `size and pixel format`.
        what: String,
        /// The stream's first frames' size or format (`64x48`, `yuv420p`).
        from: String,
        /// This frame's.
        to: String,
    },
    /// An encoded input holds no video stream.
    #[error("{path}: has no video stream (it holds {streams})")]
    NoVideoStream {
        /// The file.
        path: PathBuf,
        /// The streams it does hold, in words.
        streams: String,
    },
    /// A video stream other than the input's was asked for.
    #[error("{path}: there is no video stream {index}: it has {count} (numbered from 0)")]
    NoSuchStream {
        /// The file.
        path: PathBuf,
        /// The stream asked for, counting video streams from 0.
        index: usize,
        /// How many video streams it has.
        count: usize,
    },
    /// The FFmpeg libraries vkssim runs with have no decoder for the codec.
    #[error("{path}: {ffmpeg} has no decoder for its codec {codec}")]
    UnsupportedCodec {
        /// The file.
        path: PathBuf,
        /// FFmpeg's name of the codec (`none` when the container names one
        /// that FFmpeg does not know).
        codec: String,
        /// The FFmpeg libraries' version.
        ffmpeg: String,
    },
    /// FFmpeg's decoder refused a packet, or reported a frame as damaged
    /// (corrupt, or patched up by error concealment).
    #[error("{path}: frame {frame}: {codec} decoding failed: {reason}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Frames the decoder had output (in presentation order) before this
        /// one: the index of the frame that failed, or of the next frame when
        /// a packet failed or the decoder reported damage while decoding
        /// ahead (frame threads, reordering: the damaged frame is then this
        /// one or a later one; no frame from here on is delivered).
        frame: u64,
        /// The codec's name (`h264`).
        codec: String,
        /// The decoder's message (what FFmpeg logged, and its error code).
        reason: String,
    },
    /// Something failed that is a bug in vkssim, not bad input (e.g. a scoring
    /// worker thread panicked); the message says where.
    #[error("internal error (a bug in vkssim): {0}")]
    Internal(String),
}

/// Which plane of a reference-distorted pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlaneRole {
    /// The reference plane.
    Reference,
    /// The distorted plane.
    Distorted,
}

impl std::fmt::Display for PlaneRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlaneRole::Reference => "reference",
            PlaneRole::Distorted => "distorted",
        })
    }
}

/// Which plane of a picture: luma, Cb or Cr ([`Error::SampleRange`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    /// The luma (Y) plane.
    Luma,
    /// The blue-difference chroma plane.
    Cb,
    /// The red-difference chroma plane.
    Cr,
}

impl Component {
    /// The plane at `index` in a picture's order (0 luma, 1 Cb, 2 Cr; a
    /// larger index is Cr).
    pub fn at(index: usize) -> Self {
        match index {
            0 => Component::Luma,
            1 => Component::Cb,
            _ => Component::Cr,
        }
    }

    /// How a message names a sample of this plane: nothing for luma (the
    /// sample), `Cb ` or `Cr ` (the Cb sample).
    fn prefix(self) -> &'static str {
        match self {
            Component::Luma => "",
            Component::Cb => "Cb ",
            Component::Cr => "Cr ",
        }
    }
}

/// Where a plane with a sample out of range was read ([`Error::SampleRange`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SampleAt {
    /// A file (or `-`, standard input) read by one of [`crate::io`]'s readers.
    File(PathBuf),
    /// A frame slot the caller filled ([`crate::api::FrameSlot`]).
    Slot,
    /// A host plane the caller handed over ([`crate::api::HostPlane`]).
    HostPlane,
    /// A plane on the device, checked by the decimate pass.
    Device,
}

/// How [`Error::SampleRange`] names where its plane was.
fn sample_place(plane: &Option<PlaneRole>, at: &SampleAt) -> String {
    let role = |p: &Option<PlaneRole>| p.map_or("a".to_string(), |p| p.to_string());
    match at {
        SampleAt::File(path) => path.display().to_string(),
        SampleAt::Slot => format!("{} frame slot", role(plane)),
        SampleAt::HostPlane => format!("{} host plane", role(plane)),
        SampleAt::Device => format!("{} plane", role(plane)),
    }
}

/// How [`Error::CutShort`] names the last frame decoded.
fn last_decoded(frames: u64) -> String {
    match frames.checked_sub(1) {
        Some(last) => format!("the last frame decoded is frame {last}"),
        None => "no frame could be decoded from it".to_string(),
    }
}

/// How [`Error::EmptyInput`] names its input.
fn empty_input_name(path: &std::path::Path) -> &'static str {
    if path.as_os_str() == "-" {
        "standard input"
    } else {
        "the file"
    }
}

impl Error {
    /// Whether this error, from creating an engine or scorer, says the Vulkan
    /// engine cannot start on this machine: no loader, no usable driver or
    /// device, a device lacking a feature, or the loader, driver or device
    /// failing to initialise or running out of memory. An application may then
    /// score on the CPU twin ([`crate::cpu::CpuScorer`], the same numbers). Bad
    /// input, a failed self-test, a lost device or a device index that does not
    /// exist are not such errors.
    pub fn vulkan_unavailable(&self) -> bool {
        use ash::vk::Result as R;
        match self {
            Error::NoVulkan(_)
            | Error::NoDevice(_)
            | Error::MissingFeature { .. }
            | Error::OutOfDeviceMemory(_) => true,
            Error::Vulkan { result, .. } => matches!(
                *result,
                R::ERROR_OUT_OF_HOST_MEMORY
                    | R::ERROR_OUT_OF_DEVICE_MEMORY
                    | R::ERROR_INITIALIZATION_FAILED
                    | R::ERROR_INCOMPATIBLE_DRIVER
            ),
            _ => false,
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source: Arc::new(source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Result as R;

    fn vulkan(result: R) -> Error {
        Error::Vulkan {
            result,
            context: "creating the Vulkan device".into(),
        }
    }

    #[test]
    fn start_failures_say_vulkan_is_unavailable() {
        for e in [
            Error::NoVulkan("no loader".into()),
            Error::NoDevice("none listed".into()),
            Error::MissingFeature {
                device: "x".into(),
                feature: "shaderInt64",
            },
            Error::OutOfDeviceMemory("allocating the ring".into()),
            vulkan(R::ERROR_OUT_OF_HOST_MEMORY),
            vulkan(R::ERROR_OUT_OF_DEVICE_MEMORY),
            vulkan(R::ERROR_INITIALIZATION_FAILED),
            vulkan(R::ERROR_INCOMPATIBLE_DRIVER),
        ] {
            assert!(e.vulkan_unavailable(), "{e}");
        }
    }

    #[test]
    fn a_sample_out_of_range_says_which_plane_and_where() {
        let message = |plane, component, at| {
            Error::SampleRange {
                plane,
                component,
                at,
                frame: 4,
                x: 1,
                y: 2,
                value: 1024,
                max: 1023,
                bit_depth: 10,
            }
            .to_string()
        };
        let at = |plane, at| message(plane, Component::Luma, at);
        let file = at(None, SampleAt::File("clip.yuv".into()));
        assert!(
            file.starts_with("clip.yuv: frame 4: the sample at x=1, y=2 is 1024"),
            "{file}"
        );
        let r = Some(PlaneRole::Reference);
        let d = Some(PlaneRole::Distorted);
        assert!(at(r, SampleAt::Device).starts_with("reference plane: frame 4:"));
        assert!(at(d, SampleAt::Slot).starts_with("distorted frame slot: frame 4:"));
        assert!(at(d, SampleAt::HostPlane).starts_with("distorted host plane: frame 4:"));
        let cb = message(None, Component::Cb, SampleAt::File("clip.yuv".into()));
        assert!(
            cb.starts_with("clip.yuv: frame 4: the Cb sample at x=1, y=2 is 1024"),
            "{cb}"
        );
        let cr = message(d, Component::Cr, SampleAt::Device);
        assert!(
            cr.starts_with("distorted plane: frame 4: the Cr sample at"),
            "{cr}"
        );
        assert_eq!(
            [0, 1, 2].map(Component::at),
            [Component::Luma, Component::Cb, Component::Cr]
        );
    }

    #[test]
    fn errors_are_clone_with_their_sources() {
        let e = Error::io(
            "a.yuv",
            std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        );
        let copy = e.clone();
        assert_eq!(copy.to_string(), e.to_string());
        let (Error::Io { source: a, .. }, Error::Io { source: b, .. }) = (&e, &copy) else {
            panic!("{copy:?}");
        };
        assert!(Arc::ptr_eq(a, b), "one shared I/O error");
        assert_eq!(b.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn other_failures_do_not() {
        for e in [
            Error::SelfTestFailed("fma".into()),
            Error::DeviceLost("waiting".into()),
            Error::NoSuchDevice { index: 9, count: 1 },
            Error::ValidationLayerMissing,
            Error::InvalidOption("sum_threads".into()),
            vulkan(R::ERROR_UNKNOWN),
            vulkan(R::ERROR_DEVICE_LOST),
        ] {
            assert!(!e.vulkan_unavailable(), "{e}");
        }
    }
}
