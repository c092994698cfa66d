//! `vif` as an [`Extractor`]: its options in the `vmaf` command line's
//! syntax, its outputs, its size check and its per-frame outputs on the CPU
//! twin ([`frame_outputs`]).

use super::{check_size, parse_enhn_gain_limit, vif_scores, VifOptions, FEATURE};
use crate::io::Chroma;
use crate::metric::config::parse_bool;
use crate::metric::extractor::{bool_text, Extractor, Needs, OutputName};
use crate::metric::MetricOutputs;
use crate::{Error, LumaView, Result};

const KEYS: [&str; 2] = ["vif_enhn_gain_limit", "debug"];

impl Extractor for VifOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "vif_enhn_gain_limit" => {
                self.enhn_gain_limit = parse_enhn_gain_limit(value)
                    .map_err(|e| Error::InvalidOption(format!("{FEATURE}: {}", bare(&e))))?
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
        let d = VifOptions::default();
        let mut v = Vec::new();
        if self.enhn_gain_limit != d.enhn_gain_limit {
            v.push(format!("vif_enhn_gain_limit={}", self.enhn_gain_limit));
        }
        if self.debug != d.debug {
            v.push(format!("debug={}", bool_text(self.debug)));
        }
        v
    }

    fn output_names(&self, _chroma: Chroma) -> Vec<OutputName> {
        VifOptions::output_names(self)
            .into_iter()
            .map(Into::into)
            .collect()
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

/// An [`Error::InvalidOption`]'s message without its "invalid option: "
/// prefix.
pub(crate) fn bare(e: &Error) -> String {
    match e {
        Error::InvalidOption(m) => m.clone(),
        other => other.to_string(),
    }
}

/// One pair's `vif` outputs on the CPU twin, named and ordered as libvmaf
/// writes them.
pub(crate) fn frame_outputs(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &VifOptions,
) -> Result<MetricOutputs> {
    let mut out = MetricOutputs::new();
    for (name, value) in vif_scores(reference, distorted, opts)?.outputs(opts) {
        out.push(name, value);
    }
    Ok(out)
}

/// `vif`'s CPU twin: [`frame_outputs`] on the luma planes.
impl crate::cpu::metrics::OutputsTwin for VifOptions {
    fn outputs(&self, pair: &crate::cpu::metrics::TwinPair<'_, '_>) -> Result<MetricOutputs> {
        let (r, d) = pair.luma();
        frame_outputs(r, d, self)
    }
}
