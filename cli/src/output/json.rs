//! The JSON file, laid out as libvmaf 2.3.1's `vmaf_write_output_json`, down to
//! its whitespace: infinities and NaNs become `null` (and, as in libvmaf, a
//! frame's `null` value is not followed by a line break).

use super::number::{format_fixed, format_value};
use super::{pool, Report};

/// The whole JSON document.
pub fn render(r: &Report) -> String {
    let v = |x: f64| format_value(x, r.precision);
    let mut out = String::new();
    out.push_str("{\n");
    out.push_str(&format!("  \"version\": \"{}\",\n", r.version));
    out.push_str(&format!("  \"fps\": {},\n", format_fixed(r.fps, 2)));
    out.push_str("  \"frames\": [");
    for f in &r.frames {
        out.push_str(if f.index > 0 { ",\n" } else { "\n" });
        out.push_str("    {\n");
        out.push_str(&format!("      \"frameNum\": {},\n", f.index));
        out.push_str("      \"metrics\": {\n");
        let n = f.values.len();
        for (k, (name, x)) in r.metrics.iter().zip(&f.values).enumerate() {
            let comma = if k + 1 < n { "," } else { "" };
            if x.is_finite() {
                out.push_str(&format!("        \"{name}\": {}{comma}\n", v(*x)));
            } else {
                out.push_str(&format!("        \"{name}\": null{comma}"));
            }
        }
        out.push_str("      }\n");
        out.push_str("    }");
    }
    out.push_str("\n  ],\n");
    out.push_str("  \"pooled_metrics\": {");
    if !r.frames.is_empty() {
        for (m, name) in r.metrics.iter().enumerate() {
            out.push_str(if m > 0 { ",\n" } else { "\n" });
            out.push_str(&format!("    \"{name}\": {{"));
            if let Some(p) = pool(r, m) {
                for (j, (method, x)) in p.named().into_iter().enumerate() {
                    out.push_str(if j > 0 { ",\n" } else { "\n" });
                    if x.is_finite() {
                        out.push_str(&format!("      \"{method}\": {}", v(x)));
                    } else {
                        out.push_str(&format!("      \"{method}\": null"));
                    }
                }
            }
            out.push('\n');
            out.push_str("    }");
        }
    }
    out.push_str("\n  },\n");
    out.push_str("  \"aggregate_metrics\": {");
    for (k, (name, x)) in r.aggregate.iter().enumerate() {
        out.push_str(if k > 0 { ",\n" } else { "\n" });
        if x.is_finite() {
            out.push_str(&format!("    \"{name}\": {}", v(*x)));
        } else {
            out.push_str(&format!("    \"{name}\": null"));
        }
    }
    out.push_str("\n  }\n");
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::super::Precision;
    use super::*;

    #[test]
    fn layout_matches_libvmaf() {
        let r = sample(0, 2, false);
        let expected = r#"{
  "version": "test",
  "fps": 12.35,
  "frames": [
    {
      "frameNum": 0,
      "metrics": {
        "float_ssim": 0.500000
      }
    },
    {
      "frameNum": 1,
      "metrics": {
        "float_ssim": 0.515625
      }
    }
  ],
  "pooled_metrics": {
    "float_ssim": {
      "min": 0.500000,
      "max": 0.515625,
      "mean": 0.507812,
      "harmonic_mean": 0.507772
    }
  },
  "aggregate_metrics": {
  }
}
"#;
        assert_eq!(render(&r), expected);
    }

    #[test]
    fn aggregate_values_as_libvmaf_writes_them() {
        let mut r = sample(0, 1, false);
        r.aggregate = vec![
            ("mean_y".into(), 33.5),
            ("mean_cb".into(), f64::NEG_INFINITY),
        ];
        assert!(render(&r).ends_with(
            "  \"aggregate_metrics\": {\n    \"mean_y\": 33.500000,\n    \"mean_cb\": null\n  }\n}\n"
        ));
    }

    #[test]
    fn parses_with_every_metric_and_null_for_infinity() {
        let mut r = sample(0, 3, true);
        r.frames[1].values[0] = f64::INFINITY;
        r.precision = Precision::Max;
        let text = render(&r);
        let j: serde_json::Value = serde_json::from_str(&text).expect(&text);
        let frames = j["frames"].as_array().unwrap();
        assert_eq!(frames.len(), 3);
        assert!(frames[1]["metrics"]["float_ssim"].is_null());
        assert_eq!(
            frames[2]["metrics"]["float_ssim_s"].as_f64().unwrap(),
            r.frames[2].values[3]
        );
        assert!(j["pooled_metrics"]["float_ssim"]["mean"].is_null());
        assert_eq!(
            j["pooled_metrics"]["float_ssim_l"]["min"].as_f64().unwrap(),
            r.frames[0].values[1]
        );
    }
}
