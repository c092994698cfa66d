//! [`MotionVersion`]: which libvmaf's motion a run computes, 2.3.1's (the
//! default target, the same in 2.3.1 to 3.1.0) or 3.2.0's ([`super::v32`]),
//! and the options that only 3.2.0's motion takes (`motion_fps_weight`,
//! `motion_max_val`, `motion_blend_factor`, `motion_blend_offset`), read as
//! 3.2.0's `vmaf` command line reads them.

use std::fmt;
use std::str::FromStr;

use super::FEATURE;
use crate::metric::config::parse_number;
use crate::{Error, Result};

/// Which libvmaf's motion is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MotionVersion {
    /// libvmaf 2.3.1's (to 3.1.0): `integer_motion2`, `integer_motion`.
    #[default]
    V2_3_1,
    /// libvmaf 3.2.0's: the blur of the frame difference, reported as the
    /// SAD score, `integer_motion2` and `integer_motion3`.
    V3_2_0,
}

impl MotionVersion {
    /// Its text: `2.3.1` or `3.2.0`.
    pub fn name(self) -> &'static str {
        match self {
            MotionVersion::V2_3_1 => "2.3.1",
            MotionVersion::V3_2_0 => "3.2.0",
        }
    }
}

impl fmt::Display for MotionVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MotionVersion {
    type Err = Error;

    /// `2.3.1` or `3.2.0` (`3.2` too); [`Error::InvalidOption`] otherwise.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "2.3.1" => Ok(MotionVersion::V2_3_1),
            "3.2.0" | "3.2" => Ok(MotionVersion::V3_2_0),
            _ => Err(Error::InvalidOption(format!(
                "motion version `{s}`: vkssim computes libvmaf 2.3.1's motion (the default) \
                 and 3.2.0's (`3.2.0`)"
            ))),
        }
    }
}

/// One of the number options of 3.2.0's motion: its key, the alias libvmaf
/// puts in the output names, and its bounds (measured: 3.2.0's `vmaf`
/// refused a value outside them).
pub(crate) struct NumberKey {
    /// The option's key.
    pub key: &'static str,
    /// Its alias in the output names (`_mfw_2`).
    pub alias: &'static str,
    /// The smallest value taken.
    pub min: f64,
    /// The largest value taken.
    pub max: f64,
}

/// 3.2.0's number options, in the order their aliases appear in a name.
pub(crate) const NUMBER_KEYS: [NumberKey; 4] = [
    NumberKey {
        key: "motion_blend_factor",
        alias: "mbf",
        min: 0.0,
        max: 1.0,
    },
    NumberKey {
        key: "motion_blend_offset",
        alias: "mbo",
        min: 0.0,
        max: 1000.0,
    },
    NumberKey {
        key: "motion_fps_weight",
        alias: "mfw",
        min: 0.0,
        max: 5.0,
    },
    NumberKey {
        key: "motion_max_val",
        alias: "mmxv",
        min: 0.0,
        max: 10000.0,
    },
];

/// The options 3.2.0 has that this twin does not reproduce.
pub(crate) const UNREPRODUCED_KEYS: [&str; 2] =
    ["motion_moving_average", "motion_five_frame_window"];

/// The number of 3.2.0's option `key` from its text, as its `vmaf` command
/// line hands it over ([`parse_number`]), checked against its bounds; `None`
/// when `key` is not one of [`NUMBER_KEYS`].
pub(crate) fn parse_v32_number(key: &str, value: &str) -> Option<Result<f64>> {
    let spec = NUMBER_KEYS.iter().find(|k| k.key == key)?;
    Some(match parse_number(value) {
        Some(v) if (spec.min..=spec.max).contains(&v) => Ok(v),
        _ => Err(Error::InvalidOption(format!(
            "{FEATURE}: {key} must be a number from {} to {}, not `{value}`",
            spec.min, spec.max
        ))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            "3.2".parse::<MotionVersion>().unwrap(),
            MotionVersion::V3_2_0
        );
        assert_eq!(MotionVersion::V3_2_0.to_string(), "3.2.0");
        assert_eq!(
            MotionVersion::default()
                .to_string()
                .parse::<MotionVersion>()
                .unwrap(),
            MotionVersion::V2_3_1
        );
        assert!("3.1.0".parse::<MotionVersion>().is_err());
    }

    #[test]
    fn numbers_keep_3_2_0s_bounds() {
        assert_eq!(
            parse_v32_number("motion_fps_weight", "5").unwrap().unwrap(),
            5.0
        );
        assert!(parse_v32_number("motion_fps_weight", "5.1")
            .unwrap()
            .is_err());
        assert!(parse_v32_number("motion_max_val", "-1").unwrap().is_err());
        assert!(parse_v32_number("motion_blend_offset", "1001")
            .unwrap()
            .is_err());
        assert!(parse_v32_number("motion_blend_factor", "x")
            .unwrap()
            .is_err());
        assert!(parse_v32_number("debug", "true").is_none());
    }
}
