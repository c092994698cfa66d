//! The `--feature` option, in libvmaf's syntax: `name[=key=value[:key=value...]]`,
//! read into [`Features`]: the metrics a run computes, each once, with its
//! options ([`MetricConfig`]). vkssim computes one feature, `float_ssim`, with
//! its options `scale`, `enable_lcs`, `enable_db` and `clip_db`; any other
//! feature is refused.

use anyhow::{bail, Result};
use vkssim::{FrameScore, SsimOptions};

/// The one feature vkssim computes.
pub const FLOAT_SSIM: &str = vkssim::metric::ssim::FEATURE;

/// One metric a run computes, with its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricConfig {
    /// `float_ssim`.
    FloatSsim(SsimOptions),
}

impl MetricConfig {
    /// The metric `name` (a `--feature` name) with its default options, if
    /// vkssim computes it.
    fn named(name: &str) -> Option<Self> {
        match name {
            FLOAT_SSIM => Some(Self::FloatSsim(SsimOptions::default())),
            _ => None,
        }
    }

    /// Its `--feature` name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::FloatSsim(_) => FLOAT_SSIM,
        }
    }

    /// Sets option `key` to `val`, as `--feature spec` asks.
    fn set(&mut self, spec: &str, key: &str, val: &str) -> Result<()> {
        match self {
            Self::FloatSsim(opts) => match key {
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
            },
        }
        Ok(())
    }

    /// The names of the values it reports per frame, in libvmaf's output order.
    fn output_names(&self) -> Vec<&'static str> {
        match self {
            Self::FloatSsim(opts) => vkssim::metric::ssim::feature_names(opts),
        }
    }

    /// Appends its values of `score`, in [`Self::output_names`] order.
    fn push_values(&self, score: &FrameScore, out: &mut Vec<f64>) {
        match self {
            Self::FloatSsim(opts) => {
                out.push(score.float_ssim());
                if opts.enable_lcs {
                    // Present exactly with enable_lcs (FrameScore::l).
                    out.extend(score.lcs().unwrap_or([f64::NAN; 3]));
                }
            }
        }
    }
}

/// The metrics a run computes, in the order first asked for, each at most
/// once (a `--feature` repeated with the same options counts once); without
/// any `--feature`, `float_ssim` with its defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Features {
    metrics: Vec<MetricConfig>,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            metrics: vec![MetricConfig::FloatSsim(SsimOptions::default())],
        }
    }
}

impl Features {
    /// The metrics every `--feature` given asks for (none: the default).
    pub fn parse(specs: &[String]) -> Result<Self> {
        let mut metrics: Vec<MetricConfig> = Vec::new();
        for spec in specs {
            let metric = parse_one(spec)?;
            match metrics.iter().find(|m| m.name() == metric.name()) {
                Some(m) if *m != metric => bail!(
                    "--feature {spec}: {} is already requested with other options; give it once",
                    metric.name()
                ),
                Some(_) => {}
                None => metrics.push(metric),
            }
        }
        if metrics.is_empty() {
            return Ok(Self::default());
        }
        Ok(Self { metrics })
    }

    /// The `float_ssim` options the scorer takes (its defaults when
    /// `float_ssim` is not asked for).
    pub fn ssim(&self) -> SsimOptions {
        self.metrics
            .iter()
            .map(|m| match m {
                MetricConfig::FloatSsim(o) => *o,
            })
            .next()
            .unwrap_or_default()
    }

    /// The names of the values a frame reports, in output order.
    pub fn names(&self) -> Vec<&'static str> {
        self.metrics.iter().flat_map(|m| m.output_names()).collect()
    }

    /// The values `score` reports, in [`Self::names`] order.
    pub fn values(&self, score: &FrameScore) -> Vec<f64> {
        let mut out = Vec::new();
        for m in &self.metrics {
            m.push_values(score, &mut out);
        }
        out
    }
}

/// The `float_ssim` options from every `--feature` given (none: the defaults).
pub fn parse_features(specs: &[String]) -> Result<SsimOptions> {
    Ok(Features::parse(specs)?.ssim())
}

/// One `--feature` value.
fn parse_one(spec: &str) -> Result<MetricConfig> {
    let (name, rest) = match spec.split_once('=') {
        Some((name, rest)) => (name, Some(rest)),
        None => (spec, None),
    };
    let Some(mut metric) = MetricConfig::named(name) else {
        bail!(
            "--feature {spec}: vkssim computes only `float_ssim` (with options scale, enable_lcs, enable_db, clip_db); `{name}` is not supported"
        );
    };
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
        metric.set(spec, key, val)?;
    }
    Ok(metric)
}

/// libvmaf's boolean option values: exactly `true` or `false`.
fn parse_bool(spec: &str, key: &str, val: &str) -> Result<bool> {
    match val {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => bail!("--feature {spec}: {key} must be `true` or `false`, not `{val}`"),
    }
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
                        prop_assert_eq!(parse_one(spec).unwrap(), MetricConfig::FloatSsim(o));
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
        let names = |specs: &[&str]| {
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            Features::parse(&specs).unwrap().names()
        };
        assert_eq!(names(&[]), ["float_ssim"]);
        assert_eq!(
            names(&["float_ssim=enable_lcs=true"]),
            ["float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"]
        );
    }

    #[test]
    fn a_repeated_feature_is_one_metric() {
        let specs = [
            "float_ssim=scale=2".to_string(),
            "float_ssim=scale=2".to_string(),
        ];
        let f = Features::parse(&specs).unwrap();
        assert_eq!(f, Features::parse(&specs[..1]).unwrap());
        assert_eq!(f.names(), ["float_ssim"]);
        assert_eq!(f.ssim().scale, 2);
        assert_eq!(Features::parse(&[]).unwrap(), Features::default());
    }
}
