//! libtw2's demo reader and snapshot layer over a demo, every snapshot
//! rebuilt: the peer `benches/peers/run` times against `teeoracle demo
//! stats`, and `benches/snapshot.rs` against teeoracle's replay in process
//! (it includes this file for [`libtw2_replay`]).
//!
//! `cargo run --profile peer --example peer_libtw2_demo -- FILE`

use libtw2_snapshot::snap::{Delta, RawSnap};
use teeoracle::snapshot::ItemSizes;

#[allow(dead_code)] // `benches/snapshot.rs` includes this file without it
fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: peer_libtw2_demo FILE");
    let bytes = std::fs::read(&path).expect("the file reads");
    let (n, crcs) = libtw2_replay(&bytes, &ItemSizes::ddnet_06());
    println!("{n} snapshots, crc sum {crcs}");
}

/// libtw2's reader and snapshot layer over the whole file: the number of
/// snapshots rebuilt and the sum of their CRCs.
pub fn libtw2_replay(bytes: &[u8], sizes: &ItemSizes) -> (usize, i64) {
    let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(std::io::Cursor::new(bytes), &mut warn).unwrap();
    let (mut current, mut next) = (RawSnap::empty(), RawSnap::empty());
    let mut delta = Delta::new();
    let mut buf = Vec::new();
    let mut w: Vec<libtw2_snapshot::format::Warning> = Vec::new();
    let (mut n, mut crcs) = (0, 0i64);
    while let Some(chunk) = reader.read_chunk(&mut warn).unwrap() {
        match chunk {
            libtw2_demo::RawChunk::Snapshot(b) => {
                next.read(&mut w, &mut buf, b).unwrap();
            }
            libtw2_demo::RawChunk::SnapshotDelta(b) => {
                let mut p = libtw2_packer::Unpacker::new(b);
                delta
                    .read(
                        &mut w,
                        |t| sizes.get(i32::from(t)).map(|s| s as u32),
                        &mut p,
                    )
                    .unwrap();
                next.read_with_delta(&mut w, &current, &delta).unwrap();
            }
            _ => continue,
        }
        std::mem::swap(&mut current, &mut next);
        n += 1;
        crcs += i64::from(current.crc());
    }
    (n, crcs)
}
