//! A model as the `vmaf` CLI's `-m/--model` names it: `:`-separated
//! `key=value` pairs. Keys (as libvmaf 2.3.1's CLI takes them):
//! `version=` a built-in model, `path=` a JSON model file (`version` wins
//! when both are given, as in vmaf), `name=` the output name (default
//! `vmaf`), `enable_transform` and `disable_clip` (alone or `=true`; `=false`
//! leaves them off), and `<extractor>.<option>=<value>` (for example
//! `adm.adm_enhn_gain_limit=1.0`), an option for every feature of that
//! extractor. A later key overrides an earlier one.

use std::path::PathBuf;

use super::builtin::DEFAULT_VERSION;
use super::features::{is_extractor, option_value};
use super::json::Override;
use super::predict::ModelFlags;
use crate::{Error, Result};

/// One `--model` argument, parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelSpec {
    /// `version=`: a built-in model.
    pub version: Option<String>,
    /// `path=`: a JSON model file.
    pub path: Option<PathBuf>,
    /// `name=`: the output name.
    pub name: Option<String>,
    /// `enable_transform`, `disable_clip`.
    pub flags: ModelFlags,
    /// `<extractor>.<option>=<value>`, in the order given.
    pub overrides: Vec<Override>,
}

/// An error about the spec `text`.
fn bad(text: &str, what: impl std::fmt::Display) -> Error {
    Error::InvalidOption(format!("model {text:?}: {what}"))
}

/// A boolean key's value: alone or `true` is on, `false` off.
fn switch(text: &str, key: &str, value: Option<&str>) -> Result<bool> {
    match value {
        None | Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(bad(text, format_args!("{key}={v}: expected true or false"))),
    }
}

impl ModelSpec {
    /// The default model (`version=vmaf_v0.6.1`), used when none is named.
    pub fn default_model() -> Self {
        ModelSpec {
            version: Some(DEFAULT_VERSION.to_string()),
            ..Self::default()
        }
    }

    /// Parses one `--model` argument.
    pub fn parse(text: &str) -> Result<Self> {
        let mut spec = ModelSpec::default();
        for part in text.split(':') {
            let (key, value) = match part.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (part, None),
            };
            let need = || {
                value
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| bad(text, format_args!("{key:?} needs a value ({key}=...)")))
            };
            match key {
                "version" => spec.version = Some(need()?.to_string()),
                "path" => spec.path = Some(PathBuf::from(need()?)),
                "name" => spec.name = Some(need()?.to_string()),
                "enable_transform" => spec.flags.enable_transform = switch(text, key, value)?,
                "disable_clip" => spec.flags.disable_clip = switch(text, key, value)?,
                _ => {
                    let Some((extractor, option)) = key.split_once('.') else {
                        return Err(bad(
                            text,
                            format_args!(
                                "unknown key {key:?} (keys: version, path, name, enable_transform, \
                                 disable_clip, <extractor>.<option>)"
                            ),
                        ));
                    };
                    if !is_extractor(extractor) {
                        return Err(bad(
                            text,
                            format_args!("{key:?}: no extractor {extractor:?} (adm, vif, motion)"),
                        ));
                    }
                    let value = need()?;
                    option_value(extractor, option, value).map_err(|e| bad(text, e))?;
                    spec.overrides
                        .push((extractor.into(), option.into(), value.into()));
                }
            }
        }
        if spec.version.is_none() && spec.path.is_none() {
            return Err(bad(text, "it names no model (version=... or path=...)"));
        }
        Ok(spec)
    }

    /// The name the model's score is written under: `name=`, else `vmaf`.
    pub fn output_name(&self) -> &str {
        self.name.as_deref().unwrap_or("vmaf")
    }
}

/// Checks that the models of one run have distinct output names (vmaf:
/// "Each model should be uniquely named").
pub fn check_unique_names(specs: &[ModelSpec]) -> Result<()> {
    for (i, a) in specs.iter().enumerate() {
        if specs[..i]
            .iter()
            .any(|b| b.output_name() == a.output_name())
        {
            return Err(Error::InvalidOption(format!(
                "two models are named {:?}: give each its own name (...:name=<name>)",
                a.output_name()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_as_vmaf() {
        let s = ModelSpec::parse("version=vmaf_v0.6.1:name=a:enable_transform:disable_clip=true")
            .unwrap();
        assert_eq!(s.version.as_deref(), Some("vmaf_v0.6.1"));
        assert_eq!(s.output_name(), "a");
        assert_eq!(
            s.flags,
            ModelFlags {
                enable_transform: true,
                disable_clip: true
            }
        );
        let s =
            ModelSpec::parse("path=/x/m.json:enable_transform=false:version=a:version=b").unwrap();
        assert_eq!(s.path, Some(PathBuf::from("/x/m.json")));
        assert_eq!(s.version.as_deref(), Some("b"));
        assert!(!s.flags.enable_transform);
        assert_eq!(s.output_name(), "vmaf");
        let s =
            ModelSpec::parse("version=v:adm.adm_enhn_gain_limit=1.0:motion.motion_force_zero=true")
                .unwrap();
        assert_eq!(s.overrides.len(), 2);
        assert_eq!(
            s.overrides[0],
            ("adm".into(), "adm_enhn_gain_limit".into(), "1.0".into())
        );
    }

    #[test]
    fn refuses_bad_specs_naming_the_key() {
        for (text, says) in [
            ("version=vmaf_v0.6.1:bogus=1", "unknown key \"bogus\""),
            (
                "version=vmaf_v0.6.1:Enable_transform",
                "unknown key \"Enable_transform\"",
            ),
            ("name=x", "names no model"),
            ("version=", "\"version\" needs a value"),
            ("version=v:enable_transform=1", "enable_transform=1"),
            ("version=v:float_vif.x=1", "no extractor \"float_vif\""),
            ("version=v:vif.bogus=1", "option \"bogus\" of the vif"),
            (
                "version=v:adm.adm_enhn_gain_limit=0.5",
                "adm.adm_enhn_gain_limit=0.5",
            ),
        ] {
            let e = ModelSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn names_must_differ() {
        let a = ModelSpec::parse("version=vmaf_v0.6.1").unwrap();
        let b = ModelSpec::parse("version=vmaf_4k_v0.6.1").unwrap();
        let e = check_unique_names(&[a.clone(), b.clone()]).unwrap_err();
        assert!(e.to_string().contains("\"vmaf\""), "{e}");
        let b = ModelSpec::parse("version=vmaf_4k_v0.6.1:name=k").unwrap();
        check_unique_names(&[a, b]).unwrap();
    }
}
