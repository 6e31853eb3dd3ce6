//! Differential tests: teeoracle's Huffman coder and packet decoder against
//! libtw2 (heinrich5991; the crates.io packages `pre-rfc3243-libtw2-huffman`
//! and `pre-rfc3243-libtw2-net` 0.2, dev-dependencies only).
//!
//! Inputs: the real captures `corpus/packet/ddnet-20.1/*.pcap` (DDNet 20.1,
//! 0.6 with security token) and, when the shared corpus is present,
//! `../shared/corpus/upstream/teeworlds-traffic-dumps/*/*.pcap` (DDNet 19.x
//! on 0.6, DDNet and vanilla 0.7.5 on 0.7); without it, the tests that read
//! the captures are run on the bundled ones and their run with the shared
//! corpus is reported ignored.
//!
//! `compression`: the Huffman coders; `datagrams`: the packet readers.

use crate::common::{self, Test};

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use libtw2_huffman::instances::TEEWORLDS as LIBTW2_HUFFMAN;
use libtw2_net::{protocol as p6, protocol7 as p7};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use teeoracle::capture::{self, Capture};
use teeoracle::codec::{Codec, DecodeError, ErrorKind, Mode, Reader};
use teeoracle::huffman::{self, Flavor, HuffmanInfo};
use teeoracle::packet::{
    CHUNK_RESEND, ConnPacket, Packet, PacketCtx, TokenMode, Version, detect_version,
};
use teeoracle::session;

pub mod compression;
pub mod datagrams;

fn qc(tests: u64) -> QuickCheck {
    common::testing::qc().tests(tests)
}

/// A capture and the Huffman writer its sender used.
struct Source {
    name: String,
    capture: Capture,
    writer: Flavor,
}

/// The `.pcap` files below `dir`, sorted.
fn pcaps_in(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir)
        .into_iter()
        .filter(|p| common::has_ext(p, "pcap"))
        .collect()
}

fn file_name(p: &Path) -> &str {
    p.file_name().unwrap().to_str().unwrap()
}

/// Every capture, read once for all tests.
static SOURCES: LazyLock<Vec<Source>> = LazyLock::new(|| {
    let mut files = Vec::new();
    for p in pcaps_in(&common::root().join("corpus/packet/ddnet-20.1")) {
        files.push((format!("ddnet-20.1/{}", file_name(&p)), p, Flavor::Ddnet));
    }
    assert_eq!(files.len(), 5, "the bundled DDNet 20.1 captures");
    if let Some(upstream) = common::upstream_corpus() {
        for p in pcaps_in(&upstream.join("teeworlds-traffic-dumps")) {
            files.push((format!("upstream/{}", file_name(&p)), p, Flavor::Legacy));
        }
    }
    files
        .into_iter()
        .map(|(name, path, writer)| {
            let bytes = std::fs::read(&path).unwrap();
            let capture = capture::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            Source {
                name,
                capture,
                writer,
            }
        })
        .collect()
});

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}
