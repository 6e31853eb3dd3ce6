//! Huffman decompression of real payloads, teeoracle's side of the
//! comparison `benches/peers/run` makes with DDNet's own C++ `CHuffman`
//! (`benches/peers/ddnet_huffman.cpp` reads the same file and prints the
//! same line).
//!
//! ```text
//! peer_huffman export OUT DEMO...   # every data chunk's compressed payload
//! peer_huffman PAYLOADS ROUNDS      # decompress them all ROUNDS times
//! ```
//!
//! The payload file is a sequence of records, each a 4-byte little-endian
//! length then that many bytes. Decompression prints the number of
//! payloads, the bytes they decompress to over all rounds, and the sum of
//! every decompressed byte (so both sides are seen to do the same work).

use teeoracle::demo::MAX_PAYLOAD;
use teeoracle::demo::{Chunk, Demo};
use teeoracle::huffman::decompress;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, out, demos @ ..] if mode == "export" && !demos.is_empty() => export(out, demos),
        [payloads, rounds] => {
            let rounds = rounds.parse().expect("ROUNDS is a number");
            decompress_all(payloads, rounds)
        }
        _ => {
            eprintln!("usage: peer_huffman export OUT DEMO... | peer_huffman PAYLOADS ROUNDS");
            std::process::exit(2);
        }
    }
}

fn export(out: &str, demos: &[String]) {
    let mut file = Vec::new();
    let mut n = 0;
    for path in demos {
        let bytes = std::fs::read(path).expect("the demo reads");
        let (demo, _) = Demo::decode(&bytes).expect("the demo decodes");
        for chunk in &demo.chunks {
            if let Chunk::Data { payload, .. } = chunk {
                let mut raw = Vec::new();
                payload.write_raw(&mut raw);
                file.extend_from_slice(&(raw.len() as u32).to_le_bytes());
                file.extend_from_slice(&raw);
                n += 1;
            }
        }
    }
    std::fs::write(out, file).expect("the payload file writes");
    println!("{n} payloads");
}

fn decompress_all(path: &str, rounds: u32) {
    let file = std::fs::read(path).expect("the payload file reads");
    let mut payloads = Vec::new();
    let mut rest = &file[..];
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let (payload, tail) = tail.split_at(u32::from_le_bytes(*len) as usize);
        payloads.push(payload);
        rest = tail;
    }
    let mut out = Vec::with_capacity(MAX_PAYLOAD);
    let (mut bytes, mut sum) = (0u64, 0u64);
    for _ in 0..rounds {
        for payload in &payloads {
            out.clear();
            decompress(payload, &mut out, MAX_PAYLOAD, 0).expect("the payload decompresses");
            bytes += out.len() as u64;
            sum += out.iter().map(|&b| u64::from(b)).sum::<u64>();
        }
    }
    println!("{} payloads, {bytes} bytes, sum {sum}", payloads.len());
}
