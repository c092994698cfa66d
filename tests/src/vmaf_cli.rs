//! The `vmaf` command line that libvmaf-sys builds, run with every score
//! printed in full: its writers print `%.6f`, so the CLI runs under the
//! LD_PRELOAD shim `tests/c/vmaf_full_precision.c`, which turns each `%.6f`
//! into `%.17g` (17 significant digits name an fp64 value exactly) and
//! changes nothing else. The XML output is then read back: per frame, pooled
//! and aggregate values, by name and in the file's order. Non-finite values
//! print as `nan`, `-nan`, `inf`, `-inf` and are read as such.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths;

/// The lines of an output file (XML, JSON, CSV, sub) that the two programs
/// write alike: all but the program's version and its speed.
pub fn comparable_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("\"version\"")
                || t.starts_with("\"fps\"")
                || t.starts_with("<VMAF version=")
                || t.starts_with("<fyi fps="))
        })
        .collect()
}

/// Runs `program args -o out` with `env` set (vkssim with Vulkan
/// validation on); the process's result and, when it succeeded, the output
/// file's text. A panic, or a validation message, fails the test.
pub fn run_writing(
    program: &Path,
    args: &[String],
    env: &[(&str, &Path)],
    out: &Path,
) -> (std::process::Output, Option<String>) {
    let mut cmd = Command::new(program);
    cmd.args(args).arg("-o").arg(out);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if program == paths::vkssim_bin() {
        cmd.env("VKSSIM_VALIDATION", "1");
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(101), "panic: {err}");
    assert!(!err.contains("vkssim::vk::validation"), "{err}");
    let text = o
        .status
        .success()
        .then(|| std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{}: {e}", out.display())));
    (o, text)
}

/// [`run_writing`], which must succeed: the output file's text.
pub fn run_writing_ok(
    program: &Path,
    args: &[String],
    env: &[(&str, &Path)],
    out: &Path,
) -> String {
    let (o, text) = run_writing(program, args, env, out);
    text.unwrap_or_else(|| {
        panic!(
            "{} {args:?} failed ({}): {}",
            program.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// vkssim with `args -o out`, Vulkan validation on, its standard input a
/// pipe that `input` is written to (a pipe, not a redirected file, which
/// would be read by position); it must succeed with no validation message:
/// the output file's text.
pub fn run_vkssim_piped(args: &[String], input: &Path, out: &Path) -> String {
    let mut child = Command::new(paths::vkssim_bin())
        .args(args)
        .arg("-o")
        .arg(out)
        .env("VKSSIM_VALIDATION", "1")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run vkssim");
    let bytes = std::fs::read(input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&bytes);
    });
    let o = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "vkssim {args:?}: {err}");
    assert!(!err.contains("vkssim::vk::validation"), "{err}");
    std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

/// A vkssim ladder, `args -o pattern`, on Vulkan with validation on: it must
/// succeed with no validation message, its reference frames uploaded once
/// per device into shared planes (as its log says).
pub fn run_shared_ladder(args: &[String], pattern: &Path) {
    let o = Command::new(paths::vkssim_bin())
        .args(args)
        .arg("-o")
        .arg(pattern)
        .env("VKSSIM_VALIDATION", "1")
        .env("VKSSIM_LOG", "info")
        .output()
        .expect("run vkssim");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "vkssim {args:?}: {err}");
    assert!(!err.contains("vkssim::vk::validation"), "{err}");
    assert!(
        err.contains("uploaded once per device, into shared planes"),
        "vkssim {args:?}: {err}"
    );
}

/// The shim, compiled once per test process into the target directory.
pub fn shim() -> &'static Path {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        let src = paths::workspace_root().join("tests/c/vmaf_full_precision.c");
        let dir = paths::target_dir().join("vkssim-metrics");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let out = dir.join(format!("vmaf_full_precision.{}.so", std::process::id()));
        let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&out)
            .arg(&src)
            .status()
            .unwrap_or_else(|e| panic!("cannot run {cc:?} to build {}: {e}", src.display()));
        assert!(status.success(), "building {} failed", src.display());
        out
    })
}

/// A value as the XML holds it.
pub fn parse_value(text: &str) -> f64 {
    match text {
        "nan" | "-nan" => f64::NAN,
        _ => text
            .parse()
            .unwrap_or_else(|_| panic!("vmaf XML: bad number {text:?}")),
    }
}

/// `key="value"` pairs of one XML element line, in order.
fn attributes(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq].rsplit(' ').next().unwrap_or("").to_string();
        let after = &rest[eq + 2..];
        let end = after.find('"').expect("vmaf XML: unterminated attribute");
        out.push((key, after[..end].to_string()));
        rest = &after[end + 1..];
    }
    out
}

/// What one `vmaf` run wrote.
#[derive(Debug, Clone, Default)]
pub struct VmafXml {
    /// Per frame, `(name, value)` in the file's order.
    pub frames: Vec<Vec<(String, f64)>>,
    /// Per metric, its name and `(pool method, value)` in the file's order.
    pub pooled: Vec<(String, Vec<(String, f64)>)>,
    /// The aggregate values, in the file's order.
    pub aggregate: Vec<(String, f64)>,
}

impl VmafXml {
    /// Reads the XML text the vmaf CLI writes.
    pub fn parse(text: &str) -> Self {
        let mut x = VmafXml::default();
        for line in text.lines().map(str::trim_start) {
            if line.starts_with("<frame ") {
                let a = attributes(line);
                x.frames.push(
                    a.into_iter()
                        .filter(|(k, _)| k != "frameNum")
                        .map(|(k, v)| {
                            let v = parse_value(&v);
                            (k, v)
                        })
                        .collect(),
                );
            } else if line.starts_with("<metric ") {
                let mut a = attributes(line).into_iter();
                let (_, name) = a.next().expect("vmaf XML: metric without a name");
                x.pooled
                    .push((name, a.map(|(k, v)| (k, parse_value(&v))).collect()));
            } else if line.starts_with("<aggregate_metrics") {
                x.aggregate = attributes(line)
                    .into_iter()
                    .map(|(k, v)| (k, parse_value(&v)))
                    .collect();
            }
        }
        x
    }
}

impl VmafXml {
    /// Reads the JSON text the vmaf CLI (and `vkssim score --json`) writes
    /// into the same parts: `frames`' `metrics`, `pooled_metrics` and
    /// `aggregate_metrics`, by name and in the file's order (the numbers
    /// read with Rust's correctly rounded parser).
    pub fn parse_json(text: &str) -> Self {
        #[derive(PartialEq)]
        enum Part {
            Top,
            Frames,
            Pooled,
            Aggregate,
        }
        let mut x = VmafXml::default();
        let mut part = Part::Top;
        for line in text.lines().map(str::trim) {
            let Some((key, value)) = line.split_once(": ") else {
                continue;
            };
            let key = key.trim_matches('"');
            let value = value.trim_end_matches(',');
            match (key, value) {
                ("frames", _) => part = Part::Frames,
                ("pooled_metrics", _) => part = Part::Pooled,
                ("aggregate_metrics", _) => part = Part::Aggregate,
                ("frameNum", _) if part == Part::Frames => x.frames.push(Vec::new()),
                ("metrics", _) => {}
                (name, "{") if part == Part::Pooled => {
                    x.pooled.push((name.to_string(), Vec::new()))
                }
                (_, _) if part == Part::Top => {}
                (name, v) => {
                    let pair = (name.to_string(), parse_value(v));
                    match part {
                        Part::Frames => x
                            .frames
                            .last_mut()
                            .expect("a frame's values before frameNum")
                            .push(pair),
                        Part::Pooled => x
                            .pooled
                            .last_mut()
                            .expect("a pool before its metric")
                            .1
                            .push(pair),
                        _ => x.aggregate.push(pair),
                    }
                }
            }
        }
        x
    }
}

/// The outcome of a `vmaf` run: its XML, or its exit status and messages.
pub type VmafResult = Result<VmafXml, String>;

/// Runs the vmaf CLI on `args` (inputs and `--feature`s) with `-n -q --xml`
/// under the full-precision shim (`full = true`) or as it is.
pub fn run_vmaf(args: &[String], full: bool) -> VmafResult {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("vmaf.xml");
    let mut cmd = Command::new(paths::vmaf_cli());
    cmd.args(args).args(["-n", "-q", "--xml", "-o"]).arg(&out);
    if full {
        cmd.env("LD_PRELOAD", shim());
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run the vmaf CLI: {e}"));
    if !o.status.success() {
        return Err(format!(
            "vmaf {args:?} failed ({}): {}{}",
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    Ok(VmafXml::parse(&text))
}

/// The four built-in models in one run, each under its own name (vmaf
/// wants distinct names; a model's default name, `vmaf`, is tested in
/// vmaf_cli_vs_vmaf.rs), as `-m` arguments.
pub const EVERY_MODEL: [&str; 8] = [
    "-m",
    "version=vmaf_v0.6.1:name=v061",
    "-m",
    "version=vmaf_v0.6.1neg:name=neg",
    "-m",
    "version=vmaf_4k_v0.6.1:name=4k",
    "-m",
    "version=vmaf_b_v0.6.3:name=b",
];

/// Both programs on `clip` with `args` (models, features, flags) writing
/// `format`; `max`: full precision. vkssim runs with `--backend backend`
/// (`""`: no `--backend`, the default; words after the first are flags for
/// vkssim alone, e.g. `vulkan --no-fp64`). Returns the number of identical
/// lines.
pub fn compare_with_vmaf(
    clip: &crate::metric_clips::MetricClip,
    args: &[&str],
    format: &str,
    max: bool,
    backend: &str,
) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut common = clip.vmaf_args();
    common.extend(args.iter().map(|s| s.to_string()));
    common.extend(["-q".to_string(), format!("--{format}")]);
    let mut vmaf_args = common.clone();
    vmaf_args.extend(["--cpumask".to_string(), "255".to_string()]);
    let env: Vec<(&str, &Path)> = if max {
        vec![("LD_PRELOAD", shim())]
    } else {
        Vec::new()
    };
    let vmaf = run_writing_ok(&paths::vmaf_cli(), &vmaf_args, &env, &dir.path().join("v"));
    let mut ours_args = vec!["score".to_string()];
    ours_args.extend(common);
    if !backend.is_empty() {
        ours_args.push("--backend".to_string());
        ours_args.extend(backend.split_whitespace().map(String::from));
    }
    if max {
        ours_args.extend(["--precision".to_string(), "max".to_string()]);
    }
    let ours = run_writing_ok(paths::vkssim_bin(), &ours_args, &[], &dir.path().join("o"));
    let what = format!("{} {args:?} --{format} max={max} on {backend}", clip.name);
    let (a, b) = (comparable_lines(&ours), comparable_lines(&vmaf));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{what}: line {} differs (vkssim vs vmaf)", i + 1);
    }
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: line counts\nvkssim:\n{ours}\nvmaf:\n{vmaf}"
    );
    assert!(a.len() > 1, "{what}: nothing compared");
    a.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_frames_pools_and_aggregates() {
        let text = r#"<VMAF version="2.3.1">
  <frames>
    <frame frameNum="0" integer_adm2="14.74864217471762" float_ssim="-nan" />
  </frames>
  <pooled_metrics>
    <metric name="integer_adm2" min="1" max="inf" />
  </pooled_metrics>
  <aggregate_metrics mean_y="15.5" mean_cb="-inf" />
</VMAF>"#;
        let x = VmafXml::parse(text);
        assert_eq!(x.frames.len(), 1);
        assert_eq!(
            x.frames[0][0],
            ("integer_adm2".to_string(), 14.74864217471762)
        );
        assert!(x.frames[0][1].1.is_nan());
        assert_eq!(x.pooled[0].0, "integer_adm2");
        assert_eq!(x.pooled[0].1[1], ("max".to_string(), f64::INFINITY));
        assert_eq!(x.aggregate[1], ("mean_cb".to_string(), f64::NEG_INFINITY));
    }

    #[test]
    fn reads_json() {
        let text = r#"{
  "version": "3f9e02af",
  "fps": 2029.43,
  "frames": [
    {
      "frameNum": 0,
      "metrics": {
        "integer_motion2": 0,
        "vmaf": 87.77055489518095
      }
    }
  ],
  "pooled_metrics": {
    "vmaf": {
      "min": 87.5,
      "max": 88
    }
  },
  "aggregate_metrics": {
    "mean_y": 15.5
  }
}"#;
        let x = VmafXml::parse_json(text);
        assert_eq!(
            x.frames,
            [vec![
                ("integer_motion2".to_string(), 0.0),
                ("vmaf".to_string(), 87.77055489518095)
            ]]
        );
        assert_eq!(
            x.pooled,
            [(
                "vmaf".to_string(),
                vec![("min".to_string(), 87.5), ("max".to_string(), 88.0)]
            )]
        );
        assert_eq!(x.aggregate, [("mean_y".to_string(), 15.5)]);
    }
}
