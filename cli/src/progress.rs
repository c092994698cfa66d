//! The progress display: an indicatif bar on standard error, shown only when
//! standard error is a terminal and `-q` is not given (so logs and pipes stay
//! clean).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar when standard error is a terminal and not `quiet`; `total` frames
    /// when known (else a counter).
    pub fn new(quiet: bool, total: Option<u64>) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = match total {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr())
                .with_style(
                    ProgressStyle::with_template(
                        "{spinner} {pos}/{len} frames scored [{bar:30}] {per_sec} eta {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{spinner} {pos} frames scored {per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Self { bar: Some(bar) }
    }

    /// Frames scored so far.
    pub fn set_scored(&self, frames: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(frames);
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The pairs a run will score as the inputs' containers estimate it
/// ([`vkssim::io::LumaReader::frame_count_estimate`]), for the bar's total
/// when the exact count is not known (encoded inputs); `None` when either
/// input gives none.
pub fn estimate(
    reference: &dyn vkssim::io::LumaReader,
    distorted: &dyn vkssim::io::LumaReader,
    sel: &crate::pipeline::Selection,
) -> Option<u64> {
    let left = |r: &dyn vkssim::io::LumaReader, skip: u64| {
        r.frame_count_estimate()
            .map(|n| n.saturating_sub(r.frames_read()).saturating_sub(skip))
    };
    let pairs = left(reference, sel.skip_ref)?.min(left(distorted, sel.skip_dist)?);
    let pairs = if sel.frame_cnt == 0 {
        pairs
    } else {
        pairs.min(sel.frame_cnt)
    };
    Some(pairs.div_ceil(sel.subsample.max(1)))
}
