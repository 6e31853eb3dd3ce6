//! The Huffman coder's tests: known streams from DDNet, both writers
//! (flavours), hostile input, and properties over random data.

use super::*;
use crate::testing::qc;
use quickcheck::TestResult;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

fn decompress_all(input: &[u8]) -> Result<(Vec<u8>, HuffmanInfo), DecodeError> {
    let mut out = Vec::new();
    decompress(input, &mut out, usize::MAX, 0).map(|info| (out, info))
}

fn corpus(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/huffman/libtw2/");
    std::fs::read_to_string(format!("{path}{name}")).unwrap()
}

// DDNet src/test/huffman_test.cpp and the spec (section 3).
#[test]
fn ddnet_golden_vectors() {
    let mut eight = vec![0, 1, 2, 3, 4, 5, 6, 7];
    eight.extend([0; 56]);
    let mut fifteen = vec![0x15];
    fifteen.extend([0; 63]);
    for (plain, compressed) in [
        (vec![], "8a1b"),
        (eight, "515878761bb7ffffffffffff7fc50d"),
        (fifteen, "befdffffffffffffff1537"),
    ] {
        assert_eq!(
            hex::encode(compress_to_vec(&plain, Flavor::Ddnet)),
            compressed
        );
        let (back, info) = decompress_all(&unhex(compressed)).unwrap();
        assert_eq!(back, plain);
        assert!(info.ddnet && info.trailing == 0, "{info:?}");
    }
    assert_eq!(TREE.codes[0], (1, 1), "symbol 0 is the single bit 1");
    assert_eq!(TREE.codes[EOF_SYMBOL], (0x1b8a, 15));
}

#[test]
fn ddnet_fuzz_regressions_fail() {
    for input in ["1a", "629162a9", "4c04fe0068", "", "00", "ffffffff"] {
        assert!(decompress_all(&unhex(input)).is_err(), "{input}");
    }
}

/// libtw2's `repr`: the code of every symbol, first bit first.
#[test]
fn codes_match_libtw2_repr() {
    let repr = corpus("repr");
    let lines: Vec<&str> = repr.lines().collect();
    assert_eq!(lines.len(), NUM_SYMBOLS);
    for (symbol, line) in lines.iter().enumerate() {
        let (bits, len) = TREE.codes[symbol];
        let ours: String = (0..len)
            .map(|i| if bits >> i & 1 == 1 { '1' } else { '0' })
            .collect();
        assert_eq!(ours, *line, "symbol {symbol}");
    }
}

/// libtw2's `test_cases`: the reference C++ compressor's output, which
/// is the legacy flavor (extra zero byte on a byte boundary).
#[test]
fn libtw2_reference_cases_are_legacy_and_exact() {
    let cases = corpus("test_cases");
    let mut boundary = 0;
    for line in cases.lines() {
        let (plain, compressed) = line.split_once('#').unwrap();
        let (plain, compressed) = (unhex(plain), unhex(compressed));
        assert_eq!(
            compress_to_vec(&plain, Flavor::Legacy),
            compressed,
            "{line}"
        );
        let (back, info) = decompress_all(&compressed).unwrap();
        assert_eq!(back, plain);
        assert!(info.legacy && info.trailing == 0, "{info:?}");
        assert_eq!(info.len, compressed.len());
        if info.bits.is_multiple_of(8) {
            boundary += 1;
            assert!(!info.ddnet, "{line}: {info:?}");
            assert_eq!(
                compress_to_vec(&plain, Flavor::Ddnet),
                compressed[..compressed.len() - 1]
            );
        }
    }
    assert!(boundary > 0, "the vectors include the extra-byte case");
}

#[test]
fn output_bound_is_enforced() {
    let compressed = compress_to_vec(b"hello", Flavor::Ddnet);
    let mut out = Vec::new();
    let err = decompress(&compressed, &mut out, 4, 100).unwrap_err();
    assert!(
        matches!(err.kind, ErrorKind::LengthTooLarge { max: 4, .. }),
        "{err}"
    );
    assert_eq!(out, b"hell");
}

#[test]
fn trailing_bytes_and_padding_are_reported() {
    let mut c = compress_to_vec(b"abc", Flavor::Ddnet);
    let info = decompress_all(&c).unwrap().1;
    c.extend([7, 7]);
    let with_tail = decompress_all(&c).unwrap().1;
    assert_eq!(with_tail.trailing, 2);
    assert_eq!(with_tail.len, info.len);
    if !info.bits.is_multiple_of(8) {
        let last = info.len - 1;
        c[last] |= 0x80;
        let dirty = decompress_all(&c).unwrap().1;
        assert!(
            !dirty.ddnet && !dirty.legacy,
            "non-zero padding: neither writer"
        );
    }
}

#[test]
fn prop_round_trip_both_flavors() {
    fn prop(data: Vec<u8>, legacy: bool) -> bool {
        let flavor = if legacy {
            Flavor::Legacy
        } else {
            Flavor::Ddnet
        };
        let c = compress_to_vec(&data, flavor);
        let (back, info) = decompress_all(&c).unwrap();
        back == data
            && info.trailing == 0
            && info.flavor(flavor) == Some(flavor)
            && compress_to_vec(&back, info.flavor(flavor).unwrap()) == c
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<u8>, bool) -> bool);
}

/// The bit-at-a-time compressor this module had first.
fn compress_ref(input: &[u8], flavor: Flavor, out: &mut Vec<u8>) {
    let tree = &TREE;
    out.reserve(input.len() + 4);
    let mut acc: u64 = 0;
    let mut count: u32 = 0;
    for &byte in input {
        let (bits, len) = tree.codes[byte as usize];
        acc |= (bits as u64) << count;
        count += len as u32;
        if count >= 32 {
            out.extend_from_slice(&(acc as u32).to_le_bytes());
            acc >>= 32;
            count -= 32;
        }
    }
    let (bits, len) = tree.codes[EOF_SYMBOL];
    acc |= (bits as u64) << count;
    count += len as u32;
    while count >= 8 {
        out.push(acc as u8);
        acc >>= 8;
        count -= 8;
    }
    if count > 0 || flavor == Flavor::Legacy {
        out.push(acc as u8);
    }
}

/// The one-symbol-per-lookup decompressor this module had first.
fn decompress_ref(
    input: &[u8],
    out: &mut Vec<u8>,
    max_out: usize,
    base: u64,
) -> Result<HuffmanInfo, DecodeError> {
    let tree = &TREE;
    let mut bits = BitReader::new(input);
    let start_len = out.len();
    loop {
        bits.refill();
        // Bit by bit from the root (codes are at most 15 bits, all in
        // the buffer after a refill).
        let (mut node, mut len) = (NUM_SYMBOLS + tree.children.len() - 1, 0u32);
        while node >= NUM_SYMBOLS {
            let bit = (bits.buf >> len & 1) as usize;
            node = tree.children[node - NUM_SYMBOLS][bit] as usize;
            len += 1;
        }
        let symbol = node;
        if len > bits.available {
            // The buffer was padded with zeros past the end of the input.
            return Err(DecodeError::new(
                base + input.len() as u64,
                "huffman",
                ErrorKind::UnexpectedEof {
                    needed: (len - bits.available).div_ceil(8) as usize,
                    available: 0,
                },
            ));
        }
        bits.consume(len);
        if symbol == EOF_SYMBOL {
            break;
        }
        if out.len() - start_len == max_out {
            return Err(DecodeError::new(
                base + (bits.consumed / 8) as u64,
                "huffman",
                ErrorKind::LengthTooLarge {
                    len: (max_out + 1) as i64,
                    max: max_out,
                },
            ));
        }
        out.push(symbol as u8);
    }
    Ok(stream_info(input, bits.consumed))
}

/// LSB-first bits of a byte slice, 64 at a time; zeros past the end (the
/// caller checks `available`).
struct BitReader<'a> {
    input: &'a [u8],
    /// Next byte to load.
    pos: usize,
    buf: u64,
    /// Real (not padding) bits in `buf`.
    available: u32,
    /// Bits consumed so far.
    consumed: usize,
}

impl<'a> BitReader<'a> {
    fn new(input: &'a [u8]) -> Self {
        BitReader {
            input,
            pos: 0,
            buf: 0,
            available: 0,
            consumed: 0,
        }
    }

    /// Tops the buffer up to at least 56 real bits, or to the end of input.
    #[inline(always)]
    fn refill(&mut self) {
        if self.available > 56 {
            return;
        }
        if let Some(word) = self.input.get(self.pos..self.pos + 8) {
            // Branchless: load 8 bytes, keep the whole ones that fit. Bits
            // above them are loaded again, identically, next time.
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            self.buf |= word << self.available;
            let take = (63 - self.available) / 8;
            self.pos += take as usize;
            self.available += take * 8;
        } else {
            while self.available <= 56 && self.pos < self.input.len() {
                self.buf |= u64::from(self.input[self.pos]) << self.available;
                self.pos += 1;
                self.available += 8;
            }
        }
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.available -= n;
        self.consumed += n as usize;
    }
}

#[test]
fn compress_same_as_reference() {
    fn prop(data: Vec<u8>, prefix: Vec<u8>, split: usize, legacy: bool) -> bool {
        let flavor = if legacy {
            Flavor::Legacy
        } else {
            Flavor::Ddnet
        };
        let (mut a, mut b, mut c) = (prefix.clone(), prefix.clone(), prefix);
        compress(&data, flavor, &mut a);
        compress_ref(&data, flavor, &mut b);
        let (x, y) = data.split_at(split % (data.len() + 1));
        compress_parts(&[x, y], flavor, &mut c);
        a == b && a == c
    }
    qc().tests(5_000)
        .quickcheck(prop as fn(Vec<u8>, Vec<u8>, usize, bool) -> bool);
    for n in 0..40 {
        for fill in [0u8, 1, 0x47, 0xff] {
            for flavor in [Flavor::Ddnet, Flavor::Legacy] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                compress(&vec![fill; n], flavor, &mut a);
                compress_ref(&vec![fill; n], flavor, &mut b);
                assert_eq!(a, b, "{n} x {fill}");
            }
        }
    }
}

/// Inputs long enough to be decoded in halves: plain data repeated up
/// to a few KiB, cut anywhere, or arbitrary bytes; the halves decoder
/// must give the one-stream result, errors included.
#[test]
fn prop_halves_same_as_reference() {
    fn prop(plain: Vec<u8>, repeat: u8, cut: u16, noise: Vec<u8>, legacy: bool) -> bool {
        let flavor = if legacy {
            Flavor::Legacy
        } else {
            Flavor::Ddnet
        };
        let long: Vec<u8> = plain
            .iter()
            .copied()
            .cycle()
            .take(plain.len() * usize::from(repeat % 40))
            .collect();
        let mut c = compress_to_vec(&long, flavor);
        let whole = c.clone();
        c.truncate(c.len() - usize::from(cut) % (c.len() + 1) / 8);
        let noise: Vec<u8> = noise
            .iter()
            .copied()
            .cycle()
            .take(noise.len() * 8)
            .collect();
        [whole, c, noise].iter().all(|input| {
            let (mut a, mut b) = (vec![9u8], vec![9u8]);
            let ra = decompress(input, &mut a, usize::MAX, 3);
            let rb = decompress_ref(input, &mut b, usize::MAX, 3);
            format!("{ra:?}") == format!("{rb:?}") && a == b
        })
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<u8>, u8, u16, Vec<u8>, bool) -> bool);
}

/// On real payloads the halves meet (else they would only cost), and
/// what they decode is the one-stream result.
#[test]
fn halves_meet_on_real_payloads() {
    let bytes = crate::testing::corpus("demo/ddnet-20.1/B_eight_bots_dm1.demo");
    let (demo, _) = crate::demo::Demo::decode(&bytes).unwrap();
    let (mut tried, mut met) = (0, 0);
    for chunk in &demo.chunks {
        let crate::demo::Chunk::Data { payload, .. } = chunk else {
            continue;
        };
        let mut raw = Vec::new();
        payload.write_raw(&mut raw);
        if !(SPLIT_MIN..=SPLIT_MAX).contains(&raw.len()) {
            continue;
        }
        tried += 1;
        let mut halves = Vec::new();
        if decode_halves(&raw, &Bits::new(&raw), &mut halves).is_some() {
            met += 1;
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let ra = decompress(&raw, &mut a, usize::MAX, 0);
        let rb = decompress_ref(&raw, &mut b, usize::MAX, 0);
        assert_eq!(format!("{ra:?}"), format!("{rb:?}"));
        assert_eq!(a, b);
    }
    assert!(tried > 1000, "{tried} payloads long enough");
    assert!(met * 100 >= tried * 99, "{met} of {tried} met");
}

#[test]
fn decompress_same_as_reference() {
    fn prop(data: Vec<u8>, plain: Vec<u8>, max: u16, cut: u8, legacy: bool) -> bool {
        let flavor = if legacy {
            Flavor::Legacy
        } else {
            Flavor::Ddnet
        };
        let mut c = compress_to_vec(&plain, flavor);
        c.truncate(c.len() - usize::from(cut) % (c.len() + 1) / 4);
        let max = usize::from(max) % (plain.len() + 3);
        [
            (&data, usize::MAX),
            (&data, max % 40),
            (&c, max),
            (&c, usize::MAX),
        ]
        .into_iter()
        .all(|(input, max)| {
            let (mut a, mut b) = (vec![1u8], vec![1u8]);
            let ra = decompress(input, &mut a, max, 7);
            let rb = decompress_ref(input, &mut b, max, 7);
            format!("{ra:?}") == format!("{rb:?}") && a == b
        })
    }
    qc().tests(5_000)
        .quickcheck(prop as fn(Vec<u8>, Vec<u8>, u16, u8, bool) -> bool);
}

#[test]
fn prop_arbitrary_input_never_panics() {
    fn prop(data: Vec<u8>) -> TestResult {
        match decompress_all(&data) {
            Ok((plain, info)) => {
                // Whatever decodes re-encodes to its own bytes if a writer fits.
                match info.flavor(Flavor::Ddnet) {
                    Some(f) => {
                        TestResult::from_bool(compress_to_vec(&plain, f) == data[..info.len])
                    }
                    None => TestResult::passed(),
                }
            }
            Err(e) => TestResult::from_bool(e.offset <= data.len() as u64),
        }
    }
    qc().tests(5_000)
        .quickcheck(prop as fn(Vec<u8>) -> TestResult);
}
