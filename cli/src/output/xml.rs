//! The XML file, laid out as libvmaf 2.3.1's `vmaf_write_output_xml`.

use super::number::{format_fixed, format_value};
use super::{pool, Report};

/// The whole XML document.
pub fn render(r: &Report) -> String {
    let v = |x: f64| format_value(x, r.precision);
    let mut out = String::new();
    out.push_str(&format!("<VMAF version=\"{}\">\n", r.version));
    out.push_str(&format!(
        "  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />\n",
        r.width, r.height
    ));
    out.push_str(&format!("  <fyi fps=\"{}\" />\n", format_fixed(r.fps, 2)));
    out.push_str("  <frames>\n");
    for f in &r.frames {
        out.push_str(&format!("    <frame frameNum=\"{}\" ", f.index));
        for (name, x) in r.metrics.iter().zip(&f.values) {
            out.push_str(&format!("{name}=\"{}\" ", v(*x)));
        }
        out.push_str("/>\n");
    }
    out.push_str("  </frames>\n");
    out.push_str("  <pooled_metrics>\n");
    if !r.frames.is_empty() {
        for (m, name) in r.metrics.iter().enumerate() {
            out.push_str(&format!("    <metric name=\"{name}\" "));
            if let Some(p) = pool(r, m) {
                for (method, x) in p.named() {
                    out.push_str(&format!("{method}=\"{}\" ", v(x)));
                }
            }
            out.push_str("/>\n");
        }
    }
    out.push_str("  </pooled_metrics>\n");
    out.push_str("  <aggregate_metrics ");
    for (name, x) in &r.aggregate {
        out.push_str(&format!("{name}=\"{}\" ", v(*x)));
    }
    out.push_str("/>\n");
    out.push_str("</VMAF>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn layout_matches_libvmaf() {
        let r = sample(0, 2, false);
        let expected = "<VMAF version=\"test\">\n\
            \x20 <params qualityWidth=\"64\" qualityHeight=\"48\" />\n\
            \x20 <fyi fps=\"12.35\" />\n\
            \x20 <frames>\n\
            \x20   <frame frameNum=\"0\" float_ssim=\"0.500000\" />\n\
            \x20   <frame frameNum=\"1\" float_ssim=\"0.515625\" />\n\
            \x20 </frames>\n\
            \x20 <pooled_metrics>\n\
            \x20   <metric name=\"float_ssim\" min=\"0.500000\" max=\"0.515625\" mean=\"0.507812\" harmonic_mean=\"0.507772\" />\n\
            \x20 </pooled_metrics>\n\
            \x20 <aggregate_metrics />\n\
            </VMAF>\n";
        assert_eq!(render(&r), expected);
    }

    #[test]
    fn aggregate_values_as_libvmaf_writes_them() {
        let mut r = sample(0, 1, false);
        r.aggregate = vec![
            ("mean_y".into(), 33.5),
            ("mean_cb".into(), f64::NEG_INFINITY),
        ];
        assert!(
            render(&r).contains("  <aggregate_metrics mean_y=\"33.500000\" mean_cb=\"-inf\" />\n")
        );
    }
}
