//! Mutation testing of the conformance suite: each mutant is teeoracle's
//! reference adapter with one rule broken the way real implementations
//! break it (the bug it models is its `bug`), run in process through the
//! library's [`Adapter`] trait and judged by the library's judge. Every
//! mutant must be killed: some case of the built-in suite (the bundled
//! corpus, the vectors and the generated cases, as a bare clone has them)
//! must give a finding. The test prints `killed/total` and, for each
//! mutant, the first case that kills it.

use crate::common::Test;
use serde_json::{Value, json};
use std::path::PathBuf;
use teeoracle::conform::{
    Adapter, Answer, Case, InProcess, Info, Input, Suite, Unit, encode, judge, reference_answer,
};
use teeoracle::huffman::{self, Flavor};
use teeoracle::snapshot::{ItemSizes, Snapshot, apply};

mod packets;
mod primitives;
mod snapshots_demos;
mod teehistorian_maps;

/// One mutant: a name, the real-world bug it models, the units it
/// answers, and its answer to a case.
struct Mutant {
    name: &'static str,
    bug: &'static str,
    units: &'static [Unit],
    answer: fn(&Case) -> Answer,
}

/// The standard suite `conform run` runs, from the bundled corpus only.
fn suite() -> Suite {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    teeoracle::generate::suite::standard(&[corpus], &[]).expect("the bundled corpus")
}

pub const TESTS: &[Test] = tests![every_mutant_is_killed];

fn every_mutant_is_killed() {
    let suite = suite();
    let mutants = mutants();
    let mut names = std::collections::BTreeSet::new();
    for m in &mutants {
        assert!(names.insert(m.name), "two mutants named {}", m.name);
    }
    // Mutants on threads: each finds its first killing case.
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(m) = mutants.get(i) else { break };
                        out.push((i, killer(&suite, m)));
                    }
                    out
                })
            })
            .collect();
        let mut all: Vec<_> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_by_key(|(i, _)| *i);
        all
    });
    let mut survivors = Vec::new();
    for (i, killed_by) in &results {
        let m = &mutants[*i];
        match killed_by {
            Some(case) => println!("killed  {}: {} (by {case})", m.name, m.bug),
            None => {
                println!("SURVIVED {}: {}", m.name, m.bug);
                survivors.push(m.name);
            }
        }
    }
    let killed = results.iter().filter(|(_, k)| k.is_some()).count();
    println!("conform mutants: {killed}/{} killed", mutants.len());
    assert!(
        mutants.len() >= 30,
        "only {} mutants (30 at least)",
        mutants.len()
    );
    assert!(
        survivors.is_empty(),
        "mutants no case of the suite kills: {survivors:?}"
    );
}

/// The first case of `suite` on which mutant `m` gives a finding.
fn killer(suite: &Suite, m: &Mutant) -> Option<String> {
    let mut info = Info::new(m.name, "mutant");
    for &u in m.units {
        info = info.unit(u, u.encodes());
    }
    let mut adapter = InProcess::new(info, m.answer);
    for case in &suite.cases {
        let Some(unit) = adapter.info().covers(case).cloned() else {
            continue;
        };
        let answer = adapter.answer(case);
        if judge(case, &unit, &answer).result.finding() {
            return Some(case.id.clone());
        }
    }
    None
}

// ---- helpers ----

fn bytes(case: &Case) -> &[u8] {
    match &case.input {
        Input::Bytes(b) => b,
        Input::Json(_) => &[],
    }
}

/// The reference's decoded JSON, changed by `f` (a rejection stays one).
fn decoded(case: &Case, f: impl FnOnce(&[u8], &mut Value)) -> Answer {
    match reference_answer(case) {
        Answer::Decoded(mut v) => {
            f(bytes(case), &mut v);
            Answer::Decoded(v)
        }
        other => other,
    }
}

/// The reference's encoded bytes, changed by `f` (given the input JSON).
fn encoded(case: &Case, f: impl FnOnce(&Value, &mut Vec<u8>)) -> Answer {
    match (reference_answer(case), &case.input) {
        (Answer::Encoded(mut b), Input::Json(v)) => {
            f(&v.value(), &mut b);
            Answer::Encoded(b)
        }
        (other, _) => other,
    }
}

/// A lenient mutant: where the reference rejects for a reason containing
/// `why`, it accepts (with an empty JSON object: any output is wrong).
fn lenient(case: &Case, why: &[&str]) -> Answer {
    match reference_answer(case) {
        Answer::Rejected(r) if why.iter().any(|w| r.contains(w)) => Answer::Decoded(json!({})),
        other => other,
    }
}

/// A strict mutant: where `refuses` holds of the reference's JSON, it
/// rejects.
fn strict(case: &Case, refuses: impl FnOnce(&Value) -> bool) -> Answer {
    match reference_answer(case) {
        Answer::Decoded(v) if refuses(&v) => Answer::Rejected("mutant: refused".into()),
        other => other,
    }
}

/// DDNet's varint reader with switches for its rules.
fn read_varints(mut input: &[u8], mask_fifth: bool, max_bytes: usize) -> Option<Vec<i32>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let mut value: u32 = 0;
        let mut shift = 6;
        let first = input[0];
        value |= u32::from(first & 0x3f);
        let mut used = 1;
        let mut more = first & 0x80 != 0;
        while more && used < max_bytes {
            let byte = *input.get(used)?;
            let bits = if used == 4 && mask_fifth {
                byte & 0x0f
            } else {
                byte & 0x7f
            };
            value |= u32::from(bits).checked_shl(shift).unwrap_or(0);
            shift += 7;
            more = byte & 0x80 != 0;
            used += 1;
        }
        let v = if first & 0x40 != 0 { !value } else { value };
        out.push(v as i32);
        input = &input[used..];
    }
    Some(out)
}

/// The chunk headers of an uncompressed connection datagram, as the
/// reference read them: (offset of the header, its length), checked
/// against the bytes with the version's split; `None` when the walk does
/// not fit the bytes (a compressed payload, say).
fn chunk_headers(
    input: &[u8],
    v: &Value,
    header: usize,
    split: u32,
) -> Option<Vec<(usize, usize)>> {
    let chunks = v["packet"]["chunks"].as_array()?;
    let mut at = header;
    let mut out = Vec::new();
    for c in chunks {
        let vital = c["vital"].as_bool()?;
        let size = c["size"].as_u64()? as usize;
        let (b0, b1) = (*input.get(at)?, *input.get(at + 1)?);
        let read = (usize::from(b0 & 0x3f) << split) | usize::from(b1 & ((1 << split) - 1));
        if read != size || u64::from(b0 >> 6) != c["flags"].as_u64()? {
            return None;
        }
        let len = if vital { 3 } else { 2 };
        out.push((at, len));
        at += len + size;
    }
    Some(out)
}

fn is_connection(v: &Value) -> bool {
    v["packet"]["form"] == "connection"
}

/// DDNet's CreateDelta over the public snapshot API, with one rule
/// switchable each: unchanged items kept, updates in key order,
/// deletions left out, sizes always written.
#[derive(Clone, Copy, Default)]
struct DeltaBugs {
    keep_unchanged: bool,
    sorted: bool,
    no_deletions: bool,
    always_size: bool,
}

fn create_delta(from: &Snapshot, to: &Snapshot, bugs: DeltaBugs) -> Vec<i32> {
    let sizes = ItemSizes::ddnet_06();
    let mut deleted = Vec::new();
    if !bugs.no_deletions {
        for item in from.items() {
            if to.get(item.key).is_none() {
                deleted.push(item.key);
            }
        }
    }
    let mut items: Vec<_> = to.items().collect();
    if bugs.sorted {
        items.sort_by_key(|i| i.key);
    }
    let mut updates = Vec::new();
    let mut num_updates = 0;
    for item in items {
        let old = from
            .get(item.key)
            .filter(|o| o.data.len() == item.data.len());
        let diff: Vec<i32> = match old {
            Some(o) => item
                .data
                .iter()
                .zip(o.data)
                .map(|(n, o)| n.wrapping_sub(*o))
                .collect(),
            None => item.data.to_vec(),
        };
        if old.is_some() && !bugs.keep_unchanged && diff.iter().all(|d| *d == 0) {
            continue;
        }
        updates.push(item.type_id());
        updates.push(item.id());
        if bugs.always_size || sizes.get(item.type_id()).is_none() {
            updates.push(item.data.len() as i32);
        }
        updates.extend(diff);
        num_updates += 1;
    }
    if deleted.is_empty() && num_updates == 0 {
        return Vec::new();
    }
    let mut out = vec![deleted.len() as i32, num_updates, 0];
    out.extend(deleted);
    out.extend(updates);
    out
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn le(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The two parts of a two-part input.
fn parts(input: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = input.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    (len <= rest.len()).then(|| rest.split_at(len))
}

fn delta_create_with(case: &Case, bugs: DeltaBugs) -> Answer {
    let Some((from, to)) = parts(bytes(case)) else {
        return reference_answer(case);
    };
    match (
        Snapshot::from_ints(&ints(from)),
        Snapshot::from_ints(&ints(to)),
    ) {
        (Ok(f), Ok(t)) => {
            Answer::Decoded(json!({ "hex": hex::encode(le(&create_delta(&f, &t, bugs))) }))
        }
        _ => reference_answer(case),
    }
}

/// delta_apply with the delta changed by `f` (its ints) or another size
/// table, the output as the reference makes it.
fn delta_apply_with(case: &Case, sizes: &ItemSizes, f: impl FnOnce(&mut Vec<i32>)) -> Answer {
    let Some((base, delta)) = parts(bytes(case)) else {
        return reference_answer(case);
    };
    let Ok(base) = Snapshot::from_ints(&ints(base)) else {
        return reference_answer(case);
    };
    let mut delta = ints(delta);
    f(&mut delta);
    match apply(&base, &delta, sizes) {
        Ok(snap) => match teeoracle::conform::expect(Unit::Snapshot, &le(&snap.to_ints())) {
            Ok(v) => Answer::Decoded(v),
            Err(r) => Answer::Rejected(r.0),
        },
        Err(e) => Answer::Rejected(e.to_string()),
    }
}

/// Ticks of demo events when an inline tick marker's delta is taken as
/// the tick itself (or, `keyframe_lost`, keyframes not seen).
fn demo_ticks(input: &[u8], v: &mut Value, inline_absolute: bool, keyframe_lost: bool) {
    let Some(events) = v["events"].as_array_mut() else {
        return;
    };
    let mut tick = -1i64;
    for e in events {
        if e["kind"] == "tick" {
            if keyframe_lost {
                e["keyframe"] = json!(false);
            }
            let at = e["offset"].as_u64().unwrap_or(0) as usize;
            let b = input.get(at).copied().unwrap_or(0);
            tick = if inline_absolute && b & 0x20 != 0 {
                i64::from(b & 0x1f)
            } else {
                e["tick"].as_i64().unwrap_or(-1)
            };
        }
        if inline_absolute {
            e["tick"] = json!(tick);
            if e.get("snapshot").is_some() {
                e["snapshot"]["tick"] = json!(tick);
            }
        }
    }
}

/// The reference's answer to `case` with its input bytes changed by `f`
/// (a buggy reader of the original is the reference on changed bytes).
fn on_changed_input(case: &Case, f: impl FnOnce(&mut Vec<u8>, &Value)) -> Answer {
    let Answer::Decoded(v) = reference_answer(case) else {
        return reference_answer(case);
    };
    let mut input = bytes(case).to_vec();
    f(&mut input, &v);
    match teeoracle::conform::expect(case.unit, &input) {
        Ok(v) => Answer::Decoded(v),
        Err(r) => Answer::Rejected(r.0),
    }
}

/// The offsets of a demo's data chunks whose size takes `escape` (30: one
/// more byte, 31: two more, little-endian).
fn demo_size_escapes(input: &[u8], v: &Value, escape: u8) -> Vec<usize> {
    let mut out = Vec::new();
    for e in v["events"].as_array().into_iter().flatten() {
        let at = e["offset"].as_u64().unwrap_or(0) as usize;
        if e["kind"] != "tick"
            && input
                .get(at)
                .is_some_and(|b| b & 0x80 == 0 && b & 0x1f == escape)
        {
            out.push(at);
        }
    }
    out
}

/// Every mutant, by the units it breaks.
fn mutants() -> Vec<Mutant> {
    [
        primitives::mutants(),
        packets::mutants(),
        snapshots_demos::mutants(),
        teehistorian_maps::mutants(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
