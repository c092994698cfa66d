//! The `vkssim` command line: `vkssim score` (the `vmaf` CLI's flags, libvmaf's
//! output files), `vkssim bench` (timing on generated frames) and `vkssim devices`
//! (the Vulkan devices and what vkssim would do on each).
//!
//! Errors are printed as one chain (`vkssim: error: <context>: <cause>`) and give
//! exit status 1; bad flags give clap's usage message and status 2.

mod args;
mod backend;
mod bench;
mod feature;
mod feed;
mod output;
mod pipeline;
mod progress;
mod score;

use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VKSSIM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = args::parse();
    let result = match &cli.command {
        args::Command::Score(a) => score::run(a),
        args::Command::Bench(a) => bench::run(a).map(|()| ExitCode::SUCCESS),
        args::Command::Devices => backend::list_devices().map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vkssim: error: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
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
