//! `--trace-chrome FILE`: a `tracing` layer that writes every span as a Chrome
//! trace "complete" event (and every event as an instant event) in the JSON
//! array format that chrome://tracing and Perfetto (ui.perfetto.dev) open.
//!
//! The engine's spans (`frame`, `upload`, `submit`, `wait`, ...) are at debug
//! level; this layer takes them at debug level whatever `VKSSIM_LOG` says, so a
//! trace is complete without making the terminal noisy. Events carry their
//! fields as `args` (the per-pass GPU times from timestamp queries among them).
//!
//! The trace is collected in an unnamed scratch file and written to FILE only when
//! the run ends, by [`Target`]'s rules (a temporary file and a rename for a
//! regular file): a run that is interrupted (SIGINT, SIGTERM) leaves an older
//! trace at FILE as it was and no temporary file behind, and a finished run leaves
//! a complete JSON document.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use crate::output::target::{check_planned, in_folder, Target};

/// The trace being collected, shared by the layer and the guard that closes it.
struct Sink {
    /// The scratch file the events go to.
    out: BufWriter<File>,
    /// Whether the trace was closed (later events are dropped).
    closed: bool,
    /// Whether an event was written (events after the first need a comma).
    wrote_any: bool,
    /// The first write error, reported when the trace is closed.
    error: Option<std::io::Error>,
}

impl Sink {
    fn write_event(&mut self, json: &str) {
        if self.error.is_some() || self.closed {
            return;
        }
        let sep = if self.wrote_any { ",\n" } else { "\n" };
        self.wrote_any = true;
        if let Err(e) = self
            .out
            .write_all(sep.as_bytes())
            .and_then(|()| self.out.write_all(json.as_bytes()))
        {
            self.error = Some(e);
        }
    }
}

/// The layer: turns spans and events into trace events.
pub struct ChromeLayer {
    sink: Arc<Mutex<Sink>>,
    start: Instant,
}

/// Closes the trace (writes the closing bracket and puts the trace in place) when
/// dropped or when [`TraceGuard::finish`] is called; [`TraceGuard::discard`]
/// drops it instead.
pub struct TraceGuard {
    sink: Arc<Mutex<Sink>>,
    path: std::path::PathBuf,
    finished: bool,
}

impl TraceGuard {
    /// The trace's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes the trace and writes it to its path, reporting a write error if
    /// one happened.
    pub fn finish(mut self) -> Result<()> {
        self.finished = true;
        close(&self.sink, &self.path)
            .with_context(|| format!("writing the trace {}", self.path.display()))
    }

    /// Drops the trace: its path is left as it was.
    pub fn discard(mut self) {
        self.finished = true;
        let mut s = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        s.closed = true;
    }
}

impl Drop for TraceGuard {
    fn drop(&mut self) {
        if !self.finished {
            // Best effort on an early exit; `finish` reports errors.
            let _ = close(&self.sink, &self.path);
        }
    }
}

/// Ends the JSON array and writes the trace to `path`, resolved anew (it may
/// have changed during the run).
fn close(sink: &Mutex<Sink>, path: &Path) -> Result<()> {
    let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
    if s.closed {
        return Ok(());
    }
    s.closed = true;
    if let Some(e) = s.error.take() {
        return Err(e.into());
    }
    s.out.write_all(b"\n]\n")?;
    s.out.flush()?;
    let file = s.out.get_mut();
    file.seek(SeekFrom::Start(0))?;
    Target::open(path)?.write_from(file)
}

/// Checks that `path` can be written (see [`Target::open`]) and returns the
/// layer collecting the trace and the guard that writes it there at the end.
/// A path inside `planned_dir`, a folder the run creates before it writes
/// anything, is checked as a file there ([`check_planned`]) and collected in
/// the system's temporary folder.
pub fn create(path: &Path, planned_dir: Option<&Path>) -> Result<(ChromeLayer, TraceGuard)> {
    let in_planned = planned_dir.is_some_and(|dir| in_folder(path, dir));
    let scratch = if in_planned {
        check_planned(path).context("--trace-chrome")?;
        tempfile::tempfile()
            .with_context(|| format!("cannot create a temporary file for {}", path.display()))?
    } else {
        Target::open(path).context("--trace-chrome")?.scratch()?
    };
    let mut out = BufWriter::new(scratch);
    out.write_all(b"[")
        .with_context(|| format!("writing the trace {}", path.display()))?;
    let sink = Arc::new(Mutex::new(Sink {
        out,
        closed: false,
        wrote_any: false,
        error: None,
    }));
    Ok((
        ChromeLayer {
            sink: Arc::clone(&sink),
            start: Instant::now(),
        },
        TraceGuard {
            sink,
            path: path.to_path_buf(),
            finished: false,
        },
    ))
}

/// A small per-thread number for the trace's `tid`.
fn thread_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

/// Collects fields as a JSON object body (`"a":1,"b":"x"`).
/// The `message` field is kept apart: it names an instant event.
#[derive(Default)]
struct JsonFields(String, Option<String>);

impl JsonFields {
    fn push(&mut self, name: &str, value_json: &str) {
        if !self.0.is_empty() {
            self.0.push(',');
        }
        let _ = write!(self.0, "{}:{}", json_string(name), value_json);
    }
}

impl Visit for JsonFields {
    fn record_f64(&mut self, field: &Field, value: f64) {
        if value.is_finite() {
            self.push(field.name(), &value.to_string());
        } else {
            self.push(field.name(), &json_string(&value.to_string()));
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.push(field.name(), &value.to_string());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.push(field.name(), &value.to_string());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.push(field.name(), &value.to_string());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field.name(), &json_string(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.1 = Some(format!("{value:?}"));
            return;
        }
        self.push(field.name(), &json_string(&format!("{value:?}")));
    }
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// What the layer keeps in each span: its fields and when it was entered.
struct SpanData {
    fields: JsonFields,
    entered: Option<Instant>,
}

impl ChromeLayer {
    fn micros(&self, t: Instant) -> f64 {
        t.duration_since(self.start).as_secs_f64() * 1e6
    }

    fn emit(&self, json: &str) {
        let mut s = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        s.write_event(json);
    }
}

impl<S> Layer<S> for ChromeLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let mut fields = JsonFields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(SpanData {
                fields,
                entered: None,
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(data) = span.extensions_mut().get_mut::<SpanData>() {
                values.record(&mut data.fields);
            }
        }
    }

    fn on_enter(&self, id: &Id, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(data) = span.extensions_mut().get_mut::<SpanData>() {
                data.entered = Some(Instant::now());
            }
        }
    }

    fn on_exit(&self, id: &Id, ctx: LayerContext<'_, S>) {
        let now = Instant::now();
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        let Some(data) = ext.get_mut::<SpanData>() else {
            return;
        };
        let Some(entered) = data.entered.take() else {
            return;
        };
        let ts = self.micros(entered);
        let dur = now.duration_since(entered).as_secs_f64() * 1e6;
        let json = format!(
            "{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":1,\"tid\":{},\"args\":{{{}}}}}",
            json_string(span.name()),
            json_string(span.metadata().target()),
            thread_number(),
            data.fields.0
        );
        drop(ext);
        self.emit(&json);
    }

    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        let mut fields = JsonFields::default();
        event.record(&mut fields);
        let meta = event.metadata();
        let json = format!(
            "{{\"name\":{},\"cat\":{},\"ph\":\"i\",\"s\":\"t\",\"ts\":{:.3},\"pid\":1,\"tid\":{},\"args\":{{{}}}}}",
            json_string(fields.1.as_deref().unwrap_or(meta.name())),
            json_string(meta.target()),
            self.micros(Instant::now()),
            thread_number(),
            fields.0
        );
        self.emit(&json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn trace_is_a_json_array_of_span_and_instant_events() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let (layer, guard) = create(&path, None).unwrap();
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::debug_span!("frame", index = 7u64);
            let _e = span.enter();
            tracing::debug!(decimate_us = 1.5, "pass times");
        });
        guard.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let events = v.as_array().unwrap();
        assert_eq!(events.len(), 2, "{text}");
        assert_eq!(events[0]["ph"], "i");
        assert_eq!(events[0]["name"], "pass times");
        assert_eq!(events[0]["args"]["decimate_us"], 1.5);
        assert_eq!(events[1]["ph"], "X");
        assert_eq!(events[1]["name"], "frame");
        assert_eq!(events[1]["args"]["index"], 7);
        assert!(events[1]["dur"].as_f64().unwrap() >= 0.0);
    }

    #[test]
    fn an_older_trace_stays_until_the_new_one_is_finished() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, "older").unwrap();
        let (_layer, guard) = create(&path, None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "older");
        guard.discard();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "older");
        let (_layer, guard) = create(&path, None).unwrap();
        guard.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[\n]\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
