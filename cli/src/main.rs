//! The `vkssim` command line: `vkssim score` (the `vmaf` CLI's flags, libvmaf's
//! output files), `vkssim bench` (timing on generated frames) and `vkssim devices`
//! (the Vulkan devices and what vkssim would do on each).
//!
//! Errors are printed as one chain (`vkssim: error: <context>: <cause>`) and give
//! exit status 1; bad flags give clap's usage message and status 2.

mod args;
mod backend;
mod bench;
mod chrome_trace;
mod feature;
mod feed;
mod output;
mod pipeline;
mod progress;
mod score;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = args::parse();
    let mut trace = match init_tracing(cli.trace_chrome.as_deref()) {
        Ok(trace) => trace,
        Err(e) => {
            eprintln!("vkssim: error: {}", error_chain(&e));
            return ExitCode::FAILURE;
        }
    };
    let result = match &cli.command {
        args::Command::Score(a) => score::run(a, &mut trace),
        args::Command::Bench(a) => bench::run(a).map(|()| ExitCode::SUCCESS),
        args::Command::Devices => backend::list_devices().map(|()| ExitCode::SUCCESS),
    };
    let result = match (result, trace.map(chrome_trace::TraceGuard::finish)) {
        (Ok(_), Some(Err(e))) => Err(e),
        (result, _) => result,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vkssim: error: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// Logging to stderr at `VKSSIM_LOG` (default `warn`), and with `--trace-chrome`
/// a trace file taking every span and event at debug level.
fn init_tracing(
    trace_path: Option<&std::path::Path>,
) -> anyhow::Result<Option<chrome_trace::TraceGuard>> {
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(
            EnvFilter::try_from_env("VKSSIM_LOG").unwrap_or_else(|_| EnvFilter::new("warn")),
        );
    let (chrome, guard) = match trace_path {
        Some(path) => {
            let (layer, guard) = chrome_trace::create(path)?;
            (Some(layer.with_filter(LevelFilter::DEBUG)), Some(guard))
        }
        None => (None, None),
    };
    tracing_subscriber::registry().with(fmt).with(chrome).init();
    Ok(guard)
}

/// The error and its causes on one line, `a: b: c`, leaving out a cause whose
/// text the message before it already ends with (the library's messages often
/// include their source's text).
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_chain_drops_repeated_causes() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e =
            anyhow::Error::new(vkssim::Error::io("a.yuv", io)).context("cannot read the reference");
        assert_eq!(error_chain(&e), "cannot read the reference: a.yuv: gone");
    }
}
