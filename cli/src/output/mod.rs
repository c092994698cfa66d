//! The score files, in libvmaf's four formats (XML, JSON, CSV, subtitle), byte
//! for byte the structure and number formatting of libvmaf 2.3.1's
//! `vmaf_write_output_*`, so a script that parses `vmaf`'s files reads ours. Files
//! are written atomically: a temporary file in the same folder, then a rename.

mod csv;
mod json;
pub mod number;
mod pooled;
mod sub;
mod xml;

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

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
    /// Metric names in output order (`float_ssim`, then `float_ssim_l/_c/_s`).
    pub metrics: Vec<&'static str>,
    /// Scored frames in increasing index order.
    pub frames: Vec<ScoredFrame>,
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

/// Writes `text` to `path` atomically: into a temporary file in the same folder,
/// flushed to disk, then renamed over `path`. `-` writes to standard output.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .context("writing the scores to standard output")?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".vkssim-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "{}: cannot create a temporary file in {} to write the scores",
                path.display(),
                dir.display()
            )
        })?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("{}: writing the scores", tmp.path().display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("{}: moving the finished scores into place", path.display()))?;
    Ok(())
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
            metrics,
            frames,
            precision: Precision::default(),
        }
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.xml");
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn atomic_write_into_a_missing_folder_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.xml");
        let err = write_atomically(&path, "x").unwrap_err();
        assert!(format!("{err:#}").contains("out.xml"), "{err:#}");
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
