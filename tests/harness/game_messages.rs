//! Game messages on the whole corpus: every capture (`*.pcap`,
//! `*.pcapng`) and demo under `corpus/` and, when present, the shared
//! upstream corpus.
//!
//! - Counts, per protocol (0.6, 0.7, DDNet's extended messages): every
//!   message reads into fields with no trailing bytes and re-encodes to
//!   exactly its bytes.
//! - Differential against libtw2's gamenet crates (`libtw2-gamenet-ddnet`
//!   for 0.6, `libtw2-gamenet-teeworlds-0-7` for 0.7): for every message
//!   libtw2 decodes, its own re-encoding (canonical ints, its fields in
//!   order) equals ours, so both read the same values in the same order.
//!   Field names are not compared (the two name them by different
//!   conventions). Where libtw2 reads fewer fields than DDNet's game code
//!   (it models only the generated part), its bytes are a prefix of ours;
//!   each such message is listed in [`FEWER`] with why. libtw2 refusing a
//!   message is listed in [`REFUSED`] with why.

use crate::common::{self, Test};

use std::collections::BTreeMap;
use std::path::Path;
use teeoracle::capture;
use teeoracle::codec::Codec;
use teeoracle::demo::{EventKind, Events, payload_bytes};
use teeoracle::packet::msg::MsgId;
use teeoracle::packet::{Message, Version};
use teeoracle::session::{self, Session};

pub const TESTS: &[Test] = tests![
    every_game_message_reads_exactly also SharedCorpus,
    libtw2_reads_the_same_fields also SharedCorpus,
    golden_messages_06,
    golden_messages_07 needs SharedCorpus,
];

/// One message as found: its bytes (a demo's zero-padded to whole ints).
struct Sample {
    version: Version,
    data: Vec<u8>,
    demo: bool,
}

/// Messages where libtw2 reads fewer fields than DDNet's (or Teeworlds')
/// game code, so its bytes are a prefix of ours: (version, name, why).
const FEWER: &[(&str, &str, &str)] = &[
    (
        "0.7",
        "Sv_TuneParams",
        "the server sends more tune params than libtw2's 0.7 list",
    ),
    (
        "0.7",
        "Sv_VoteOptionListAdd",
        "libtw2 models only the generated part, which is empty; the game \
         code reads the count and the strings",
    ),
];

/// Messages libtw2 refuses although DDNet reads them: (version, name,
/// why).
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "0.6",
        "Sv_TuneParams",
        "older DDNet servers (the bench demos) send 44 or 45 tune params; \
         libtw2 requires its 47; DDNet's client reads as many as there are",
    ),
    (
        "0.6",
        "Sv_TeamsStateLegacy",
        "DDNet sends the legacy message with 64 teams (LEGACY_MAX_CLIENTS); \
         libtw2 requires 128",
    ),
    (
        "0.6",
        "teamsstate@netmsg.ddnet.tw",
        "servers of 64 clients send 64 teams; libtw2 requires 128 (DDNet \
         20.1's MAX_CLIENTS); DDNet's client reads as many as there are",
    ),
];

fn samples() -> Vec<Sample> {
    let mut files = common::files_under(&common::root().join("corpus"));
    // What the fuzzers made is not traffic: its messages are arbitrary.
    let fuzzed = common::root().join("corpus/fuzz");
    files.retain(|f| !f.starts_with(&fuzzed));
    if let Some(up) = common::upstream_corpus() {
        files.extend(common::files_under(&up));
    }
    let mut out = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        if common::has_ext(path, "pcap") || common::has_ext(path, "pcapng") {
            from_capture(path, &bytes, &mut out);
        } else if common::has_ext(path, "demo") {
            from_demo(&bytes, &mut out);
        }
    }
    out
}

fn from_capture(path: &Path, bytes: &[u8], out: &mut Vec<Sample>) {
    // Damaged captures are other tests' business: their readable part
    // counts here if they read at all.
    let Ok(capture) = capture::read(bytes) else {
        return;
    };
    let Some(port) = session::server_port(&capture) else {
        println!("{}: no server port", path.display());
        return;
    };
    let mut s = Session::new(&capture, port);
    while let Some(d) = s.next_datagram() {
        // DDNet never reads the messages of a datagram it drops.
        let Some(contents) = d.contents.as_ref().filter(|_| d.verdict.ddnet.accepted()) else {
            continue;
        };
        for c in &contents.chunks {
            if let Ok(m) = &c.message
                && (!m.header.sys || matches!(m.header.id, MsgId::Uuid(_)))
            {
                out.push(Sample {
                    version: d.version,
                    data: c.chunk.data.to_vec(),
                    demo: false,
                });
            }
        }
    }
}

fn from_demo(bytes: &[u8], out: &mut Vec<Sample>) {
    let Ok(mut events) = Events::new(bytes) else {
        return;
    };
    let version = match events.header().is_07() {
        true => Version::V07,
        false => Version::V06,
    };
    while let Ok(Some(event)) = events.next() {
        if let EventKind::Message(ints) = event.kind {
            let data = payload_bytes(ints);
            if let Ok(m) = Message::read(&data, 0, version)
                && (!m.header.sys || matches!(m.header.id, MsgId::Uuid(_)))
            {
                out.push(Sample {
                    version,
                    data,
                    demo: true,
                });
            }
        }
    }
}

/// The protocol a message counts under.
fn protocol(m: &Message<'_>) -> &'static str {
    match (m.header.id, m.header.sys, m.version) {
        (MsgId::Uuid(_), true, _) => "uuid (system)",
        (MsgId::Uuid(_), false, _) => "uuid (game)",
        (_, _, Version::V06) => "0.6",
        (_, _, Version::V07) => "0.7",
    }
}

fn read(s: &Sample) -> Message<'_> {
    if s.demo {
        Message::read_padded(&s.data, 0, s.version).unwrap().0
    } else {
        Message::read(&s.data, 0, s.version).unwrap()
    }
}

#[derive(Default, Debug)]
struct Count {
    total: usize,
    no_trailing: usize,
    exact: usize,
}

fn every_game_message_reads_exactly() {
    let samples = samples();
    let mut counts: BTreeMap<&str, Count> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut buf = Vec::new();
    for s in &samples {
        let m = read(s);
        let c = counts.entry(protocol(&m)).or_default();
        c.total += 1;
        let Some(Ok(fields)) = &m.fields else {
            failures.push(format!("{} {m}", hex::encode(&s.data)));
            continue;
        };
        if fields.trailing.is_empty() {
            c.no_trailing += 1;
        }
        if m.fields_exact(s.version, &mut buf) == Some(true) {
            c.exact += 1;
        }
        if !fields.trailing.is_empty() || m.fields_exact(s.version, &mut buf) != Some(true) {
            failures.push(format!("{} {m}", hex::encode(&s.data)));
        }
    }
    for (protocol, c) in &counts {
        println!(
            "{protocol}: {} messages, {} with no trailing bytes, {} re-encoded exactly",
            c.total, c.no_trailing, c.exact
        );
    }
    assert!(counts["0.6"].total > 1000, "{counts:?}");
    assert!(counts["uuid (game)"].total > 100, "{counts:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The message as ours re-encodes it: header, then the fields without
/// any trailing bytes.
fn ours(m: &Message<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    m.header.encode(&mut out, ());
    if let Some(Ok(f)) = &m.fields {
        let mut f = f.clone();
        f.trailing = &[];
        let layout = teeoracle::packet::msg::Layout::of(m.version, &m.header).unwrap();
        f.encode(&mut out, layout);
    }
    out
}

/// libtw2's reading of `s`, re-encoded by libtw2: `Err` when it refuses.
fn libtw2(s: &Sample) -> Result<Vec<u8>, String> {
    let mut warnings: Vec<libtw2_packer::Warning> = Vec::new();
    let mut p = match s.demo {
        true => libtw2_packer::Unpacker::new_from_demo(&s.data),
        false => libtw2_packer::Unpacker::new(&s.data),
    };
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    match s.version {
        Version::V06 => {
            let g = libtw2_gamenet_ddnet::msg::Game::decode(&mut warnings, &mut p)
                .map_err(|e| format!("{e:?}"))?;
            libtw2_packer::with_packer(&mut buf, |p| g.encode(p).map(<[u8]>::to_vec))
        }
        Version::V07 => {
            let g = libtw2_gamenet_teeworlds_0_7::msg::Game::decode(&mut warnings, &mut p)
                .map_err(|e| format!("{e:?}"))?;
            libtw2_packer::with_packer(&mut buf, |p| g.encode(p).map(<[u8]>::to_vec))
        }
    }
    .map_err(|e| format!("{e:?}"))
}

fn libtw2_reads_the_same_fields() {
    let samples = samples();
    // (version, name) -> (agree, fewer, refused, unknown to libtw2)
    let mut by_name: BTreeMap<(String, String), [usize; 4]> = BTreeMap::new();
    let mut disagree = Vec::new();
    for s in &samples {
        let m = read(s);
        if m.header.sys {
            continue; // libtw2's game crates: game messages only.
        }
        let name = m.name().unwrap_or("?").to_string();
        let key = (m.version.to_string(), name.clone());
        let entry = by_name.entry(key.clone()).or_default();
        let listed =
            |list: &[(&str, &str, &str)]| list.iter().any(|&(v, n, _)| v == key.0 && n == key.1);
        match libtw2(s) {
            Ok(theirs) => {
                let ours = ours(&m);
                // libtw2 reads a demo's zero padding as ints where a message
                // ends open; teeoracle takes the shortest reading.
                let padding = s.demo
                    && theirs.len() - ours.len().min(theirs.len()) <= 3
                    && theirs.starts_with(&ours)
                    && theirs[ours.len()..].iter().all(|&b| b == 0);
                if theirs == ours || padding {
                    entry[0] += 1;
                } else if ours.starts_with(&theirs) && listed(FEWER) {
                    entry[1] += 1;
                } else {
                    disagree.push(format!(
                        "{} {name}: ours {} libtw2 {} ({m})",
                        m.version,
                        hex::encode(&ours),
                        hex::encode(&theirs)
                    ));
                }
            }
            // A message libtw2 does not know is not compared.
            Err(e) if e == "UnknownId" => entry[3] += 1,
            // Both refuse an int out of DDNet's range: agreement.
            Err(e) if e == "IntOutOfRange" && m.rejected().is_some() => entry[0] += 1,
            Err(_) if listed(REFUSED) => entry[2] += 1,
            Err(e) => disagree.push(format!("{} {name}: libtw2 refuses: {e} ({m})", m.version)),
        }
    }
    let mut totals = [0; 4];
    for ((v, n), counts) in &by_name {
        let [agree, fewer, refused, unknown] = counts;
        println!(
            "{v} {n}: {agree} agree, {fewer} libtw2 reads fewer fields, \
             {refused} libtw2 refuses, {unknown} unknown to libtw2"
        );
        (0..4).for_each(|i| totals[i] += counts[i]);
    }
    println!(
        "all: {} agree, {} libtw2 reads fewer fields, {} libtw2 refuses, {} unknown to libtw2",
        totals[0], totals[1], totals[2], totals[3]
    );
    assert!(totals[0] > 10_000, "{totals:?}");
    disagree.dedup();
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    let used = |list: &[(&str, &str, &str)], i: usize| {
        for &(v, n, why) in list {
            let k = (v.to_string(), n.to_string());
            assert!(
                by_name.get(&k).is_some_and(|c| c[i] > 0),
                "listed but not seen: {v} {n} ({why})"
            );
        }
    };
    // The listed messages come from the shared upstream corpus (older
    // servers, Teeworlds 0.7): without it they cannot be seen.
    if common::upstream_corpus().is_some() {
        used(FEWER, 1);
        used(REFUSED, 2);
    }
}

/// The first message of each kind (system ones too: a session's whole
/// vocabulary) in a capture, as text and JSON, in capture order.
fn first_of_each_kind(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let capture = capture::read(&bytes).unwrap();
    let mut s = Session::new(&capture, session::server_port(&capture).unwrap());
    let mut seen = Vec::new();
    let mut out = String::new();
    while let Some(d) = s.next_datagram() {
        let Some(contents) = &d.contents else {
            continue;
        };
        for c in &contents.chunks {
            let Ok(m) = &c.message else { continue };
            if !seen.contains(&m.header) {
                seen.push(m.header);
                let json = serde_json::to_string(m).unwrap();
                out.push_str(&format!("{:?} {m}\n  {json}\n", d.direction));
            }
        }
    }
    out
}

fn golden_messages_06() {
    let path = common::root().join("corpus/packet/ddnet-20.1/A_join_move_leave.pcap");
    common::snapshot("packet", "messages_06_A", &first_of_each_kind(&path));
}

fn golden_messages_07() {
    let up = common::upstream_corpus().expect("needs SharedCorpus");
    let dir = up.join("teeworlds-traffic-dumps/075_tw_dm1_join_chat_walk_disconnect");
    let text = first_of_each_kind(&dir.join("075_tw_dm1_join_chat_walk_disconnect.pcap"));
    common::snapshot("packet", "messages_07_tw_dm1", &text);
}
