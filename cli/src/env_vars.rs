//! The environment variables `vkssim` reads (the library reads none): each is
//! checked here, once at start, and becomes a field of [`EnvOptions`], which the
//! engine options are built from. A value that is not one the variable accepts
//! is an error naming the variable and what it accepts, never ignored.
//!
//! | variable | accepts | engine option |
//! |---|---|---|
//! | `VKSSIM_VALIDATION` | `1` on, `0` off | `VkOptions::device.validation` |
//! | `VKSSIM_SUM_THREADS` | 1 to [`MAX_SUM_THREADS`] | `VkOptions::engine.sum_threads` |
//! | `VKSSIM_FORCE_HOST_SUM` | `1` on, `0` off | `VkOptions::debug.force_host_sum` |
//! | `VKSSIM_SUM_COPY` | `1` always, `0` never | `VkOptions::debug.copy_terms` |
//! | `VKSSIM_TIME_EACH_PASS` | `1` on, `0` off | `VkOptions::debug.time_each_pass` |
//! | `VKSSIM_PIPELINE_STATISTICS` | `1` on, `0` off | `VkOptions::debug.pipeline_statistics` |
//!
//! An empty value counts as unset. `VKSSIM_COMPUTE_QUEUES` is no longer read
//! (one compute queue measured fastest); setting it gives a warning.
//! `VKSSIM_LOG` (the log filter) is read by `main`.

use std::ffi::OsString;

use anyhow::{bail, Result};
use vkssim::vk::MAX_SUM_THREADS;

/// What the environment asks of the engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnvOptions {
    /// `VKSSIM_VALIDATION=1`.
    pub validation: bool,
    /// `VKSSIM_SUM_THREADS` (0 when unset: the engine picks).
    pub sum_threads: usize,
    /// `VKSSIM_FORCE_HOST_SUM=1`.
    pub force_host_sum: bool,
    /// `VKSSIM_SUM_COPY` (`None` when unset: the engine picks).
    pub copy_terms: Option<bool>,
    /// `VKSSIM_TIME_EACH_PASS=1`: per-pass GPU times in `bench` and the
    /// trace, each pass run alone.
    pub time_each_pass: bool,
    /// `VKSSIM_PIPELINE_STATISTICS=1`: each pipeline's driver statistics
    /// logged at info level (`VKSSIM_LOG=vkssim::pipeline_stats=info`).
    pub pipeline_statistics: bool,
}

/// Reads the process environment.
pub fn read() -> Result<EnvOptions> {
    read_from(|name| std::env::var_os(name))
}

/// Reads the variables through `get` (the process environment, or a test's).
fn read_from(get: impl Fn(&str) -> Option<OsString>) -> Result<EnvOptions> {
    let value = |name: &str| -> Result<Option<String>> {
        match get(name) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => match v.into_string() {
                Ok(s) => Ok(Some(s)),
                Err(v) => bail!("{name}={}: not valid UTF-8", v.to_string_lossy()),
            },
        }
    };
    let switch = |name: &str, on: &str, off: &str| -> Result<Option<bool>> {
        match value(name)?.as_deref().map(str::trim) {
            None => Ok(None),
            Some("1") => Ok(Some(true)),
            Some("0") => Ok(Some(false)),
            Some(v) => bail!("{name}={v}: expected 1 ({on}) or 0 ({off})"),
        }
    };
    if value("VKSSIM_COMPUTE_QUEUES")?.is_some() {
        tracing::warn!(
            "VKSSIM_COMPUTE_QUEUES is no longer read: vkssim submits on one compute queue \
             (several measured slower)"
        );
    }
    let sum_threads = match value("VKSSIM_SUM_THREADS")? {
        None => 0,
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_SUM_THREADS).contains(&n) => n,
            _ => bail!(
                "VKSSIM_SUM_THREADS={v}: expected a whole number from 1 to {MAX_SUM_THREADS} \
                 (unset it for the default)"
            ),
        },
    };
    Ok(EnvOptions {
        validation: switch("VKSSIM_VALIDATION", "on", "off")?.unwrap_or(false),
        sum_threads,
        force_host_sum: switch("VKSSIM_FORCE_HOST_SUM", "on", "off")?.unwrap_or(false),
        copy_terms: switch("VKSSIM_SUM_COPY", "always", "never")?,
        time_each_pass: switch("VKSSIM_TIME_EACH_PASS", "on", "off")?.unwrap_or(false),
        pipeline_statistics: switch("VKSSIM_PIPELINE_STATISTICS", "on", "off")?.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_with(vars: &[(&str, &str)]) -> Result<EnvOptions> {
        read_from(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn unset_and_empty_mean_the_defaults() {
        assert_eq!(read_with(&[]).unwrap(), EnvOptions::default());
        assert_eq!(
            read_with(&[("VKSSIM_SUM_THREADS", ""), ("VKSSIM_VALIDATION", "")]).unwrap(),
            EnvOptions::default()
        );
    }

    #[test]
    fn valid_values_become_options() {
        let o = read_with(&[
            ("VKSSIM_VALIDATION", "1"),
            ("VKSSIM_SUM_THREADS", "8"),
            ("VKSSIM_FORCE_HOST_SUM", "1"),
            ("VKSSIM_SUM_COPY", "0"),
            ("VKSSIM_TIME_EACH_PASS", "1"),
            ("VKSSIM_PIPELINE_STATISTICS", "1"),
        ])
        .unwrap();
        assert_eq!(
            o,
            EnvOptions {
                validation: true,
                sum_threads: 8,
                force_host_sum: true,
                copy_terms: Some(false),
                time_each_pass: true,
                pipeline_statistics: true,
            }
        );
        let max = MAX_SUM_THREADS.to_string();
        assert_eq!(
            read_with(&[("VKSSIM_SUM_THREADS", &max)])
                .unwrap()
                .sum_threads,
            MAX_SUM_THREADS
        );
    }

    #[test]
    fn invalid_values_name_the_variable_and_the_range() {
        let too_many = (MAX_SUM_THREADS + 1).to_string();
        for bad in ["abc", "-1", "0", "100000", too_many.as_str(), "2.5"] {
            let e = read_with(&[("VKSSIM_SUM_THREADS", bad)])
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!(
                    "VKSSIM_SUM_THREADS={bad}: expected a whole number from 1 to \
                     {MAX_SUM_THREADS} (unset it for the default)"
                )
            );
        }
        for name in [
            "VKSSIM_VALIDATION",
            "VKSSIM_FORCE_HOST_SUM",
            "VKSSIM_SUM_COPY",
        ] {
            for bad in ["yes", "2", "true"] {
                let e = read_with(&[(name, bad)]).unwrap_err().to_string();
                assert!(e.starts_with(&format!("{name}={bad}: expected 1 (")), "{e}");
            }
        }
    }
}
