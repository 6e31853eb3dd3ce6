//! Malformed variants of a real file: cut, a bit flipped, an int made
//! larger, an int written over-long, bytes after the end; for a map that
//! reads, one rule of DDNet's reader or loader broken each. Each is judged
//! by [`judge`] before it is returned, so its class and expected fault are
//! what teeoracle says; a mutant teeoracle still accepts (a flipped bit in
//! a chat message's text) is kept and labelled so, never dropped.

use super::{Class, Generated, Judgement, Rng, Unit, judge};
use serde::Serialize;
use std::collections::BTreeSet;

/// How a mutant was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum Mutation {
    /// The file cut to its first `offset` bytes.
    Truncate {
        /// Bytes kept.
        offset: u64,
    },
    /// Bit `bit` of the byte at `offset` flipped.
    Flip {
        /// The byte.
        offset: u64,
        /// The bit (0 = least significant).
        bit: u8,
    },
    /// The int at `offset` made larger: a little-endian int32 of an int
    /// array gets `by` added; in a varint format the low six bits of the
    /// byte are set (the largest one-byte length with the same sign).
    Inflate {
        /// The int's first byte.
        offset: u64,
        /// What was added (int arrays), or 0.
        by: i32,
    },
    /// The byte at `offset`, if a one-byte varint, written in two bytes
    /// (`b | 0x80, 0x00`): the same value to DDNet's reader, or, if the
    /// byte was not a varint, one more byte of something else.
    Overlong {
        /// The byte.
        offset: u64,
    },
    /// `len` random bytes appended.
    Append {
        /// How many.
        len: u64,
    },
    /// A map changed to break one rule of DDNet's datafile reader or map
    /// loader, by the rule's name in `src/map/datafile.rs` and
    /// `src/map/rules.rs` (`trailing`, `size`, `swaplen`,
    /// `data_size_negative`, `item_type_num`, `version`,
    /// `version_missing`, `game_missing`, `tiles_short`, `tiles_no_data`).
    MapRule {
        /// The rule.
        rule: &'static str,
    },
    /// A map DDNet loads changed to trip one lint rule
    /// ([`crate::map::lint::RULES`]) and no other: a tele number set to
    /// 0, a teleporter pair's exit removed, a speedup's force set to 0,
    /// a layer pointed at an image the map lacks, an unknown item added.
    MapLint {
        /// The rule.
        rule: &'static str,
    },
}

/// One mutant: the case (bytes, class, reason, expected fault), how it
/// was made, and what teeoracle said about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mutant {
    /// The case.
    #[serde(flatten)]
    pub case: Generated,
    /// How it was made.
    pub mutation: Mutation,
    /// What teeoracle said.
    pub judgement: Judgement,
}

/// Up to `count` distinct mutants of `bytes` (a file of `unit`) from
/// `seed`, in the order made. Returns them and how many draws were
/// skipped because they repeated an earlier mutant's bytes or the
/// original's.
pub fn mutate(unit: Unit, bytes: &[u8], seed: u64, count: usize) -> (Vec<Mutant>, usize) {
    let mut rng = Rng::new(seed);
    let mut seen = BTreeSet::new();
    seen.insert(bytes.to_vec());
    let mut mutants = Vec::with_capacity(count);
    let mut skipped = 0;
    // A map DDNet loads, to trip lint rules in: every other mutant.
    let lintable = match unit {
        Unit::Map if crate::conform::map_lints(bytes).is_ok() => {
            let cap = crate::compression::default_max_decompressed(bytes.len() as u64);
            super::map_lint::spec_of(bytes, cap)
        }
        _ => None,
    };
    // Bounded: a tiny file has few distinct mutants.
    for draw in 0..count.saturating_mul(4).max(16) {
        if mutants.len() == count {
            break;
        }
        let (mutation, out, how) = match (unit, &lintable) {
            (Unit::Map, Some(spec)) if draw % 2 == 1 => map_lint(&mut rng, spec)
                .unwrap_or_else(|| without_words(one(&mut rng, unit, bytes))),
            (Unit::Map, _) => without_words(
                map_rule(&mut rng, bytes).unwrap_or_else(|| one(&mut rng, unit, bytes)),
            ),
            _ => without_words(one(&mut rng, unit, bytes)),
        };
        if !seen.insert(out.clone()) {
            skipped += 1;
            continue;
        }
        let judgement = judge(unit, &out);
        let (class, reason) = match (judgement.accepted, &judgement.fault) {
            (false, Some(f)) => (Class::MustReject, format!("{} ({})", words(mutation), f)),
            (false, None) => (Class::MustReject, words(mutation)),
            (true, _) if matches!(mutation, Mutation::MapLint { .. }) => {
                let class = match judgement.findings.is_empty() {
                    true => Class::MustAccept,
                    false => Class::DdnetQuirk,
                };
                (
                    class,
                    format!("{how} ({}): DDNet loads it", words(mutation)),
                )
            }
            (true, _) if judgement.findings.is_empty() => (
                Class::MustAccept,
                format!(
                    "{}: still valid (the change is invisible to a reader)",
                    words(mutation)
                ),
            ),
            (true, _) => (
                Class::DdnetQuirk,
                format!(
                    "{}: still read, with {}",
                    words(mutation),
                    judgement.findings.join(", ")
                ),
            ),
        };
        mutants.push(Mutant {
            case: Generated {
                name: format!("mutant-{:04}", mutants.len()),
                unit,
                expected_lints: super::expected_lints(unit, &out),
                bytes: out,
                class,
                reason,
                expected_fault: judgement.fault.clone(),
            },
            mutation,
            judgement,
        });
    }
    (mutants, skipped)
}

fn words(m: Mutation) -> String {
    match m {
        Mutation::Truncate { offset } => format!("cut after {offset} bytes"),
        Mutation::Flip { offset, bit } => format!("bit {bit} of byte {offset} flipped"),
        Mutation::Inflate { offset, by: 0 } => format!("the int at byte {offset} made larger"),
        Mutation::Inflate { offset, by } => format!("the int at byte {offset} increased by {by}"),
        Mutation::Overlong { offset } => format!("byte {offset} written as a 2-byte varint"),
        Mutation::Append { len } => format!("{len} bytes after the end"),
        Mutation::MapRule { rule } => format!("DDNet's map rule `{rule}` broken"),
        Mutation::MapLint { rule } => format!("lint `{rule}`"),
    }
}

/// A mutation with nothing to say beyond [`words`].
fn without_words((mutation, out): (Mutation, Vec<u8>)) -> (Mutation, Vec<u8>, String) {
    (mutation, out, String::new())
}

/// `spec` (a map DDNet loads) with one lint rule tripped, and what was
/// done; `None` when the map gives the rule drawn no room.
fn map_lint(rng: &mut Rng, spec: &super::map::MapSpec) -> Option<(Mutation, Vec<u8>, String)> {
    let rule = rng.pick(crate::map::lint::RULES).name;
    let mut spec = spec.clone();
    let how = super::map_lint::trip(&mut spec, rng, rule)?;
    Some((Mutation::MapLint { rule }, spec.write().bytes, how))
}

/// The rules [`map_rule`] breaks.
const MAP_RULES: [&str; 10] = [
    "trailing",
    "size",
    "swaplen",
    "data_size_negative",
    "item_type_num",
    "version",
    "version_missing",
    "game_missing",
    "tiles_short",
    "tiles_no_data",
];

/// A map that reads with one of [`MAP_RULES`] broken (`trailing` where
/// the rule drawn has nothing to break: a version 3 map has no declared
/// sizes, a map no version item or game layer); `None` if it does not
/// read as a datafile.
fn map_rule(rng: &mut Rng, bytes: &[u8]) -> Option<(Mutation, Vec<u8>)> {
    use crate::map::items::Physics;
    use crate::map::{Datafile, ITEM_HEADER_LEN, Map};
    let datafile = Datafile::decode(bytes).ok()?;
    let map = Map::new(&datafile);
    let layout = datafile.layout();
    let mut out = bytes.to_vec();
    let set = |out: &mut Vec<u8>, at: u64, v: i32| {
        out[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
    };
    let get = |at: u64| {
        let at = at as usize;
        i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    let games: Vec<(usize, i32)> = map
        .tiles_layers()
        .filter(|(_, t)| t.physics() == Some(Physics::Game))
        .map(|(i, t)| (i, t.data))
        .collect();
    // An item's int `n` (the layer's common fields come first: a tiles
    // layer's flags are int 6, its height int 5).
    let int_at = |item: usize, n: u64| layout.items[item] + ITEM_HEADER_LEN as u64 + 4 * n;
    let version = datafile
        .items
        .iter()
        .position(|i| i.type_id() == 0 && i.id() == 0);
    let stored_block = |b: i32| {
        let b = usize::try_from(b).ok()?;
        let len = datafile.data.get(b)?.len() as u64;
        datafile
            .data_sizes
            .as_ref()
            .map(|_| layout.data[b] + len - 1)
    };
    let rule = *rng.pick(&MAP_RULES);
    let done = match rule {
        "size" | "swaplen" => {
            let at = if rule == "size" { 8 } else { 12 };
            // Odd: never the pre-2010 writer's size, a multiple of 4 less.
            let by = 2 * rng.int(0, 20) + 1;
            set(&mut out, at, get(at).wrapping_add(by));
            true
        }
        "data_size_negative" if datafile.data_sizes.is_some() && !datafile.data.is_empty() => {
            let b = rng.below(datafile.data.len() as u64);
            set(&mut out, layout.data_sizes + 4 * b, -rng.int(1, 1 << 20));
            true
        }
        "item_type_num" if !datafile.item_types.is_empty() => {
            let t = rng.below(datafile.item_types.len() as u64);
            set(&mut out, layout.item_types + 12 * t + 8, 0);
            true
        }
        "version" if version.is_some() => {
            let v = *rng.pick(&[0, 2, 3, -1]);
            set(&mut out, int_at(version.unwrap_or(0), 0), v);
            true
        }
        "version_missing" if version.is_some() => {
            // Its id 1: no item of type 0 and id 0 is left.
            set(&mut out, layout.items[version.unwrap_or(0)], 1);
            true
        }
        "game_missing" if !games.is_empty() => {
            for &(i, _) in &games {
                set(&mut out, int_at(i, 6), get(int_at(i, 6)) & !1);
            }
            true
        }
        "tiles_short" if !games.is_empty() => {
            let (i, _) = games[games.len() - 1];
            set(&mut out, int_at(i, 5), get(int_at(i, 5)) + rng.int(1, 4));
            true
        }
        "tiles_no_data" => match games.last().and_then(|&(_, b)| stored_block(b)) {
            // The zlib stream's last byte: its checksum.
            Some(at) => {
                out[at as usize] ^= 0xff;
                true
            }
            None => false,
        },
        _ => false,
    };
    if !done {
        let n = rng.int(1, 16) as usize;
        out.extend(rng.bytes(n));
        return Some((Mutation::MapRule { rule: "trailing" }, out));
    }
    Some((Mutation::MapRule { rule }, out))
}

/// Formats whose files are little-endian int32 arrays.
fn int_array(unit: Unit) -> bool {
    matches!(unit, Unit::Snapshot | Unit::DeltaApply)
}

fn one(rng: &mut Rng, unit: Unit, bytes: &[u8]) -> (Mutation, Vec<u8>) {
    let mut out = bytes.to_vec();
    let len = bytes.len() as u64;
    if len == 0 {
        let n = rng.int(1, 16) as u64;
        out.extend(rng.bytes(n as usize));
        return (Mutation::Append { len: n }, out);
    }
    let at = rng.below(len);
    let mutation = match rng.below(5) {
        0 => {
            out.truncate(at as usize);
            Mutation::Truncate { offset: at }
        }
        1 => {
            let bit = rng.below(8) as u8;
            out[at as usize] ^= 1 << bit;
            Mutation::Flip { offset: at, bit }
        }
        2 if int_array(unit) && len >= 4 => {
            // The header ints (sizes and counts) most of the time.
            let ints = len / 4;
            let i = if rng.one_in(2) {
                rng.below(ints.min(3))
            } else {
                rng.below(ints)
            };
            let o = (i * 4) as usize;
            let bits = rng.int(2, 20);
            let by = rng.int(1, 1 << bits);
            let v = i32::from_le_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]);
            out[o..o + 4].copy_from_slice(&v.wrapping_add(by).to_le_bytes());
            Mutation::Inflate {
                offset: o as u64,
                by,
            }
        }
        2 => {
            out[at as usize] |= 0x3f;
            Mutation::Inflate { offset: at, by: 0 }
        }
        3 => {
            let b = out[at as usize];
            out.splice(at as usize..=at as usize, [b | 0x80, 0x00]);
            Mutation::Overlong { offset: at }
        }
        _ => {
            let n = rng.int(1, 16) as u64;
            out.extend(rng.bytes(n as usize));
            Mutation::Append { len: n }
        }
    };
    (mutation, out)
}
