//! `packet encode` is the exact inverse of `packet decode --format json`:
//! every datagram of the corpus (the captures' datagrams, the hand-made
//! and DDNet-verdict lists, the upstream test vectors), decoded as 0.6,
//! 0.7 and as detected, with and without the 0.6 token, comes back byte
//! for byte; and a bad input gets one error naming its JSON path.

use crate::common::{self, Test};

use common::{corpus_files, root, run, run_stdin, upstream_corpus};
use serde_json::{Value, json};
use std::path::Path;

pub const TESTS: &[Test] = tests![
    decode_then_encode_gives_every_corpus_datagram_back also SharedCorpus,
    messages_by_name_and_fields_encode_as_decode_reads_them,
    a_bad_input_gets_one_error_naming_its_json_path,
];

/// Every datagram of the corpus, deduplicated, in a fixed order: the
/// captures' datagrams, and those of the hand-made lists and upstream
/// test vectors.
fn corpus_datagrams() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut captured, mut listed_ones) = (Vec::new(), Vec::new());
    for path in corpus_files("packet") {
        let bytes = std::fs::read(&path).unwrap();
        if teeoracle::capture::is_capture(&bytes) {
            // A damaged capture keeps the datagrams before its fault.
            let capture = teeoracle::capture::read(&bytes).unwrap();
            captured.extend(capture.datagrams.into_iter().map(|d| d.payload));
        } else if common::has_ext(&path, "txt") {
            listed_ones.extend(listed(&path, 2));
        }
    }
    if let Some(upstream) = upstream_corpus() {
        for path in common::files_under(&upstream.join("test-vectors")) {
            if common::has_ext(&path, "tsv") {
                listed_ones.extend(listed(&path, 2));
            }
        }
    }
    for list in [&mut captured, &mut listed_ones] {
        list.sort();
        list.dedup();
    }
    (captured, listed_ones)
}

/// The hex in column `col` of each line (`#` lines are comments; a
/// column that is not hex is skipped).
fn listed(path: &Path, col: usize) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(col))
        .filter_map(|h| match h {
            "{1401" => Some(vec![0; 1401]),
            h => hex::decode(h).ok(),
        })
        .collect()
}

/// Decodes `batch` with `args`, encodes the JSON back; the number of
/// packets that decoded, after checking that each came back exactly.
fn round_trip(batch: &[Vec<u8>], args: &[&str]) -> usize {
    let hexes: Vec<String> = batch.iter().map(hex::encode).collect();
    let mut decode = vec!["packet", "decode", "--format", "json"];
    decode.extend(args);
    decode.extend(hexes.iter().map(String::as_str));
    let out = run(&decode);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = doc["packets"].as_array().unwrap();
    assert_eq!(entries.len(), batch.len());
    // Packets that did not decode have no fields to encode.
    let (decoded, inputs): (Vec<&Value>, Vec<&String>) = entries
        .iter()
        .zip(&hexes)
        .filter(|(e, _)| e.get("packet").is_some())
        .unzip();
    let mut doc = doc.clone();
    doc["packets"] = Value::Array(decoded.into_iter().cloned().collect());
    let out = run_stdin(
        &["packet", "encode", "--hex", "-"],
        &serde_json::to_vec(&doc).unwrap(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), inputs.len());
    for (got, want) in lines.iter().zip(&inputs) {
        assert_eq!(got, want, "{args:?}: encode(decode(x)) != x");
    }
    inputs.len()
}

/// [`round_trip`] over `datagrams` in batches of 250, as many batches at
/// once as there are cores: the number of packets that decoded.
fn round_trips(datagrams: &[Vec<u8>], args: &[&str]) -> usize {
    let batches: Vec<&[Vec<u8>]> = datagrams.chunks(250).collect();
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut decoded = 0;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(batch) = batches.get(i) else {
                            return decoded;
                        };
                        decoded += round_trip(batch, args);
                    }
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .sum()
    })
}

fn decode_then_encode_gives_every_corpus_datagram_back() {
    let (captured, listed) = corpus_datagrams();
    assert!(captured.len() > 10_000, "{} datagrams", captured.len());
    // The bundled lists hold 37; the upstream test vectors add more.
    let upstream = upstream_corpus().is_some();
    let least = if upstream { 50 } else { 30 };
    assert!(listed.len() > least, "{} datagrams", listed.len());
    // Every datagram as detected; the hand-made and upstream ones also
    // read as each version, with and without the 0.6 token.
    let all: Vec<Vec<u8>> = captured.into_iter().chain(listed.iter().cloned()).collect();
    let decoded = round_trips(&all, &[]);
    println!(
        "as detected: {decoded} of {} decoded, each encoded back",
        all.len()
    );
    // Only hand-made datagrams fail to decode at all.
    assert!(
        decoded + listed.len() >= all.len(),
        "{decoded} of {} decoded, {} hand-made",
        all.len(),
        listed.len()
    );
    for args in [
        &["--version", "0.6", "--token", "yes"][..],
        &["--version", "0.6", "--token", "no"],
        &["--version", "0.7"],
    ] {
        let decoded = round_trips(&listed, args);
        println!(
            "{args:?}: {decoded} of {} decoded, each encoded back",
            listed.len()
        );
        // Most upstream vectors read as each version; of the 37 bundled
        // ones (each made for one version) 14 read as 0.6 with a token.
        let least = if upstream {
            listed.len() / 2
        } else {
            listed.len() / 3
        };
        assert!(
            decoded > least,
            "{args:?}: {decoded} of {} decoded",
            listed.len()
        );
    }
}

fn encode_err(json: &Value) -> String {
    let out = run_stdin(&["packet", "encode", "-"], json.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(1), "a bad input is a bad file");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// `entry` through `packet encode --hex`, then `packet decode --format
/// json --token no`: the decoded document.
fn encode_then_decode(entry: &Value) -> Value {
    let out = run_stdin(
        &["packet", "encode", "--hex", "-"],
        entry.to_string().as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hex = String::from_utf8(out.stdout).unwrap();
    let out = run(&[
        "packet",
        "decode",
        "--format",
        "json",
        "--token",
        "no",
        hex.trim(),
    ]);
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn messages_by_name_and_fields_encode_as_decode_reads_them() {
    let entry = json!({"version": "0.6", "packet": {"form": "connection", "flags": 0, "ack": 5,
        "chunks": [
            {"flags": 1, "seq": 7, "message": {"name": "INFO",
                "fields": {"version": "0.6 626fce9a778df4d4", "password": ""}}},
            {"flags": 0, "seq": null,
                "message": {"name": "Cl_Say", "fields": {"team": 1, "message": "x"}}}]}});
    let doc = encode_then_decode(&entry);
    let p = &doc["packets"][0]["packet"];
    assert_eq!(p["ack"], 5);
    assert_eq!(p["num_chunks"], 2);
    assert_eq!(p["chunks"][0]["seq"], 7);
    assert_eq!(p["chunks"][0]["message"]["id"], 1);
    assert_eq!(p["chunks"][1]["message"]["fields"]["message"], "x");
    assert_eq!(doc["packets"][0]["reencode"]["status"], "exact");
    // Compressed with the legacy writer, as the JSON says.
    let mut compressed = entry.clone();
    compressed["packet"]["flags"] = json!(32);
    compressed["packet"]["compression"] = json!({"legacy": true});
    let doc = encode_then_decode(&compressed);
    assert_eq!(doc["packets"][0]["packet"]["compression"]["legacy"], true);
    assert_eq!(doc["packets"][0]["packet"]["chunks"], p["chunks"]);
}

fn a_bad_input_gets_one_error_naming_its_json_path() {
    let good = json!({"version": "0.6", "packet": {"form": "connection", "flags": 0, "ack": 0,
        "chunks": [{"flags": 0, "seq": null,
            "message": {"system": false, "id": 17, "fields": {"team": 1, "message": "x"}}}]}});
    for (edit, want) in [
        (
            json!({"colour": 1}),
            "-: packet.chunks[0].message.fields.colour: a field of this message's layout (team, message)",
        ),
        (
            json!({"team": "one"}),
            "-: packet.chunks[0].message.fields.team: an int (-2147483648..=2147483647), found \"one\"",
        ),
        (
            json!({"team": 1}),
            "-: packet.chunks[0].message.fields.message: present: the layout has no default for it",
        ),
    ] {
        let mut bad = good.clone();
        bad["packet"]["chunks"][0]["message"]["fields"] = edit;
        assert_eq!(encode_err(&bad).trim(), format!("teeoracle: error: {want}"));
    }
    let mut bad = good.clone();
    bad["packet"]["chunks"][0]["sise"] = json!(3);
    assert!(
        encode_err(&bad).contains("-: packet.chunks[0].sise: not a field here (those are: "),
        "{}",
        encode_err(&bad)
    );
    // The compression flag without `compression`: the bytes would not
    // decode as described.
    let mut bad = good.clone();
    bad["packet"]["flags"] = json!(32);
    let err = encode_err(&bad);
    assert!(
        err.contains("-: packet: a packet whose bytes decode back to it"),
        "{err}"
    );
    // An entry that did not decode has nothing to encode.
    let out = run(&["packet", "decode", "--format", "json", "00"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let err = encode_err(&doc);
    assert!(
        err.contains("packets[0].packet: a `packet`: this one did not decode"),
        "{err}"
    );
    // More than one packet needs --hex (usage).
    let two = json!({"packets": [good, good]});
    let out = run_stdin(&["packet", "encode", "-"], two.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(2));
    let corpus = root().join("corpus/packet");
    assert!(corpus.is_dir(), "{}", corpus.display());
}
