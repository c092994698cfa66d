//! The `vkssim` command line: `vkssim score` (the `vmaf` CLI's flags, libvmaf's
//! output files), `vkssim bench` (timing on generated frames) and `vkssim devices`
//! (the Vulkan devices and what vkssim would do on each).
//!
//! The code is the library `vkssim_cli` (`lib.rs`, which says how errors are
//! reported); this is its entry point. Colour on standard error only when it
//! is a terminal and `NO_COLOR` is unset.

use std::io::IsTerminal;
use std::process::ExitCode;

use vkssim_cli::{args, backend, bench, chrome_trace, env_vars, failure, interrupt, plan, score};

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
