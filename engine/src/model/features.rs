//! The features a model reads: which extractor computes each of libvmaf's
//! feature names, under which options, and the name its value is written
//! under (libvmaf appends `_<alias>_<value>` for every option that differs
//! from its default, e.g. `integer_adm2_egl_1` for the neg model's
//! `adm_enhn_gain_limit=1.0`).

use crate::{Error, Result};

/// An extractor option's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionValue {
    /// A boolean (`true` / `false`).
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A double.
    Double(f64),
}

/// The kind, default and range of one option.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool(bool),
    Int { default: i64, min: i64, max: i64 },
    Double { default: f64, min: f64, max: f64 },
}

/// An option of one extractor that a model may set.
#[derive(Debug, Clone, Copy)]
struct OptionSpec {
    /// The extractor (`adm`, `vif`, `motion`).
    extractor: &'static str,
    /// The option's name (`adm_enhn_gain_limit`).
    name: &'static str,
    /// What feature names carry when it is not at its default.
    alias: &'static str,
    kind: Kind,
}

/// The options models may set, in the order their suffixes are appended
/// (libvmaf's option tables; ranges as the 2.3.1 CLI accepts them).
const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        extractor: "adm",
        name: "adm_enhn_gain_limit",
        alias: "egl",
        kind: Kind::Double {
            default: 100.0,
            min: 1.0,
            max: 100.0,
        },
    },
    OptionSpec {
        extractor: "adm",
        name: "adm_norm_view_dist",
        alias: "nvd",
        kind: Kind::Double {
            default: 3.0,
            min: 0.75,
            max: 24.0,
        },
    },
    OptionSpec {
        extractor: "adm",
        name: "adm_ref_display_height",
        alias: "rdh",
        kind: Kind::Int {
            default: 1080,
            min: 1,
            max: 4320,
        },
    },
    OptionSpec {
        extractor: "vif",
        name: "vif_enhn_gain_limit",
        alias: "egl",
        kind: Kind::Double {
            default: 100.0,
            min: 1.0,
            max: 100.0,
        },
    },
    OptionSpec {
        extractor: "motion",
        name: "motion_force_zero",
        alias: "force_0",
        kind: Kind::Bool(false),
    },
];

/// libvmaf's model feature names vkssim computes: (name in the JSON,
/// extractor, output name without option suffixes).
const FEATURES: &[(&str, &str, &str)] = &[
    ("VMAF_integer_feature_adm2_score", "adm", "integer_adm2"),
    (
        "VMAF_integer_feature_motion2_score",
        "motion",
        "integer_motion2",
    ),
    (
        "VMAF_integer_feature_vif_scale0_score",
        "vif",
        "integer_vif_scale0",
    ),
    (
        "VMAF_integer_feature_vif_scale1_score",
        "vif",
        "integer_vif_scale1",
    ),
    (
        "VMAF_integer_feature_vif_scale2_score",
        "vif",
        "integer_vif_scale2",
    ),
    (
        "VMAF_integer_feature_vif_scale3_score",
        "vif",
        "integer_vif_scale3",
    ),
];

/// One feature a model reads.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureInput {
    /// The feature's name in the model file (`VMAF_integer_feature_adm2_score`).
    pub model_name: String,
    /// The extractor that computes it (`adm`, `vif`, `motion`).
    pub extractor: &'static str,
    /// The options it runs with, in the extractor's option order (only those
    /// the model or its spec set).
    pub options: Vec<(&'static str, OptionValue)>,
    /// The name its value is written under (`integer_adm2_egl_1`).
    pub output: String,
}

/// `%g` as C's printf writes it (6 significant digits, trailing zeros
/// dropped): how libvmaf writes an option's value into a feature name.
pub(crate) fn format_g(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent");
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim(mantissa.to_string()),
            exp.unsigned_abs()
        )
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    }
}

impl OptionValue {
    /// How the value reads in a feature name.
    fn suffix(self) -> String {
        match self {
            OptionValue::Bool(b) => b.to_string(),
            OptionValue::Int(i) => i.to_string(),
            OptionValue::Double(d) => format_g(d),
        }
    }
}

/// The option `name` of `extractor`, if a model may set it.
fn option_spec(extractor: &str, name: &str) -> Option<&'static OptionSpec> {
    OPTIONS
        .iter()
        .find(|o| o.extractor == extractor && o.name == name)
}

/// Whether `extractor` is one a model of vkssim's can run.
pub(crate) fn is_extractor(extractor: &str) -> bool {
    FEATURES.iter().any(|f| f.1 == extractor)
}

/// Checks `value` (text from a model spec, or a JSON scalar's text) against
/// option `name` of `extractor`; the option and its value. Booleans are
/// `true` or `false`, numbers as C's `strtod` / `strtol` read them, whole.
pub(crate) fn option_value(
    extractor: &str,
    name: &str,
    value: &str,
) -> Result<(&'static str, OptionValue)> {
    let spec = option_spec(extractor, name).ok_or_else(|| {
        let known: Vec<_> = OPTIONS
            .iter()
            .filter(|o| o.extractor == extractor)
            .map(|o| o.name)
            .collect();
        Error::Unsupported(format!(
            "option {name:?} of the {extractor} extractor (vkssim's models take {})",
            known.join(", ")
        ))
    })?;
    let out_of_range = |range: String| {
        Error::InvalidOption(format!("{extractor}.{name}={value}: expected {range}"))
    };
    let v = match spec.kind {
        Kind::Bool(_) => match value {
            "true" => OptionValue::Bool(true),
            "false" => OptionValue::Bool(false),
            _ => return Err(out_of_range("true or false".into())),
        },
        Kind::Int { min, max, .. } => match value.parse::<i64>() {
            Ok(i) if (min..=max).contains(&i) => OptionValue::Int(i),
            _ => return Err(out_of_range(format!("an integer in {min}..={max}"))),
        },
        Kind::Double { min, max, .. } => match value.parse::<f64>() {
            Ok(d) if (min..=max).contains(&d) => OptionValue::Double(d),
            _ => return Err(out_of_range(format!("a number in {min}..={max}"))),
        },
    };
    Ok((spec.name, v))
}

/// The default of option `name` (a known one).
fn default_of(spec: &OptionSpec) -> OptionValue {
    match spec.kind {
        Kind::Bool(b) => OptionValue::Bool(b),
        Kind::Int { default, .. } => OptionValue::Int(default),
        Kind::Double { default, .. } => OptionValue::Double(default),
    }
}

/// The feature `model_name` of a model, run with `options` (name, value
/// text; later ones override earlier ones). An unknown feature or option
/// is an error saying so.
pub(crate) fn feature_input(
    model_name: &str,
    options: &[(String, String)],
) -> Result<FeatureInput> {
    let &(_, extractor, base) = FEATURES.iter().find(|f| f.0 == model_name).ok_or_else(|| {
        let known: Vec<_> = FEATURES.iter().map(|f| f.0).collect();
        Error::Unsupported(format!(
            "feature {model_name:?}: vkssim computes only {}",
            known.join(", ")
        ))
    })?;
    let mut set: Vec<(&'static str, OptionValue)> = Vec::new();
    for (name, value) in options {
        let (name, v) = option_value(extractor, name, value)?;
        set.retain(|(n, _)| *n != name);
        set.push((name, v));
    }
    let mut ordered = Vec::new();
    let mut output = base.to_string();
    for spec in OPTIONS.iter().filter(|o| o.extractor == extractor) {
        let Some(&(_, v)) = set.iter().find(|(n, _)| *n == spec.name) else {
            continue;
        };
        ordered.push((spec.name, v));
        let default = default_of(spec);
        match v {
            OptionValue::Bool(true) if default != v => {
                output.push('_');
                output.push_str(spec.alias);
            }
            OptionValue::Bool(_) => {}
            _ if v.suffix() != default.suffix() => {
                output.push_str(&format!("_{}_{}", spec.alias, v.suffix()));
            }
            _ => {}
        }
    }
    Ok(FeatureInput {
        model_name: model_name.to_string(),
        extractor,
        options: ordered,
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn formats_like_printf_g() {
        for (x, s) in [
            (1.0, "1"),
            (1.2, "1.2"),
            (1.23456789, "1.23457"),
            (99.99999, "100"),
            (99.9999, "99.9999"),
            (4.5, "4.5"),
            (4320.0, "4320"),
            (1234567.0, "1.23457e+06"),
            (0.000012345, "1.2345e-05"),
            (0.0001, "0.0001"),
            (100.0, "100"),
        ] {
            assert_eq!(format_g(x), s, "{x}");
        }
    }

    /// Names as the vmaf 2.3.1 CLI writes them with these options.
    #[test]
    fn names_features_as_libvmaf() {
        let adm = "VMAF_integer_feature_adm2_score";
        let cases = [
            (adm, opts(&[]), "integer_adm2"),
            (
                adm,
                opts(&[("adm_enhn_gain_limit", "1.0")]),
                "integer_adm2_egl_1",
            ),
            (adm, opts(&[("adm_enhn_gain_limit", "100")]), "integer_adm2"),
            (
                adm,
                opts(&[("adm_norm_view_dist", "4.5"), ("adm_enhn_gain_limit", "2")]),
                "integer_adm2_egl_2_nvd_4.5",
            ),
            (
                adm,
                opts(&[("adm_enhn_gain_limit", "1.5"), ("adm_enhn_gain_limit", "2")]),
                "integer_adm2_egl_2",
            ),
            (
                adm,
                opts(&[("adm_ref_display_height", "4320")]),
                "integer_adm2_rdh_4320",
            ),
            (
                "VMAF_integer_feature_vif_scale2_score",
                opts(&[("vif_enhn_gain_limit", "99.99999")]),
                "integer_vif_scale2",
            ),
            (
                "VMAF_integer_feature_motion2_score",
                opts(&[("motion_force_zero", "true")]),
                "integer_motion2_force_0",
            ),
            (
                "VMAF_integer_feature_motion2_score",
                opts(&[("motion_force_zero", "false")]),
                "integer_motion2",
            ),
        ];
        for (name, o, want) in cases {
            assert_eq!(feature_input(name, &o).unwrap().output, want, "{o:?}");
        }
    }

    #[test]
    fn refuses_unknown_features_options_and_values() {
        let e = feature_input("VMAF_feature_adm2_score", &[]).unwrap_err();
        assert!(e.to_string().contains("\"VMAF_feature_adm2_score\""), "{e}");
        let adm = "VMAF_integer_feature_adm2_score";
        for (o, says) in [
            (opts(&[("egl", "1")]), "option \"egl\" of the adm extractor"),
            (opts(&[("adm_enhn_gain_limit", "0.5")]), "1..=100"),
            (
                opts(&[("adm_enhn_gain_limit", "abc")]),
                "adm_enhn_gain_limit=abc",
            ),
            (
                opts(&[("adm_ref_display_height", "0")]),
                "an integer in 1..=4320",
            ),
            (opts(&[("vif_enhn_gain_limit", "1")]), "vif_enhn_gain_limit"),
        ] {
            let e = feature_input(adm, &o).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        let motion = "VMAF_integer_feature_motion2_score";
        let e = feature_input(motion, &opts(&[("motion_force_zero", "1")])).unwrap_err();
        assert!(e.to_string().contains("true or false"), "{e}");
    }
}
