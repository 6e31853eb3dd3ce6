//! What checking a file found: the report types every format's check
//! fills in and every job reads ([`Verdict`], [`Finding`], [`Status`],
//! [`RoundTrip`], [`Counts`], [`Totals`]), and the [`Format`] trait a
//! format implements to be checked. A leaf: it knows no format and no
//! job, so formats depend on it and [`crate::check`] on them.

use crate::codec::DecodeError;
use crate::compression::Compression;
use crate::input::Source;
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

/// Defines [`Code`]: each variant with the word that names it in JSON.
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $word:literal,)*) => {
        /// What a finding is: a rule or fact, named in JSON and text by a
        /// stable snake_case word (the schema's table of finding codes,
        /// which a test keeps equal to [`Code::ALL`]).
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in the schema's order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The word that names it (`truncated`, `ddnet_drop`, ...).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $word,)*
                }
            }
        }
    };
}

codes! {
    /// The decode error that stopped reading (the verdict's `error`).
    Decode = "decode",
    /// The re-encoding differs from the file.
    Roundtrip = "roundtrip",
    /// A replay inconsistency (teehistorian), or snapshots a demo's player drops.
    Replay = "replay",
    /// Bytes after a teehistorian FINISH.
    BytesAfterFinish = "bytes_after_finish",
    /// A recording cut by a crash.
    Truncated = "truncated",
    /// A demo whose recorder was never stopped.
    Unfinished = "unfinished",
    /// Ints in forms DDNet never writes, kept verbatim.
    NoncanonicalInt = "noncanonical_int",
    /// Snapshot items of the wrong size for their type.
    InvalidItem = "invalid_item",
    /// Only the first replay faults are listed.
    FaultsListed = "faults_listed",
    /// Not what DDNet's recorder writes.
    Rerecord = "rerecord",
    /// A demo's embedded map is not the one its header names.
    MapChecksum = "map_checksum",
    /// A demo header string DDNet's player refuses.
    Header = "header",
    /// A capture's file header, or a record or block after it, cannot be read.
    Capture = "capture",
    /// No UDP datagram to or from the server port.
    NoDatagrams = "no_datagrams",
    /// Session replay: a datagram that does not decode.
    Malformed = "malformed",
    /// Session replay: a packet with the wrong security token.
    WrongToken = "wrong_token",
    /// Session replay: an ack of a chunk never sent.
    AckOutOfRange = "ack_out_of_range",
    /// Session replay: a vital chunk seen before.
    Duplicate = "duplicate",
    /// Session replay: a vital chunk past a gap.
    OutOfOrder = "out_of_order",
    /// Session replay: a packet asking for a resend.
    ResendRequested = "resend_requested",
    /// Session replay: a message whose body does not fit its layout.
    MalformedMessage = "malformed_message",
    /// Session replay: a message DDNet rejects.
    RejectedMessage = "rejected_message",
    /// Session replay: a snapshot part DDNet refuses.
    InvalidSnapPart = "invalid_snap_part",
    /// Session replay: a snapshot whose parts never all came.
    IncompleteSnapshot = "incomplete_snapshot",
    /// A rebuilt snapshot whose CRC differs, with nothing missing.
    SnapshotCrcMismatch = "snapshot_crc_mismatch",
    /// The same, after the capture shows a gap.
    SnapshotCrcMismatchAfterGap = "snapshot_crc_mismatch_after_gap",
    /// A delta on a base tick the client does not have.
    SnapshotMissingBase = "snapshot_missing_base",
    /// The server's CRC counts an item its delta gives twice (DDNet 16.4).
    SnapshotRepeatedItem = "snapshot_repeated_item",
    /// A delta on a base dropped after a [`Code::SnapshotRepeatedItem`].
    SnapshotMissingBaseAfterRepeatedItem = "snapshot_missing_base_after_repeated_item",
    /// After a MAP_CHANGE, an ack of a tick of the map before.
    SnapshotOldMapAck = "snapshot_old_map_ack",
    /// A delta that does not apply to its base.
    SnapshotBadDelta = "snapshot_bad_delta",
    /// A rebuilt snapshot with items of the wrong size.
    SnapshotInvalidItem = "snapshot_invalid_item",
    /// A captured datagram DDNet drops.
    DdnetDrop = "ddnet_drop",
    /// An archive member that is wrong, was rebuilt, or is worth knowing of.
    Member = "member",
    /// The archive cannot be opened.
    Archive = "archive",
    /// A raw snapshot or delta file that is not whole int32s.
    IntArray = "int_array",
    /// A raw snapshot DDNet's `CSnapshot::IsValid` refuses.
    Snapshot = "snapshot",
    /// A delta's base that is not a valid snapshot.
    Base = "base",
    /// A delta DDNet's `UnpackDelta` fails on.
    Delta = "delta",
    /// A delta DDNet reads but no writer makes.
    DeltaForm = "delta_form",
    /// Named as a format its bytes are not.
    NotThisFormat = "not_this_format",
    /// Named on the command line, recognised by nothing.
    Unrecognised = "unrecognised",
    /// Under `malformed/`, but passed.
    ExpectedFailure = "expected_failure",
    /// The file cannot be read.
    Io = "io",
    /// A map's datafile container: a rule DDNet's reader refuses it by,
    /// or a quirk it lets through.
    Datafile = "datafile",
    /// A map's data block that does not inflate to its declared size.
    MapData = "map_data",
    /// A map item DDNet's map loader refuses, resets or reads past.
    MapItem = "map_item",
    /// A tiles layer's data DDNet's map loader refuses or empties.
    MapTiles = "map_tiles",
    /// A map without a game layer, or with several.
    GameLayer = "game_layer",
    /// Tiles of kinds DDNet does not know in their layer.
    TileIndex = "tile_index",
    /// A recorded position the model of DDNet's physics does not reproduce.
    Simulation = "simulation",
    /// Something the simulation does not model yet happened; the
    /// positions it may have moved were not judged.
    Unmodelled = "unmodelled",
    /// A teehistorian file that was not simulated, and why.
    NotSimulated = "not_simulated",
    /// A demo found for a teehistorian file that its simulation was not
    /// compared with, and why.
    DemoNotCompared = "demo_not_compared",
}

impl Code {
    /// A code of the session replay's snapshot checks (`snapshot_*`).
    pub fn is_snapshot_anomaly(self) -> bool {
        self.as_str().starts_with("snapshot_")
    }
}

/// Ordered by word, so that what is listed by code keeps the order it
/// had when codes were strings.
impl Ord for Code {
    fn cmp(&self, other: &Code) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Code {
    fn partial_cmp(&self, other: &Code) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One thing a check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// What rule or fact it is (in JSON a stable snake_case word:
    /// `truncated`, `noncanonical_int`, `replay`, ...).
    pub code: Code,
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
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Finding {
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
    /// datagrams, archive records (all maps), map items.
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
    /// The demos found for a teehistorian file: the one its simulation
    /// was compared with, and those it was not (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub demos: Vec<DemoPairing>,
}

/// A demo `check` found for a teehistorian file, and whether the file's
/// simulation was compared with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DemoPairing {
    /// The demo, as found.
    pub path: String,
    /// The simulation was compared with it.
    pub compared: bool,
    /// Why it was not (`None` when it was).
    pub reason: Option<String>,
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
            demos: Vec::new(),
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
            && !self.findings.iter().any(|f| f.code == Code::Roundtrip)
        {
            self.findings.push(
                Finding::new(
                    Severity::Fail,
                    Code::Roundtrip,
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
                .any(|f| matches!(f.code, Code::Decode | Code::Capture))
        {
            let mut f = Finding::new(Severity::Fail, Code::Decode, e.to_string()).at(e.offset);
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

    /// Fails the verdict with `code` (the finding goes first).
    pub fn fail(&mut self, code: Code, message: impl Into<String>) {
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
    /// findings, error, round trip, summary) and settles its status,
    /// going further where `context` offers a way (a teehistorian file is
    /// simulated when it holds a [`Simulator`]).
    fn check(&self, source: Source, context: &Context<'_>, verdict: &mut Verdict);
}

/// What a format's check is given beside the file: ways to go further
/// than the format alone can, provided by the jobs above the formats.
#[derive(Clone, Copy, Default)]
pub struct Context<'a> {
    /// Simulates a teehistorian file's game (`None`: not asked for).
    pub simulator: Option<&'a dyn Simulator>,
}

/// Simulates the game a checked teehistorian file recorded and says what
/// it found (`crate::simulation::check`, on the maps at hand).
pub trait Simulator: Sync {
    /// `bytes` is the whole file, read from `path` (`None`: not from a
    /// file, e.g. standard input), and `verdict` its check so far: adds
    /// the simulation's findings and counts, and settles it again.
    fn simulate(&self, path: Option<&std::path::Path>, bytes: &[u8], verdict: &mut Verdict);

    /// The finding [`Simulator::simulate`] would add, and nothing else,
    /// for the file at `path` whose header names the map `map_sha256`
    /// (`None`: no map), when that map is not at hand; `None` if it may
    /// simulate or has more to say. Lets `check` read such a file
    /// without keeping its bytes.
    fn without_map(
        &self,
        _path: Option<&std::path::Path>,
        _map_sha256: Option<&str>,
    ) -> Option<Finding> {
        None
    }
}

/// The `check --format json` document's body (kind `check`, in
/// src/schema.md): every verdict, the totals, and the roles of the files
/// of a `record` folder (left out when none).
#[derive(Serialize)]
pub struct CheckDocument<'a> {
    /// The verdicts, in the order checked.
    pub files: &'a [Verdict],
    /// Their totals.
    pub totals: &'a Totals,
    /// A record folder's files by role (`diff::folder::roles_in_folders`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub roles: std::collections::BTreeMap<String, String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes of the schema's table of finding codes: the first
    /// column's backquoted words, from the table's header to its end.
    fn schema_codes() -> Vec<String> {
        let schema = include_str!("schema.md");
        let table = schema
            .split("| code | severity | what |")
            .nth(1)
            .expect("the schema has a table of finding codes");
        let mut codes = Vec::new();
        for line in table.lines().skip(2) {
            let Some(cell) = line.strip_prefix("| ").and_then(|l| l.split(" |").next()) else {
                break;
            };
            codes.extend(cell.split(", ").map(|c| c.trim_matches('`').to_string()));
        }
        codes
    }

    #[test]
    fn the_schema_lists_every_finding_code_and_no_other() {
        let mut listed = schema_codes();
        let mut known: Vec<String> = Code::ALL.iter().map(|c| c.as_str().to_string()).collect();
        listed.sort();
        known.sort();
        assert_eq!(listed, known, "src/schema.md's table against Code::ALL");
    }

    #[test]
    fn a_code_is_its_word_in_json_and_orders_by_it() {
        let words: Vec<String> = Code::ALL
            .iter()
            .map(|c| serde_json::to_string(c).expect("a string"))
            .collect();
        assert_eq!(words[0], "\"decode\"");
        let mut sorted = Code::ALL.to_vec();
        sorted.sort();
        let by_word: Vec<&str> = sorted.iter().map(|c| c.as_str()).collect();
        let mut expected: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        expected.sort();
        assert_eq!(by_word, expected);
        assert_eq!(Code::Truncated.as_str(), "truncated");
    }
}
