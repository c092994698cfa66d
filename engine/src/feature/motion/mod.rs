//! libvmaf's `motion` feature extractor (`integer_motion.c`), the target of
//! libvmaf 2.3.1 to 3.1.0: an exact CPU twin, stateless per frame so that
//! frames can be scored on many workers in any order.
//!
//! # What it computes
//!
//! Only the reference's luma is read; the distorted picture plays no part.
//! 1. [`blur()`]: each reference frame is low-passed on its own with the 5-tap
//!    filter {3571, 16004, 26386, 16004, 3571}/65536, vertically then
//!    horizontally, in integers ([`blur()`] says how it rounds and mirrors). The
//!    result sits on a common 16-bit scale whatever the bit depth.
//! 2. [`motion_score`]: `integer_motion` of frame n is the sum of absolute
//!    differences between the blurred frames n-1 and n, turned into a float
//!    mean per pixel on the 8-bit scale; frame 0, which has no previous frame,
//!    scores 0.
//! 3. [`motion2`] / [`motion2_at`]: `integer_motion2` of frame n is
//!    min(motion\[n\], motion\[n+1\]); the last frame of the stream keeps its
//!    own motion (libvmaf's flush). So frame n's motion2 is known once frame
//!    n+1 has been blurred, or once the stream is known to end at n.
//!
//! # A frame job
//!
//! libvmaf hands this extractor the previous reference frame with each frame
//! (its `PREV_REF` flag). Here a job for frame n carries the blurred plane of
//! frame n-1 (or that frame itself, to blur again): `motion_score(Some(&blur
//! (n-1)), &blur(n), opts)`. Blurring is per frame, so a worker may blur
//! each frame once and share the plane with the jobs of frames n and n+1.
//!
//! # Which frame is "previous": subsampling and frame counts
//!
//! Measured on the `vmaf` CLI of libvmaf 2.3.1 (`--subsample N`,
//! `--frame_cnt N`; it has no frame-skip options):
//! - the previous frame is the previous frame **read**, never the previous
//!   frame scored. `--subsample N` only chooses which frames' rows are
//!   written: the motion and motion2 of a written frame are exactly those of
//!   the run without `--subsample` (motion2 of frame n still takes motion of
//!   frame n+1 even when n+1 is not written). Scoring frames 0, 2, 4 of a
//!   file is therefore not the same as scoring a file holding only those
//!   frames.
//! - the stream ends where reading stops: with `--frame_cnt N` frame N-1 is
//!   the last frame, and its motion2 is its own motion even when the file
//!   holds more frames.
//!
//! # Frame sizes
//!
//! The blur mirrors two samples beyond each edge, so it needs at least 3
//! samples in each direction: libvmaf 2.3.1 does not refuse a narrower or
//! shorter frame, it reads outside the picture and crashed (segmentation
//! fault) on every such size tried (1x1 to 8x2). [`check_size`] refuses them
//! with an [`Error::Unsupported`] before any work. With `motion_force_zero`
//! nothing is blurred, and libvmaf scores every size, 1x1 included.
//!
//! # Options and outputs
//!
//! [`MotionOptions`] holds the options libvmaf 2.3.1's command line accepts
//! for `--feature motion=...` (`motion_force_zero`, `debug`), with its
//! defaults; [`MotionOptions::output_names`] gives the names it prints.
//!
//! # libvmaf 3.2.0
//!
//! [`v32`] holds 3.2.0's motion, a second target whose values differ (it
//! blurs the frame difference and adds `integer_motion3`). It is selected by
//! [`MotionOptions::version`] ([`MotionVersion`]), which also decides which
//! options and output names the extractor takes and gives.

mod blur;
pub(crate) mod extractor;
mod score;
pub mod v32;
mod version;

pub use blur::{blur, BlurredPlane, FILTER};
pub use score::{motion2, motion2_at, motion_score};
pub use version::MotionVersion;

use crate::metric::config::parse_bool;
use crate::{Error, Result};

/// The extractor's name on the `vmaf` command line (`--feature motion`).
pub const FEATURE: &str = "motion";

/// The per-frame motion output (`VMAF_integer_feature_motion_score`).
pub const MOTION: &str = "integer_motion";

/// The min-rule output the VMAF models use (`VMAF_integer_feature_motion2_score`).
pub const MOTION2: &str = "integer_motion2";

/// The suffix libvmaf appends to every output name when
/// `motion_force_zero=true`: the option's alias, `force_0`.
pub const FORCE_ZERO_SUFFIX: &str = "_force_0";

/// The smallest width and height libvmaf's blur reads within.
pub const MIN_SIZE: u32 = 3;

/// `motion`'s options, as libvmaf names them (the `Default` is libvmaf
/// 2.3.1's; [`MotionOptions::for_version`] gives 3.2.0's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionOptions {
    /// `motion_force_zero`: every motion and motion2 is 0 (no frame is
    /// blurred), and the outputs are named with [`FORCE_ZERO_SUFFIX`].
    /// Default false.
    pub force_zero: bool,
    /// `debug`: also report `integer_motion`, the per-frame value (after
    /// `integer_motion2`). Default true in libvmaf 2.3.1 to 3.1.0, false in
    /// 3.2.0.
    pub debug: bool,
    /// Which libvmaf's motion is computed (not a libvmaf option: the run
    /// chooses it; [`MotionOptions::for_version`]).
    pub version: MotionVersion,
    /// 3.2.0's `motion_fps_weight` (default 1; 2.3.1 has none).
    pub fps_weight: f64,
    /// 3.2.0's `motion_max_val` (default 10000).
    pub max_val: f64,
    /// 3.2.0's `motion_blend_factor` (default 1).
    pub blend_factor: f64,
    /// 3.2.0's `motion_blend_offset` (default 40).
    pub blend_offset: f64,
}

impl Default for MotionOptions {
    fn default() -> Self {
        Self::for_version(MotionVersion::V2_3_1)
    }
}

impl MotionOptions {
    /// Every option name `set` takes for libvmaf 2.3.1's motion, in
    /// libvmaf's order.
    pub const KEYS: [&'static str; 2] = ["motion_force_zero", "debug"];

    /// Every option name `set` takes for libvmaf 3.2.0's motion (the number
    /// options in the order their aliases appear in the output names).
    pub const KEYS_V3_2_0: [&'static str; 6] = [
        "motion_force_zero",
        "debug",
        "motion_blend_factor",
        "motion_blend_offset",
        "motion_fps_weight",
        "motion_max_val",
    ];

    /// `version`'s motion with that libvmaf's defaults.
    pub fn for_version(version: MotionVersion) -> Self {
        let v32 = v32::Motion32Options::default();
        Self {
            force_zero: false,
            debug: version == MotionVersion::V2_3_1,
            version,
            fps_weight: v32.fps_weight,
            max_val: v32.max_val,
            blend_factor: v32.blend_factor,
            blend_offset: v32.blend_offset,
        }
    }

    /// The option names `set` takes for this version.
    pub fn keys(&self) -> &'static [&'static str] {
        match self.version {
            MotionVersion::V2_3_1 => &Self::KEYS,
            MotionVersion::V3_2_0 => &Self::KEYS_V3_2_0,
        }
    }

    /// 3.2.0's options of the twin in [`v32`].
    pub fn v32(&self) -> v32::Motion32Options {
        v32::Motion32Options {
            force_zero: self.force_zero,
            debug: self.debug,
            fps_weight: self.fps_weight,
            max_val: self.max_val,
            blend_factor: self.blend_factor,
            blend_offset: self.blend_offset,
            ..Default::default()
        }
    }

    /// Sets option `key` from its text `value`. Booleans are `true` or
    /// `false`, exactly, as libvmaf's option parser takes them (it refuses
    /// `1`, `yes`, `TRUE`); 3.2.0's numbers are read as its `vmaf` command
    /// line reads them and kept within the bounds it takes.
    /// [`Error::InvalidOption`] otherwise, for any other key, and for a
    /// 3.2.0 option on 2.3.1's motion; [`Error::Unsupported`] for 3.2.0's
    /// `motion_moving_average` and `motion_five_frame_window` (not
    /// reproduced). libvmaf 2.3.1 itself ignores unknown keys, `force_0`
    /// among them (the alias only names the outputs), which would silently
    /// score the motion unforced; here they are refused.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let v32 = self.version == MotionVersion::V3_2_0;
        match key {
            "motion_force_zero" => self.force_zero = parse_bool(FEATURE, key, value)?,
            "debug" => self.debug = parse_bool(FEATURE, key, value)?,
            "force_0" => {
                return Err(Error::InvalidOption(format!(
                    "{FEATURE}: `force_0` is only the name suffix of motion_force_zero; \
                     libvmaf ignores it as an option, write motion_force_zero={value}"
                )))
            }
            _ if v32 && version::UNREPRODUCED_KEYS.contains(&key) => {
                return Err(Error::Unsupported(format!(
                    "{FEATURE} (libvmaf 3.2.0): {key} is not reproduced"
                )))
            }
            _ => match version::parse_v32_number(key, value) {
                Some(number) if v32 => {
                    let number = number?;
                    match key {
                        "motion_fps_weight" => self.fps_weight = number,
                        "motion_max_val" => self.max_val = number,
                        "motion_blend_factor" => self.blend_factor = number,
                        _ => self.blend_offset = number,
                    }
                }
                Some(_) => {
                    return Err(Error::InvalidOption(format!(
                        "{FEATURE}: {key} is an option of libvmaf 3.2.0's motion; this run \
                         computes 2.3.1's (the default)"
                    )))
                }
                None => {
                    return Err(Error::InvalidOption(format!(
                        "{FEATURE} has no option `{key}` (it has {})",
                        self.keys().join(", ")
                    )))
                }
            },
        }
        Ok(())
    }

    /// The names of the values reported per frame, in libvmaf's order. For
    /// 2.3.1: `integer_motion2`, then `integer_motion` when `debug` is on,
    /// each with `_force_0` appended when `force_zero` is on. For 3.2.0:
    /// [`v32::Motion32Options::output_names`].
    pub fn output_names(&self) -> Vec<String> {
        if self.version == MotionVersion::V3_2_0 {
            return self.v32().output_names();
        }
        let suffix = if self.force_zero {
            FORCE_ZERO_SUFFIX
        } else {
            ""
        };
        let mut names = vec![format!("{MOTION2}{suffix}")];
        if self.debug {
            names.push(format!("{MOTION}{suffix}"));
        }
        names
    }
}

/// [`Error::Unsupported`] for a frame libvmaf's motion cannot score: narrower
/// or shorter than [`MIN_SIZE`] samples (unless `opts.force_zero`, which
/// blurs nothing), or a bit depth other than 8, 10, 12 or 16.
pub fn check_size(width: u32, height: u32, bit_depth: u32, opts: &MotionOptions) -> Result<()> {
    if !matches!(bit_depth, 8 | 10 | 12 | 16) {
        return Err(Error::Unsupported(format!(
            "{FEATURE}: bit depth {bit_depth} (libvmaf's motion takes 8, 10, 12 and 16 bits)"
        )));
    }
    if !opts.force_zero && (width < MIN_SIZE || height < MIN_SIZE) {
        return Err(Error::Unsupported(format!(
            "{FEATURE}: a {width}x{height} frame is too small: libvmaf's motion blur mirrors \
             2 samples past each edge and needs at least {MIN_SIZE}x{MIN_SIZE} \
             (libvmaf 2.3.1 reads outside the picture and crashes)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_like_libvmaf() {
        let mut o = MotionOptions::default();
        assert_eq!(o.output_names(), ["integer_motion2", "integer_motion"]);
        o.set("motion_force_zero", "true").unwrap();
        o.set("debug", "false").unwrap();
        assert_eq!(o.output_names(), ["integer_motion2_force_0"]);
        assert!(o.set("motion_force_zero", "1").is_err());
        assert!(o.set("force_0", "true").is_err());
        assert!(o.set("foo", "true").is_err());
    }

    #[test]
    fn version_3_2_0_options_and_names() {
        let mut o = MotionOptions::for_version(MotionVersion::V3_2_0);
        assert_eq!(o.output_names(), [v32::SAD, MOTION2, v32::MOTION3]);
        assert!(MotionOptions::default()
            .set("motion_fps_weight", "2")
            .is_err());
        o.set("motion_fps_weight", "1.7").unwrap();
        o.set("motion_max_val", "65").unwrap();
        o.set("debug", "true").unwrap();
        assert_eq!(o.output_names()[1], "integer_motion_mfw_1.7_mmxv_65");
        assert!(matches!(
            o.set("motion_moving_average", "true"),
            Err(Error::Unsupported(_))
        ));
        assert!(o.set("motion_blend_factor", "1.5").is_err());
        assert!(o
            .set("foo", "1")
            .unwrap_err()
            .to_string()
            .contains("motion_max_val"));
    }

    #[test]
    fn sizes() {
        let d = MotionOptions::default();
        assert!(check_size(3, 3, 8, &d).is_ok());
        assert!(check_size(2, 8, 10, &d).is_err());
        assert!(check_size(8, 2, 10, &d).is_err());
        assert!(check_size(8, 8, 9, &d).is_err());
        let z = MotionOptions {
            force_zero: true,
            ..d
        };
        assert!(check_size(1, 1, 8, &z).is_ok());
    }
}
