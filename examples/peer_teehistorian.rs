//! The `teehistorian` crate's streaming reader over a file, every chunk up
//! to and including EOS, counted: the peer `benches/peers/run` times
//! against `teeoracle teehistorian stats` (same file, whole processes).
//!
//! `cargo run --profile peer --example peer_teehistorian -- FILE`

use teehistorian::{Chunk, Th, ThBufReader};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: peer_teehistorian FILE");
    let file = std::fs::File::open(&path).expect("the file opens");
    let mut th = Th::parse(ThBufReader::new(file)).expect("a teehistorian header");
    let mut chunks = 0u64;
    loop {
        let chunk = th.next_chunk().expect("a chunk");
        chunks += 1;
        if matches!(chunk, Chunk::Eos) {
            break;
        }
    }
    println!("{chunks} chunks");
}
