//! The `vkssim` command line: `vkssim score` (the `vmaf` CLI's flags, libvmaf's
//! output files), `vkssim bench` (timing on generated frames) and `vkssim devices`
//! (the Vulkan devices and what vkssim would do on each).
//!
//! Errors are printed as one chain (`vkssim: error: <context>: <cause>`, with
//! the flag that would help where there is one) and give exit status 1; bad
//! flags give clap's usage message and status 2; a standard output whose reader
//! went away gives status 141 and no message ([`stdio`]). Colour on standard
//! error only when it is a terminal and `NO_COLOR` is unset.

mod args;
mod backend;
mod bench;
mod chrome_trace;
mod env_vars;
mod feature;
mod interrupt;
mod output;
mod pipe_size;
mod pipeline;
mod plan;
mod progress;
mod score;
mod stdio;

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // First, before any thread starts (see the module).
    interrupt::install();
    let mut cli = args::parse();
    // A score run may write its trace into the --output-dir it creates.
    let planned_dir = match &cli.command {
        args::Command::Score(a) => a.output_dir.clone(),
        _ => None,
    };
    let mut trace = match init_tracing(cli.trace_chrome.as_deref(), planned_dir.as_deref()) {
        Ok(trace) => trace,
        Err(e) => return failure(&e),
    };
    let env = match env_vars::read() {
        Ok(env) => env,
        Err(e) => return failure(&e),
    };
    let result = match &mut cli.command {
        args::Command::Score(a) => {
            a.engine.env = env;
            // The flags are resolved once; the run takes the plan.
            plan::ScorePlan::resolve(a, cli.trace_chrome.as_deref())
                .and_then(|plan| score::run(&plan, &mut trace))
        }
        args::Command::Bench(a) => {
            a.engine.env = env;
            bench::run(a, &mut trace).map(|()| ExitCode::SUCCESS)
        }
        args::Command::Devices => backend::list_devices(env.validation).map(|()| ExitCode::SUCCESS),
    };
    let result = match (result, trace.map(chrome_trace::TraceGuard::finish)) {
        (Ok(_), Some(Err(e))) => Err(e),
        (result, _) => result,
    };
    match result {
        Ok(code) => code,
        Err(e) => failure(&e),
    }
}

/// Reports `e` on standard error and gives the exit status: 1, or
/// [`stdio::BROKEN_PIPE_STATUS`] without a message when standard output's
/// reader went away.
pub(crate) fn failure(e: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::from(stdio::BROKEN_PIPE_STATUS);
    }
    let mut line = format!("vkssim: error: {}", error_chain(e));
    if let Some(hint) = hint(e) {
        line.push_str("; ");
        line.push_str(&hint);
    }
    stdio::note(line);
    ExitCode::FAILURE
}

/// Whether `e` is a write to a pipe (standard output, `/dev/stdout`, a FIFO)
/// whose reader went away: a program killed by SIGPIPE, as the shell sees it.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<stdio::StdoutError>()
            .is_some_and(stdio::StdoutError::is_broken_pipe)
            || c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The flag that would help with a library error in `e`'s chain, where there
/// is one (the library's messages name no flag).
fn hint(e: &anyhow::Error) -> Option<String> {
    e.chain()
        .find_map(|c| match c.downcast_ref::<vkssim::Error>()? {
            vkssim::Error::LengthMismatch { common, .. } => Some(format!(
                "pass --allow-length-mismatch to score the {common} common frames"
            )),
            // The command line turns validation on only through the variable.
            vkssim::Error::ValidationLayerMissing => {
                Some("or unset VKSSIM_VALIDATION (set to 1 here)".into())
            }
            _ => None,
        })
}

/// Whether log lines on standard error may be coloured: it is a terminal and
/// `NO_COLOR` (<https://no-color.org>) is unset or empty.
fn stderr_colour() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && std::io::stderr().is_terminal()
}

/// Logging to stderr at `VKSSIM_LOG` (default `warn`), and with `--trace-chrome`
/// a trace file taking every span and event at debug level (in `planned_dir`,
/// a folder the run creates, when its path is there).
fn init_tracing(
    trace_path: Option<&std::path::Path>,
    planned_dir: Option<&std::path::Path>,
) -> anyhow::Result<Option<chrome_trace::TraceGuard>> {
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(stderr_colour())
        .with_filter(
            EnvFilter::try_from_env("VKSSIM_LOG").unwrap_or_else(|_| EnvFilter::new("warn")),
        );
    let (chrome, guard) = match trace_path {
        Some(path) => {
            let (layer, guard) = chrome_trace::create(path, planned_dir)?;
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

    #[test]
    fn a_broken_pipe_is_told_apart_wherever_it_is_in_the_chain() {
        let pipe = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let through = anyhow::Error::new(pipe()).context("writing /dev/stdout");
        assert!(is_broken_pipe(&through));
        let stdout = anyhow::Error::new(stdio::StdoutError(pipe())).context("scores");
        assert!(is_broken_pipe(&stdout));
        let full = anyhow::Error::new(std::io::Error::from_raw_os_error(28)).context("x");
        assert!(!is_broken_pipe(&full));
    }

    #[test]
    fn a_length_mismatch_names_the_flag() {
        let e = anyhow::Error::new(vkssim::Error::LengthMismatch {
            reference: 3,
            distorted: 2,
            common: 2,
        })
        .context("scoring");
        assert_eq!(
            hint(&e).as_deref(),
            Some("pass --allow-length-mismatch to score the 2 common frames")
        );
        assert_eq!(hint(&anyhow::anyhow!("other")), None);
    }
}
