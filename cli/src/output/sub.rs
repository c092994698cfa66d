//! The subtitle file (`--sub`), laid out as libvmaf 2.3.1's
//! `vmaf_write_output_sub`: one MicroDVD line `{i}{i+1}frame: i|name: value|...`
//! per frame.

use super::number::format_value;
use super::Report;

/// The whole subtitle text.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    for f in &r.frames {
        out.push_str(&format!(
            "{{{}}}{{{}}}frame: {}|",
            f.index,
            f.index + 1,
            f.index
        ));
        for (name, x) in r.metrics.iter().zip(&f.values) {
            out.push_str(&format!("{name}: {}|", format_value(*x, r.precision)));
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
        let r = sample(0, 2, false);
        assert_eq!(
            render(&r),
            "{0}{1}frame: 0|float_ssim: 0.500000|\n{1}{2}frame: 1|float_ssim: 0.515625|\n"
        );
    }
}
