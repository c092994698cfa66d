//! The `vkssim` command line's code, as a library: the binary (`main.rs`)
//! parses the flags and runs it, and other front ends (the Python package,
//! `python/`) run `vkssim score` through [`embed`], so both read the same
//! inputs, run the same pipeline and write the same files.
//!
//! Errors are printed as one chain (`vkssim: error: <context>: <cause>`, with
//! the flag that would help where there is one) and give exit status 1; bad
//! flags give clap's usage message and status 2; a standard output whose reader
//! went away gives status 141 and no message ([`stdio`]).

pub mod args;
pub mod backend;
pub mod bench;
pub mod chrome_trace;
pub mod embed;
pub mod env_vars;
pub mod feature;
pub mod interrupt;
pub mod output;
mod pipe_size;
pub mod pipeline;
pub mod plan;
mod progress;
pub mod score;
pub mod stdio;

use std::process::ExitCode;

/// Reports `e` on standard error and gives the exit status: 1, or
/// [`stdio::BROKEN_PIPE_STATUS`] without a message when standard output's
/// reader went away.
pub fn failure(e: &anyhow::Error) -> ExitCode {
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
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
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
                "pass --allow-length-mismatch to score the {}",
                vkssim::words::count(*common, "common frame")
            )),
            // The command line turns validation on only through the variable.
            vkssim::Error::ValidationLayerMissing => {
                Some("or unset VKSSIM_VALIDATION (set to 1 here)".into())
            }
            _ => None,
        })
}

/// The error and its causes on one line, `a: b: c`, leaving out a cause whose
/// text the message before it already ends with (the library's messages often
/// include their source's text).
pub fn error_chain(e: &anyhow::Error) -> String {
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
