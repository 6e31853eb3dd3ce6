//! The conformance suite: what another implementation of these formats
//! must print for each input, as cases it can be checked against.
//!
//! An implementation provides an adapter program (the contract is the
//! `# conform` section of [`crate::schema`]); `teeoracle conform run`
//! feeds it the [`Case`]s of a [`Suite`] and compares its JSON with
//! [`expect`]'s, restricted to the paths it declares ([`compare`]).
//! Every unit's JSON is made by the same types the command line prints.
//!
//! The runner is this module's too: an [`Adapter`] answers cases (a
//! [`Process`] runs another program by the contract, an [`InProcess`]
//! adapter calls Rust code), [`judge`] turns a case and an [`Answer`] into
//! an [`Outcome`], and [`run`] (or [`run_parallel`]) gives a [`Report`],
//! printed as text, JSON or JUnit. A batch adapter's lines are a
//! [`BatchRequest`] and a [`BatchResponse`], for the harness and for
//! teeoracle's own adapter ([`respond`]) alike. A suite is written as
//! plain files and read back with [`Suite::export`] and [`Suite::load`];
//! the standard one, with the generators' cases, is
//! [`crate::generate::suite::standard`]. A Rust implementation runs the
//! whole suite from its own tests:
//!
//! ```
//! use teeoracle::conform::{self, Answer, Case, InProcess, Info, Input, Suite, Unit};
//!
//! // An implementation of the varint unit (here: teeoracle's own).
//! fn my_decoder(case: &Case) -> Answer {
//!     match &case.input {
//!         Input::Bytes(b) => match teeoracle::packer::read_ints(b) {
//!             Ok(ints) => Answer::Decoded(serde_json::json!({ "ints": ints })),
//!             Err(e) => Answer::Rejected(e.to_string()),
//!         },
//!         Input::Json(_) => Answer::Rejected("no encoder".into()),
//!     }
//! }
//!
//! let suite = Suite::builtin(&[], Vec::new()).unwrap().only(&[Unit::Varint]);
//! let info = Info::new("mine", "0.1").unit(Unit::Varint, false);
//! let mut adapter = InProcess::new(info, my_decoder);
//! let report = conform::run(&suite, &mut adapter, None).unwrap();
//! let mut text = Vec::new();
//! report.write_text(&mut text).unwrap();
//! assert!(!report.failed, "{}", String::from_utf8_lossy(&text));
//! ```

mod adapter;
mod batch;
mod compare;
mod exported;
mod judge;
pub mod map_lint;
mod report;
mod suite;

pub use adapter::{
    ANSWER_CAP, Adapter, Answer, Failure, FailureKind, InProcess, Info, Process, SHOWN_OUTPUT,
    STDERR_TAIL, StartError, UnitInfo, reference, reference_answer,
};
pub use batch::{BatchRequest, BatchResponse, BatchTask, respond};
pub use compare::{
    Comparison, Difference, FieldSet, KEPT_DIFFERENCES, compare, compare_all, shape_paths,
};
pub use exported::{MANIFEST, SuiteFileError};
pub use judge::{CaseVerdict, Outcome, judge};
pub use report::{
    Counts, Coverage, Report, RunError, SuiteInfo, Summary, check_fields, run, run_one,
    run_parallel,
};
pub(crate) use suite::map_cases;
pub use suite::{SEED, SUITE_VERSION, Suite};

use crate::codec::{Mode, Reader};
use crate::demo::{Events, json as demo_json};
use crate::huffman::{self, Flavor};
use crate::packer;
use crate::packet::{TokenMode, Version, json as packet_json};
use crate::snapshot::items::SnapshotJson;
use crate::snapshot::{ItemSizes, Snapshot, apply, create};
use crate::teehistorian::{Replay, ReplayConfig, SliceReader, json as th_json};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::fmt;
use std::ops::ControlFlow;

/// What an adapter may implement: one format layer each.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// DDNet's variable-width ints.
    Varint,
    /// NUL-terminated strings.
    String,
    /// DDNet's Huffman coder.
    Huffman,
    /// A 0.6 datagram.
    Packet06,
    /// A 0.7 datagram.
    Packet07,
    /// A snapshot (little-endian int32s).
    Snapshot,
    /// DDNet's UnpackDelta.
    DeltaApply,
    /// DDNet's CreateDelta.
    DeltaCreate,
    /// A demo file.
    Demo,
    /// A teehistorian file.
    Teehistorian,
    /// A map file (the datafile container and its items).
    Map,
    /// A map checker's lints: what DDNet loads but cannot work
    /// ([`crate::map::lint`]).
    MapLint,
}

impl Unit {
    /// Every unit, in report order.
    pub const ALL: [Unit; 12] = [
        Unit::Varint,
        Unit::String,
        Unit::Huffman,
        Unit::Packet06,
        Unit::Packet07,
        Unit::Snapshot,
        Unit::DeltaApply,
        Unit::DeltaCreate,
        Unit::Demo,
        Unit::Teehistorian,
        Unit::Map,
        Unit::MapLint,
    ];

    /// The unit's name in the contract (`packet06`, `delta_apply`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Varint => "varint",
            Unit::String => "string",
            Unit::Huffman => "huffman",
            Unit::Packet06 => "packet06",
            Unit::Packet07 => "packet07",
            Unit::Snapshot => "snapshot",
            Unit::DeltaApply => "delta_apply",
            Unit::DeltaCreate => "delta_create",
            Unit::Demo => "demo",
            Unit::Teehistorian => "teehistorian",
            Unit::Map => "map",
            Unit::MapLint => "map_lint",
        }
    }

    /// The unit named `name`.
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.name() == name)
    }

    /// Whether teeoracle encodes this unit's JSON to bytes ([`encode`]).
    pub fn encodes(self) -> bool {
        matches!(
            self,
            Unit::Varint
                | Unit::String
                | Unit::Huffman
                | Unit::Packet06
                | Unit::Packet07
                | Unit::Map
        )
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which way a case goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Bytes to JSON.
    Decode,
    /// JSON to bytes.
    Encode,
}

/// What DDNet does with a case's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// DDNet reads it; the output must be the expected one.
    MustAccept,
    /// DDNet refuses it; the adapter must reject it.
    MustReject,
    /// DDNet accepts something odd; the output must be what DDNet does.
    DdnetQuirk,
}

/// Why teeoracle (as DDNet) refuses an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection(pub String);

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn reject(e: impl fmt::Display) -> Rejection {
    Rejection(e.to_string())
}

/// A JSON document kept as its compact text, parsed when a case runs: a
/// suite holds thousands, and parsed they take about ten times the room
/// (the harness stays within 100 MB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json(Box<str>);

impl Json {
    /// `value` as compact text.
    pub fn new(value: &Value) -> Json {
        Json(value.to_string().into_boxed_str())
    }

    /// The document.
    pub fn value(&self) -> Value {
        // Made from a `Value` or checked on the way in: always parses.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// Its compact text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its compact text's length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether its text is empty (never, for a document).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

impl From<Value> for Json {
    fn from(value: Value) -> Json {
        Json::new(&value)
    }
}

/// A case's input.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Bytes to decode.
    Bytes(Vec<u8>),
    /// JSON to encode.
    Json(Json),
}

/// What a case must give.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    /// This JSON (decode).
    Json(Json),
    /// These bytes (encode).
    Bytes(Vec<u8>),
    /// A rejection.
    Reject,
}

/// One conformance case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `UNIT/SOURCE/NAME`, stable across runs; encode cases end in
    /// `.encode`.
    pub id: String,
    /// The unit it tests.
    pub unit: Unit,
    /// Decode or encode.
    pub op: Op,
    /// What DDNet does with it.
    pub class: Class,
    /// One line saying what the case is about.
    pub reason: String,
    /// The input.
    pub input: Input,
    /// The expected result.
    pub expected: Expected,
}

impl Case {
    /// A decode case of `unit` for `input`, expected and classified by
    /// teeoracle: `reason` says where it comes from; a quirk's reason is
    /// added to it.
    pub fn decode(id: String, unit: Unit, input: Vec<u8>, reason: &str) -> Case {
        let (class, expected, why) = classify(unit, &input);
        let reason = if why.is_empty() {
            reason.to_string()
        } else {
            format!("{reason}: {why}")
        };
        Case {
            id,
            unit,
            op: Op::Decode,
            class,
            reason,
            input: Input::Bytes(input),
            expected,
        }
    }

    /// The encode case of an accepted decode case of a unit that encodes:
    /// its expected JSON in, teeoracle's bytes for it out.
    pub fn encode_of(&self) -> Option<Case> {
        let Expected::Json(v) = &self.expected else {
            return None;
        };
        if self.op != Op::Decode || !self.unit.encodes() {
            return None;
        }
        let bytes = encode(self.unit, &v.value()).ok()?;
        let Input::Bytes(input) = &self.input else {
            return None;
        };
        let (class, reason) = if &bytes == input {
            (Class::MustAccept, "encodes back to the decoded bytes")
        } else {
            (Class::MustAccept, "encodes to the canonical form")
        };
        Some(Case {
            id: format!("{}.encode", self.id),
            unit: self.unit,
            op: Op::Encode,
            class,
            reason: reason.to_string(),
            input: Input::Json(v.clone()),
            expected: Expected::Bytes(bytes),
        })
    }
}

/// What DDNet does with `input` as a file of `unit`: the class, the
/// expected result, and for a quirk or a rejection why (else empty). The
/// one rule for every case, generated ones included.
pub fn classify(unit: Unit, input: &[u8]) -> (Class, Expected, String) {
    match expect(unit, input) {
        Ok(v) => match quirk(unit, input, &v) {
            Some(q) => (Class::DdnetQuirk, Expected::Json(v.into()), q.to_string()),
            None => (Class::MustAccept, Expected::Json(v.into()), String::new()),
        },
        Err(r) => (Class::MustReject, Expected::Reject, r.0),
    }
}

/// The unit's canonical JSON for `input` (what `teeoracle conform expect`
/// prints and an adapter's `decode` must print), or why DDNet refuses it.
pub fn expect(unit: Unit, input: &[u8]) -> Result<Value, Rejection> {
    match unit {
        Unit::Varint => {
            let ints = packer::read_ints(input).map_err(reject)?;
            Ok(json!({ "ints": ints }))
        }
        Unit::String => {
            let mut r = Reader::new(input, Mode::Lenient);
            let mut strings = Vec::new();
            while r.remaining() > 0 {
                let s = packer::read_str(&mut r, "string").map_err(reject)?;
                strings.push(crate::bytes::Text::from(s));
            }
            Ok(json!({ "strings": strings }))
        }
        Unit::Huffman => {
            let mut raw = Vec::new();
            let info = huffman::decompress(input, &mut raw, usize::MAX, 0).map_err(reject)?;
            let flavor = match info.flavor(Flavor::Ddnet) {
                Some(_) if info.trailing > 0 => "none",
                Some(Flavor::Ddnet) => "ddnet",
                Some(Flavor::Legacy) => "legacy",
                None => "none",
            };
            Ok(json!({ "hex": hex::encode(raw), "flavor": flavor }))
        }
        Unit::Packet06 | Unit::Packet07 => {
            let version = if unit == Unit::Packet06 {
                Version::V06
            } else {
                Version::V07
            };
            let v = packet_json::entry_value(input, version, TokenMode::Auto).map_err(reject)?;
            // What DDNet drops, it never reads: the case is a rejection
            // (its rule is the reason), as an implementation that agrees
            // with DDNet rejects it.
            let ddnet = &v["verdict"]["ddnet"];
            match ddnet["accepted"].as_bool() {
                Some(false) => Err(Rejection(format!(
                    "DDNet 20.1 drops it ({}): {}",
                    ddnet["rule"].as_str().unwrap_or("?"),
                    ddnet["reason"].as_str().unwrap_or("?")
                ))),
                _ => Ok(v),
            }
        }
        Unit::Snapshot => {
            let snap = snapshot(input)?;
            Ok(snapshot_value(&snap))
        }
        Unit::DeltaApply => {
            let (base, delta) = split(input)?;
            let base = snapshot(base)?;
            let snap = apply(&base, &ints(delta)?, &ItemSizes::ddnet_06()).map_err(|e| match e
                .fault
                .code()
            {
                Some(code) => Rejection(format!("DDNet error code {code}: {e}")),
                None => reject(e),
            })?;
            Ok(snapshot_value(&snap))
        }
        Unit::DeltaCreate => {
            let (from, to) = split(input)?;
            let delta = create(&snapshot(from)?, &snapshot(to)?, &ItemSizes::ddnet_06());
            let bytes: Vec<u8> = delta.iter().flat_map(|v| v.to_le_bytes()).collect();
            Ok(json!({ "hex": hex::encode(bytes) }))
        }
        Unit::Demo => demo_document(input),
        Unit::Teehistorian => teehistorian_document(input),
        Unit::Map => {
            let (datafile, cap) = map_loaded(input)?;
            Ok(crate::map::document::document(&datafile, cap))
        }
        Unit::MapLint => Ok(map_lint::document(&map_lints(input)?)),
    }
}

/// The lints of a map DDNet loads ([`crate::map::lint::lint`]), or why
/// DDNet refuses it (as the `map` unit says).
pub fn map_lints(input: &[u8]) -> Result<Vec<crate::map::lint::Lint>, Rejection> {
    let (datafile, cap) = map_loaded(input)?;
    let map = crate::map::Map::new(&datafile);
    Ok(crate::map::lint::lint(&datafile, &map, cap))
}

/// A map DDNet loads, and the decompression cap its blocks are read
/// with: the container read, then every rule of DDNet's reader and
/// loader (`teeoracle check`'s), the first that refuses it its rejection.
fn map_loaded(input: &[u8]) -> Result<(crate::map::Datafile<'_>, u64), Rejection> {
    let cap = crate::compression::default_max_decompressed(input.len() as u64);
    let datafile = crate::map::Datafile::decode(input)
        .map_err(|e| Rejection(format!("DDNet's reader does not open it: {e}")))?;
    let refused = map_findings(&datafile, cap)
        .into_iter()
        .find(|f| f.severity == crate::report::Severity::Fail);
    match refused {
        Some(f) => Err(Rejection(match f.offset {
            Some(at) => format!("at byte {at}: {}", f.message),
            None => f.message,
        })),
        None => Ok((datafile, cap)),
    }
}

/// What `teeoracle check` finds in a map's container, blocks and items.
fn map_findings(datafile: &crate::map::Datafile<'_>, cap: u64) -> Vec<crate::report::Finding> {
    let map = crate::map::Map::new(datafile);
    let mut findings = datafile.faults();
    findings.extend(crate::map::check::read_blocks(datafile, cap));
    findings.extend(crate::map::rules::check(datafile, &map, cap));
    findings
}

/// A demo as DDNet's player plays it: the `header`, `events` and `end`
/// lines of `demo events --format jsonl`.
fn demo_document(input: &[u8]) -> Result<Value, Rejection> {
    let mut events = Events::new(input)
        .map_err(|e| Rejection(format!("DDNet's demo player does not load it: {e}")))?;
    let header = to_value(&demo_json::HeaderLine::new(&events.info()));
    let mut lines = Vec::new();
    let end = demo_json::for_each_event(&mut events, |line| {
        lines.push(to_value(line));
        Ok::<(), std::convert::Infallible>(())
    });
    let end = match end {
        Ok(end) => end,
        Err(never) => match never {},
    };
    Ok(json!({ "header": header, "events": lines, "end": to_value(&end) }))
}

/// A teehistorian file: the `header`, `records` and `end` lines of
/// `teehistorian dump --format jsonl`, and the `world` of `teehistorian
/// replay --format json` after the last record.
fn teehistorian_document(input: &[u8]) -> Result<Value, Rejection> {
    let (header, mut reader) = SliceReader::new(input, Mode::Lenient).map_err(reject)?;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut records = Vec::new();
    let ControlFlow::Continue(()) = reader
        .for_each_record(|rec| {
            records.push(to_value(&th_json::RecordLine::new(rec)));
            // An inconsistency (a player who never joined) is the
            // writer's, not the format's: the world goes on.
            let _ = replay.handle(rec.offset, &rec.msg);
            ControlFlow::<std::convert::Infallible>::Continue(())
        })
        .map_err(reject)?;
    let end = th_json::EndLine::new(records.len() as u64, reader.end(), None);
    Ok(json!({
        "header": to_value(&th_json::HeaderLine::new(&header)),
        "records": records,
        "end": to_value(&end),
        "world": to_value(&replay.world()),
    }))
}

fn to_value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).expect("plain data")
}

/// Why an accepted input is a DDNet quirk rather than plain data, if it is.
fn quirk(unit: Unit, input: &[u8], value: &Value) -> Option<&'static str> {
    match unit {
        Unit::Varint | Unit::String => {
            let canonical = encode(unit, value).ok()?;
            (canonical != input).then_some(match unit {
                Unit::Varint => "over-long forms or padding bits, read as DDNet reads them",
                _ => "non-canonical",
            })
        }
        Unit::Huffman => match value["flavor"].as_str() {
            Some("legacy") => Some("the legacy writer's extra zero byte"),
            Some("none") => Some("padding bits or bytes after the end, ignored by DDNet"),
            _ => None,
        },
        Unit::Packet06 | Unit::Packet07 => {
            (value["failed"] == true).then_some("DDNet reads it, but not every layer is canonical")
        }
        Unit::Demo => {
            let end = &value["end"];
            if !end["error"].is_null() {
                Some("damaged: DDNet's player plays the events before the damage, then stops")
            } else if !end["truncated_bytes"].is_null() {
                Some(
                    "a chunk cut by the end of the file (a killed recorder): DDNet's player stops before it",
                )
            } else {
                None
            }
        }
        Unit::Map => {
            let (datafile, cap) = map_loaded(input).ok()?;
            (!map_findings(&datafile, cap).is_empty()).then_some(
                "DDNet loads it, but it breaks a rule DDNet lets through (a note or warning of \
                 `teeoracle check`: a fixed header size, an unused block, a layer left empty)",
            )
        }
        Unit::Teehistorian => {
            let records = value["records"].as_array()?;
            if records.iter().any(|r| r.get("noncanonical_at").is_some()) {
                Some("over-long ints, read as DDNet reads them and kept as written")
            } else if records.iter().any(|r| r.get("trailing").is_some()) {
                Some("bytes after an extension's fields, which DDNet's reader skips")
            } else if value["end"]["end"]["end"] == "truncated" {
                Some("no FINISH (a killed server): the records before the cut")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Teeoracle's bytes for a unit's JSON (what an adapter's `encode` must
/// write), for the units that encode ([`Unit::encodes`]).
pub fn encode(unit: Unit, value: &Value) -> Result<Vec<u8>, Rejection> {
    let mut out = Vec::new();
    match unit {
        Unit::Varint => {
            let ints: Vec<i32> = field(value, "ints")?;
            packer::write_ints(&mut out, &ints);
        }
        Unit::String => {
            let strings: Vec<crate::bytes::Text<'static>> = field(value, "strings")?;
            for s in &strings {
                if s.0.contains(&0) {
                    return Err(Rejection("a string holds a NUL byte".into()));
                }
                packer::write_str(&mut out, &s.0);
            }
        }
        Unit::Huffman => {
            let raw: String = field(value, "hex")?;
            let raw = hex::decode(raw).map_err(reject)?;
            let flavor = match value.get("flavor").and_then(Value::as_str) {
                None | Some("ddnet") => Flavor::Ddnet,
                Some("legacy") => Flavor::Legacy,
                Some(f) => return Err(Rejection(format!("no writer flavor {f:?}"))),
            };
            huffman::compress(&raw, flavor, &mut out);
        }
        Unit::Packet06 | Unit::Packet07 => {
            // `packet encode`: the exact inverse of the decode JSON.
            let mut datagrams = crate::packet::spec::encode(value).map_err(reject)?;
            if datagrams.len() != 1 {
                return Err(Rejection(format!(
                    "{} datagrams, expected one",
                    datagrams.len()
                )));
            }
            out = datagrams.swap_remove(0);
        }
        Unit::Map => out = crate::map::document::encode(value).map_err(Rejection)?,
        _ => return Err(Rejection(format!("teeoracle does not encode {unit}"))),
    }
    Ok(out)
}

fn field<T: serde::de::DeserializeOwned>(value: &Value, name: &str) -> Result<T, Rejection> {
    let v = value
        .get(name)
        .ok_or_else(|| Rejection(format!("no `{name}` field")))?;
    T::deserialize(v).map_err(|e| Rejection(format!("`{name}`: {e}")))
}

fn snapshot_value(snap: &Snapshot) -> Value {
    serde_json::to_value(SnapshotJson::new(snap, None, Version::V06)).expect("plain data")
}

fn ints(bytes: &[u8]) -> Result<Vec<i32>, Rejection> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Rejection(format!(
            "{} bytes is not a whole number of int32s",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn snapshot(bytes: &[u8]) -> Result<Snapshot, Rejection> {
    Snapshot::from_ints(&ints(bytes)?).map_err(reject)
}

/// A two-part input: u32 LE length N, N bytes, the rest.
fn split(input: &[u8]) -> Result<(&[u8], &[u8]), Rejection> {
    let (len, rest) = input
        .split_first_chunk::<4>()
        .ok_or_else(|| Rejection("no 4-byte length of the first part".into()))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err(Rejection(format!(
            "the first part's length {len} is past the end ({} bytes)",
            rest.len()
        )));
    }
    Ok(rest.split_at(len))
}

/// A two-part input ([`Unit::DeltaApply`], [`Unit::DeltaCreate`]): the
/// first part's u32 LE length, the first part, the second.
pub fn join(first: &[u8], second: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + first.len() + second.len());
    out.extend_from_slice(&(first.len() as u32).to_le_bytes());
    out.extend_from_slice(first);
    out.extend_from_slice(second);
    out
}
