//! What checking a file found: the report types every format's check
//! fills in and every job reads ([`Verdict`], [`Finding`], [`Status`],
//! [`RoundTrip`], [`Counts`], [`Totals`]), and the [`Format`] trait a
//! format implements to be checked. A leaf: it knows no format and no
//! job, so formats depend on it and [`crate::check`] on them.

use crate::codec::DecodeError;
use crate::input::{Compression, Source};
use serde::Serialize;
use std::collections::BTreeMap;

/// How a file fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Everything checked and sound.
    Pass,
    /// Sound, with something a person should look at (a recording cut by
    /// a crash, non-canonical ints DDNet never writes).
    Warn,
    /// A malformed file that failed, as it was expected to.
    Xfail,
    /// Not a file of any format `check` knows.
    Skip,
    /// Something is wrong: it does not decode, does not re-encode to its
    /// bytes, does not replay, or is not the format its name claims.
    Fail,
}

impl Status {
    /// The word shown in text reports.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Xfail => "xfail",
            Status::Skip => "skip",
            Status::Fail => "FAIL",
        }
    }
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; does not change the status.
    Note,
    /// The file passes with a warning.
    Warn,
    /// The file fails.
    Fail,
}

/// One thing a check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// What rule or fact it is, as a stable snake_case name (documented in
    /// the JSON schema: `truncated`, `noncanonical_int`, `replay`, ...).
    pub code: &'static str,
    /// The file byte it concerns, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The game tick, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick: Option<i32>,
    /// How many times it happened, when it is a count (the first is
    /// described).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// One line for a person.
    pub message: String,
}

impl Finding {
    /// A finding with no offset, tick or count.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            code,
            offset: None,
            tick: None,
            count: None,
            message: message.into(),
        }
    }

    /// The same finding at a file byte.
    pub fn at(mut self, offset: u64) -> Finding {
        self.offset = Some(offset);
        self
    }

    /// The same finding in a tick.
    pub fn in_tick(mut self, tick: i32) -> Finding {
        self.tick = Some(tick);
        self
    }

    /// The same finding, counted.
    pub fn times(mut self, count: u64) -> Finding {
        self.count = Some(count);
        self
    }
}

/// Did re-encoding give the file's bytes back?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RoundTrip {
    /// Byte for byte (up to where decoding stopped, if it did).
    Exact,
    /// The first byte where the re-encoding differs.
    Differs {
        /// That byte's offset in the file.
        offset: u64,
    },
    /// Not checked (the file did not decode far enough, or the format has
    /// no encoder).
    NotChecked,
}

impl RoundTrip {
    /// A few words for a summary: `byte-exact`, `re-encoding differs at
    /// byte N`, `not re-encoded`.
    pub fn words(&self) -> String {
        match self {
            RoundTrip::Exact => "byte-exact".into(),
            RoundTrip::Differs { offset } => format!("re-encoding differs at byte {offset}"),
            RoundTrip::NotChecked => "not re-encoded".into(),
        }
    }
}

/// What a check counted. `records` and `last_tick` are shown as columns;
/// everything else a format counts is in `more`, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// The format's unit: teehistorian records, demo chunks, capture
    /// datagrams, archive records (all maps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    /// The last game tick seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_tick: Option<i32>,
    /// Further counts, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub more: BTreeMap<&'static str, u64>,
}

/// What checking one file found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The file as named (or `-` for standard input).
    pub path: String,
    /// The format it was read as; `None` when nothing recognised it.
    pub format: Option<&'static str>,
    /// The compression it was read through, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression>,
    /// How it fared, after [`crate::check::Options`] were applied.
    pub status: Status,
    /// It lies in a folder named `malformed/`: it passes only by failing.
    pub expected_failure: bool,
    /// The decode error that stopped reading, if one did. What came
    /// before it was still checked and counted.
    pub error: Option<DecodeError>,
    /// The byte-exact re-encoding check.
    pub roundtrip: RoundTrip,
    /// Everything found, in file order within each kind; failures first.
    pub findings: Vec<Finding>,
    /// What was counted.
    pub counts: Counts,
    /// What was checked, in a line (for a file that passed).
    pub summary: String,
}

impl Verdict {
    /// A verdict for `path` before its format is known.
    pub fn new(path: impl Into<String>) -> Verdict {
        Verdict {
            path: path.into(),
            format: None,
            compression: None,
            status: Status::Skip,
            expected_failure: false,
            error: None,
            roundtrip: RoundTrip::NotChecked,
            findings: Vec::new(),
            counts: Counts::default(),
            summary: String::new(),
        }
    }

    /// Adds a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// The status the findings, error and round trip give: fail if any of
    /// them fails, warn if any warns, else pass.
    pub fn settle(&mut self) {
        if let RoundTrip::Differs { offset } = self.roundtrip
            && !self.findings.iter().any(|f| f.code == "roundtrip")
        {
            self.findings.push(
                Finding::new(
                    Severity::Fail,
                    "roundtrip",
                    format!("re-encoding differs from the file at byte {offset} (0x{offset:x})"),
                )
                .at(offset),
            );
        }
        // A capture reports its unreadable record as `capture`.
        if let Some(e) = &self.error
            && !self
                .findings
                .iter()
                .any(|f| matches!(f.code, "decode" | "capture"))
        {
            let mut f = Finding::new(Severity::Fail, "decode", e.to_string()).at(e.offset);
            f.tick = e.tick;
            self.findings.insert(0, f);
        }
        self.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
        self.status = match self.findings.iter().map(|f| f.severity).max() {
            Some(Severity::Fail) => Status::Fail,
            Some(Severity::Warn) => Status::Warn,
            _ => Status::Pass,
        };
    }

    /// The first failing finding, or the first warning: the note a text
    /// report shows.
    pub fn headline(&self) -> Option<&Finding> {
        self.findings.iter().find(|f| f.severity >= Severity::Warn)
    }

    pub(crate) fn fail(&mut self, code: &'static str, message: impl Into<String>) {
        self.findings
            .insert(0, Finding::new(Severity::Fail, code, message));
        self.status = Status::Fail;
    }
}

/// One format `check` knows.
pub trait Format: Sync {
    /// Its name, as shown and in JSON (`teehistorian`, `demo`, ...).
    fn name(&self) -> &'static str;
    /// File name endings that claim it (lower case, with the dot). A file
    /// named so whose bytes are not this format fails.
    fn extensions(&self) -> &'static [&'static str];
    /// True if a file starting with `head` (its first 512 bytes, or all of
    /// it if shorter) is this format.
    fn sniff(&self, head: &[u8]) -> bool;
    /// True if the format has magic bytes, so that [`Format::sniff`]
    /// recognises it under any name. Formats without (raw int arrays) are
    /// checked only in files named as them, and `sniff` only says whether
    /// the bytes are plausible.
    fn has_magic(&self) -> bool {
        true
    }
    /// Checks the whole file: fills in `verdict` (format, counts,
    /// findings, error, round trip, summary) and settles its status.
    fn check(&self, source: Source, verdict: &mut Verdict);
}

/// Totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Files that passed (with or without warnings) or failed as expected.
    pub passed: usize,
    /// Of those, files with warnings.
    pub warned: usize,
    /// Files that failed.
    pub failed: usize,
    /// Files nothing recognised (walking folders only).
    pub skipped: usize,
}

impl Totals {
    /// Counts the verdicts.
    pub fn of<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Totals {
        let mut t = Totals::default();
        for v in verdicts {
            match v.status {
                Status::Pass | Status::Xfail => t.passed += 1,
                Status::Warn => {
                    t.passed += 1;
                    t.warned += 1;
                }
                Status::Fail => t.failed += 1,
                Status::Skip => t.skipped += 1,
            }
        }
        t
    }

    /// Files checked (not skipped).
    pub fn checked(&self) -> usize {
        self.passed + self.failed
    }

    /// True if something was checked and nothing failed.
    pub fn ok(&self) -> bool {
        self.failed == 0 && self.checked() > 0
    }
}
