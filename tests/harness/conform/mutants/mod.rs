//! Mutation testing of the conformance suite: each mutant is teeoracle's
//! reference adapter with one rule broken the way real implementations
//! break it (the bug it models is its `bug`), run in process through the
//! library's [`Adapter`] trait and judged by the library's judge. Every
//! mutant must be killed: some case of the built-in suite (the bundled
//! corpus, the vectors and the generated cases, as a bare clone has them)
//! must give a finding. The test prints `killed/total` and, for each
//! mutant, the first case that kills it.

use serde_json::{Value, json};
use std::path::PathBuf;
use teeoracle::conform::{
    Adapter, Answer, Case, InProcess, Info, Input, Suite, Unit, encode, judge, reference_answer,
};
use teeoracle::huffman::{self, Flavor};
use teeoracle::snapshot::{ItemSizes, Snapshot, apply};

/// One mutant: a name, the real-world bug it models, the units it
/// answers, and its answer to a case.
struct Mutant {
    name: &'static str,
    bug: &'static str,
    units: &'static [Unit],
    answer: fn(&Case) -> Answer,
}

/// Generated cases per unit and kind, as `conform run` adds them.
const GENERATED_PER_KIND: usize = 20;

/// The built-in suite `conform run` runs, from the bundled corpus only.
fn suite() -> Suite {
    use teeoracle::generate::{self, Kind};
    let mut extra = Vec::new();
    for unit in generate::UNITS {
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            for g in generate::cases(unit, teeoracle::conform::SEED, GENERATED_PER_KIND, kind) {
                let id = format!("{unit}/gen/{}", g.name);
                let reason = format!("generated: {}", g.reason);
                extra.push(Case::decode(id, unit, g.bytes, &reason));
            }
        }
    }
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    Suite::builtin(&[corpus], extra)
}

fn main() {
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

// ---- the mutants ----

fn mutants() -> Vec<Mutant> {
    use Unit::*;
    vec![
        // varint
        Mutant {
            name: "varint_sign_negated",
            bug: "a negative varint read as minus its magnitude instead of its bitwise NOT (-63 for -64)",
            units: &[Varint],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(a) = v["ints"].as_array_mut() {
                        for x in a {
                            let n = x.as_i64().unwrap();
                            if n < 0 {
                                *x = json!(n + 1);
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "varint_write_7_bit_first_byte",
            bug: "the writer puts 64..127 in one byte, forgetting the first byte's sign bit",
            units: &[Varint],
            answer: |c| {
                encoded(c, |v, out| {
                    out.clear();
                    for n in v["ints"].as_array().unwrap() {
                        let n = n.as_i64().unwrap();
                        if (0..128).contains(&n) {
                            out.push(n as u8);
                        } else {
                            out.extend(encode(Varint, &json!({"ints": [n]})).unwrap());
                        }
                    }
                })
            },
        },
        Mutant {
            name: "varint_overlong_rejected",
            bug: "a strict reader refuses over-long forms (0 in two bytes), which DDNet reads",
            units: &[Varint],
            answer: |c| {
                let input = bytes(c).to_vec();
                strict(c, |v| encode(Varint, v).is_ok_and(|b| b != input))
            },
        },
        Mutant {
            name: "varint_fifth_byte_unmasked",
            bug: "the fifth byte's high bits are not masked off as DDNet masks them",
            units: &[Varint],
            answer: |c| match read_varints(bytes(c), false, 5) {
                Some(ints) if c.op == teeoracle::conform::Op::Decode => {
                    if matches!(reference_answer(c), Answer::Decoded(_)) {
                        Answer::Decoded(json!({ "ints": ints }))
                    } else {
                        reference_answer(c)
                    }
                }
                _ => reference_answer(c),
            },
        },
        Mutant {
            name: "varint_sixth_byte",
            bug: "a fifth byte with its continuation bit set is followed by a sixth (DDNet stops at five)",
            units: &[Varint],
            answer: |c| match read_varints(bytes(c), true, 6) {
                Some(ints) if c.op == teeoracle::conform::Op::Decode => {
                    Answer::Decoded(json!({ "ints": ints }))
                }
                None => Answer::Rejected("cut".into()),
                _ => reference_answer(c),
            },
        },
        Mutant {
            name: "varint_cut_reads_zeros",
            bug: "a varint cut by the end of the input is completed with zero bytes",
            units: &[Varint],
            answer: |c| lenient(c, &["unexpected end of input"]),
        },
        // string
        Mutant {
            name: "string_unterminated_accepted",
            bug: "a string without its NUL at the end of the input is accepted",
            units: &[String],
            answer: |c| lenient(c, &["NUL-terminated"]),
        },
        Mutant {
            name: "string_lossy_utf8",
            bug: "bytes that are not UTF-8 replaced by U+FFFD (a lossy string type)",
            units: &[String],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(a) = v["strings"].as_array_mut() {
                        for s in a {
                            if let Some(h) = s["hex"].as_str() {
                                let b = hex::decode(h).unwrap();
                                *s = json!(std::string::String::from_utf8_lossy(&b));
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "string_no_last_nul",
            bug: "the writer separates strings with NUL but does not end the last one",
            units: &[String],
            answer: |c| {
                encoded(c, |_, out| {
                    out.pop();
                })
            },
        },
        // huffman
        Mutant {
            name: "huffman_legacy_always_zero_byte",
            bug: "the legacy writer appends a zero byte after every stream, not only when its bits end on a byte boundary",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] == "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Ddnet);
                        out.push(0);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_ddnet_writes_legacy",
            bug: "DDNet's >= 20.0 writer adds the legacy zero byte on a byte boundary (DDNet <= 19's writer)",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] != "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Legacy);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_legacy_without_zero_byte",
            bug: "the legacy writer forgets its zero byte on a byte boundary",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] == "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Ddnet);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_empty_payload_rejected",
            bug: "a stream of only the end symbol (an empty payload) is refused",
            units: &[Huffman],
            answer: |c| strict(c, |v| v["hex"] == ""),
        },
        Mutant {
            name: "huffman_end_of_input_is_end",
            bug: "the end of the input ends the stream: no end symbol needed",
            units: &[Huffman],
            answer: |c| lenient(c, &["unexpected end of input"]),
        },
        Mutant {
            name: "huffman_trailing_bytes_rejected",
            bug: "bytes after the end symbol are refused (DDNet stops at the end symbol)",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let trailing = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing > 0);
                strict(c, |_| trailing)
            },
        },
        Mutant {
            name: "huffman_padding_bits_rejected",
            bug: "set padding bits after the end symbol are refused (DDNet ignores them)",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let padded = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing == 0 && !i.ddnet && !i.legacy);
                strict(c, |_| padded)
            },
        },
        Mutant {
            name: "huffman_flavor_prefers_legacy",
            bug: "a stream both writers make is reported as the legacy writer's",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let both = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing == 0 && i.ddnet && i.legacy);
                decoded(c, |_, v| {
                    if both {
                        v["flavor"] = json!("legacy");
                    }
                })
            },
        },
        // packets
        Mutant {
            name: "packet_ack_low_byte_only",
            bug: "the ack is read from byte 1 alone, without its two high bits in byte 0",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if is_connection(v) {
                        v["packet"]["ack"] = json!(b[1]);
                    }
                })
            },
        },
        Mutant {
            name: "packet_ack_four_high_bits",
            bug: "the ack's high bits taken from byte 0's low nibble (a 12-bit ack) instead of its two low bits",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if is_connection(v) {
                        v["packet"]["ack"] = json!((u16::from(b[0] & 0xf) << 8) | u16::from(b[1]));
                    }
                })
            },
        },
        Mutant {
            name: "packet06_chunk_size_07_split",
            bug: "0.6 chunk headers read with 0.7's split (6 size bits in byte 1, not 4)",
            units: &[Packet06],
            answer: |c| {
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, 3, 4) {
                        for (i, (at, _)) in h.into_iter().enumerate() {
                            let size =
                                (usize::from(b[at] & 0x3f) << 6) | usize::from(b[at + 1] & 0x3f);
                            v["packet"]["chunks"][i]["size"] = json!(size);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet07_chunk_size_06_split",
            bug: "0.7 chunk headers read with 0.6's split (4 size bits in byte 1, not 6)",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, 7, 6) {
                        for (i, (at, _)) in h.into_iter().enumerate() {
                            let size =
                                (usize::from(b[at] & 0x3f) << 4) | usize::from(b[at + 1] & 0x0f);
                            v["packet"]["chunks"][i]["size"] = json!(size);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet_chunk_seq_low_byte",
            bug: "a vital chunk's sequence read from its third byte alone (8 of its 10 bits)",
            units: &[Packet06, Packet07],
            answer: |c| {
                let (header, split) = match c.unit {
                    Unit::Packet06 => (3, 4),
                    _ => (7, 6),
                };
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, header, split) {
                        for (i, (at, len)) in h.into_iter().enumerate() {
                            if len == 3 {
                                v["packet"]["chunks"][i]["seq"] = json!(b[at + 2]);
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet_chunk_flags_swapped",
            bug: "the chunk flag bits swapped: vital read as resend and resend as vital",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(chunks) = v["packet"]["chunks"].as_array_mut() {
                        for ch in chunks {
                            let (vital, resend) = (ch["vital"].clone(), ch["resend"].clone());
                            ch["vital"] = resend;
                            ch["resend"] = vital;
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet06_token_after_header",
            bug: "DDNet's 0.6 security token read after the header (where 0.7 puts its token), not from the datagram's end",
            units: &[Packet06],
            answer: |c| {
                decoded(c, |b, v| {
                    if v["packet"]["token"].is_string() && b.len() >= 7 {
                        v["packet"]["token"] = json!(hex::encode(&b[3..7]));
                    }
                })
            },
        },
        Mutant {
            name: "packet07_token_at_end",
            bug: "the 0.7 header token read from the datagram's last 4 bytes (where DDNet's 0.6 token is)",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if v["packet"]["header_token"].is_string() && b.len() >= 4 {
                        v["packet"]["header_token"] = json!(hex::encode(&b[b.len() - 4..]));
                    }
                })
            },
        },
        Mutant {
            name: "packet07_connless_tokens_swapped",
            bug: "a 0.7 connectionless datagram's token and response token swapped",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |_, v| {
                    let p = &mut v["packet"];
                    if p["response_token"].is_string() {
                        let t = p["token"].clone();
                        p["token"] = p["response_token"].clone();
                        p["response_token"] = t;
                    }
                })
            },
        },
        Mutant {
            name: "packet_no_size_limit",
            bug: "no size checks: datagrams over 1400 bytes or shorter than the header are read",
            units: &[Packet06, Packet07],
            answer: |c| {
                let n = bytes(c).len();
                match reference_answer(c) {
                    Answer::Rejected(_)
                        if c.op == teeoracle::conform::Op::Decode && !(3..=1400).contains(&n) =>
                    {
                        Answer::Decoded(json!({}))
                    }
                    other => other,
                }
            },
        },
        Mutant {
            name: "packet_lenient_flags",
            bug: "no IsValidConnectionOrientedPacket: control packets with chunks, data packets without, unknown flags read",
            units: &[Packet06, Packet07],
            answer: |c| {
                lenient(
                    c,
                    &[
                        "DDNet 20.1 drops it (flags",
                        "DDNet 20.1 drops it (control",
                        "DDNet 20.1 drops it (no_chunks",
                    ],
                )
            },
        },
        Mutant {
            name: "packet_encode_ack_swapped",
            bug: "the writer puts the ack's low bits in byte 0 and its high bits in byte 1",
            units: &[Packet06, Packet07],
            answer: |c| {
                encoded(c, |v, out| {
                    if is_connection(v) && out.len() >= 2 {
                        let ack = v["packet"]["ack"].as_u64().unwrap_or(0) as u16;
                        out[0] = (out[0] & 0xfc) | (ack & 3) as u8;
                        out[1] = (ack >> 2) as u8;
                    }
                })
            },
        },
        Mutant {
            name: "packet06_encode_token_after_header",
            bug: "the 0.6 writer puts DDNet's security token after the header instead of at the end",
            units: &[Packet06],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["packet"]["token"].is_string() && out.len() >= 7 {
                        let token: Vec<u8> = out.split_off(out.len() - 4);
                        out.splice(3..3, token);
                    }
                })
            },
        },
        Mutant {
            name: "packet_encode_resend_flag_lost",
            bug: "the writer drops a chunk's resend flag",
            units: &[Packet06, Packet07],
            answer: |c| {
                let (header, split) = match c.unit {
                    Unit::Packet06 => (3, 4),
                    _ => (7, 6),
                };
                encoded(c, |v, out| {
                    let wire = out.clone();
                    if let Some(h) =
                        chunk_headers(&wire, &json!({"packet": v["packet"]}), header, split)
                    {
                        for (at, _) in h {
                            out[at] &= 0x7f;
                        }
                    }
                })
            },
        },
        // snapshot
        Mutant {
            name: "snapshot_items_sorted",
            bug: "items kept in a map by key, so listed sorted instead of in wire order",
            units: &[Snapshot],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(items) = v["items"].as_array_mut() {
                        items.sort_by_key(|i| (i["type_id"].as_i64(), i["id"].as_i64()));
                    }
                })
            },
        },
        Mutant {
            name: "snapshot_crc_with_keys",
            bug: "the CRC sums the items' keys with their data (DDNet sums the data only)",
            units: &[Snapshot, DeltaApply],
            answer: |c| {
                decoded(c, |_, v| {
                    let mut crc = v["crc"].as_i64().unwrap_or(0) as i32;
                    for i in v["items"].as_array().into_iter().flatten() {
                        let key = (i["type_id"].as_i64().unwrap() << 16 | i["id"].as_i64().unwrap())
                            as i32;
                        crc = crc.wrapping_add(key);
                    }
                    v["crc"] = json!(crc);
                })
            },
        },
        Mutant {
            name: "snapshot_size_without_offsets",
            bug: "the snapshot's size leaves out its offset table",
            units: &[Snapshot],
            answer: |c| {
                decoded(c, |_, v| {
                    let n = v["items"].as_array().map_or(0, Vec::len) as i64;
                    v["size"] = json!(v["size"].as_i64().unwrap_or(0) - 4 * n);
                })
            },
        },
        Mutant {
            name: "snapshot_no_item_limit",
            bug: "no MAX_ITEMS check on the item count",
            units: &[Snapshot],
            answer: |c| lenient(c, &["num_items"]),
        },
        // delta
        Mutant {
            name: "delta_create_keeps_unchanged",
            bug: "CreateDelta writes an update for every item, unchanged ones as zeros",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        keep_unchanged: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_sorted",
            bug: "CreateDelta writes the updates in key order, not in the new snapshot's order",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        sorted: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_no_deletions",
            bug: "CreateDelta does not list the items that are gone",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        no_deletions: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_always_size",
            bug: "CreateDelta writes the size of every item, also of the types with a pre-agreed size",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        always_size: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_apply_ignores_deletions",
            bug: "UnpackDelta skips the deleted keys and keeps those items",
            units: &[DeltaApply],
            answer: |c| {
                delta_apply_with(c, &ItemSizes::ddnet_06(), |d| {
                    if d.len() >= 3 && d[0] > 0 && (d[0] as usize) + 3 <= d.len() {
                        let n = d[0] as usize;
                        d.drain(3..3 + n);
                        d[0] = 0;
                    }
                })
            },
        },
        Mutant {
            name: "delta_apply_07_sizes",
            bug: "deltas read with Teeworlds 0.7's item size table instead of DDNet's 0.6 one",
            units: &[DeltaApply],
            answer: |c| delta_apply_with(c, &ItemSizes::teeworlds_07(), |_| {}),
        },
        Mutant {
            name: "delta_apply_no_type_range",
            bug: "no check that an updated item's type is at most 0x7fff",
            units: &[DeltaApply],
            answer: |c| lenient(c, &["DDNet error -202"]),
        },
        // demo
        Mutant {
            name: "demo_inline_tick_absolute",
            bug: "an inline tick marker's delta taken as the tick itself",
            units: &[Demo],
            answer: |c| decoded(c, |b, v| demo_ticks(b, v, true, false)),
        },
        Mutant {
            name: "demo_keyframe_flag_lost",
            bug: "a tick marker's keyframe bit not read",
            units: &[Demo],
            answer: |c| decoded(c, |b, v| demo_ticks(b, v, false, true)),
        },
        Mutant {
            name: "demo_cut_chunk_rejected",
            bug: "a demo whose last chunk is cut (a killed recorder) is refused, where DDNet plays the chunks before",
            units: &[Demo],
            answer: |c| strict(c, |v| !v["end"]["truncated_bytes"].is_null()),
        },
        Mutant {
            name: "demo_chunk_size_big_endian",
            bug: "a demo chunk's two-byte size (size code 31) read big-endian",
            units: &[Demo],
            answer: |c| {
                on_changed_input(c, |b, v| {
                    for at in demo_size_escapes(&b.clone(), v, 31) {
                        b.swap(at + 1, at + 2);
                    }
                })
            },
        },
        Mutant {
            name: "demo_chunk_size_one_byte_escape_off_by_30",
            bug: "a demo chunk's one-byte size (size code 30) taken as 30 plus that byte",
            units: &[Demo],
            answer: |c| {
                on_changed_input(c, |b, v| {
                    for at in demo_size_escapes(&b.clone(), v, 30) {
                        b[at + 1] = b[at + 1].wrapping_add(30);
                    }
                })
            },
        },
        Mutant {
            name: "demo_version_unchecked",
            bug: "the header's version is not checked (DDNet plays 3 to 6)",
            units: &[Demo],
            answer: |c| lenient(c, &["unsupported version"]),
        },
        // teehistorian
        Mutant {
            name: "teehistorian_tick_skip_off_by_one",
            bug: "TICK_SKIP dt advances dt ticks (DDNet: dt + 1)",
            units: &[Teehistorian],
            answer: |c| {
                decoded(c, |_, v| {
                    let mut behind = 0;
                    for r in v["records"].as_array_mut().into_iter().flatten() {
                        if let Some(t) = r["tick"].as_i64() {
                            r["tick"] = json!(t - behind);
                        }
                        if r["kind"] == "tick_skip" {
                            behind += 1;
                        }
                    }
                })
            },
        },
        Mutant {
            name: "teehistorian_implicit_tick_below_only",
            bug: "a player record starts a new tick only when its client id is below the previous one's (DDNet: at or below)",
            units: &[Teehistorian],
            answer: |c| {
                decoded(c, |_, v| {
                    // The two rules counted side by side; each record's
                    // tick moves by how far the wrong one is off.
                    let (mut ok, mut bug, mut last) = (0i64, 0i64, None::<i64>);
                    for r in v["records"].as_array_mut().into_iter().flatten() {
                        match r["kind"].as_str().unwrap_or("") {
                            "player_diff" | "player_new" | "player_old" => {
                                let cid = r["cid"].as_i64().unwrap_or(0);
                                if last.is_none_or(|l| cid <= l) {
                                    ok += 1;
                                }
                                if last.is_none_or(|l| cid < l) {
                                    bug += 1;
                                }
                                last = Some(cid);
                            }
                            "tick_skip" => last = None,
                            _ => {}
                        }
                        if let Some(t) = r["tick"].as_i64() {
                            r["tick"] = json!(t + bug - ok);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "teehistorian_unknown_ex_rejected",
            bug: "an extension record of an unknown UUID is refused instead of skipped by its size",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r["kind"] == "unknown_ex")
                })
            },
        },
        Mutant {
            name: "teehistorian_ex_trailing_rejected",
            bug: "bytes after a known extension's fields are refused instead of skipped",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r.get("trailing").is_some())
                })
            },
        },
        Mutant {
            name: "teehistorian_overlong_int_rejected",
            bug: "over-long ints (a 5-byte FINISH, a padded diff) are refused",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r.get("noncanonical_at").is_some())
                })
            },
        },
        Mutant {
            name: "teehistorian_no_finish_rejected",
            bug: "a file without FINISH (a killed server) is refused instead of read to its cut",
            units: &[Teehistorian],
            answer: |c| strict(c, |v| v["end"]["end"]["end"] == "truncated"),
        },
        Mutant {
            name: "teehistorian_negative_size_read",
            bug: "an extension's negative payload size is not checked",
            units: &[Teehistorian],
            answer: |c| lenient(c, &["expected a non-negative length"]),
        },
        // map
        Mutant {
            name: "map_trailing_bytes_read",
            bug: "bytes after the data are ignored (Teeworlds' reader; DDNet's refuses the file)",
            units: &[Map],
            answer: |c| lenient(c, &["after the data"]),
        },
        Mutant {
            name: "map_header_size_unchecked",
            bug: "the header's size is not checked against the file's length",
            units: &[Map],
            answer: |c| lenient(c, &["the header's size"]),
        },
        Mutant {
            name: "map_old_writer_sizes_refused",
            bug: "a header size without the uncompressed sizes table (Teeworlds' writer before 2010) is refused instead of fixed up",
            units: &[Map],
            answer: |c| match (reference_answer(c), &c.input) {
                (Answer::Decoded(v), Input::Bytes(b))
                    if v["header"]["size"].as_i64() != Some(b.len() as i64 - 16) =>
                {
                    Answer::Rejected("mutant: refused".into())
                }
                (other, _) => other,
            },
        },
        Mutant {
            name: "map_tiles_not_inflated",
            bug: "a version 4 layer's tiles are its block as stored, not inflated",
            units: &[Map],
            answer: |c| {
                decoded(c, |_, v| {
                    let data = v["data"].clone();
                    for l in v["layers"].as_array_mut().into_iter().flatten() {
                        let Some(b) = l["block"].as_u64() else {
                            continue;
                        };
                        if data[b as usize]["size"].is_i64() && !l["tiles"].is_null() {
                            l["tiles"] = data[b as usize]["stored_hex"].clone();
                        }
                    }
                })
            },
        },
        Mutant {
            name: "map_game_skip_runs_not_read",
            bug: "a version 4 game layer's stored tiles are read as one tile each, the skip byte ignored (ddnet-maploader 1.0.0)",
            units: &[Map],
            answer: |c| {
                decoded(c, |_, v| {
                    let item = v["game"]["item"].clone();
                    let layer = v["layers"]
                        .as_array()
                        .and_then(|ls| ls.iter().find(|l| l["item"] == item));
                    let Some(stored) = layer.and_then(|l| l["tiles"].as_str()) else {
                        return;
                    };
                    let stored = hex::decode(stored).unwrap_or_default();
                    let n = v["game"]["index_hex"].as_str().map_or(0, |h| h.len() / 2);
                    let index: Vec<u8> = (0..n)
                        .map(|i| stored.get(4 * i).copied().unwrap_or(0))
                        .collect();
                    v["game"]["index_hex"] = json!(hex::encode(index));
                })
            },
        },
        Mutant {
            name: "map_encode_rewrites_sizes",
            bug: "the writer recomputes the header's size instead of keeping the stored one",
            units: &[Map],
            answer: |c| {
                encoded(c, |_, b| {
                    let size = (b.len() as i32 - 16).to_le_bytes();
                    if b.len() >= 12 {
                        b[8..12].copy_from_slice(&size);
                    }
                })
            },
        },
    ]
}
