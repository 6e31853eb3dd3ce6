//! The built-in suite: cases from vectors written here and from every
//! corpus file, in a fixed order.

use super::{Case, Unit, join};
use crate::files::WalkError;
use crate::packet::{Version, detect_version};
use crate::snapshot::{ItemSizes, Snapshot, create};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The suite's version: raised whenever its cases change.
pub const SUITE_VERSION: u32 = 5;

/// The seed of the generated cases in the suite.
pub const SEED: u64 = 0;

/// Datagrams taken from the start of each capture (then only those with a
/// message not seen before), and the most taken from one capture.
#[cfg(feature = "capture")]
const CAPTURE_HEAD: usize = 12;
#[cfg(feature = "capture")]
const CAPTURE_MAX: usize = 64;

/// Snapshots taken from each demo.
const DEMO_SNAPSHOTS: usize = 3;

/// The largest file that is one case as a whole. A longer demo gives the
/// chunks of its first [`DEMO_HEAD`] bytes instead (every event of a real
/// one is tens of megabytes of JSON).
const WHOLE_FILE_MAX: usize = 1 << 16;
/// Chunk bytes in the head of a long demo.
const DEMO_HEAD: u64 = 1 << 14;

/// A suite of cases, in run order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Suite {
    /// [`SUITE_VERSION`] (or an exported suite's).
    pub version: u32,
    /// [`SEED`] (or an exported suite's).
    pub seed: u64,
    /// The cases, in run order.
    pub cases: Vec<Case>,
}

impl Suite {
    /// The built-in suite: the vectors here, the files under each of
    /// `corpora` (a `corpus/` folder, or the shared upstream corpus), and
    /// `extra` cases (the generators'). Each decode case of a unit that
    /// encodes also gives its encode case. Cases are in unit order, then
    /// id order; an id met twice keeps its first case. A corpus file or
    /// folder that cannot be read is an error, never left out.
    pub fn builtin(corpora: &[PathBuf], extra: Vec<Case>) -> Result<Suite, WalkError> {
        Suite::builtin_of(corpora, extra, &[])
    }

    /// The built-in suite's cases of `units` (all when empty): the same
    /// suite as `builtin(corpora, extra)?.only(units)`, built without
    /// reading the corpus files that give none of their cases.
    pub fn builtin_of(
        corpora: &[PathBuf],
        extra: Vec<Case>,
        units: &[Unit],
    ) -> Result<Suite, WalkError> {
        let wanted = |u: Unit| units.is_empty() || units.contains(&u);
        let mut cases = vectors();
        for root in corpora {
            from_corpus(root, &wanted, &mut cases)?;
        }
        cases.extend(extra);
        let encodes: Vec<Case> = cases.iter().filter_map(Case::encode_of).collect();
        cases.extend(encodes);
        cases.sort_by(|a, b| (a.unit, &a.id).cmp(&(b.unit, &b.id)));
        cases.dedup_by(|b, a| a.id == b.id);
        // The same input twice (a vector file in two corpora) is one case.
        let mut seen = BTreeSet::new();
        cases.retain(|c| seen.insert((c.unit, c.op == super::Op::Encode, digest(&c.input))));
        Ok(Suite {
            version: SUITE_VERSION,
            seed: SEED,
            cases,
        }
        .only(units))
    }

    /// Keeps only the cases of `units` (all when empty).
    pub fn only(mut self, units: &[Unit]) -> Suite {
        if !units.is_empty() {
            self.cases.retain(|c| units.contains(&c.unit));
        }
        self
    }
}

/// The SHA-256 of a case's input, to tell equal inputs apart cheaply.
fn digest(input: &super::Input) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    match input {
        super::Input::Bytes(b) => Sha256::digest(b).into(),
        super::Input::Json(v) => Sha256::digest(v.as_str()).into(),
    }
}

/// Hand-written vectors for the small units.
fn vectors() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |unit: Unit, name: &str, hex: &str, reason: &str| {
        let id = format!("{unit}/vectors/{name}");
        let bytes = hex::decode(hex).expect("vector hex");
        cases.push(Case::decode(id, unit, bytes, reason));
    };
    use Unit::{Huffman, String as Str, Varint};
    add(Varint, "zero", "00", "0 in one byte");
    add(Varint, "small", "3f7f", "63 and -64: the one-byte limits");
    add(Varint, "two_bytes", "8001", "64: the first two-byte value");
    add(Varint, "negative", "c001", "-65: a negative two-byte value");
    add(Varint, "max", "bfffffff0f", "i32::MAX in five bytes");
    add(Varint, "min", "ffffffff0f", "i32::MIN in five bytes");
    add(Varint, "overlong_zero", "8000", "0 written in two bytes");
    add(
        Varint,
        "fifth_byte_high_bits",
        "80808080f1",
        "a fifth byte's high bits, which DDNet masks off",
    );
    add(
        Varint,
        "padding_bits",
        "bfffffff7f",
        "bits past the 32nd, ignored",
    );
    add(Varint, "cut", "80", "a varint cut by the end of the input");
    add(
        Varint,
        "cut_after_four",
        "80808080",
        "cut before its fifth byte",
    );
    add(Str, "empty", "00", "the empty string");
    add(Str, "two", "6869006f6b00", "two strings");
    add(Str, "utf8", "c3a900", "UTF-8 text");
    add(Str, "not_utf8", "ff00", "bytes that are not UTF-8 are kept");
    add(Str, "unterminated", "6869", "a string without its NUL");
    add(
        Huffman,
        "empty_ddnet",
        "",
        "no bytes: not even the end symbol",
    );
    add(
        Huffman,
        "cut_in_first_code",
        "b10c",
        "16 bits that are the start of a longer code, no end symbol: DDNet's \
         Decompress runs out of bits and returns -1",
    );
    add(
        Huffman,
        "eof_only",
        "8a1b",
        "only the end symbol (its 15-bit code, padded to 2 bytes): an empty payload",
    );
    add(
        Huffman,
        "eof_only_padding_bits",
        "8a9b",
        "only the end symbol, its padding bit (the 16th) set: DDNet ignores it",
    );
    add(
        Huffman,
        "eof_only_trailing_byte",
        "8a1bff",
        "only the end symbol and a byte after it: DDNet stops at the end symbol",
    );
    // The writers differ only when the bits end on a byte boundary: DDNet
    // >= 20.0 then writes no last byte, the legacy writer a zero byte.
    add(
        Huffman,
        "aligned_ddnet",
        "1537",
        "00: 16 bits with the end symbol, as DDNet >= 20.0 writes them (no last byte)",
    );
    add(
        Huffman,
        "aligned_legacy",
        "153700",
        "00: 16 bits with the end symbol, as the legacy writer writes them (a zero byte after)",
    );
    add(
        Huffman,
        "aligned_ddnet_ab",
        "1c658b1537",
        "\"ab\": 40 bits with the end symbol, DDNet >= 20.0's writer",
    );
    add(
        Huffman,
        "aligned_legacy_ab",
        "1c658b153700",
        "\"ab\": 40 bits with the end symbol, the legacy writer",
    );
    add(
        Huffman,
        "unaligned_abc",
        "1c658ba9a3e206",
        "\"abc\": bits that end inside a byte; both writers pad the last byte with zeros",
    );
    // The legacy writer on bits that do not end on a byte boundary: its
    // last byte is the partial one, no zero byte after (a decode case of
    // such bytes reads as DDNet's flavor, so its encode case is DDNet's).
    for (name, raw, why) in [
        ("empty", "", "the end symbol alone: 15 bits"),
        ("abc", "616263", "\"abc\""),
        ("hello", "68656c6c6f", "\"hello\""),
    ] {
        let value = serde_json::json!({ "hex": raw, "flavor": "legacy" });
        cases.push(encode_vector(
            format!("huffman/vectors/legacy_unaligned_{name}.encode"),
            Huffman,
            value,
            &format!("the legacy writer, {why}: the partial last byte and no zero byte after"),
        ));
    }
    // (`aligned_ddnet`'s encode case asks for it by name.)
    cases.push(encode_vector(
        "huffman/vectors/aligned_ddnet_default.encode".into(),
        Huffman,
        serde_json::json!({ "hex": "00" }),
        "no `flavor` is DDNet >= 20.0's writer; 16 bits: no last byte",
    ));
    cases
}

/// A hand-written encode case: `value` in, teeoracle's bytes for it out.
fn encode_vector(id: String, unit: Unit, value: serde_json::Value, reason: &str) -> Case {
    let bytes = super::encode(unit, &value).expect("an encode vector encodes");
    Case {
        id,
        unit,
        op: super::Op::Encode,
        class: super::Class::MustAccept,
        reason: reason.to_string(),
        input: super::Input::Json(value.into()),
        expected: super::Expected::Bytes(bytes),
    }
}

/// Cases from the files under a corpus folder: every file of a unit
/// teeoracle makes JSON for, in path order, that gives a case of a
/// `wanted` unit (a file's cases are all made or none: which datagrams
/// of a capture are taken depends on every one before). A file or folder
/// that cannot be read (a delta's `.from.bin` too) is an error.
fn from_corpus(
    root: &Path,
    wanted: &dyn Fn(Unit) -> bool,
    cases: &mut Vec<Case>,
) -> Result<(), WalkError> {
    let packets = wanted(Unit::Packet06) || wanted(Unit::Packet07);
    let snapshots = wanted(Unit::Snapshot) || wanted(Unit::DeltaCreate) || wanted(Unit::DeltaApply);
    for path in crate::files::files_under(root)? {
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let huffman = name == "test_cases" && rel.contains("huffman");
        let packet_text = name == "packets.txt" || name == "datagrams.txt";
        let capture = name.ends_with(".pcap") || name.ends_with(".pcapng");
        let delta = name.ends_with(".delta.bin");
        let demo = name.ends_with(".demo");
        let teehistorian = name.ends_with(".teehistorian");
        let map = name.ends_with(".map");
        let maps = wanted(Unit::Map) || wanted(Unit::MapLint);
        let gives = (huffman && wanted(Unit::Huffman))
            || ((packet_text || capture) && packets)
            || (delta && wanted(Unit::DeltaApply))
            || (demo && (wanted(Unit::Demo) || snapshots || maps))
            || (map && maps)
            || (teehistorian && wanted(Unit::Teehistorian));
        if !gives {
            continue;
        }
        let bytes = read(&path)?;
        if huffman {
            huffman_vectors(&rel, &bytes, cases);
        } else if packet_text {
            packet_vectors(&rel, &bytes, cases);
        } else if capture {
            capture_cases(&rel, &bytes, cases);
        } else if let Some(stem) = name.strip_suffix(".delta.bin") {
            let from = read(&path.with_file_name(format!("{stem}.from.bin")))?;
            let id = format!("delta_apply/{}", id_part(&rel));
            let input = join(&from, &bytes);
            let reason = format!("{rel} applied to its .from.bin");
            cases.push(Case::decode(id, Unit::DeltaApply, input, &reason));
        } else if demo {
            if wanted(Unit::Demo) {
                demo_case(&rel, &bytes, cases);
            }
            if snapshots {
                demo_snapshots(&rel, &bytes, cases);
            }
            if maps {
                demo_map(&rel, &bytes, wanted, cases);
            }
        } else if map && bytes.len() <= WHOLE_FILE_MAX {
            map_cases(&id_part(&rel), &bytes, &rel, wanted, cases);
        } else if teehistorian && bytes.len() <= WHOLE_FILE_MAX {
            let id = format!("teehistorian/{}", id_part(&rel));
            cases.push(Case::decode(id, Unit::Teehistorian, bytes, &rel));
        }
    }
    Ok(())
}

/// A corpus file's bytes.
fn read(path: &Path) -> Result<Vec<u8>, WalkError> {
    std::fs::read(path).map_err(|source| WalkError {
        what: "read",
        path: path.to_path_buf(),
        source,
    })
}

/// A path made safe for an id and a file name: letters, digits, `_-.`
/// and `/` between parts.
fn id_part(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' | '/' => c,
            _ => '_',
        })
        .collect()
}

/// libtw2's Huffman vectors: `RAW#COMPRESSED` a line, bytes as spaced hex.
fn huffman_vectors(rel: &str, text: &[u8], cases: &mut Vec<Case>) {
    let text = String::from_utf8_lossy(text);
    for (i, line) in text.lines().enumerate() {
        let Some((_, compressed)) = line.split_once('#') else {
            continue;
        };
        let Ok(bytes) = crate::bytes::parse_hex(compressed) else {
            continue;
        };
        let id = format!("huffman/{}/{}", id_part(rel), i + 1);
        let reason = format!("{rel} line {}", i + 1);
        cases.push(Case::decode(id, Unit::Huffman, bytes, &reason));
    }
}

/// `NAME VERSION HEX` lines (`{N zero bytes}` for long ones), `#` comments.
fn packet_vectors(rel: &str, text: &[u8], cases: &mut Vec<Case>) {
    let text = String::from_utf8_lossy(text);
    let folder = rel.rsplit_once('/').map_or(rel, |(d, _)| d);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, char::is_whitespace);
        let (Some(name), Some(version), Some(data)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let data = data.trim();
        let bytes = match data
            .strip_prefix('{')
            .and_then(|d| d.strip_suffix(" zero bytes}"))
        {
            Some(n) => match n.parse::<usize>() {
                Ok(n) if n <= 1 << 16 => vec![0; n],
                _ => continue,
            },
            None => match crate::bytes::parse_hex(data) {
                Ok(b) => b,
                Err(_) => continue,
            },
        };
        let unit = match version {
            "0.6" => Unit::Packet06,
            "0.7" => Unit::Packet07,
            _ => packet_unit(detect_version(&bytes).0),
        };
        let id = format!("{unit}/{}/{}", id_part(folder), id_part(name));
        cases.push(Case::decode(id, unit, bytes, &format!("{rel}: {name}")));
    }
}

fn packet_unit(v: Version) -> Unit {
    match v {
        Version::V06 => Unit::Packet06,
        _ => Unit::Packet07,
    }
}

/// The first datagrams of a capture, then each one whose messages were
/// not seen before (by version, form and message ids), up to a bound.
/// Without the `capture` feature, captures give no cases.
#[cfg(not(feature = "capture"))]
fn capture_cases(_: &str, _: &[u8], _: &mut Vec<Case>) {}

#[cfg(feature = "capture")]
fn capture_cases(rel: &str, bytes: &[u8], cases: &mut Vec<Case>) {
    let Ok(capture) = crate::capture::read(bytes) else {
        return;
    };
    let mut seen = BTreeSet::new();
    let mut taken = 0;
    for (i, d) in capture.datagrams.iter().enumerate() {
        if taken == CAPTURE_MAX {
            break;
        }
        let unit = packet_unit(detect_version(&d.payload).0);
        let case = Case::decode(
            format!("{unit}/capture/{}/frame{}", id_part(rel), d.frame),
            unit,
            d.payload.clone(),
            &format!("{rel} frame {}", d.frame),
        );
        let key = message_key(unit, &case);
        if seen.insert(key) || i < CAPTURE_HEAD {
            cases.push(case);
            taken += 1;
        }
    }
}

/// What kind of datagram a case is: its unit, form, control id and its
/// chunks' message ids.
#[cfg(feature = "capture")]
fn message_key(unit: Unit, case: &Case) -> String {
    let super::Expected::Json(v) = &case.expected else {
        return format!("{unit} rejected");
    };
    let v = v.value();
    let p = &v["packet"];
    let mut key = format!("{unit} {} {}", p["form"], p["control_message"]["id"]);
    if let Some(chunks) = p["chunks"].as_array() {
        for c in chunks {
            let m = &c["message"];
            key.push_str(&format!(" {}:{}{}", m["system"], m["id"], m["uuid"]));
        }
    }
    key
}

/// A demo's case: the whole file, or for a long one its head (the header,
/// map and the chunks before the first tick marker past [`DEMO_HEAD`]
/// bytes of chunks: still a demo DDNet's player plays to its end).
fn demo_case(rel: &str, bytes: &[u8], cases: &mut Vec<Case>) {
    let id = format!("demo/{}", id_part(rel));
    if bytes.len() <= WHOLE_FILE_MAX {
        cases.push(Case::decode(id, Unit::Demo, bytes.to_vec(), rel));
        return;
    }
    let Ok((demo, offsets)) = crate::demo::Demo::decode_partial(bytes) else {
        // Not a demo DDNet loads: the whole file is the rejection case.
        cases.push(Case::decode(id, Unit::Demo, bytes.to_vec(), rel));
        return;
    };
    let Some(&first) = offsets.first() else {
        return;
    };
    let cut = demo
        .chunks
        .iter()
        .zip(&offsets)
        .find(|(c, at)| **at - first >= DEMO_HEAD && matches!(c, crate::demo::Chunk::Tick { .. }))
        .map_or(bytes.len(), |(_, &at)| at as usize);
    let reason = format!("{rel}: its first {} bytes of chunks", cut as u64 - first);
    cases.push(Case::decode(
        format!("{id}/head"),
        Unit::Demo,
        bytes[..cut].to_vec(),
        &reason,
    ));
}

/// The map a demo embeds, if it is small enough to be a case (the same
/// map in many demos is one case: equal inputs are).
fn demo_map(rel: &str, bytes: &[u8], wanted: &dyn Fn(Unit) -> bool, cases: &mut Vec<Case>) {
    let Ok((demo, _)) = crate::demo::Demo::decode_partial(bytes) else {
        return;
    };
    if demo.map.is_empty() || demo.map.len() > WHOLE_FILE_MAX {
        return;
    }
    let id = format!("demo/{}", id_part(rel));
    let reason = format!("the map {rel} embeds");
    map_cases(&id, demo.map, &reason, wanted, cases);
}

/// A map's case of each `wanted` map unit: `map` and `map_lint` (ids
/// `UNIT/ID`).
pub(crate) fn map_cases(
    id: &str,
    bytes: &[u8],
    reason: &str,
    wanted: &dyn Fn(Unit) -> bool,
    cases: &mut Vec<Case>,
) {
    for unit in [Unit::Map, Unit::MapLint] {
        if wanted(unit) {
            cases.push(Case::decode(
                format!("{unit}/{id}"),
                unit,
                bytes.to_vec(),
                reason,
            ));
        }
    }
}

/// The first snapshots of a demo: a snapshot case each, and delta cases
/// between consecutive ones (created, then applied).
fn demo_snapshots(rel: &str, bytes: &[u8], cases: &mut Vec<Case>) {
    use crate::demo::{EventKind, Events};
    let Ok(mut events) = Events::new(bytes) else {
        return;
    };
    if events.header().is_07() {
        // The expected JSON names items by the 0.6/DDNet tables.
        return;
    }
    let mut snaps: Vec<(i32, Snapshot)> = Vec::new();
    while snaps.len() < DEMO_SNAPSHOTS {
        match events.next() {
            Ok(Some(e)) => {
                if let EventKind::Snapshot(s) = e.kind {
                    snaps.push((e.tick, s.clone()));
                }
            }
            _ => break,
        }
    }
    let rel = id_part(rel);
    let sizes = ItemSizes::ddnet_06();
    let mut prev: Option<&(i32, Snapshot)> = None;
    for snap in &snaps {
        let (tick, s) = snap;
        let ints = ints_bytes(&s.to_ints());
        let reason = format!("{rel}: the snapshot of tick {tick}");
        let id = format!("snapshot/demo/{rel}/tick{tick}");
        cases.push(Case::decode(id, Unit::Snapshot, ints.clone(), &reason));
        let (from_tick, from) = prev.map_or((-1, Snapshot::new()), |(t, s)| (*t, s.clone()));
        let from_bytes = ints_bytes(&from.to_ints());
        let reason = format!("{rel}: from tick {from_tick} to tick {tick}");
        let id = format!("delta_create/demo/{rel}/tick{tick}");
        let input = join(&from_bytes, &ints);
        cases.push(Case::decode(id, Unit::DeltaCreate, input, &reason));
        let delta = ints_bytes(&create(&from, s, &sizes));
        let id = format!("delta_apply/demo/{rel}/tick{tick}");
        let input = join(&from_bytes, &delta);
        cases.push(Case::decode(id, Unit::DeltaApply, input, &reason));
        prev = Some(snap);
    }
}

fn ints_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::{Class, Expected, Op};
    use serde_json::json;

    #[test]
    fn map_cases_from_the_corpus() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let suite = Suite::builtin(&[corpus], Vec::new())
            .unwrap()
            .only(&[Unit::Map]);
        let find = |id: &str| {
            suite
                .cases
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("{id}"))
        };
        let minimal = find("map/map/synthetic/minimal.map");
        assert_eq!(minimal.class, Class::MustAccept, "{}", minimal.reason);
        for name in [
            "game_block_corrupt",
            "game_layer_1_wide",
            "game_tiles_short",
            "header_size_wrong",
            "item_offset_not_rising",
            "no_game_layer",
            "truncated_in_data",
        ] {
            let c = find(&format!("map/map/malformed/{name}.map"));
            assert_eq!(c.class, Class::MustReject, "{name}: {}", c.reason);
        }
        // corpus/make_map_corpus.py's ground: a spawn (192) on three
        // tiles of ground, one rotated (flag 8).
        let Expected::Json(doc) = &minimal.expected else {
            panic!("{minimal:?}")
        };
        let doc = doc.value();
        assert_eq!(doc["header"]["version"], 4);
        assert_eq!(doc["items"][2]["item"]["type"], "layer");
        let layer = &doc["layers"][0];
        assert_eq!(
            (&layer["physics"], &layer["width"]),
            (&json!("game"), &json!(3))
        );
        let ground = [
            "00000000", "c0000000", "00000000", "01000000", "01080000", "01000000",
        ];
        assert_eq!(layer["tiles"], ground.concat());
        assert_eq!(doc["data"][0]["inflated_size"], 24);
        let game = &doc["game"];
        assert_eq!((&game["item"], &game["height"]), (&json!(2), &json!(2)));
        assert_eq!(game["index_hex"], "00c000010101");
        assert_eq!(game["flags_hex"], "000000000800");
        // Teeworlds 0.7's writer stores runs of equal tiles once: the game
        // layer's tiles are the 70x50 the runs expand to.
        let Expected::Json(tw) = &find("map/map/teeworlds-data/ctf1.map").expected else {
            panic!("Teeworlds' ctf1 is refused")
        };
        let tw = tw.value();
        assert_eq!(
            tw["items"][tw["game"]["item"].as_u64().unwrap() as usize]["item"]["body"]["version"],
            4
        );
        assert_eq!(tw["game"]["index_hex"].as_str().unwrap().len(), 2 * 70 * 50);
        // Every map DDNet loads encodes back to its bytes; the demos'
        // maps are cases too.
        let encodes: Vec<&Case> = suite.cases.iter().filter(|c| c.op == Op::Encode).collect();
        assert!(encodes.len() >= 6, "{}", encodes.len());
        for c in encodes {
            assert_eq!(c.reason, "encodes back to the decoded bytes", "{}", c.id);
        }
        assert!(suite.cases.iter().any(|c| c.id.starts_with("map/demo/")));
    }

    /// A folder that is not there, a corpus file that cannot be read (a
    /// link to nothing) and a delta without its `.from.bin` are errors
    /// naming the path, never files left out of the suite.
    #[cfg(unix)]
    #[test]
    fn unreadable_corpus_files_and_folders_are_errors() {
        let dir = std::env::temp_dir().join(format!("teeoracle-suite-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let error = |root: &Path| Suite::builtin(&[root.to_path_buf()], Vec::new()).unwrap_err();
        let missing = dir.join("missing");
        let e = error(&missing);
        assert_eq!((e.what, &e.path), ("read", &missing), "{e}");
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("gone.demo")).unwrap();
        let e = error(&dir);
        assert_eq!((e.what, &e.path), ("read", &dir.join("gone.demo")), "{e}");
        std::fs::remove_file(dir.join("gone.demo")).unwrap();
        std::fs::write(dir.join("e205_cut.delta.bin"), [0; 4]).unwrap();
        let e = error(&dir);
        assert_eq!(e.path, dir.join("e205_cut.from.bin"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn vectors_are_classified() {
        let suite = Suite::builtin(&[], Vec::new()).unwrap();
        let find = |id: &str| suite.cases.iter().find(|c| c.id == id).unwrap();
        assert_eq!(find("varint/vectors/zero").class, Class::MustAccept);
        let fifth = find("varint/vectors/fifth_byte_high_bits");
        assert_eq!(fifth.class, Class::DdnetQuirk);
        assert_eq!(
            fifth.expected,
            Expected::Json(serde_json::json!({"ints": [1 << 27]}).into())
        );
        assert_eq!(find("varint/vectors/cut").class, Class::MustReject);
        assert_eq!(find("string/vectors/unterminated").class, Class::MustReject);
        let huffman = |id: &str| {
            let c = find(id);
            (c.class, c.expected.clone())
        };
        let decoded = |hex: &str, flavor: &str| {
            Expected::Json(serde_json::json!({"hex": hex, "flavor": flavor}).into())
        };
        let bytes = |hex: &str| Expected::Bytes(hex::decode(hex).unwrap());
        // The end symbol alone is an empty payload; the old `eof_only`
        // bytes are a cut stream.
        assert_eq!(
            huffman("huffman/vectors/eof_only"),
            (Class::MustAccept, decoded("", "ddnet"))
        );
        assert_eq!(
            huffman("huffman/vectors/cut_in_first_code").0,
            Class::MustReject
        );
        // Aligned bits: the two writers differ by the zero byte, each way.
        assert_eq!(
            huffman("huffman/vectors/aligned_ddnet.encode"),
            (Class::MustAccept, bytes("1537"))
        );
        assert_eq!(
            huffman("huffman/vectors/aligned_legacy.encode"),
            (Class::MustAccept, bytes("153700"))
        );
        assert_eq!(
            huffman("huffman/vectors/aligned_ddnet_default.encode"),
            (Class::MustAccept, bytes("1537"))
        );
        // Unaligned bits: the legacy writer adds no zero byte.
        assert_eq!(
            huffman("huffman/vectors/legacy_unaligned_abc.encode"),
            (Class::MustAccept, bytes("1c658ba9a3e206"))
        );
        assert_eq!(
            huffman("huffman/vectors/legacy_unaligned_empty.encode"),
            (Class::MustAccept, bytes("8a1b"))
        );
        assert_eq!(
            huffman("huffman/vectors/eof_only_padding_bits"),
            (Class::DdnetQuirk, decoded("", "none"))
        );
        assert_eq!(
            huffman("huffman/vectors/eof_only_trailing_byte"),
            (Class::DdnetQuirk, decoded("", "none"))
        );
        let enc = find("varint/vectors/overlong_zero.encode");
        assert_eq!(
            (enc.op, &enc.expected),
            (Op::Encode, &Expected::Bytes(vec![0]))
        );
    }
}
