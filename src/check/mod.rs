//! One oracle pipeline per format: recognise a file, decode it, re-encode
//! it, replay it, count, and say what was found, as one [`Verdict`].
//!
//! Every format `check` knows is a [`Format`]: its name, the file name
//! endings that claim it, how its bytes are recognised, and its check.
//! [`formats`] lists them; [`check`] picks the one a file is and runs it.
//! The command line's `check`, `archive verify` and the tests all go
//! through here, so adding a format means adding one `Format`.
//!
//! A check never panics and never stops at the first finding: everything
//! valid before a fault is decoded and counted, and the fault is the
//! verdict's `error`.
//!
//! ```
//! use teeoracle::check::{self, Options, Source, Status};
//! let bytes = std::fs::read("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian")?;
//! let verdict = check::check(Source::bytes("A.teehistorian", bytes), &Options::default());
//! assert_eq!(verdict.format, Some("teehistorian"));
//! assert_eq!(verdict.status, Status::Pass);
//! assert_eq!(verdict.counts.records, Some(970));
//! # Ok::<(), std::io::Error>(())
//! ```

pub use crate::compression::{
    Compression, DECOMPRESSION_RATIO, MIN_MAX_DECOMPRESSED, default_max_decompressed,
};
pub use crate::input::{HEAD_LEN, Source};
pub use crate::report::{
    CheckDocument, Code, Counts, Finding, Format, RoundTrip, Severity, Status, Totals, Verdict,
};

/// How a run judges files.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A warning fails the file.
    pub deny_warnings: bool,
    /// The file was named on purpose (not found by walking a folder): a
    /// file nothing recognises fails instead of being skipped.
    pub named: bool,
    /// The cap on a compressed file's decompressed bytes (`None`:
    /// [`default_max_decompressed`] of its size).
    pub max_decompressed: Option<u64>,
    /// Threads one large file may be checked on (0 and 1: one).
    pub threads: usize,
    /// Maps to simulate teehistorian files on (`None`: no simulation).
    /// A teehistorian file whose map is among them is simulated with
    /// DDNet's physics and every recorded position compared
    /// ([`crate::simulate`]).
    #[cfg(feature = "zlib")]
    pub maps: Option<std::sync::Arc<crate::simulation::Maps>>,
}

/// Every format `check` knows, in the order they are tried.
pub fn formats() -> &'static [&'static dyn Format] {
    &[
        &crate::teehistorian::check::TeehistorianFormat,
        &crate::demo::check::DemoFormat,
        #[cfg(feature = "capture")]
        &crate::session::check::CaptureFormat,
        #[cfg(feature = "archive")]
        &crate::archive::check::ArchiveFormat,
        &crate::snapshot::check::SnapshotFormat,
        &crate::map::check::MapFormat,
    ]
}

/// The format a file name claims, by its ending (after any compression
/// ending such as `.gz`).
pub fn claimed_by_name(name: &str) -> Option<&'static dyn Format> {
    let name = name.to_ascii_lowercase();
    let by_ending = |name: &str| {
        formats()
            .iter()
            .copied()
            .filter_map(|f| {
                let ext = f
                    .extensions()
                    .iter()
                    .filter(|e| name.ends_with(*e))
                    .max_by_key(|e| e.len())?;
                Some((ext.len(), f))
            })
            .max_by_key(|&(len, _)| len)
            .map(|(_, f)| f)
    };
    // `x.tar.bz2` is an archive by its whole ending; `x.demo.gz` a demo.
    by_ending(&name).or_else(|| {
        let inner = [".gz", ".bz2", ".xz", ".zst"]
            .iter()
            .find_map(|c| name.strip_suffix(c))?;
        by_ending(inner)
    })
}

/// Checks one file: recognises its format by its bytes (through any
/// compression), runs that format's check, and applies `options` and the
/// `malformed/` expectation. Never panics; I/O errors are failures.
pub fn check(mut source: Source, options: &Options) -> Verdict {
    #[cfg(feature = "zlib")]
    let again = source.path().map(std::path::PathBuf::from);
    if options.max_decompressed.is_some() {
        source.set_max_decompressed(options.max_decompressed);
    }
    source.set_threads(options.threads);
    let mut verdict = Verdict::new(source.name());
    verdict.expected_failure = source.in_malformed_folder();
    let claimed = claimed_by_name(source.name());
    match source.head().map(<[u8]>::to_vec) {
        Err(e) => {
            verdict.format = claimed.map(|f| f.name());
            verdict.compression = source.compression();
            verdict.fail(Code::Io, format!("cannot read: {e}"));
        }
        Ok(head) => {
            verdict.compression = source.compression();
            let found = formats()
                .iter()
                .copied()
                .filter(|f| f.has_magic())
                .chain(claimed.filter(|f| !f.has_magic()))
                .find(|f| f.sniff(&head));
            match (found, claimed) {
                (Some(format), claimed) => {
                    verdict.format = Some(format.name());
                    format.check(source, &mut verdict);
                    #[cfg(feature = "zlib")]
                    if format.name() == "teehistorian"
                        && let Some(maps) = &options.maps
                    {
                        simulated(again.as_deref(), maps, options, &mut verdict);
                    }
                    // Checked as what it is, and failed for its name: a
                    // tool that trusts the name would misread it.
                    if let Some(claimed) = claimed.filter(|c| c.name() != format.name()) {
                        let message = format!(
                            "named as a {} file, but its bytes are a {} file",
                            claimed.name(),
                            format.name()
                        );
                        verdict.fail(Code::NotThisFormat, message);
                    }
                }
                (None, Some(format)) => {
                    verdict.format = Some(format.name());
                    let message = format!(
                        "named as a {} file, but its bytes are not one ({})",
                        format.name(),
                        describe_head(&head)
                    );
                    verdict.fail(Code::NotThisFormat, message);
                }
                (None, None) if options.named => {
                    let message = format!(
                        "not a file of any format teeoracle checks ({})",
                        describe_head(&head)
                    );
                    verdict.fail(Code::Unrecognised, message);
                }
                (None, None) => verdict.summary = "unrecognised format".into(),
            }
        }
    }
    expect(&mut verdict, options);
    verdict
}

/// Simulates a checked teehistorian file on its map, if `maps` has it:
/// a position DDNet's physics does not reproduce fails the file; what
/// the simulation does not model yet is a warning; no map, a note.
#[cfg(feature = "zlib")]
fn simulated(
    path: Option<&std::path::Path>,
    maps: &crate::simulation::Maps,
    options: &Options,
    verdict: &mut Verdict,
) {
    if verdict.status == Status::Fail {
        return;
    }
    let Some(path) = path else {
        verdict.push(Finding::new(
            Severity::Note,
            Code::NotSimulated,
            "not simulated: read from standard input",
        ));
        return;
    };
    let mut source = Source::file(path);
    source.set_max_decompressed(options.max_decompressed);
    let bytes = match source.into_bytes() {
        Ok(b) => b,
        Err(e) => return verdict.fail(Code::Io, format!("cannot read again to simulate: {e}")),
    };
    let cap = options
        .max_decompressed
        .unwrap_or_else(|| default_max_decompressed(bytes.len() as u64));
    // The same session's server demo, checked against the simulation too.
    let demo = session_demo(path, &bytes, cap);
    let sim_options = crate::simulation::Options {
        demo: demo.as_ref().map(|(_, d)| d.as_slice()),
        ..Default::default()
    };
    let report = match crate::simulation::simulate_with(&bytes, maps, cap, &sim_options) {
        Ok(Some(r)) => r,
        Ok(None) => {
            verdict.push(Finding::new(
                Severity::Note,
                Code::NotSimulated,
                "not simulated: the map the header names (map_sha256) is not at hand (--maps DIR, or a map or demo beside the file)",
            ));
            return;
        }
        // A header that names no map (DDNet's unit tests write such
        // files) or a server this simulator does not know: said, no more.
        Err(
            e @ (crate::simulation::SimulateError::Header(_)
            | crate::simulation::SimulateError::UnknownServer(_)),
        ) => {
            verdict.push(Finding::new(
                Severity::Note,
                Code::NotSimulated,
                format!("not simulated: {e}"),
            ));
            return;
        }
        Err(e) => {
            verdict.push(Finding::new(
                Severity::Warn,
                Code::NotSimulated,
                format!("not simulated: {e}"),
            ));
            return;
        }
    };
    if let Some(e) = &report.stopped {
        verdict.push(Finding::new(
            Severity::Warn,
            Code::NotSimulated,
            format!("simulated only up to where it stopped: {e}"),
        ));
    }
    for d in report.listed.iter().take(5) {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!(
                "tick {}: client {} recorded at {}, DDNet's physics puts it at {}",
                d.tick,
                d.cid,
                crate::simulation::place(d.recorded),
                crate::simulation::place(d.simulated)
            ),
        ));
    }
    if report.divergences > 5 {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!("{} more positions differ", report.divergences - 5),
        ));
    }
    if let (Some((demo_path, _)), Some(d)) = (&demo, &report.demo) {
        demo_findings(demo_path, d, verdict);
    }
    let mut features: Vec<&str> = report
        .unmodelled
        .iter()
        .map(|u| u.feature.as_str())
        .collect();
    features.sort_unstable();
    features.dedup();
    if !features.is_empty() {
        // Every position matched all the same: nothing went unjudged.
        let severity = match report.after_unmodelled {
            0 => Severity::Note,
            _ => Severity::Warn,
        };
        verdict.push(Finding::new(
            severity,
            Code::Unmodelled,
            format!(
                "{} player-ticks not judged, after what the simulation does not model: {}",
                report.after_unmodelled,
                features.join(", ")
            ),
        ));
    }
    verdict
        .counts
        .more
        .insert("player_ticks", report.player_ticks);
    verdict
        .counts
        .more
        .insert("player_ticks_matched", report.matched);
    verdict.summary.push_str(&format!(
        "; simulated: {} of {} player-ticks where the file puts them",
        report.matched, report.player_ticks
    ));
    verdict.settle();
}

/// The server demo of the same session as the teehistorian file at
/// `path`, if one lies beside it: the file of the same name with
/// `.demo`, or in a folder `record` wrote (it has a `scenario.ron`) its
/// one demo. Its embedded map must be the one the header names. The
/// demo's path and bytes.
#[cfg(feature = "zlib")]
fn session_demo(
    path: &std::path::Path,
    teehistorian: &[u8],
    cap: u64,
) -> Option<(std::path::PathBuf, Vec<u8>)> {
    let same_name = path.with_extension("demo");
    let candidate = if same_name.is_file() {
        same_name
    } else {
        let dir = path.parent()?;
        if !dir.join("scenario.ron").is_file() {
            return None;
        }
        let mut demos = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "demo"));
        let one = demos.next()?;
        if demos.next().is_some() {
            return None;
        }
        one
    };
    let mut source = Source::file(&candidate);
    source.set_max_decompressed(Some(cap));
    let bytes = source.into_bytes().ok()?;
    let mut maps = crate::simulation::Maps::default();
    maps.add(&bytes);
    let (header, _) =
        crate::teehistorian::SliceReader::new(teehistorian, crate::codec::Mode::Lenient).ok()?;
    maps.get(header.info.map_sha256.as_deref()?)?;
    Some((candidate, bytes))
}

/// What comparing the simulation with the session's demo found: an item
/// field that differs fails the file; a demo that compared nothing is a
/// warning (the check asked could not be done).
#[cfg(feature = "zlib")]
fn demo_findings(
    demo_path: &std::path::Path,
    d: &crate::simulation::DemoReport,
    verdict: &mut Verdict,
) {
    let name = demo_path.file_name().map_or_else(
        || demo_path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    for m in d.listed.iter().take(5) {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!(
                "{name}: snapshot {} (item tick {}): client {}: {}.{} is {} in the demo, {} simulated",
                m.snapshot_tick, m.tick, m.cid, m.item, m.field, m.demo, m.simulated
            ),
        ));
    }
    if d.mismatched > 5 {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!("{name}: {} more items differ", d.mismatched - 5),
        ));
    }
    if d.compared == 0 {
        verdict.push(Finding::new(
            Severity::Warn,
            Code::NotSimulated,
            format!("{name}: the session's demo has no Character item the simulation reached: compared nothing"),
        ));
    }
    verdict
        .counts
        .more
        .insert("demo_items_compared", d.compared);
    verdict.counts.more.insert("demo_items_matched", d.matched);
    verdict.summary.push_str(&format!(
        "; {name}: {} of {} Character items as simulated",
        d.matched, d.compared
    ));
}

/// Applies `--deny-warnings` and the `malformed/` expectation.
fn expect(verdict: &mut Verdict, options: &Options) {
    if options.deny_warnings && verdict.status == Status::Warn {
        verdict.status = Status::Fail;
    }
    if !verdict.expected_failure {
        return;
    }
    match verdict.status {
        Status::Fail => verdict.status = Status::Xfail,
        Status::Pass | Status::Warn => {
            // A check that did not run may be why (a file wrong only in
            // its physics, without its map): say so.
            let not_run = verdict
                .findings
                .iter()
                .find(|f| f.code == Code::NotSimulated)
                .map_or(String::new(), |f| format!(" ({})", f.message));
            verdict.fail(
                Code::ExpectedFailure,
                format!("expected to fail (it lies under malformed/), but passed{not_run}"),
            );
        }
        Status::Skip | Status::Xfail => {}
    }
}

/// A few words on what a file's first bytes are, for "not this format".
fn describe_head(head: &[u8]) -> String {
    if head.is_empty() {
        return "the file is empty".into();
    }
    let shown = &head[..head.len().min(8)];
    format!("it starts with {}", crate::bytes::hex_preview(shown))
}
