//! The files `vkssim score` writes. Before any input is read: the inputs are not
//! one stream given twice, `-o` and `--trace-chrome` are not one of the inputs,
//! and `-o` can be written (see [`Target::open`]). At the end: the scores, or
//! after an error the frames scored before it, in `FILE.partial` so that the
//! previous `FILE` stays as it was (or, for standard output, a device or a FIFO,
//! in `FILE` itself, said to be partial on stderr).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use super::paths::{check_distinct_streams, check_output_is_not_an_input};
use crate::chrome_trace::TraceGuard;
use crate::output::target::{check_planned, check_writable, identity, name_max, Target};
use crate::plan::{Mode, ScorePlan};

/// The checks on the files of `plan` made before any input is read: no
/// stream is given as two inputs, `--output-dir` can be a folder, and the
/// outputs pass [`preflight_outputs`]. A `--trace-chrome` that names an input
/// or an output is refused and dropped, so that nothing is written over
/// either.
pub fn preflight(plan: &ScorePlan, trace: &mut Option<TraceGuard>) -> Result<()> {
    let inputs = plan.inputs.named();
    check_distinct_streams(&inputs)?;
    let outputs = &plan.outputs;
    if let Some(dir) = &outputs.dir {
        check_output_dir(dir)?;
    }
    let named: Vec<(String, &Path)> = outputs
        .targets
        .iter()
        .zip(&plan.inputs.distorted)
        .filter_map(|(o, d)| {
            let o = o.as_deref()?;
            let what = match plan.mode {
                Mode::Ladder => format!("the output of the distorted input {}", shown(d)),
                Mode::Pair | Mode::H264 => format!("-o {}", shown(o)),
            };
            Some((what, o))
        })
        .collect();
    let planned = outputs.dir.as_deref();
    let checked = check_outputs(&named, &inputs, planned, outputs.trace.as_deref());
    drop_trace_if_refused(checked, trace)
}

/// Checks `--output-dir DIR` before any work: a folder, or a path where one
/// can be created (it is created once there is something to score).
fn check_output_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => bail!("--output-dir {}: it is a file, not a folder", shown(dir)),
        Err(_) => check_planned(&dir.join("x"))
            .with_context(|| format!("--output-dir {}: cannot create it", shown(dir))),
    }
}

/// `s` unless `n` is 1.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The checks on the files a run writes (`outputs`: what each is, for
/// messages, and its path; and `--trace-chrome`) against its `inputs` (role
/// and path), before any input is read: none is an input, no two are one file
/// (through links; `FILE.partial` included), and each can be written (in a
/// folder that exists, or in `planned_dir`, a folder the run creates:
/// [`check_writable`]). A refused trace is dropped, so that it is not written
/// over what it collides with.
pub fn preflight_outputs(
    outputs: &[(String, &Path)],
    inputs: &[(&str, &Path)],
    planned_dir: Option<&Path>,
    trace: &mut Option<TraceGuard>,
) -> Result<()> {
    let trace_path = trace.as_ref().map(TraceGuard::path);
    let checked = check_outputs(outputs, inputs, planned_dir, trace_path);
    drop_trace_if_refused(checked, trace)
}

/// `checked`, after dropping `trace` when it is an error (so that the trace
/// is not written over what it collides with).
fn drop_trace_if_refused(checked: Result<()>, trace: &mut Option<TraceGuard>) -> Result<()> {
    if checked.is_err() {
        if let Some(guard) = trace.take() {
            guard.discard();
        }
    }
    checked
}

fn check_outputs(
    outputs: &[(String, &Path)],
    inputs: &[(&str, &Path)],
    planned_dir: Option<&Path>,
    trace: Option<&Path>,
) -> Result<()> {
    if let Some(trace) = trace {
        check_output_is_not_an_input("--trace-chrome", trace, inputs)?;
    }
    // Every file the run may write, with what it is.
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for (what, out) in outputs {
        check_output_is_not_an_input("-o", out, inputs)?;
        check_writable(out, planned_dir).context("-o")?;
        files.push((what.clone(), out.to_path_buf()));
        if writes_partial(out) {
            let partial = partial_path(out).0;
            check_output_is_not_an_input("-o", &partial, inputs)?;
            check_writable(&partial, planned_dir).context("-o (its partial scores)")?;
            files.push((format!("the partial scores of {what}"), partial));
        }
    }
    if let Some(trace) = trace {
        files.push((
            format!("--trace-chrome {}", shown(trace)),
            trace.to_path_buf(),
        ));
    }
    let ids = files
        .iter()
        .map(|(_, p)| identity(p))
        .collect::<Result<Vec<_>>>()?;
    for (a, ida) in ids.iter().enumerate() {
        for (b, idb) in ids.iter().enumerate().skip(a + 1) {
            if ida.is_some() && ida == idb {
                let ((wa, pa), (wb, pb)) = (&files[a], &files[b]);
                let paths = if pa == pb {
                    shown(pa)
                } else {
                    format!("{} and {}", shown(pa), shown(pb))
                };
                bail!(
                    "{wa} and {wb} would write one file ({paths}): one would be lost; give each output its own path"
                );
            }
        }
    }
    Ok(())
}

/// Whether a failed run's scores would go to `PATH.partial` (a file, or a
/// path that does not exist yet) rather than to `path` itself.
fn writes_partial(path: &Path) -> bool {
    path != Path::new("-")
        && match Target::open(path) {
            Ok(t) => t.is_file(),
            Err(_) => true,
        }
}

/// A path for messages: as written when it is UTF-8, else with its other
/// bytes escaped (`\xFF`), so that two such paths never look alike.
pub fn shown(path: &Path) -> String {
    match path.to_str() {
        Some(s) => s.to_string(),
        None => path
            .as_os_str()
            .as_bytes()
            .utf8_chunks()
            .map(|c| {
                let mut s = c.valid().to_string();
                for b in c.invalid() {
                    s.push_str(&format!("\\x{b:02X}"));
                }
                s
            })
            .collect(),
    }
}

/// Writes `text`, the scores of a run that ended with `error` (if any) after
/// scoring `scored` frames, to the `-o` path; returns the run's status.
pub fn write_output(
    path: &Path,
    text: &str,
    scored: usize,
    error: Option<anyhow::Error>,
) -> Result<ExitCode> {
    let Some(error) = error else {
        Target::open(path)?.write(text.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    };
    if scored > 0 {
        if let Err(e) = write_partial(path, text, scored) {
            crate::stdio::note(format!(
                "vkssim: could not write the {scored} frame{} scored before the error: {e:#}",
                plural(scored)
            ));
        }
    }
    Err(error)
}

/// Writes the scores of an unfinished run: to `PATH.partial` when `path` is a
/// file (which is left as it was), to `path` itself otherwise.
fn write_partial(path: &Path, text: &str, scored: usize) -> Result<()> {
    let target = Target::open(path)?;
    let frames = format!("{scored} frame{}", plural(scored));
    if target.is_file() {
        let (partial, shortened) = partial_path(path);
        // Whether there is a previous FILE (the run never writes it).
        let previous = std::fs::symlink_metadata(path).is_ok();
        Target::open(&partial)?.write(text.as_bytes())?;
        let mut line = format!(
            "vkssim: wrote the {frames} scored before the error to {}",
            shown(&partial)
        );
        if shortened {
            line.push_str(&format!(
                " (the name {}.partial is too long for the file system)",
                shown(path)
            ));
        }
        if previous {
            line.push_str(&format!(" ({} is left as it was)", shown(path)));
        }
        crate::stdio::note(line);
    } else {
        target.write(text.as_bytes())?;
        let name = if path == Path::new("-") {
            "standard output".to_string()
        } else {
            shown(path)
        };
        crate::stdio::note(format!("vkssim: wrote the {frames} scored before the error to {name}: the document there is partial"));
    }
    Ok(())
}

/// `PATH.partial`, or when that name is longer than the file system takes,
/// `PATH` with its name cut to leave room for `.partial` (`true`).
fn partial_path(path: &Path) -> (PathBuf, bool) {
    let mut p = OsString::from(path.as_os_str());
    p.push(".partial");
    let full = PathBuf::from(p);
    let Some(name) = path.file_name() else {
        return (full, false);
    };
    let folder = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let limit = name_max(folder);
    let suffix = ".partial".len();
    if name.len() + suffix <= limit || limit <= suffix {
        return (full, false);
    }
    let mut keep = limit - suffix;
    let bytes = name.as_bytes();
    // A UTF-8 name stays UTF-8: cut at a character boundary.
    if let Ok(text) = std::str::from_utf8(bytes) {
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
    }
    let mut short = OsString::from(std::ffi::OsStr::from_bytes(&bytes[..keep]));
    short.push(".partial");
    (folder.join(short), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::args;
    use std::ffi::OsStr;

    /// The preflight of `line` (with `{d}` standing for `dir`), with a trace
    /// at `trace`; the error's text, and whether the trace was kept.
    fn preflight_of(line: &str, dir: &Path, trace: Option<&Path>) -> (Result<(), String>, bool) {
        let line = line.replace("{d}", dir.to_str().unwrap());
        let plan = ScorePlan::resolve(&args(&line), trace).unwrap();
        let mut guard = trace.map(|t| crate::chrome_trace::create(t, None).unwrap().1);
        let result = preflight(&plan, &mut guard).map_err(|e| format!("{e:#}"));
        let kept = guard.is_some();
        if let Some(g) = guard {
            g.discard();
        }
        (result, kept)
    }

    #[test]
    fn the_preflight_refuses_what_would_be_lost() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for name in ["r.y4m", "a.y4m", "file"] {
            std::fs::write(d.join(name), "x").unwrap();
        }
        std::fs::create_dir_all(d.join("x")).unwrap();
        std::fs::create_dir_all(d.join("y")).unwrap();
        let ok = |line: &str| {
            let (r, kept) = preflight_of(line, d, Some(&d.join("t.json")));
            assert_eq!(r, Ok(()), "{line}");
            assert!(kept, "{line}");
        };
        ok("vkssim -r {d}/r.y4m -d {d}/a.y4m -o {d}/out.xml");
        ok("vkssim -r {d}/r.y4m -d {d}/x/a.y4m -d {d}/y/b.y4m --output-dir {d}/new");
        let refused = |line: &str, trace: Option<&Path>, needle: &str, keeps_trace: bool| {
            let (r, kept) = preflight_of(line, d, trace);
            let msg = r.expect_err(line);
            assert!(msg.contains(needle), "{line}: {msg}");
            assert_eq!(kept, keeps_trace && trace.is_some(), "{line}");
        };
        let trace = d.join("t.json");
        refused(
            "vkssim -r {d}/r.y4m -d {d}/a.y4m -o {d}/r.y4m",
            Some(&trace),
            "is the same file as the reference",
            false,
        );
        // Two inputs of one stem in one --output-dir.
        refused(
            "vkssim -r {d}/r.y4m -d {d}/x/a.y4m -d {d}/y/a.y4m --output-dir {d}/o",
            None,
            &format!(
                "the output of the distorted input {0}/x/a.y4m and the output of the distorted input {0}/y/a.y4m would write one file",
                d.display()
            ),
            false,
        );
        refused(
            "vkssim -r {d}/r.y4m -d {d}/a.y4m --output-dir {d}/file",
            Some(&trace),
            "it is a file, not a folder",
            true,
        );
        let out = d.join("out.json");
        refused(
            "vkssim -r {d}/r.y4m -d {d}/a.y4m -o {d}/out.json",
            Some(&out),
            "and --trace-chrome",
            false,
        );
        refused(
            "vkssim -r {d}/r.y4m -d {d}/a.y4m",
            Some(&d.join("a.y4m")),
            "--trace-chrome",
            false,
        );
    }

    #[test]
    fn a_partial_name_too_long_is_cut_to_fit() {
        let dir = tempfile::tempdir().unwrap();
        let long = "é".repeat(124); // 248 bytes
        let path = dir.path().join(format!("{long}.json"));
        let (partial, shortened) = partial_path(&path);
        assert!(shortened);
        let name = partial.file_name().unwrap();
        assert!(name.len() <= 255, "{}", name.len());
        assert!(name.to_str().unwrap().ends_with(".partial"));
        assert_eq!(partial.parent(), Some(dir.path()));
        let short = dir.path().join("out.json");
        assert_eq!(
            partial_path(&short),
            (dir.path().join("out.json.partial"), false)
        );
    }

    #[test]
    fn paths_that_are_not_utf8_are_shown_escaped() {
        let a = Path::new(OsStr::from_bytes(b"o/a\xff.json"));
        let b = Path::new(OsStr::from_bytes(b"o/a\xfe.json"));
        assert_eq!(shown(a), "o/a\\xFF.json");
        assert_ne!(shown(a), shown(b));
        assert_eq!(shown(Path::new("o/plain.json")), "o/plain.json");
    }
}
