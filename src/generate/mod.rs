//! Seeded generators of conformance cases, and mutants of real files.
//!
//! [`cases`] makes files of one [`Unit`] from a seed: the same bytes on
//! every run and machine. Every file is written by the crate's own
//! encoders (the teehistorian [`Recorder`](crate::teehistorian::Recorder),
//! packet and chunk codecs, [`Snapshot`](crate::snapshot::Snapshot) and
//! delta creation, `demo build` specs), then judged by [`judge`], the same
//! pipeline `teeoracle check` runs (or, for packets, what `packet decode`
//! runs), so a case's class and expected fault are what teeoracle says.
//! [`mutate()`] makes malformed variants of a real file the same way.
//!
//! ```
//! use teeoracle::generate::{self, Kind, Unit};
//! let a = generate::cases(Unit::Packet06, 7, 3, Kind::Valid);
//! let b = generate::cases(Unit::Packet06, 7, 3, Kind::Valid);
//! assert_eq!(a, b);
//! for case in &a {
//!     let judged = generate::judge(case.unit, &case.bytes);
//!     assert!(judged.accepted, "{case:?}: {judged:?}");
//! }
//! ```

pub mod demo;
pub mod map;
pub mod map_lint;
pub mod mutate;
pub mod packet;
pub mod snapshot;
pub mod suite;
pub mod teehistorian;

pub use mutate::{Mutant, Mutation, mutate};

use crate::check::{self, Options, Source, Status};
use crate::codec::{DecodeError, Mode, Reader};
use crate::map::lint::Lint;
use serde::Serialize;
use std::fmt;

/// A small seeded generator: SplitMix64 (Steele, Lea and Flood, 2014).
///
/// Our own ten lines rather than a crate's, so that its output cannot
/// change with a dependency's version: a seed names the same suite
/// forever. Never seeded from the clock.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of case `index` of `unit` and `kind` from `seed`:
    /// independent of how many cases are made, so `--count 10` gives the
    /// first ten of `--count 100`.
    pub fn for_case(seed: u64, unit: Unit, kind: Kind, index: u64) -> Rng {
        let mut r = Rng(seed);
        // By the unit's name, not its enum position: a new unit or a
        // reordered enum must not change the cases a seed names.
        let name = unit.name().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let a = r.next_u64() ^ name;
        let mut r = Rng(a);
        let b = r.next_u64() ^ (kind as u64).wrapping_mul(0x85eb_ca6b);
        let mut r = Rng(b);
        Rng(r.next_u64() ^ index)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Multiply-shift: no modulo bias worth mentioning for small n.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// An i32 in `lo..=hi`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        self.range(lo.into(), hi.into()) as i32
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// One of `items`.
    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    /// Between `lo` and `hi` random bytes.
    pub fn some_bytes(&mut self, lo: usize, hi: usize) -> Vec<u8> {
        let n = self.range(lo as i64, hi as i64) as usize;
        self.bytes(n)
    }

    /// An int with an interesting size: small, one of the varint length
    /// boundaries, or any.
    pub fn any_int(&mut self) -> i32 {
        const EDGES: &[i32] = &[
            0,
            1,
            -1,
            63,
            64,
            -64,
            -65,
            8191,
            8192,
            1_048_575,
            1_048_576,
            i32::MAX,
            i32::MIN,
        ];
        match self.below(4) {
            0 => *self.pick(EDGES),
            1 => self.next_u64() as i32,
            _ => self.int(-100, 100),
        }
    }

    /// A short printable ASCII text (no NUL).
    pub fn text(&mut self, max: usize) -> String {
        let n = self.below(max as u64 + 1) as usize;
        (0..n).map(|_| self.int(0x20, 0x7e) as u8 as char).collect()
    }
}

pub use crate::conform::{Class, Unit};

/// The units the generators make files of, in order.
pub const UNITS: [Unit; 7] = [
    Unit::Teehistorian,
    Unit::Packet06,
    Unit::Packet07,
    Unit::Snapshot,
    Unit::DeltaApply,
    Unit::Demo,
    Unit::Map,
];

/// The file name ending a unit's files get, which `check` recognises them
/// by (`.bin` for units `check` has no format for).
pub fn extension(unit: Unit) -> &'static str {
    match unit {
        Unit::Teehistorian => ".teehistorian",
        Unit::Snapshot => ".snapshot.bin",
        Unit::Demo => ".demo",
        Unit::Map => ".map",
        _ => ".bin",
    }
}

/// What kind of cases to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Files as DDNet writes them.
    Valid,
    /// Valid files at the limits: largest sizes and ids, odd but accepted
    /// forms (over-long ints, trailing bytes: DDNet quirks).
    Edge,
    /// Files teeoracle (and DDNet) rejects, each at a stated byte.
    Malformed,
}

impl Kind {
    /// Its name, as on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Valid => "valid",
            Kind::Edge => "edge",
            Kind::Malformed => "malformed",
        }
    }
}

/// Where and why a file is rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fault {
    /// The file byte.
    pub offset: u64,
    /// The decode error's kind (`unexpected_eof`, `bad_magic`, ...), or
    /// the failing finding's code when the fault is not a decode error.
    pub kind: String,
}

impl Fault {
    /// The fault a decode error names.
    pub fn of(e: &DecodeError) -> Fault {
        let kind = serde_json::to_value(&e.kind)
            .ok()
            .and_then(|v| v.get("kind")?.as_str().map(str::to_owned))
            .unwrap_or_default();
        Fault {
            offset: e.offset,
            kind,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

/// One generated file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Generated {
    /// A stable name (`valid-0003`), unique within a unit, kind and seed.
    pub name: String,
    /// Its unit.
    pub unit: Unit,
    /// The file.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// What an implementation must do with it.
    pub class: Class,
    /// Why, in one line.
    pub reason: String,
    /// Where and why teeoracle's decoder stops, as it reports it: for a
    /// rejected file, or a quirk DDNet reads around (a packet's cut chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_fault: Option<Fault>,
    /// A map DDNet loads: what `map lint` reports of it
    /// ([`crate::map::lint::lint`]), empty for a lint-clean map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_lints: Option<Vec<Lint>>,
}

/// The lints of `bytes` as a file of `unit`: for a map DDNet loads.
pub(crate) fn expected_lints(unit: Unit, bytes: &[u8]) -> Option<Vec<Lint>> {
    match unit {
        Unit::Map => crate::conform::map_lints(bytes).ok(),
        _ => None,
    }
}

/// `count` cases of `unit` and `kind` from `seed` (none for a unit not in
/// [`UNITS`]). Deterministic; case `i` does not depend on `count`.
pub fn cases(unit: Unit, seed: u64, count: usize, kind: Kind) -> Vec<Generated> {
    (0..count as u64)
        .map_while(|i| {
            let mut rng = Rng::for_case(seed, unit, kind, i);
            let (bytes, reason, fault) = match unit {
                Unit::Teehistorian => teehistorian::generate(&mut rng, kind),
                Unit::Packet06 => packet::generate(&mut rng, kind, crate::packet::Version::V06),
                Unit::Packet07 => packet::generate(&mut rng, kind, crate::packet::Version::V07),
                Unit::Snapshot => snapshot::generate_snapshot(&mut rng, kind),
                Unit::DeltaApply => snapshot::generate_delta(&mut rng, kind),
                Unit::Demo => demo::generate(&mut rng, kind),
                Unit::Map => match map::lint_rule(kind, i) {
                    Some(rule) => map_lint::generate(&mut rng, rule),
                    None => map::generate(&mut rng, kind, i),
                },
                _ => return None,
            }
            .into_parts();
            // The suite's rule, so a case has one class wherever it is.
            let (class, _, _) = crate::conform::classify(unit, &bytes);
            Some(Generated {
                name: format!("{}-{i:04}", kind.name()),
                unit,
                expected_lints: expected_lints(unit, &bytes),
                bytes,
                class,
                reason,
                expected_fault: fault,
            })
        })
        .collect()
}

/// What one generator made: the bytes, a reason, and where teeoracle
/// must find the fault it was built to have (the class is the suite's,
/// [`crate::conform::classify`]).
pub(crate) struct Made {
    bytes: Vec<u8>,
    reason: String,
    fault: Option<Fault>,
}

impl Made {
    fn valid(bytes: Vec<u8>, reason: impl Into<String>) -> Made {
        Made {
            bytes,
            reason: reason.into(),
            fault: None,
        }
    }

    fn faulty(bytes: Vec<u8>, reason: impl Into<String>, offset: u64, kind: &str) -> Made {
        Made {
            fault: Some(Fault {
                offset,
                kind: kind.into(),
            }),
            ..Made::valid(bytes, reason)
        }
    }

    fn into_parts(self) -> (Vec<u8>, String, Option<Fault>) {
        (self.bytes, self.reason, self.fault)
    }
}

/// What teeoracle says about a file of a unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Judgement {
    /// It reads (pass or warn), and for a packet DDNet does not drop it.
    pub accepted: bool,
    /// The check's status (`pass`, `warn`, `fail`) or, for packets and
    /// deltas, `pass`/`fail` from their decoders.
    pub status: Status,
    /// Where reading failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Every finding's code, in the check's order (for packets: the
    /// failing layer, and DDNet's drop rule as `ddnet_drop:RULE`).
    pub findings: Vec<String>,
}

/// Judges `bytes` as a file of `unit`: through [`check::check`] for the
/// formats it knows (teehistorian, demo, snapshot, map), through the packet
/// decoder, payload reader, re-encoder and DDNet's verdict for packets, and
/// through DDNet's delta unpacking for deltas.
pub fn judge(unit: Unit, bytes: &[u8]) -> Judgement {
    match unit {
        Unit::Teehistorian | Unit::Demo | Unit::Snapshot | Unit::Map => {
            let name = format!("case{}", extension(unit));
            let v = check::check(
                Source::bytes(name, bytes.to_vec()),
                &Options {
                    named: true,
                    ..Options::default()
                },
            );
            let fault = match (&v.error, v.status) {
                (Some(e), _) => Some(Fault::of(e)),
                (None, Status::Fail) => v.headline().map(|f| Fault {
                    offset: f.offset.unwrap_or(0),
                    kind: f.code.as_str().into(),
                }),
                _ => None,
            };
            Judgement {
                accepted: matches!(v.status, Status::Pass | Status::Warn),
                status: v.status,
                fault,
                findings: v
                    .findings
                    .iter()
                    .map(|f| f.code.as_str().to_owned())
                    .collect(),
            }
        }
        Unit::Packet06 => packet::judge(bytes, crate::packet::Version::V06),
        Unit::Packet07 => packet::judge(bytes, crate::packet::Version::V07),
        Unit::DeltaApply => snapshot::judge_delta(bytes),
        // The other units are judged by what the conformance harness
        // expects of them.
        _ => {
            let accepted = crate::conform::expect(unit, bytes).is_ok();
            Judgement {
                accepted,
                status: if accepted { Status::Pass } else { Status::Fail },
                fault: None,
                findings: Vec::new(),
            }
        }
    }
}

/// A reader over `bytes` in lenient mode (DDNet's).
fn lenient(bytes: &[u8]) -> Reader<'_> {
    Reader::new(bytes, Mode::Lenient)
}
