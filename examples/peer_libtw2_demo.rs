//! libtw2's demo reader and snapshot layer over a demo, every snapshot
//! rebuilt (the work of `benches/snapshot.rs`'s `libtw2` replay): the peer
//! `benches/peers/run` times against teeoracle's replay of the same file.
//!
//! `cargo run --profile peer --example peer_libtw2_demo -- FILE`

use libtw2_snapshot::snap::{Delta, RawSnap};
use teeoracle::snapshot::ItemSizes;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: peer_libtw2_demo FILE");
    let bytes = std::fs::read(&path).expect("the file reads");
    let sizes = ItemSizes::ddnet_06();
    let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(std::io::Cursor::new(&bytes[..]), &mut warn)
        .expect("a demo header");
    let (mut current, mut next) = (RawSnap::empty(), RawSnap::empty());
    let mut delta = Delta::new();
    let mut buf = Vec::new();
    let mut w: Vec<libtw2_snapshot::format::Warning> = Vec::new();
    let (mut n, mut crcs) = (0u64, 0i64);
    while let Some(chunk) = reader.read_chunk(&mut warn).expect("a chunk") {
        match chunk {
            libtw2_demo::RawChunk::Snapshot(b) => {
                next.read(&mut w, &mut buf, b).expect("a snapshot");
            }
            libtw2_demo::RawChunk::SnapshotDelta(b) => {
                let mut p = libtw2_packer::Unpacker::new(b);
                delta
                    .read(
                        &mut w,
                        |t| sizes.get(i32::from(t)).map(|s| s as u32),
                        &mut p,
                    )
                    .expect("a delta");
                next.read_with_delta(&mut w, &current, &delta)
                    .expect("the delta applies");
            }
            _ => continue,
        }
        std::mem::swap(&mut current, &mut next);
        n += 1;
        crcs += i64::from(current.crc());
    }
    println!("{n} snapshots, crc sum {crcs}");
}
