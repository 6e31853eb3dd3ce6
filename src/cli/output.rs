//! What every command shares: `--format` names, reading FILE arguments
//! (`-` is standard input; compressed files are read through their
//! compression), JSON framing with the schema version, RON, and progress.

use super::Failure;
use clap::ValueEnum;
use serde::Serialize;
use std::io::{self, BufWriter, Read, StdoutLock, Write};
use std::path::Path;
use std::time::Duration;
use teeoracle::check::Source;

/// Output of a command that prints a stream of records (`dump`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StreamFormat {
    /// One line per record, for people.
    Text,
    /// One JSON object per line, each with a `kind`: a `start` line with
    /// the schema version, the records, an `end` line.
    Jsonl,
}

/// Output of a command that prints one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// For people.
    Text,
    /// One JSON document with `kind` and `schema_version`.
    Json,
}

/// Output of a command that prints a world state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StateFormat {
    /// Pretty RON (Rust Object Notation), for people and Rust programs.
    Ron,
    /// One JSON document with `kind` and `schema_version`.
    Json,
}

/// The cores to use by default (`check -j`, a large file's threads).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Buffered standard output.
pub fn stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// The name an input is shown by.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// A FILE argument as a stream (`-` is standard input), decompressed if
/// it is compressed, with a progress bar when that is worth it.
pub fn open(path: &Path) -> Result<Box<dyn Read + Send>, Failure> {
    open_sized(path).map(|(reader, _)| reader)
}

/// [`open`], with the bytes the stream will give if that is known (a
/// regular file that is not compressed).
fn open_sized(path: &Path) -> Result<(Box<dyn Read + Send>, Option<u64>), Failure> {
    let len = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut source = Source::arg(path);
    source
        .head()
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    let total = len.filter(|_| source.compression().is_none());
    let reader = source
        .into_reader()
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    Ok((Box::new(Progress::wrap(reader, total)), total))
}

/// A FILE argument read whole (`-` is standard input), decompressed if
/// it is compressed.
pub fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    let (mut reader, total) = open_sized(path)?;
    // Sized once where the size is known: growing by doubling touched
    // twice the memory, and each new page costs a fault (a tenth of
    // `demo stats` on a 2 MB demo).
    let mut bytes = Vec::with_capacity(total.map_or(0, |t| t as usize));
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    Ok(bytes)
}

/// A FILE argument's bytes as they are, never decompressed (`-` is
/// standard input): for raw payloads such as Huffman streams and packets.
pub fn read_raw(path: &Path) -> Result<Vec<u8>, Failure> {
    let result = if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    result.map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

/// A RON or JSON spec file (by its extension) read by that format's
/// parser: a bad spec is a bad file (exit 1), another extension bad usage.
pub fn read_spec<T, E: std::fmt::Display>(
    path: &Path,
    from_ron: fn(&str) -> Result<T, E>,
    from_json: fn(&str) -> Result<T, E>,
) -> Result<T, Failure> {
    let parse = match path.extension().and_then(|e| e.to_str()) {
        Some("ron") => from_ron,
        Some("json") => from_json,
        _ => {
            return Err(Failure::Usage(format!(
                "{}: a spec is a .ron or .json file",
                shown(path)
            )));
        }
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    parse(&text).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

/// Writes one JSON document: `kind`, `schema_version`, then the value's
/// fields (pretty-printed).
pub fn write_json_doc(
    out: &mut impl Write,
    kind: &str,
    value: &impl Serialize,
) -> Result<(), Failure> {
    let doc = teeoracle::schema::Document::new(kind, value);
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(json_failure)?;
    writeln!(out)?;
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: into a temporary file
/// beside it, renamed over `path` once complete (as `archive pack` does),
/// so a failure never leaves a partial file. A path that cannot be
/// written is a usage error.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let cannot =
        |e: std::io::Error| Failure::Usage(format!("cannot write {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".teeoracle-");
    // As `File::create` would (the umask applies), not the private mode
    // of a temporary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(cannot)?;
    tmp.write_all(bytes).map_err(cannot)?;
    tmp.as_file().sync_all().map_err(cannot)?;
    tmp.persist(path).map_err(|e| cannot(e.error))?;
    Ok(())
}

/// Writes one JSON line (the value must carry its own `kind`).
pub fn write_json_line(out: &mut impl Write, value: &impl Serialize) -> Result<(), Failure> {
    serde_json::to_writer(&mut *out, value).map_err(json_failure)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// A JSON writing error: our own output failing (a closed pipe is the
/// reader's choice) or a value JSON cannot hold.
fn json_failure(e: serde_json::Error) -> Failure {
    match e.io_error_kind() {
        Some(_) => Failure::Output(e.into()),
        None => Failure::bad(e),
    }
}

/// The first line of a JSON Lines stream: `{"kind":"start",
/// "schema_version":1,"command":...,"input":...}`.
pub fn write_stream_start(out: &mut impl Write, command: &str, input: &str) -> Result<(), Failure> {
    write_json_line(out, &teeoracle::schema::StreamStart::new(command, input))
}

/// Writes a value in pretty RON.
pub fn write_ron(out: &mut impl Write, value: &impl Serialize) -> Result<(), Failure> {
    let config = ron::ser::PrettyConfig::new().indentor("  ".to_string());
    let text = ron::ser::to_string_pretty(value, config).map_err(Failure::bad)?;
    writeln!(out, "{text}")?;
    Ok(())
}

/// Writes a world state as RON or as a JSON document of `kind`.
pub fn write_state(
    out: &mut impl Write,
    format: StateFormat,
    kind: &str,
    value: &impl Serialize,
) -> Result<(), Failure> {
    match format {
        StateFormat::Ron => write_ron(out, value),
        StateFormat::Json => write_json_doc(out, kind, value),
    }
}

/// Progress on stderr for work that takes longer than a second, only when
/// stderr is a terminal: a reader that counts what passes through it.
pub struct Progress<R> {
    inner: R,
    bar: Option<indicatif::ProgressBar>,
    shown: bool,
}

/// Progress appears only after this long, so quick commands stay quiet.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

impl<R: Read> Progress<R> {
    /// Wraps `inner`; `total` is its length in bytes, if known.
    pub fn wrap(inner: R, total: Option<u64>) -> Progress<R> {
        use std::io::IsTerminal;
        let bar = io::stderr().is_terminal().then(|| match total {
            Some(n) => indicatif::ProgressBar::with_draw_target(
                Some(n),
                indicatif::ProgressDrawTarget::hidden(),
            )
            .with_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            ),
            None => indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::hidden(),
            )
            .with_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {binary_bytes} {binary_bytes_per_sec}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            ),
        });
        Progress {
            inner,
            bar,
            shown: false,
        }
    }
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
            if !self.shown && bar.elapsed() >= PROGRESS_DELAY {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                self.shown = true;
            }
            if n == 0 && !buf.is_empty() {
                bar.finish_and_clear();
            }
        }
        Ok(n)
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A count-based progress bar (files checked, maps packed), shown after a
/// second when stderr is a terminal; `None` otherwise.
pub fn counter(total: u64, what: &'static str) -> Counter {
    use std::io::IsTerminal;
    Counter {
        bar: io::stderr().is_terminal().then(|| {
            indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::hidden(),
            )
            .with_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "{{bar:40}} {{pos}}/{{len}} {what} eta {{eta}} {{wide_msg}}"
                ))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            )
        }),
        shown: false,
    }
}

/// See [`counter`].
pub struct Counter {
    bar: Option<indicatif::ProgressBar>,
    shown: bool,
}

impl Counter {
    /// One more done; `message` names what is being worked on.
    pub fn tick(&mut self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(message.to_string());
            if !self.shown && bar.elapsed() >= PROGRESS_DELAY {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                self.shown = true;
            }
        }
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Writes an event log ([`teeoracle::log`]): `text` is the lines as the
/// format has them, under the column comment; `jsonl` is a `start` line,
/// one `event` line per line (read back as `archive log` reads its
/// `log.txt`) and an `end` line with the count.
pub fn write_event_log(
    out: &mut impl Write,
    format: StreamFormat,
    command: &str,
    input: &str,
    lines: &str,
) -> Result<(), Failure> {
    match format {
        StreamFormat::Text => {
            out.write_all(teeoracle::log::HEADER.as_bytes())?;
            out.write_all(lines.as_bytes())?;
        }
        StreamFormat::Jsonl => {
            #[derive(Serialize)]
            struct Event<'e> {
                kind: &'static str,
                #[serde(flatten)]
                event: &'e teeoracle::archive::log::LogEvent,
            }
            #[derive(Serialize)]
            struct End {
                kind: &'static str,
                events: usize,
            }
            write_stream_start(out, command, input)?;
            let mut events = 0;
            for event in teeoracle::archive::log::events(lines) {
                // The lines were made here: one that does not read back is
                // this program's bug, reported as such.
                let event = event.map_err(|e| Failure::bad(format!("{input}: event log: {e}")))?;
                write_json_line(
                    out,
                    &Event {
                        kind: "event",
                        event: &event,
                    },
                )?;
                events += 1;
            }
            write_json_line(
                out,
                &End {
                    kind: "end",
                    events,
                },
            )?;
        }
    }
    Ok(())
}
