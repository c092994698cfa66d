//! The score files, in libvmaf's four formats (XML, JSON, CSV, subtitle), byte
//! for byte the structure and number formatting of libvmaf 2.3.1's
//! `vmaf_write_output_*`, so a script that parses `vmaf`'s files reads ours. How
//! the files are written (atomically, or through a device) is [`target`]'s job.

mod csv;
mod json;
pub mod number;
mod pooled;
mod sub;
pub mod target;
mod xml;

pub use number::Precision;
pub use pooled::pool;

/// The output file formats, with `vmaf`'s flag names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// `--xml` (the default).
    #[default]
    Xml,
    /// `--json`.
    Json,
    /// `--csv`.
    Csv,
    /// `--sub`: one subtitle line per frame (MicroDVD style).
    Sub,
}

/// One scored frame: its index in the run (`frameNum`) and one value per metric,
/// in the order of [`Report::metrics`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredFrame {
    /// Frame index, counted from the first frame scored (after any skip).
    pub index: u64,
    /// One value per metric.
    pub values: Vec<f64>,
}

/// Everything a score file holds.
#[derive(Debug, Clone)]
pub struct Report {
    /// Written where libvmaf writes its version.
    pub version: String,
    /// Luma width (`qualityWidth`).
    pub width: u32,
    /// Luma height (`qualityHeight`).
    pub height: u32,
    /// Frames read per second of scoring.
    pub fps: f64,
    /// `--subsample` (0 or 1: every frame).
    pub subsample: u64,
    /// Metric names in output order (the `vmaf` CLI's: each feature in the
    /// order given, its values in libvmaf's order).
    pub metrics: Vec<String>,
    /// Scored frames in increasing index order.
    pub frames: Vec<ScoredFrame>,
    /// The values reported once for the run (`aggregate_metrics`:
    /// `apsnr_*`), in order.
    pub aggregate: Vec<(String, f64)>,
    /// Digits of the metric values.
    pub precision: Precision,
}

impl Report {
    /// The value of metric `metric` at frame `index`, if that frame was scored.
    pub fn value_at(&self, metric: usize, index: u64) -> Option<f64> {
        self.frames
            .binary_search_by_key(&index, |f| f.index)
            .ok()
            .map(|i| self.frames[i].values[metric])
    }

    /// The file's text in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Xml => xml::render(self),
            Format::Json => json::render(self),
            Format::Csv => csv::render(self),
            Format::Sub => sub::render(self),
        }
    }

    /// The summary printed on standard output when no `-o` is given: one
    /// `name: mean` line per metric.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (m, name) in self.metrics.iter().enumerate() {
            if let Some(p) = pool(self, m) {
                out.push_str(&format!(
                    "{name}: {}\n",
                    number::format_value(p.mean, self.precision)
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample(subsample: u64, n: u64, lcs: bool) -> Report {
        let metrics = if lcs {
            vec!["float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"]
        } else {
            vec!["float_ssim"]
        };
        let step = subsample.max(1);
        let frames = (0..n)
            .filter(|i| i % step == 0)
            .map(|i| ScoredFrame {
                index: i,
                values: metrics
                    .iter()
                    .enumerate()
                    .map(|(m, _)| 0.5 + (i as f64) / 64.0 + m as f64 / 8.0)
                    .collect(),
            })
            .collect();
        Report {
            version: "test".into(),
            width: 64,
            height: 48,
            fps: 12.345,
            subsample,
            metrics: metrics.iter().map(|m| m.to_string()).collect(),
            frames,
            aggregate: Vec::new(),
            precision: Precision::default(),
        }
    }

    #[test]
    fn summary_lists_each_mean() {
        let r = sample(0, 2, true);
        let s = r.summary();
        assert_eq!(s.lines().count(), 4);
        // Frames 0 and 1: float_ssim values 0.5 and 0.515625, mean 0.5078125.
        assert!(s.starts_with("float_ssim: 0.507812\n"), "{s}");
    }
}
