//! The CSV file, laid out as libvmaf 2.3.1's `vmaf_write_output_csv`: a header
//! `Frame,<metric>,...,` and one `index,value,...,` row per frame (every line
//! ends with a comma, as libvmaf's do).

use super::number::format_value;
use super::Report;

/// The whole CSV text.
pub fn render(r: &Report) -> String {
    let mut out = String::from("Frame,");
    for name in &r.metrics {
        out.push_str(name);
        out.push(',');
    }
    out.push('\n');
    for f in &r.frames {
        out.push_str(&format!("{},", f.index));
        for x in &f.values {
            out.push_str(&format_value(*x, r.precision));
            out.push(',');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn layout_matches_libvmaf() {
        let r = sample(0, 2, true);
        assert_eq!(
            render(&r),
            "Frame,float_ssim,float_ssim_l,float_ssim_c,float_ssim_s,\n\
             0,0.500000,0.625000,0.750000,0.875000,\n\
             1,0.515625,0.640625,0.765625,0.890625,\n"
        );
    }
}
