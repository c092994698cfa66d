//! Reading libvmaf's JSON model files: one model (`model_dict`, as
//! `vmaf_v0.6.1.json`), or a bootstrap collection (an object keyed `"0"`,
//! `"1"`, ... each holding one model, as `vmaf_b_v0.6.3.json`). Only
//! `model_dict` is read (libvmaf ignores `param_dict`). Numbers are parsed
//! correctly rounded (serde_json with `float_roundtrip`, like glibc's
//! `strtod`), the libsvm text by [`Svm::parse`].

use serde_json::{Map, Value};

use super::features::{feature_input, FeatureInput};
use super::predict::{Normalisation, ScoreTransform, SvmModel};
use super::svm::Svm;
use crate::{Error, Result};

/// A model file's content: one model, or a collection's models in key order.
#[derive(Debug, Clone)]
pub(crate) enum ModelFile {
    /// One model.
    Single(SvmModel),
    /// A bootstrap collection: entry `"0"` first, then `"1"`, `"2"`, ...
    Collection(Vec<SvmModel>),
}

/// A feature option a model spec sets on every feature of one extractor
/// (`adm.adm_enhn_gain_limit=1.0`): (extractor, option, value text).
pub(crate) type Override = (String, String, String);

/// Prefixes `source` to an error's message, keeping its variant.
pub(crate) fn in_model(source: &str, e: Error) -> Error {
    match e {
        Error::InvalidOption(m) => Error::InvalidOption(format!("model {source}: {m}")),
        Error::Unsupported(m) => Error::Unsupported(format!("model {source}: {m}")),
        other => other,
    }
}

/// A malformed-file error.
fn bad(what: impl std::fmt::Display) -> Error {
    Error::InvalidOption(what.to_string())
}

/// Parses a model file's text; `overrides` apply to the features of every
/// model in it. Errors name `source` (the path, or the built-in's name).
pub(crate) fn parse_model_file(
    text: &str,
    source: &str,
    overrides: &[Override],
) -> Result<ModelFile> {
    parse_document(text, overrides).map_err(|e| in_model(source, e))
}

/// [`parse_model_file`] without the source in its errors.
fn parse_document(text: &str, overrides: &[Override]) -> Result<ModelFile> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| bad(format_args!("not valid JSON: {e}")))?;
    let top = doc
        .as_object()
        .ok_or_else(|| bad("the top level is not a JSON object"))?;
    if top.contains_key("model_dict") {
        return Ok(ModelFile::Single(parse_model(top, overrides)?));
    }
    if top.is_empty() || !top.keys().all(|k| k.parse::<usize>().is_ok()) {
        return Err(bad(
            "it has no \"model_dict\" and is not a collection keyed \"0\", \"1\", ...",
        ));
    }
    let mut models = Vec::with_capacity(top.len());
    for i in 0..top.len() {
        let key = i.to_string();
        let entry = top.get(&key).ok_or_else(|| {
            bad(format_args!(
                "collection: no entry \"{key}\" (keys must be 0..{})",
                top.len() - 1
            ))
        })?;
        let entry = entry
            .as_object()
            .ok_or_else(|| bad(format_args!("collection entry \"{key}\" is not an object")))?;
        let model = parse_model(entry, overrides)
            .map_err(|e| in_model(&format!("collection entry \"{key}\""), e))?;
        models.push(model);
    }
    Ok(ModelFile::Collection(models))
}

/// A key of `dict` that must be there.
fn need<'a>(dict: &'a Map<String, Value>, key: &str) -> Result<&'a Value> {
    dict.get(key)
        .ok_or_else(|| bad(format_args!("model_dict has no \"{key}\"")))
}

/// A JSON number.
fn num(v: &Value, what: &str) -> Result<f64> {
    v.as_f64()
        .ok_or_else(|| bad(format_args!("{what} is not a number: {v}")))
}

/// A JSON array of numbers.
fn numbers(v: &Value, what: &str) -> Result<Vec<f64>> {
    v.as_array()
        .ok_or_else(|| bad(format_args!("{what} is not an array")))?
        .iter()
        .enumerate()
        .map(|(i, x)| num(x, &format!("{what}[{i}]")))
        .collect()
}

/// A JSON string.
fn string<'a>(v: &'a Value, what: &str) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| bad(format_args!("{what} is not a string: {v}")))
}

/// One `{"model_dict": {...}}` object.
fn parse_model(top: &Map<String, Value>, overrides: &[Override]) -> Result<SvmModel> {
    let dict = top
        .get("model_dict")
        .ok_or_else(|| bad("no \"model_dict\""))?
        .as_object()
        .ok_or_else(|| bad("\"model_dict\" is not an object"))?;
    match string(need(dict, "model_type")?, "model_type")? {
        "LIBSVMNUSVR" | "BOOTSTRAP_LIBSVMNUSVR" => {}
        other => {
            return Err(Error::Unsupported(format!(
                "model_type {other:?} (vkssim reads LIBSVMNUSVR and BOOTSTRAP_LIBSVMNUSVR)"
            )))
        }
    }
    let names = need(dict, "feature_names")?
        .as_array()
        .ok_or_else(|| bad("feature_names is not an array"))?;
    if names.is_empty() {
        return Err(bad("feature_names is empty"));
    }
    let opts = feature_options(dict, names.len())?;
    let mut features = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let name = string(name, &format!("feature_names[{i}]"))?;
        features.push(feature_for(name, &opts[i], overrides)?);
    }
    let norm = match string(need(dict, "norm_type")?, "norm_type")? {
        "none" => Normalisation::None,
        "linear_rescale" => {
            let slopes = numbers(need(dict, "slopes")?, "slopes")?;
            let intercepts = numbers(need(dict, "intercepts")?, "intercepts")?;
            for (what, list) in [("slopes", &slopes), ("intercepts", &intercepts)] {
                if list.len() != features.len() + 1 {
                    return Err(bad(format_args!(
                        "{what} has {} entries; {} features need {}",
                        list.len(),
                        features.len(),
                        features.len() + 1
                    )));
                }
            }
            Normalisation::LinearRescale { slopes, intercepts }
        }
        other => {
            return Err(Error::Unsupported(format!(
                "norm_type {other:?} (vkssim reads none and linear_rescale)"
            )))
        }
    };
    let clip = match dict.get("score_clip") {
        None | Some(Value::Null) => None,
        Some(v) => match numbers(v, "score_clip")?[..] {
            [lo, hi] => Some((lo, hi)),
            _ => return Err(bad("score_clip is not [min, max]")),
        },
    };
    let transform = match dict.get("score_transform") {
        None | Some(Value::Null) => None,
        Some(v) => Some(score_transform(v)?),
    };
    let svm = Svm::parse(string(need(dict, "model")?, "model")?, features.len())?;
    Ok(SvmModel {
        features,
        norm,
        svm,
        transform,
        clip,
    })
}

/// The feature `name` with the file's options for it, then the spec's
/// overrides for its extractor.
fn feature_for(
    name: &str,
    opts: &[(String, String)],
    overrides: &[Override],
) -> Result<FeatureInput> {
    let plain = feature_input(name, opts)?;
    let extra: Vec<(String, String)> = overrides
        .iter()
        .filter(|(ex, _, _)| ex == plain.extractor)
        .map(|(_, o, v)| (o.clone(), v.clone()))
        .collect();
    if extra.is_empty() {
        return Ok(plain);
    }
    let all: Vec<_> = opts.iter().cloned().chain(extra).collect();
    feature_input(name, &all)
}

/// `feature_opts_dicts`: per feature, its options as (name, value text).
fn feature_options(dict: &Map<String, Value>, count: usize) -> Result<Vec<Vec<(String, String)>>> {
    let Some(v) = dict.get("feature_opts_dicts") else {
        return Ok(vec![Vec::new(); count]);
    };
    let list = v
        .as_array()
        .ok_or_else(|| bad("feature_opts_dicts is not an array"))?;
    if list.len() != count {
        return Err(bad(format_args!(
            "feature_opts_dicts has {} entries for {count} features",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(i, d)| {
            let d = d
                .as_object()
                .ok_or_else(|| bad(format_args!("feature_opts_dicts[{i}] is not an object")))?;
            d.iter()
                .map(|(k, v)| match v {
                    Value::Bool(b) => Ok((k.clone(), b.to_string())),
                    Value::Number(n) => Ok((k.clone(), n.to_string())),
                    other => Err(bad(format_args!(
                        "feature_opts_dicts[{i}].{k} is neither a number nor a boolean: {other}"
                    ))),
                })
                .collect()
        })
        .collect()
}

/// `score_transform`: `enabled` (a boolean; absent means off), `p0`, `p1`,
/// `p2` (absent ones left out of the polynomial) and `out_gte_in` (`"true"`
/// or `true` for on).
fn score_transform(v: &Value) -> Result<ScoreTransform> {
    let d = v
        .as_object()
        .ok_or_else(|| bad("score_transform is not an object"))?;
    let mut t = ScoreTransform::default();
    for (k, v) in d {
        let what = format!("score_transform.{k}");
        match k.as_str() {
            "enabled" => t.enabled = flag(v, &what)?,
            "out_gte_in" => t.out_gte_in = flag(v, &what)?,
            "p0" => t.p0 = Some(num(v, &what)?),
            "p1" => t.p1 = Some(num(v, &what)?),
            "p2" => t.p2 = Some(num(v, &what)?),
            other => {
                return Err(Error::Unsupported(format!(
                    "score_transform key {other:?} (vkssim reads enabled, p0, p1, p2, out_gte_in)"
                )))
            }
        }
    }
    Ok(t)
}

/// A boolean written as JSON `true`/`false` or as the strings `"true"` /
/// `"false"`.
fn flag(v: &Value, what: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        other => Err(bad(format_args!("{what} is not true or false: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::builtin::BUILT_IN;
    use super::*;

    /// Every number token of the built-in files reads as Rust's (correctly
    /// rounded, like glibc's `strtod`) parser reads it.
    #[test]
    fn numbers_are_correctly_rounded() {
        let mut seen = 0;
        for (version, text) in BUILT_IN {
            let is_num = |c: char| c.is_ascii_digit() || "+-.eE".contains(c);
            for token in text.split(|c: char| !is_num(c)) {
                if !token.contains(|c: char| c.is_ascii_digit()) || token.contains("-e") {
                    continue;
                }
                let Ok(want) = token.parse::<f64>() else {
                    continue;
                };
                let got: f64 = serde_json::from_str(token)
                    .unwrap_or_else(|e| panic!("{version}: {token}: {e}"));
                assert_eq!(got.to_bits(), want.to_bits(), "{version}: {token}");
                seen += 1;
            }
        }
        assert!(seen > 10_000, "{seen}");
    }

    #[test]
    fn reads_the_built_in_files() {
        for (version, text) in BUILT_IN {
            match parse_model_file(text, version, &[]).unwrap() {
                ModelFile::Single(m) => assert_eq!(m.features.len(), 6, "{version}"),
                ModelFile::Collection(all) => assert_eq!(all.len(), 21, "{version}"),
            }
        }
    }
}
