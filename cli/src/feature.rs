//! The `--feature` option, in libvmaf's syntax: `name[=key=value[:key=value...]]`,
//! read into [`Features`]: the metrics a run computes, in the order given,
//! each once, with its options (the engine's [`MetricConfig`]: `float_ssim`,
//! `psnr`, `float_ms_ssim`, `vif`, `adm`, `motion`), and the VMAF models of
//! `-m/--model` (`vmaf`'s syntax) with the extractors they read, first, as
//! `vmaf` writes them. A `score` run without `-m` runs [`DEFAULT_MODEL`], as
//! `vmaf` does (`-n` runs none); [`Features`] of no feature and no model
//! (the bench's default) is `float_ssim` with its defaults.

use anyhow::{anyhow, bail, Result};
use vkssim::metric::MotionVersion;
use vkssim::metric::{MetricConfig, Models};
use vkssim::SsimOptions;

use crate::plan::{Opt, Spelling};

/// `float_ssim`, the metric of a bench without `--feature`.
pub const FLOAT_SSIM: &str = vkssim::metric::ssim::FEATURE;

/// The model a `score` run without `-m/--model` or `-n` runs, as `vmaf`
/// 2.3.1 does.
pub const DEFAULT_MODEL: &str = "version=vmaf_v0.6.1";

/// The metrics a run computes, in the order first asked for, each at most
/// once (a `--feature` repeated with the same options counts once); without
/// any `--feature`, `float_ssim` with its defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    metrics: Vec<MetricConfig>,
    /// The `--model` specifications (checked), in order.
    models: Vec<String>,
    /// The version of `motion` the metrics and the models' extractors
    /// compute (`--motion-version`).
    motion: MotionVersion,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            metrics: vec![MetricConfig::default()],
            models: Vec::new(),
            motion: MotionVersion::default(),
        }
    }
}

impl Features {
    /// The metrics every `--feature` given asks for (none: the default).
    pub fn parse(specs: &[String]) -> Result<Self> {
        Self::parse_with_models(specs, &[], Spelling::Flags)
    }

    /// [`Features::parse`], its errors naming the option as `spelling` does
    /// (`--feature psnr=x`, `features: 'psnr=x'`).
    pub fn parse_spelled(specs: &[String], spelling: Spelling) -> Result<Self> {
        Self::parse_with_models(specs, &[], spelling)
    }

    /// The models `model_specs` name (`vmaf`'s `-m/--model` syntax) and the
    /// extractors they read, then the metrics every `--feature` asks for; a
    /// `--feature` that a model already runs with the same options counts
    /// once, as in `vmaf`. Neither: the default. Errors name the option as
    /// `spelling` does.
    pub fn parse_with_models(
        specs: &[String],
        model_specs: &[String],
        spelling: Spelling,
    ) -> Result<Self> {
        Self::parse_with_motion(specs, model_specs, spelling, MotionVersion::default())
    }

    /// [`Features::parse_with_models`] computing libvmaf `motion`'s
    /// version of motion (for `--feature motion` and the models' motion).
    pub fn parse_with_motion(
        specs: &[String],
        model_specs: &[String],
        spelling: Spelling,
        motion: MotionVersion,
    ) -> Result<Self> {
        let model_option = spelling.name(Opt::Model);
        let models = Models::parse(model_specs).map_err(|e| anyhow!("{model_option}: {e}"))?;
        let mut metrics: Vec<MetricConfig> = models.metrics_with_motion(motion)?;
        for spec in specs {
            let given = match spelling {
                Spelling::Flags => spelling.number(Opt::Feature, spec),
                Spelling::Keywords => format!("{}: '{spec}'", Opt::Feature.keyword()),
            };
            let metric = MetricConfig::parse_with_motion(spec, motion)
                .map_err(|e| anyhow!("{given}: {e}"))?;
            match metrics.iter().find(|m| m.shares_outputs(&metric)) {
                Some(m) if *m != metric => bail!(
                    "{given}: {} is already requested with other options; give it once",
                    metric.feature()
                ),
                Some(_) => {}
                None => metrics.push(metric),
            }
        }
        if metrics.is_empty() {
            return Ok(Self::default());
        }
        Ok(Self {
            metrics,
            models: model_specs.to_vec(),
            motion,
        })
    }

    /// Which libvmaf's `motion` the run computes (`--motion-version`).
    pub fn motion_version(&self) -> MotionVersion {
        self.motion
    }

    /// The run's VMAF models (none without `--model`).
    pub fn models(&self) -> Result<Models> {
        Ok(Models::parse(&self.models)?)
    }

    /// The metrics, in output order.
    pub fn configs(&self) -> &[MetricConfig] {
        &self.metrics
    }

    /// The `float_ssim` options (its defaults when `float_ssim` is not asked
    /// for).
    pub fn ssim(&self) -> SsimOptions {
        self.metrics
            .iter()
            .find_map(|m| match m {
                MetricConfig::FloatSsim(o) => Some(*o),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Whether a metric reads the chroma planes.
    pub fn needs_chroma(&self) -> bool {
        self.metrics.iter().any(MetricConfig::needs_chroma)
    }

    /// The metrics that read the chroma planes, in order.
    pub fn chroma_readers(&self) -> Vec<&MetricConfig> {
        self.metrics.iter().filter(|m| m.needs_chroma()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The `float_ssim` options from every `--feature` given (none: the
    /// defaults).
    fn parse_features(specs: &[String]) -> Result<SsimOptions> {
        Ok(Features::parse(specs)?.ssim())
    }

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
            ("ciede", "`ciede`"),
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
        let err = parse(&["adm", "adm=debug=true"]).unwrap_err();
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
            match Features::parse(&specs) {
                Ok(f) => {
                    for spec in &specs {
                        let m = MetricConfig::parse(spec).unwrap();
                        prop_assert!(f.configs().contains(&m), "{spec:?}");
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
            name in prop::sample::select(vec!["float_ssim", "ciede", "", "float_ssim "]),
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
    fn several_metrics_in_order() {
        // Every registered metric, last first: the order given is kept.
        let mut names: Vec<&str> = MetricConfig::all().iter().map(|m| m.feature()).collect();
        names.reverse();
        let specs: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let f = Features::parse(&specs).unwrap();
        let got: Vec<_> = f.configs().iter().map(|m| m.feature()).collect();
        assert_eq!(got, names);
        let readers: Vec<_> = f.chroma_readers().iter().map(|m| m.feature()).collect();
        let expected: Vec<_> = names
            .iter()
            .copied()
            .filter(|n| n.parse::<MetricConfig>().unwrap().needs_chroma())
            .collect();
        assert!(!readers.is_empty());
        assert_eq!((f.needs_chroma(), readers), (true, expected));
        assert!(!Features::default().needs_chroma());
    }

    #[test]
    fn a_repeated_feature_is_one_metric() {
        let specs = [
            "float_ssim=scale=2".to_string(),
            "float_ssim=scale=2".to_string(),
        ];
        let f = Features::parse(&specs).unwrap();
        assert_eq!(f, Features::parse(&specs[..1]).unwrap());
        assert_eq!(f.configs().len(), 1);
        assert_eq!(f.ssim().scale, 2);
        assert_eq!(Features::parse(&[]).unwrap(), Features::default());
    }
}
