//! The `--feature` option, in libvmaf's syntax: `name[=key=value[:key=value...]]`.
//! vkssim computes one feature, `float_ssim`, with its options `scale`,
//! `enable_lcs`, `enable_db` and `clip_db`; any other feature is refused.

use anyhow::{bail, Result};
use vkssim::SsimOptions;

/// The one feature vkssim computes.
pub const FLOAT_SSIM: &str = vkssim::metric::ssim::FEATURE;

/// The `float_ssim` options from every `--feature` given (none: the defaults).
pub fn parse_features(specs: &[String]) -> Result<SsimOptions> {
    let mut found: Option<SsimOptions> = None;
    for spec in specs {
        let opts = parse_one(spec)?;
        if found.is_some_and(|f| f != opts) {
            bail!(
                "--feature {spec}: float_ssim is already requested with other options; give it once"
            );
        }
        found = Some(opts);
    }
    Ok(found.unwrap_or_default())
}

/// One `--feature` value.
fn parse_one(spec: &str) -> Result<SsimOptions> {
    let (name, rest) = match spec.split_once('=') {
        Some((name, rest)) => (name, Some(rest)),
        None => (spec, None),
    };
    if name != FLOAT_SSIM {
        bail!(
            "--feature {spec}: vkssim computes only `float_ssim` (with options scale, enable_lcs, enable_db, clip_db); `{name}` is not supported"
        );
    }
    let mut opts = SsimOptions::default();
    let mut seen: Vec<&str> = Vec::new();
    for key_val in rest.into_iter().flat_map(|r| r.split(':')) {
        // libvmaf's parser stops at an empty field, so `float_ssim=` and a
        // trailing `:` are accepted.
        if key_val.is_empty() {
            continue;
        }
        let Some((key, val)) = key_val.split_once('=') else {
            bail!("--feature {spec}: option `{key_val}` has no value (write {key_val}=...)");
        };
        // libvmaf lets the last value win; a key given twice is more likely a
        // mistake than a wish, so it is refused (as duplicate Y4M tags are).
        if seen.contains(&key) {
            bail!("--feature {spec}: option `{key}` is given more than once; give it once");
        }
        seen.push(key);
        match key {
            "enable_lcs" => opts.enable_lcs = parse_bool(spec, key, val)?,
            "enable_db" => opts.enable_db = parse_bool(spec, key, val)?,
            "clip_db" => opts.clip_db = parse_bool(spec, key, val)?,
            "scale" => {
                opts.scale = val.parse().map_err(|_| {
                    anyhow::anyhow!(
                        "--feature {spec}: scale must be a whole number (0 = automatic), not `{val}`"
                    )
                })?
            }
            _ => bail!(
                "--feature {spec}: float_ssim has no option `{key}` (it has scale, enable_lcs, enable_db, clip_db)"
            ),
        }
    }
    Ok(opts)
}

/// libvmaf's boolean option values: exactly `true` or `false`.
fn parse_bool(spec: &str, key: &str, val: &str) -> Result<bool> {
    match val {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => bail!("--feature {spec}: {key} must be `true` or `false`, not `{val}`"),
    }
}

/// The metric names a run with `opts` reports, in libvmaf's output order.
pub fn metric_names(opts: &SsimOptions) -> Vec<&'static str> {
    vkssim::metric::ssim::feature_names(opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(specs: &[&str]) -> Result<SsimOptions> {
        parse_features(&specs.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn default_is_plain_float_ssim() {
        assert_eq!(parse(&[]).unwrap(), SsimOptions::default());
        assert_eq!(parse(&["float_ssim"]).unwrap(), SsimOptions::default());
    }

    #[test]
    fn all_options() {
        let o = parse(&["float_ssim=scale=3:enable_lcs=true:enable_db=true:clip_db=true"]).unwrap();
        assert_eq!(
            o,
            SsimOptions {
                scale: 3,
                enable_lcs: true,
                enable_db: true,
                clip_db: true
            }
        );
    }

    #[test]
    fn refusals_name_the_problem() {
        for (spec, needle) in [
            ("psnr", "`psnr` is not supported"),
            ("float_ssim=enable_db", "has no value"),
            ("float_ssim=enable_db=yes", "`true` or `false`"),
            ("float_ssim=scale=-1", "whole number"),
            ("float_ssim=foo=1", "no option `foo`"),
        ] {
            let err = parse(&[spec]).unwrap_err().to_string();
            assert!(err.contains(needle), "{spec}: {err}");
        }
        let err = parse(&["float_ssim", "float_ssim=enable_lcs=true"]).unwrap_err();
        assert!(err.to_string().contains("give it once"), "{err}");
        for spec in [
            "float_ssim=enable_lcs=true:enable_lcs=false",
            "float_ssim=scale=2:enable_db=true:scale=2",
        ] {
            let err = parse(&[spec]).unwrap_err().to_string();
            assert!(
                err.contains("more than once") && err.contains(spec),
                "{err}"
            );
        }
    }

    /// What a `--feature` value made of these fields must give: libvmaf's
    /// syntax read by hand, field by field (an empty field is skipped), except
    /// that a key given twice is refused.
    fn model(name: &str, fields: &[String]) -> Option<SsimOptions> {
        if name != FLOAT_SSIM {
            return None;
        }
        let mut o = SsimOptions::default();
        let mut seen = Vec::new();
        for field in fields.iter().filter(|f| !f.is_empty()) {
            let (key, val) = field.split_once('=')?;
            if seen.contains(&key) {
                return None;
            }
            seen.push(key);
            let flag = || match val {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            };
            match key {
                "scale" => o.scale = val.parse().ok()?,
                "enable_lcs" => o.enable_lcs = flag()?,
                "enable_db" => o.enable_db = flag()?,
                "clip_db" => o.clip_db = flag()?,
                _ => return None,
            }
        }
        Some(o)
    }

    fn field() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![
            "scale",
            "enable_lcs",
            "enable_db",
            "clip_db",
            "foo",
            "",
            "Scale",
        ]);
        let val = prop_oneof![
            prop::sample::select(vec![
                "true",
                "false",
                "0",
                "3",
                "-1",
                "yes",
                "",
                "99999999999"
            ])
            .prop_map(str::to_string),
            "[ -~]{0,6}",
        ];
        prop_oneof![
            (key, val).prop_map(|(k, v)| format!("{k}={v}")),
            "[ -~]{0,8}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 500,
            failure_persistence: None,
            ..Default::default()
        })]

        /// Any strings: no panic; an error names `--feature` and the value;
        /// success only for `float_ssim` and repeats of the same options.
        #[test]
        fn any_strings_parse_or_are_refused(specs in prop::collection::vec(any::<String>(), 0..3)) {
            match parse_features(&specs) {
                Ok(o) => {
                    for spec in &specs {
                        prop_assert!(spec.starts_with(FLOAT_SSIM), "{spec:?}");
                        prop_assert_eq!(parse_one(spec).unwrap(), o);
                    }
                }
                Err(e) => {
                    let msg = e.to_string();
                    prop_assert!(msg.starts_with("--feature "), "{msg}");
                    prop_assert!(specs.iter().any(|s| msg.contains(s.as_str())), "{msg}");
                }
            }
        }

        /// Near-valid values: exactly what libvmaf's syntax gives.
        #[test]
        fn fields_give_what_the_syntax_says(
            name in prop::sample::select(vec!["float_ssim", "psnr", "", "float_ssim "]),
            fields in prop::collection::vec(field(), 0..5),
            trailing in any::<bool>(),
        ) {
            let mut spec = name.to_string();
            if !fields.is_empty() || trailing {
                spec.push('=');
                spec.push_str(&fields.join(":"));
            }
            if trailing {
                spec.push(':');
            }
            // A field of random text may hold a `:` and split in two.
            let split: Vec<String> = fields.join(":").split(':').map(str::to_string).collect();
            let got = parse_features(&[spec.clone()]).ok();
            prop_assert_eq!(got, model(name, &split), "{}", spec);
        }
    }

    #[test]
    fn names_follow_enable_lcs() {
        assert_eq!(metric_names(&SsimOptions::default()), ["float_ssim"]);
        let lcs = SsimOptions {
            enable_lcs: true,
            ..Default::default()
        };
        assert_eq!(metric_names(&lcs).len(), 4);
    }
}
