//! [`Extractor`]: what one metric tells every shared layer about itself,
//! libvmaf's `VmafFeatureExtractor` in Rust: its name, its options table, its
//! output names, the frames it takes, and what it needs of the pipeline
//! ([`Needs`]: chroma, the previous reference frame, a Vulkan pass). Each
//! metric's options type implements it in the metric's own module; the
//! registry ([`super::config`]) lists every metric once. Shared code reads
//! these properties and never matches on a metric.

use std::borrow::Cow;
use std::fmt::Debug;

use super::outputs::MetricOutputs;
use super::side::SideValues;
use crate::io::Chroma;
use crate::Result;

/// An output name: a metric's own (static) or one built from its options
/// (`integer_vif_scale0_egl_1`).
pub type OutputName = Cow<'static, str>;

/// What a metric asks of the pipeline that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    /// It reads the Cb and Cr planes (on pictures that have them).
    pub chroma: bool,
    /// A frame's values need the previous frame's reference too (libvmaf's
    /// `PREV_REF`): a frame job carries it, so any worker can take any frame.
    pub previous_reference: bool,
    /// The Vulkan engine has its passes; otherwise it runs on the CPU twin.
    pub vulkan: bool,
    /// Its per-frame work keeps the host busy even on Vulkan (float_ms_ssim's):
    /// readers then write device memory directly rather than through a
    /// bounce buffer, whose copies slowed it.
    pub host_heavy: bool,
}

/// One metric's options and what the shared layers learn from them (see the
/// module note). Option values are text in the `vmaf` command line's syntax.
pub trait Extractor: Debug + Send + Sync {
    /// libvmaf's name of the metric (`float_ssim`, `psnr`, `vif`, ...).
    fn name(&self) -> &'static str;

    /// The option keys it takes, in libvmaf's order.
    fn keys(&self) -> &'static [&'static str];

    /// Sets option `key` from its text; [`crate::Error::InvalidOption`]
    /// naming the metric and the option for an unknown key or a value
    /// libvmaf would refuse.
    fn set(&mut self, key: &str, value: &str) -> Result<()>;

    /// The options that differ from the defaults, as `key=value`, in
    /// [`Extractor::keys`]'s order.
    fn non_default(&self) -> Vec<String>;

    /// The per-frame output names for pictures of `chroma`, in libvmaf's
    /// order.
    fn output_names(&self, chroma: Chroma) -> Vec<OutputName>;

    /// Those of its [`Extractor::output_names`] that libvmaf writes after
    /// every other extractor's outputs, because it computes them when the
    /// stream ends (libvmaf 3.2.0's motion2 and motion3); none by default.
    fn flushed_names(&self, _chroma: Chroma) -> Vec<OutputName> {
        Vec::new()
    }

    /// The names of the values reported once, at the end of a run.
    fn aggregate_names(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Checks, before any work, that it can score frames of this format:
    /// the error names the metric and what it cannot take.
    fn check_frame(&self, width: u32, height: u32, bit_depth: u32, chroma: Chroma) -> Result<()>;

    /// How it scores frames of this size, for a report's header
    /// (float_ssim: its decimation scale and the scaled size); `None` when
    /// there is nothing to say or it cannot score them.
    fn frame_note(&self, _width: u32, _height: u32, _bit_depth: u32) -> Option<String> {
        None
    }

    /// What it needs of the pipeline.
    fn needs(&self) -> Needs;

    /// The names of the values a run's collector keeps per frame: its
    /// outputs, and any value its [`Extractor::finish_run`] reads that is
    /// not written (motion's `integer_motion` without `debug`).
    fn collected_names(&self, chroma: Chroma) -> Vec<OutputName> {
        self.output_names(chroma)
    }

    /// Fills, in a run's collected columns (frame order, every frame of the
    /// run), the values that need later frames (motion's `integer_motion2`).
    /// A frame's values read at most [`Extractor::frames_after`] later
    /// frames, so the columns may also be a run's frames from one frame on
    /// (a streaming queue's window; [`Columns::starts_run`] says whether
    /// its first row is the run's first frame).
    fn finish_run(&self, _columns: &mut Columns) {}

    /// How many later frames [`Extractor::finish_run`] reads to finish one
    /// frame's values (motion: 1, the next frame's motion); a streaming
    /// queue holds a frame's result until they are in.
    fn frames_after(&self) -> usize {
        0
    }

    /// Rewrites a frame's own values (`outputs`, before
    /// [`Extractor::finish_run`]) of `width` x `height` frames as a stream's
    /// first frame gives them: a temporal metric's values that compared
    /// against a previous frame which is not part of the frame's stream
    /// (motion: its first frame scores 0). A streaming queue calls it on the
    /// frame after one whose reference was refused, which starts a new
    /// stream. Nothing to do for a metric that reads no previous frame.
    fn restart(&self, _outputs: &mut MetricOutputs, _size: (u32, u32)) {}

    /// Its values of the whole run (libvmaf's `flush`: psnr's `apsnr_*`),
    /// named as [`Extractor::aggregate_names`] says, from what it kept of
    /// every frame ([`SideValues`], in frame order) of `width` x `height`
    /// frames at `bit_depth` with `chroma` (a format [`Extractor::check_frame`]
    /// took).
    fn aggregate(
        &self,
        _width: u32,
        _height: u32,
        _bit_depth: u32,
        _chroma: Chroma,
        _frames: &[SideValues],
    ) -> Result<MetricOutputs> {
        Ok(MetricOutputs::new())
    }
}

/// A run's values per name, each a column in frame order: what the
/// collector keeps and [`Extractor::finish_run`] completes.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    names: Vec<OutputName>,
    values: Vec<Vec<f64>>,
    /// Whether the first row is the run's first frame.
    starts_run: bool,
}

impl Default for Columns {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Columns {
    /// Empty columns named `names`, whose first row will be a run's first
    /// frame.
    pub fn new(names: Vec<OutputName>) -> Self {
        let values = vec![Vec::new(); names.len()];
        Self {
            names,
            values,
            starts_run: true,
        }
    }

    /// The same columns, their first row a run's first frame (`true`) or a
    /// later one (`false`: a streaming queue's window that starts inside a
    /// run).
    pub fn with_run_start(mut self, starts_run: bool) -> Self {
        self.starts_run = starts_run;
        self
    }

    /// Whether the first row is the run's first frame (a metric may finish
    /// that frame otherwise than the others).
    pub fn starts_run(&self) -> bool {
        self.starts_run
    }

    /// The names, in order.
    pub fn names(&self) -> &[OutputName] {
        &self.names
    }

    /// The column named `name`.
    pub fn get(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(&self.values[k])
    }

    /// Replaces the column named `name`; `false` when there is none.
    pub fn set(&mut self, name: &str, values: Vec<f64>) -> bool {
        match self.names.iter().position(|n| n == name) {
            Some(k) => {
                self.values[k] = values;
                true
            }
            None => false,
        }
    }

    /// Appends one value to every column, from `value` by name (NaN where
    /// it has none).
    pub fn push_row(&mut self, value: impl Fn(&str) -> Option<f64>) {
        for (name, column) in self.names.iter().zip(&mut self.values) {
            column.push(value(name).unwrap_or(f64::NAN));
        }
    }

    /// Rows held (the length of the columns).
    pub fn rows(&self) -> usize {
        self.values.first().map_or(0, Vec::len)
    }
}

/// libvmaf's boolean option text: exactly `true` or `false`.
pub(crate) fn bool_text(on: bool) -> &'static str {
    if on {
        "true"
    } else {
        "false"
    }
}
