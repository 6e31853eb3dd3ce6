//! The fuzz targets' properties (`fuzz/src/properties.rs`) as ordinary
//! tests: over the corpus files each target is seeded with, and over every
//! input the fuzzers found and that was kept in `corpus/fuzz/TARGET/`.

#[path = "../../fuzz/src/properties.rs"]
#[allow(dead_code)]
mod properties;

use std::path::{Path, PathBuf};

fn files(pattern_dir: &str, ext: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(pattern_dir);
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if ext.is_empty() || ext.iter().any(|x| p.to_string_lossy().ends_with(x)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The kept findings of a target.
fn findings(target: &str) -> Vec<PathBuf> {
    files(&format!("corpus/fuzz/{target}"), &[])
}

fn run(target: &str, inputs: Vec<PathBuf>, property: impl Fn(&[u8])) {
    assert!(!inputs.is_empty(), "{target}: no inputs");
    for path in inputs {
        let data = std::fs::read(&path).unwrap();
        eprintln!("{target}: {}", path.display());
        property(&data);
    }
}

#[test]
fn teehistorian() {
    let mut inputs = files("corpus/teehistorian", &[".teehistorian"]);
    inputs.extend(findings("teehistorian"));
    run("teehistorian", inputs, properties::teehistorian);
}

#[test]
fn demo() {
    let mut inputs = files("corpus/demo/edge", &[".demo"]);
    inputs.extend(files("corpus/demo/malformed", &[".demo"]));
    inputs.extend(files("corpus/demo/synthetic", &[".demo"]));
    inputs.extend(findings("demo"));
    run("demo", inputs, properties::demo);
}

#[test]
fn session() {
    let mut inputs = files("corpus/packet/edge", &[".pcap", ".pcapng"]);
    inputs.extend(files("corpus/packet/ddnet-16.4", &[".pcapng"]));
    inputs.extend(files("corpus/packet/teeworlds-0.7.5", &[".pcapng"]));
    inputs.extend(findings("session"));
    run("session", inputs, properties::session);
}

/// Every datagram of the bots' captures, as 0.6 and as 0.7.
#[test]
fn packet() {
    let mut datagrams = Vec::new();
    for path in files("corpus/packet/ddnet-16.4", &[".pcapng"])
        .into_iter()
        .chain(files("corpus/packet/teeworlds-0.7.5", &[".pcapng"]))
    {
        let bytes = std::fs::read(&path).unwrap();
        let capture = teeoracle::capture::read(&bytes).unwrap();
        for d in capture.datagrams {
            datagrams.push(d.payload.to_vec());
        }
    }
    assert!(datagrams.len() > 100, "{} datagrams", datagrams.len());
    for d in datagrams {
        for version in [1u8, 2] {
            properties::packet(&[&[version][..], &d].concat());
        }
    }
    for path in findings("packet") {
        properties::packet(&std::fs::read(path).unwrap());
    }
}

/// The malformed deltas of the corpus on their bases, in the target's
/// layout (the base's length in ints, the base, the delta).
#[test]
fn snapshot() {
    let mut inputs = Vec::new();
    for delta in files("corpus/snapshot/malformed", &[".delta.bin"]) {
        let from = PathBuf::from(delta.to_string_lossy().replace(".delta.bin", ".from.bin"));
        let (from, delta) = (std::fs::read(from).unwrap(), std::fs::read(delta).unwrap());
        let len = (from.len() / 4) as i32;
        inputs.push([&len.to_le_bytes()[..], &from, &delta].concat());
    }
    assert!(
        !inputs.is_empty(),
        "no .delta.bin in corpus/snapshot/malformed"
    );
    for input in inputs {
        properties::snapshot(&input);
    }
    for path in findings("snapshot") {
        properties::snapshot(&std::fs::read(path).unwrap());
    }
}

#[test]
fn huffman() {
    let mut inputs = files("corpus/huffman", &[]);
    inputs.extend(findings("huffman"));
    run("huffman", inputs, properties::huffman);
}

#[test]
fn archive() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = files("corpus/archive", &[".tar", ".tar.bz2"]);
    inputs.extend(findings("archive"));
    run("archive", inputs, |data| {
        properties::archive(data, dir.path())
    });
}

#[test]
fn map() {
    // The maps the corpus demos embed, the corpus's maps, and the kept
    // findings.
    let mut maps: Vec<Vec<u8>> = Vec::new();
    for path in files("corpus/demo/ddnet-20.1", &[".demo"]) {
        let bytes = std::fs::read(&path).unwrap();
        if let Ok((demo, _)) = teeoracle::demo::Demo::decode_partial(&bytes) {
            maps.push(demo.map.to_vec());
        }
    }
    for path in files("corpus/map", &[".map"])
        .into_iter()
        .chain(findings("map"))
    {
        maps.push(std::fs::read(&path).unwrap());
    }
    assert!(!maps.is_empty(), "map: no inputs");
    for data in &maps {
        properties::map(data);
    }
}
