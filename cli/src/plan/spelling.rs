//! How a front end names the options of a run in its messages: the command
//! line's flags (`--device 3`, `-p/--pixel_format`) or the Python
//! package's keywords (`device=3`, `pix_fmt`). The plan and the run name an
//! option only through [`Spelling`], so an error a Python caller gets names
//! the keyword it passed, never a flag it never wrote.

use std::fmt::Display;

use crate::args::DeviceChoice;

/// An option of `vkssim score` (a flag, or a keyword of `vkssim.score`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// Raw YUV width.
    Width,
    /// Raw YUV height.
    Height,
    /// Raw YUV pixel format.
    PixelFormat,
    /// Raw YUV bit depth.
    Bitdepth,
    /// The features (metrics and their options).
    Feature,
    /// The VMAF models.
    Model,
    /// Frames skipped at the start of the reference.
    FrameSkipRef,
    /// Frames skipped at the start of the distorted input.
    FrameSkipDist,
    /// Every N-th frame.
    Subsample,
    /// The scoring engine.
    Backend,
    /// The Vulkan device(s).
    Device,
    /// The distorted input's video stream.
    Stream,
    /// The reference's video stream.
    ReferenceStream,
    /// Where H.264 is decoded.
    Decode,
    /// Distorted frames scaled to the reference's size.
    ResizeDistorted,
    /// Which libvmaf's motion is computed.
    MotionVersion,
}

impl Opt {
    /// The command line's flag.
    pub fn flag(self) -> &'static str {
        match self {
            Opt::Width => "-w/--width",
            Opt::Height => "-h/--height",
            Opt::PixelFormat => "-p/--pixel_format",
            Opt::Bitdepth => "-b/--bitdepth",
            Opt::Feature => "--feature",
            Opt::Model => "-m/--model",
            Opt::FrameSkipRef => "--frame_skip_ref",
            Opt::FrameSkipDist => "--frame_skip_dist",
            Opt::Subsample => "--subsample",
            Opt::Backend => "--backend",
            Opt::Device => "--device",
            Opt::Stream => "--stream",
            Opt::ReferenceStream => "--reference-stream",
            Opt::Decode => "--decode",
            Opt::ResizeDistorted => "--resize-distorted",
            Opt::MotionVersion => "--motion-version",
        }
    }

    /// The Python package's keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Opt::Width => "width",
            Opt::Height => "height",
            Opt::PixelFormat => "pix_fmt",
            Opt::Bitdepth => "bitdepth",
            Opt::Feature => "features",
            Opt::Model => "model",
            Opt::FrameSkipRef => "frame_skip_ref",
            Opt::FrameSkipDist => "frame_skip_dist",
            Opt::Subsample => "subsample",
            Opt::Backend => "backend",
            Opt::Device => "device",
            Opt::Stream => "stream",
            Opt::ReferenceStream => "reference_stream",
            Opt::Decode => "decode",
            Opt::ResizeDistorted => "resize_distorted",
            Opt::MotionVersion => "motion_version",
        }
    }
}

/// How messages name the options: the command line's flags (the default)
/// or the Python package's keywords.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Spelling {
    /// `--device 3`, `-p/--pixel_format 444`.
    #[default]
    Flags,
    /// `device=3`, `pix_fmt='444'`.
    Keywords,
}

impl Spelling {
    /// The option's name: its flag or its keyword.
    pub fn name(self, opt: Opt) -> &'static str {
        match self {
            Spelling::Flags => opt.flag(),
            Spelling::Keywords => opt.keyword(),
        }
    }

    /// The option given a number: `--subsample 2`, `subsample=2`.
    pub fn number(self, opt: Opt, value: impl Display) -> String {
        match self {
            Spelling::Flags => format!("{} {value}", opt.flag()),
            Spelling::Keywords => format!("{}={value}", opt.keyword()),
        }
    }

    /// The option given a word: `--backend cpu`, `backend='cpu'`.
    pub fn word(self, opt: Opt, value: &str) -> String {
        match self {
            Spelling::Flags => format!("{} {value}", opt.flag()),
            Spelling::Keywords => format!("{}={value:?}", opt.keyword()).replace('"', "'"),
        }
    }

    /// The device option given `device`: `--device 0,2`, `device=[0, 2]`.
    pub fn device(self, device: &DeviceChoice) -> String {
        match (self, device) {
            (Spelling::Flags, d) => self.number(Opt::Device, d),
            (Spelling::Keywords, DeviceChoice::All) => self.word(Opt::Device, "all"),
            (Spelling::Keywords, DeviceChoice::List(list)) if list.len() == 1 => {
                self.number(Opt::Device, list[0])
            }
            (Spelling::Keywords, DeviceChoice::List(list)) => self.number(Opt::Device, {
                let parts: Vec<String> = list.iter().map(usize::to_string).collect();
                format!("[{}]", parts.join(", "))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_keywords() {
        let (f, k) = (Spelling::Flags, Spelling::Keywords);
        assert_eq!(f.number(Opt::Subsample, 2), "--subsample 2");
        assert_eq!(k.number(Opt::Subsample, 2), "subsample=2");
        assert_eq!(f.word(Opt::Backend, "cpu"), "--backend cpu");
        assert_eq!(k.word(Opt::Backend, "cpu"), "backend='cpu'");
        assert_eq!(f.name(Opt::PixelFormat), "-p/--pixel_format");
        assert_eq!(k.name(Opt::PixelFormat), "pix_fmt");
        let two = DeviceChoice::List(vec![0, 2]);
        assert_eq!(f.device(&two), "--device 0,2");
        assert_eq!(k.device(&two), "device=[0, 2]");
        assert_eq!(k.device(&DeviceChoice::List(vec![3])), "device=3");
        assert_eq!(k.device(&DeviceChoice::All), "device='all'");
    }
}
