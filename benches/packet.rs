//! Huffman and packet-layer throughput on the bundled DDNet 20.1 captures.
//!
//! Data, all read once from `corpus/packet/ddnet-20.1/*.pcap`:
//! * Huffman: the compressed body of every compressed connection packet of
//!   every capture (snapshot-heavy traffic, plus map download and rcon),
//!   and its decompressed form (payload and token). Throughput is in bytes
//!   of *uncompressed* data for both directions.
//! * Packets: every datagram of `B_eight_bots_dm1.pcap` (29,523), each with
//!   the version `session::decode_all` fixes for its peer and
//!   [`TokenMode::Auto`], as the session decoder reads them. Throughput is
//!   in packets and in wire bytes.
//!
//! Groups:
//! * `huffman_decompress`: teeoracle [`decompress`] (DDNet's error rules,
//!   output bound [`MAX_PAYLOAD`]) and libtw2's `decompress_into`, each
//!   into one reused buffer;
//! * `huffman_compress`: teeoracle [`compress`] in both writer flavors and
//!   libtw2's `compress` (the DDNet >= 20.0 writer) and `compress_bug` (the
//!   legacy writer), each into one reused buffer;
//! * `packet`: [`Packet::decode`] then [`Packet::encode`] of every datagram
//!   (`decode_encode`), the same plus [`ConnPacket::chunks`] of every data
//!   packet (`decode_encode_chunks`), and decoding alone (`decode`);
//! * `session`: the whole capture of B through [`session::Session`]
//!   (`decode_replay`): each datagram decoded once down to its message
//!   fields, re-encoded at every layer, and replayed per connection with
//!   its snapshots rebuilt.
//!
//! Everything is checked before anything is timed: teeoracle and libtw2
//! agree on every decompressed payload; compressing it again gives the
//! captured bytes (teeoracle's DDNet flavor, libtw2's `compress`) and both
//! legacy writers agree; every datagram decodes and re-encodes to its exact
//! bytes; the packet, compressed-packet and chunk counts are those of the
//! corpus README. The timed loops check totals (bytes out, chunks).
//!
//! `cargo bench --bench packet` takes about a minute; `cargo test --benches`
//! (criterion's test mode: every benchmark once, unoptimised) uses only the
//! first few hundred packets and payloads.

use criterion::{Criterion, SamplingMode, Throughput};
use libtw2_huffman::instances::TEEWORLDS as LIBTW2;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use teeoracle::capture;
use teeoracle::codec::{Codec, Mode, Reader};
use teeoracle::huffman::{Flavor, compress, compress_to_vec, decompress};
use teeoracle::packet::{ConnPacket, MAX_PAYLOAD, Packet, PacketCtx, TokenMode};
use teeoracle::session;

const CAPTURES: &[&str] = &[
    "A_join_move_leave",
    "B_eight_bots_dm1",
    "C_rcon_auth",
    "E_map_change",
    "F_crash_truncated",
];
/// The capture of the packet benchmark.
const PACKET_CAPTURE: &str = "B_eight_bots_dm1";
/// Its counts, from the corpus README (as `tests/it/packets.rs` asserts):
/// datagrams, compressed packets, vital and non-vital chunks.
const B_DATAGRAMS: usize = 29_523;
const B_COMPRESSED: usize = 14_772;
const B_CHUNKS: usize = 1_730 + 46_132;
/// Compressed packets over all five captures (the README's counts:
/// 511 + 14,772 + 2,733 + 2,776 + 3,565).
const ALL_COMPRESSED: usize = 24_357;
/// Output buffer for libtw2, larger than any payload.
const LIBTW2_BUF: usize = 4096;

fn read_capture(name: &str) -> capture::Capture {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/packet/ddnet-20.1")
        .join(format!("{name}.pcap"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cap = capture::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(cap.skipped.is_empty(), "{name}: skipped frames");
    cap
}

/// Byte strings laid end to end in one buffer, as the packets of a capture
/// file lie, rather than one heap allocation each.
#[derive(Default)]
struct Blobs {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Blobs {
    fn push(&mut self, blob: &[u8]) {
        self.bytes.extend_from_slice(blob);
        self.ends.push(self.bytes.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Bytes of all blobs.
    fn size(&self) -> usize {
        self.bytes.len()
    }

    fn truncate(&mut self, n: usize) {
        self.ends.truncate(n);
        self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.bytes[a..b])
    }
}

/// Compressed payloads: as captured, and decompressed.
#[derive(Default)]
struct Payloads {
    compressed: Blobs,
    plain: Blobs,
}

impl Payloads {
    fn len(&self) -> usize {
        self.plain.len()
    }

    fn truncate(&mut self, n: usize) {
        self.compressed.truncate(n);
        self.plain.truncate(n);
    }

    /// (compressed, plain) pairs.
    fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.compressed.iter().zip(self.plain.iter())
    }
}

/// Datagrams and how to read each.
#[derive(Default)]
struct Datagrams {
    bytes: Blobs,
    ctx: Vec<PacketCtx>,
}

impl Datagrams {
    fn len(&self) -> usize {
        self.ctx.len()
    }

    fn truncate(&mut self, n: usize) {
        self.bytes.truncate(n);
        self.ctx.truncate(n);
    }

    fn iter(&self) -> impl Iterator<Item = (&[u8], PacketCtx)> {
        self.bytes.iter().zip(self.ctx.iter().copied())
    }
}

/// Appends every compressed body of a capture, with its decompressed form,
/// to `payloads`; returns every datagram with the context the session
/// reads it with.
fn load(name: &str, payloads: &mut Payloads) -> Datagrams {
    let cap = read_capture(name);
    let port = session::server_port(&cap).expect("a server port");
    let mut session = session::Session::new(&cap, port);
    let mut datagrams = Datagrams::default();
    while let Some(d) = session.next_datagram() {
        let frame = d.datagram.frame;
        let packet = d
            .packet
            .as_ref()
            .unwrap_or_else(|e| panic!("{name} #{frame}: {e}"));
        assert_eq!(d.mismatch, None, "{name} #{frame}: re-encodes exactly");
        assert_eq!(
            d.payload_error, None,
            "{name} #{frame}: chunks and messages"
        );
        if let Packet::Connection(p) = packet
            && let Some(c) = &p.compression
        {
            assert_eq!(c.huffman.trailing, 0, "{name} #{frame}");
            let mut plain = p.payload.to_vec();
            plain.extend(p.token.iter().flatten());
            payloads.compressed.push(c.raw);
            payloads.plain.push(&plain);
        }
        datagrams.bytes.push(&d.datagram.payload);
        datagrams.ctx.push(PacketCtx {
            version: Some(d.version),
            token: TokenMode::Auto,
        });
    }
    assert_eq!(
        datagrams.len(),
        cap.datagrams.len(),
        "{name}: all to/from the server"
    );
    datagrams
}

/// teeoracle and libtw2 agree on every payload, in both directions, and
/// the DDNet >= 20.0 writers reproduce the captured bytes.
fn verify_huffman(payloads: &Payloads) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; LIBTW2_BUF];
    for (i, (compressed, plain)) in payloads.iter().enumerate() {
        out.clear();
        let info = decompress(compressed, &mut out, MAX_PAYLOAD, 0).unwrap();
        assert_eq!(out, plain, "payload {i}");
        assert_eq!(
            info.flavor(Flavor::Ddnet),
            Some(Flavor::Ddnet),
            "payload {i}"
        );
        let theirs = libtw2_huffman::decompress_into(compressed, &mut buf[..]).unwrap();
        assert_eq!(theirs, plain, "payload {i}: libtw2 decompress");
        assert_eq!(
            compress_to_vec(plain, Flavor::Ddnet),
            compressed,
            "payload {i}"
        );
        let theirs = libtw2_huffman::compress_into(plain, &mut buf[..]).unwrap();
        assert_eq!(theirs, compressed, "payload {i}: libtw2 compress");
        let legacy = compress_to_vec(plain, Flavor::Legacy);
        let theirs = LIBTW2.compress_bug(plain, &mut buf[..]).unwrap();
        assert_eq!(theirs, legacy, "payload {i}: legacy writers");
    }
}

/// Decodes and re-encodes every datagram; with `chunks`, also splits every
/// data packet into chunks. Returns (bytes re-encoded, chunks).
#[inline(never)]
fn decode_encode(datagrams: &Datagrams, out: &mut Vec<u8>, chunks: bool) -> (usize, usize) {
    let (mut bytes, mut n) = (0, 0);
    for (datagram, ctx) in datagrams.iter() {
        let p = Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx).unwrap();
        out.clear();
        p.encode(out, ctx);
        bytes += out.len();
        if chunks {
            n += data_chunks(&p);
        }
    }
    (bytes, n)
}

/// Decodes every datagram; returns the total payload length.
#[inline(never)]
fn decode_only(datagrams: &Datagrams) -> usize {
    let mut len = 0;
    for (datagram, ctx) in datagrams.iter() {
        let p = Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx).unwrap();
        len += match black_box(&p) {
            Packet::Connection(c) => c.payload.len(),
            Packet::Connless06 { payload, .. } | Packet::Connless07 { payload, .. } => {
                payload.len()
            }
        };
    }
    len
}

fn data_chunks(p: &Packet<'_>) -> usize {
    match p {
        Packet::Connection(c) if !c.is_control() => chunk_count(c),
        _ => 0,
    }
}

fn chunk_count(c: &ConnPacket<'_>) -> usize {
    let (chunks, _) = c.chunks().unwrap();
    black_box(&chunks);
    chunks.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Criterion's rule: without `--bench` (cargo test) it runs each
    // benchmark once, unoptimised; keep the data small there.
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");

    let mut payloads = Payloads::default();
    let mut datagrams = Datagrams::default();
    for name in CAPTURES {
        let d = load(name, &mut payloads);
        if *name == PACKET_CAPTURE {
            datagrams = d;
        }
    }
    let compressed_packets = datagrams
        .iter()
        .filter(|&(datagram, ctx)| {
            let p = Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx).unwrap();
            matches!(p, Packet::Connection(c) if c.compression.is_some())
        })
        .count();
    assert_eq!(
        (payloads.len(), datagrams.len(), compressed_packets),
        (ALL_COMPRESSED, B_DATAGRAMS, B_COMPRESSED)
    );
    // Test mode checks and times a prefix, so that `cargo test --benches`
    // stays quick.
    if !bench_mode {
        payloads.truncate(300);
        datagrams.truncate(600);
    }
    verify_huffman(&payloads);
    let plain_len = payloads.plain.size();
    let compressed_len = payloads.compressed.size();
    let wire_len = datagrams.bytes.size();
    let legacy_len: usize = payloads
        .iter()
        .map(|(_, plain)| compress_to_vec(plain, Flavor::Legacy).len())
        .sum();
    let mut out = Vec::with_capacity(2 * MAX_PAYLOAD);
    let (encoded, chunks) = decode_encode(&datagrams, &mut out, true);
    assert_eq!(encoded, wire_len);
    if bench_mode {
        assert_eq!(chunks, B_CHUNKS);
    }
    eprintln!(
        "huffman: {} payloads, {plain_len} bytes plain, {compressed_len} compressed ({:.1}%), mean {:.0} plain bytes",
        payloads.len(),
        100.0 * compressed_len as f64 / plain_len as f64,
        plain_len as f64 / payloads.len() as f64,
    );
    eprintln!(
        "packets: {} datagrams of {PACKET_CAPTURE}, {wire_len} wire bytes, {chunks} chunks",
        datagrams.len(),
    );

    // One iteration is a few milliseconds: flat sampling, few samples, so
    // the whole run stays around a minute.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();

    let mut g = c.benchmark_group("huffman_decompress");
    g.throughput(Throughput::Bytes(plain_len as u64))
        .sampling_mode(SamplingMode::Flat);
    g.bench_function("teeoracle", |b| {
        let mut out = Vec::with_capacity(MAX_PAYLOAD);
        b.iter(|| {
            let mut n = 0;
            for (compressed, _) in black_box(&payloads).iter() {
                out.clear();
                decompress(compressed, &mut out, MAX_PAYLOAD, 0).unwrap();
                n += out.len();
            }
            assert_eq!(n, plain_len);
        })
    });
    g.bench_function("libtw2", |b| {
        let mut buf = vec![0u8; LIBTW2_BUF];
        b.iter(|| {
            let mut n = 0;
            for (compressed, _) in black_box(&payloads).iter() {
                n += libtw2_huffman::decompress_into(compressed, &mut buf[..])
                    .unwrap()
                    .len();
            }
            assert_eq!(n, plain_len);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("huffman_compress");
    g.throughput(Throughput::Bytes(plain_len as u64))
        .sampling_mode(SamplingMode::Flat);
    for (name, flavor, len) in [
        ("teeoracle_ddnet", Flavor::Ddnet, compressed_len),
        ("teeoracle_legacy", Flavor::Legacy, legacy_len),
    ] {
        g.bench_function(name, |b| {
            let mut out = Vec::with_capacity(2 * MAX_PAYLOAD);
            b.iter(|| {
                let mut n = 0;
                for (_, plain) in black_box(&payloads).iter() {
                    out.clear();
                    compress(plain, flavor, &mut out);
                    n += out.len();
                }
                assert_eq!(n, len);
            })
        });
    }
    g.bench_function("libtw2_compress", |b| {
        let mut buf = vec![0u8; LIBTW2_BUF];
        b.iter(|| {
            let mut n = 0;
            for (_, plain) in black_box(&payloads).iter() {
                n += libtw2_huffman::compress_into(plain, &mut buf[..])
                    .unwrap()
                    .len();
            }
            assert_eq!(n, compressed_len);
        })
    });
    g.bench_function("libtw2_compress_bug", |b| {
        let mut buf = vec![0u8; LIBTW2_BUF];
        b.iter(|| {
            let mut n = 0;
            for (_, plain) in black_box(&payloads).iter() {
                n += LIBTW2.compress_bug(plain, &mut buf[..]).unwrap().len();
            }
            assert_eq!(n, legacy_len);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("packet");
    g.throughput(Throughput::ElementsAndBytes {
        elements: datagrams.len() as u64,
        bytes: wire_len as u64,
    })
    .sampling_mode(SamplingMode::Flat);
    g.bench_function("decode_encode", |b| {
        b.iter(|| {
            let (n, _) = decode_encode(black_box(&datagrams), &mut out, false);
            assert_eq!(n, wire_len);
        })
    });
    g.bench_function("decode_encode_chunks", |b| {
        b.iter(|| {
            assert_eq!(
                decode_encode(black_box(&datagrams), &mut out, true),
                (wire_len, chunks)
            );
        })
    });
    g.bench_function("decode", |b| {
        b.iter(|| black_box(decode_only(black_box(&datagrams))))
    });
    g.finish();

    // The whole session of B: every datagram decoded once down to its
    // message fields, re-encoded at every layer, and replayed (sequence
    // numbers, snapshot reassembly and rebuilding per connection).
    let capture = read_capture(PACKET_CAPTURE);
    let port = session::server_port(&capture).unwrap();
    let mut g = c.benchmark_group("session");
    g.throughput(Throughput::ElementsAndBytes {
        elements: capture.datagrams.len() as u64,
        bytes: wire_len as u64,
    })
    .sampling_mode(SamplingMode::Flat);
    g.bench_function("decode_replay", |b| {
        b.iter(|| {
            let (summary, replay) = session::Session::new(black_box(&capture), port).finish();
            assert_eq!(summary.exact, B_DATAGRAMS);
            black_box(replay)
        })
    });
    g.finish();

    c.final_summary();
}
