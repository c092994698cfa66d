//! `adm` as an [`Extractor`]: its options in the `vmaf` command line's
//! syntax (numbers read as vmaf hands them to libvmaf: a float kept to 6
//! significant digits), its outputs, its size check and its per-frame
//! outputs on the CPU twin ([`frame_outputs`]).

use super::{adm_scores, check_size, AdmOptions, AdmScores};
use crate::io::Chroma;
use crate::metric::config::{parse_bool, parse_number};
use crate::metric::extractor::{bool_text, Extractor, Needs, OutputName};
use crate::metric::MetricOutputs;
use crate::{Error, LumaView, Result};

/// libvmaf's name of the extractor.
pub const FEATURE: &str = "adm";

const KEYS: [&str; 4] = [
    "adm_enhn_gain_limit",
    "adm_norm_view_dist",
    "adm_ref_display_height",
    "debug",
];

impl AdmOptions {
    /// The output names for these options, in libvmaf's order, each with
    /// [`AdmOptions::name_suffix`].
    pub fn names(&self) -> Vec<String> {
        let suffix = self.name_suffix();
        let mut names = vec![format!("integer_adm2{suffix}")];
        names.extend((0..4).map(|k| format!("integer_adm_scale{k}{suffix}")));
        if self.debug {
            for n in ["integer_adm", "integer_adm_num", "integer_adm_den"] {
                names.push(format!("{n}{suffix}"));
            }
            for k in 0..4 {
                names.push(format!("integer_adm_num_scale{k}{suffix}"));
                names.push(format!("integer_adm_den_scale{k}{suffix}"));
            }
        }
        names
    }
}

impl Extractor for AdmOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let number = || {
            parse_number(value).ok_or_else(|| {
                Error::InvalidOption(format!("{FEATURE}: {key} must be a number, not `{value}`"))
            })
        };
        match key {
            "adm_enhn_gain_limit" => self.enhn_gain_limit = number()?,
            "adm_norm_view_dist" => self.norm_view_dist = number()?,
            "adm_ref_display_height" => {
                self.ref_display_height = value.parse().map_err(|_| {
                    Error::InvalidOption(format!(
                        "{FEATURE}: {key} must be a whole number, not `{value}`"
                    ))
                })?
            }
            "debug" => self.debug = parse_bool(FEATURE, key, value)?,
            _ => {
                return Err(Error::InvalidOption(format!(
                    "{FEATURE} has no option `{key}` (it has {})",
                    KEYS.join(", ")
                )))
            }
        }
        Ok(())
    }

    fn non_default(&self) -> Vec<String> {
        let d = AdmOptions::default();
        let mut v = Vec::new();
        if self.enhn_gain_limit != d.enhn_gain_limit {
            v.push(format!("adm_enhn_gain_limit={}", self.enhn_gain_limit));
        }
        if self.norm_view_dist != d.norm_view_dist {
            v.push(format!("adm_norm_view_dist={}", self.norm_view_dist));
        }
        if self.ref_display_height != d.ref_display_height {
            v.push(format!(
                "adm_ref_display_height={}",
                self.ref_display_height
            ));
        }
        if self.debug != d.debug {
            v.push(format!("debug={}", bool_text(self.debug)));
        }
        v
    }

    fn output_names(&self, _chroma: Chroma) -> Vec<OutputName> {
        self.names().into_iter().map(Into::into).collect()
    }

    fn check_frame(&self, width: u32, height: u32, bit_depth: u32, _chroma: Chroma) -> Result<()> {
        self.validate()?;
        check_size(width, height, bit_depth)
    }

    fn needs(&self) -> Needs {
        Needs {
            vulkan: true,
            ..Needs::default()
        }
    }
}

/// One pair's `adm` outputs on the CPU twin, named and ordered as libvmaf
/// writes them.
pub(crate) fn frame_outputs(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &AdmOptions,
) -> Result<MetricOutputs> {
    Ok(adm_scores(reference, distorted, opts)?.outputs(opts))
}

impl AdmScores {
    /// The outputs for `opts`, named and ordered as libvmaf writes them.
    pub fn outputs(&self, opts: &AdmOptions) -> MetricOutputs {
        let mut values = vec![self.adm2];
        values.extend(self.scale);
        if opts.debug {
            values.extend([self.adm2, self.num, self.den]);
            for k in 0..4 {
                values.extend([self.num_scale[k], self.den_scale[k]]);
            }
        }
        let mut out = MetricOutputs::new();
        for (name, value) in opts.names().into_iter().zip(values) {
            out.push(name, value);
        }
        out
    }
}

/// `adm`'s CPU twin: [`frame_outputs`] on the luma planes.
impl crate::cpu::metrics::OutputsTwin for AdmOptions {
    fn outputs(&self, pair: &crate::cpu::metrics::TwinPair<'_, '_>) -> Result<MetricOutputs> {
        let (r, d) = pair.luma();
        frame_outputs(r, d, self)
    }
}
