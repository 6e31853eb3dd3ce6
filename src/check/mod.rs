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
    CheckDocument, Code, Context, Counts, Finding, Format, RoundTrip, Severity, Simulator, Status,
    Totals, Verdict,
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
    /// Maps to simulate teehistorian files on (`None`: no simulation).
    /// A teehistorian file whose map is among them is simulated with
    /// the model of DDNet's physics and every recorded position compared
    /// ([`crate::simulation::check`]).
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
        let inner = crate::files::COMPRESSION_ENDINGS
            .iter()
            .find_map(|c| name.strip_suffix(c))?;
        by_ending(inner)
    })
}

/// Checks one file: recognises its format by its bytes (through any
/// compression), runs that format's check, and applies `options` and the
/// `malformed/` expectation. Never panics; I/O errors are failures.
pub fn check(mut source: Source, options: &Options) -> Verdict {
    if options.max_decompressed.is_some() {
        source.set_max_decompressed(options.max_decompressed);
    }
    let mut verdict = Verdict::new(source.name());
    // A pipe, socket or device met in a folder is not opened: reading a
    // FIFO waits for a writer that may never come.
    if !options.named
        && let Some(what) = source.path().and_then(crate::files::special)
    {
        verdict.summary = format!("{what} met in a folder: not read (name it to read it)");
        return verdict;
    }
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
                    #[cfg(feature = "zlib")]
                    let simulator =
                        options
                            .maps
                            .as_deref()
                            .map(|maps| crate::simulation::check::OnMaps {
                                maps,
                                max_decompressed: options.max_decompressed,
                            });
                    #[cfg_attr(not(feature = "zlib"), allow(unused_mut))]
                    let mut context = Context::default();
                    #[cfg(feature = "zlib")]
                    {
                        context.simulator = simulator.as_ref().map(|s| s as &dyn Simulator);
                    }
                    format.check(source, &context, &mut verdict);
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

/// Runs `work` on every item on `jobs` threads (each with its own state
/// from `init`), taking them in the order `schedule` lists their indices,
/// and hands the results to `each` in the items' order, as soon as each is
/// next: the output is the same whatever the schedule and the threads'
/// timing. `each` failing stops the run.
pub fn in_order<'a, T: Sync, S, R: Send, E>(
    items: &'a [T],
    schedule: &[usize],
    jobs: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &'a T) -> R + Sync,
    mut each: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E> {
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        let mut state = init();
        for (i, item) in items.iter().enumerate() {
            each(i, work(&mut state, item))?;
        }
        return Ok(());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Results ahead of the next one wait here; the channel is bounded so
    // that a slow file does not let the others pile up without end.
    let (send, receive) = std::sync::mpsc::sync_channel::<(usize, R)>(jobs * 4);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (send, next, init, work) = (send.clone(), &next, &init, &work);
            scope.spawn(move || {
                let mut state = init();
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = schedule.get(k) else { break };
                    if send.send((i, work(&mut state, &items[i]))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = std::collections::BTreeMap::new();
        let mut due = 0;
        for (i, r) in receive {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&due) {
                if let Err(e) = each(due, r) {
                    // Stop the workers: nothing more will be taken.
                    next.store(schedule.len(), std::sync::atomic::Ordering::Relaxed);
                    return Err(e);
                }
                due += 1;
            }
        }
        Ok(())
    })
}
