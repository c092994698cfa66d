//! The `vif` extractor's options as libvmaf 2.3.1 names them
//! (`--feature vif=vif_enhn_gain_limit=1.0:debug=true`), their defaults and
//! range, and the output names they give.

use crate::{Error, Result};

/// `vif_enhn_gain_limit`'s default: 100, which leaves the outputs unsuffixed.
pub const DEFAULT_ENHN_GAIN_LIMIT: f64 = 100.0;
/// The smallest `vif_enhn_gain_limit` (1: the enhancement gain is disabled).
pub const MIN_ENHN_GAIN_LIMIT: f64 = 1.0;
/// The largest `vif_enhn_gain_limit`.
pub const MAX_ENHN_GAIN_LIMIT: f64 = 100.0;

/// The options of libvmaf's `vif` extractor; [`Default`] is libvmaf's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VifOptions {
    /// `vif_enhn_gain_limit`: the largest gain `g = σ12 / σ1²` a pixel's
    /// information term may use, from 1 (no enhancement counted) to 100.
    /// The vmaf_v0.6.1neg model sets 1. Taken as given; the vmaf CLI rounds
    /// its text first ([`parse_enhn_gain_limit`]).
    pub enhn_gain_limit: f64,
    /// `debug`: also write the combined score and each scale's numerator and
    /// denominator (default false).
    pub debug: bool,
}

impl Default for VifOptions {
    fn default() -> Self {
        Self {
            enhn_gain_limit: DEFAULT_ENHN_GAIN_LIMIT,
            debug: false,
        }
    }
}

impl VifOptions {
    /// [`Error::InvalidOption`] unless the gain limit lies in 1..=100.
    pub fn validate(&self) -> Result<()> {
        let egl = self.enhn_gain_limit;
        if !(MIN_ENHN_GAIN_LIMIT..=MAX_ENHN_GAIN_LIMIT).contains(&egl) {
            return Err(Error::InvalidOption(format!(
                "vif_enhn_gain_limit={egl}: it must lie between {MIN_ENHN_GAIN_LIMIT} and {MAX_ENHN_GAIN_LIMIT} (1 disables the enhancement gain)"
            )));
        }
        Ok(())
    }

    /// The suffix libvmaf appends to every output name when the gain limit
    /// is not the default: `_egl_` and the value as C's `%g` prints it
    /// (`_egl_1` for 1.0, `_egl_1.5`), or nothing.
    pub fn name_suffix(&self) -> String {
        let egl = six_significant_digits(self.enhn_gain_limit);
        if egl == DEFAULT_ENHN_GAIN_LIMIT {
            String::new()
        } else {
            // A number of at most six significant digits prints in full as
            // its shortest round-trip form, which is what `%g` prints for
            // values between 1e-4 and 1e6.
            format!("_egl_{egl}")
        }
    }

    /// The names of the outputs, in libvmaf's order: `integer_vif_scale0..3`,
    /// then with `debug` `integer_vif`, `integer_vif_num`, `integer_vif_den`
    /// and `integer_vif_num_scaleN`, `integer_vif_den_scaleN` per scale; each
    /// with [`Self::name_suffix`].
    pub fn output_names(&self) -> Vec<String> {
        let suffix = self.name_suffix();
        let mut names: Vec<String> = (0..4)
            .map(|s| format!("integer_vif_scale{s}{suffix}"))
            .collect();
        if self.debug {
            for name in ["integer_vif", "integer_vif_num", "integer_vif_den"] {
                names.push(format!("{name}{suffix}"));
            }
            for s in 0..4 {
                names.push(format!("integer_vif_num_scale{s}{suffix}"));
                names.push(format!("integer_vif_den_scale{s}{suffix}"));
            }
        }
        names
    }
}

/// `x` rounded to six significant decimal digits (C's `%g`), read back.
fn six_significant_digits(x: f64) -> f64 {
    format!("{x:.5e}")
        .parse()
        .expect("a formatted finite number reads back")
}

/// The gain limit libvmaf 2.3.1 computes with when its CLI is given `text`
/// for `vif_enhn_gain_limit`: the number, rounded to binary32, then to six
/// significant digits (so `1.000001` is 1 and `100.0004` is 100, both
/// accepted, while `0.999999` and `100.0005` are refused), then range-checked.
///
/// [`Error::InvalidOption`] for text that is not a number, or a value
/// outside 1..=100 after the rounding. (libvmaf also takes trailing
/// characters and C's hexadecimal floats, and takes `nan`; this refuses
/// them.)
pub fn parse_enhn_gain_limit(text: &str) -> Result<f64> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| Error::InvalidOption(format!("vif_enhn_gain_limit={text:?}: not a number")))?;
    if !value.is_finite() {
        return Err(Error::InvalidOption(format!(
            "vif_enhn_gain_limit={text:?}: it must lie between {MIN_ENHN_GAIN_LIMIT} and {MAX_ENHN_GAIN_LIMIT}"
        )));
    }
    let egl = six_significant_digits(f64::from(value as f32));
    VifOptions {
        enhn_gain_limit: egl,
        debug: false,
    }
    .validate()?;
    Ok(egl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_gain_limit_unless_it_is_the_default() {
        let names = |egl| {
            VifOptions {
                enhn_gain_limit: egl,
                debug: false,
            }
            .output_names()[0]
                .clone()
        };
        assert_eq!(names(100.0), "integer_vif_scale0");
        assert_eq!(names(100.0001), "integer_vif_scale0");
        assert_eq!(names(1.0), "integer_vif_scale0_egl_1");
        assert_eq!(names(1.5), "integer_vif_scale0_egl_1.5");
        assert_eq!(names(4.123456789), "integer_vif_scale0_egl_4.12346");
        assert_eq!(names(10.0), "integer_vif_scale0_egl_10");
        let debug = VifOptions {
            enhn_gain_limit: 1.0,
            debug: true,
        };
        let all = debug.output_names();
        assert_eq!(all.len(), 15);
        assert_eq!(all[4], "integer_vif_egl_1");
        assert_eq!(all[14], "integer_vif_den_scale3_egl_1");
    }
}
