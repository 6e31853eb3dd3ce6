//! DDNet's Huffman coder (`src/engine/shared/huffman.cpp`), byte-exact.
//!
//! The tree is built at first use from DDNet's frequency table exactly as
//! `CHuffman::ConstructTree` builds it; no code table is typed in. Codes are
//! written LSB-first. Two writers exist: DDNet >= 20.0 emits a final partial
//! byte only if bits remain; the legacy writer (vanilla 0.6/0.7, DDNet <=
//! 19.x) always emits one, so it adds a zero byte when the bits end on a
//! byte boundary. [`decompress`] reports which writer the input fits, so
//! [`compress`] can reproduce it exactly.

use crate::codec::{DecodeError, ErrorKind};
use std::sync::LazyLock;

/// Symbols: the 256 byte values and the end-of-stream marker.
const NUM_SYMBOLS: usize = 257;
/// The end-of-stream symbol.
const EOF_SYMBOL: usize = 256;
/// Bits resolved by one table lookup while decoding.
const LUT_BITS: u32 = 12;

/// DDNet's `CHuffman::ms_aFreqTable` for the 256 byte values; the EOF
/// symbol has frequency 1.
#[rustfmt::skip]
const FREQUENCIES: [u32; 256] = [
    1073741824, 4545, 2657, 431, 1950, 919, 444, 482, 2244, 617, 838, 542,
    715, 1814, 304, 240, 754, 212, 647, 186, 283, 131, 146, 166,
    543, 164, 167, 136, 179, 859, 363, 113, 157, 154, 204, 108,
    137, 180, 202, 176, 872, 404, 168, 134, 151, 111, 113, 109,
    120, 126, 129, 100, 41, 20, 16, 22, 18, 18, 17, 19,
    16, 37, 13, 21, 362, 166, 99, 78, 95, 88, 81, 70,
    83, 284, 91, 187, 77, 68, 52, 68, 59, 66, 61, 638,
    71, 157, 50, 46, 69, 43, 11, 24, 13, 19, 10, 12,
    12, 20, 14, 9, 20, 20, 10, 10, 15, 15, 12, 12,
    7, 19, 15, 14, 13, 18, 35, 19, 17, 14, 8, 5,
    15, 17, 9, 15, 14, 18, 8, 10, 2173, 134, 157, 68,
    188, 60, 170, 60, 194, 62, 175, 71, 148, 67, 167, 78,
    211, 67, 156, 69, 1674, 90, 174, 53, 147, 89, 181, 51,
    174, 63, 163, 80, 167, 94, 128, 122, 223, 153, 218, 77,
    200, 110, 190, 73, 174, 69, 145, 66, 277, 143, 141, 60,
    136, 53, 180, 57, 142, 57, 158, 61, 166, 112, 152, 92,
    26, 22, 21, 28, 20, 26, 30, 21, 32, 27, 20, 17,
    23, 21, 30, 22, 22, 21, 27, 25, 17, 27, 23, 18,
    39, 26, 15, 21, 12, 18, 18, 27, 20, 18, 15, 19,
    11, 17, 33, 12, 18, 15, 19, 18, 16, 26, 17, 18,
    9, 10, 25, 22, 22, 17, 20, 16, 6, 16, 15, 20,
    14, 18, 24, 335,
];

/// Which writer's output to produce (or which one produced an input).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavor {
    /// DDNet >= 20.0: the last byte only if bits remain.
    Ddnet,
    /// Vanilla Teeworlds 0.6/0.7 and DDNet <= 19.x: always a last byte, so
    /// an extra zero byte when the bits end on a byte boundary.
    Legacy,
}

/// What [`decompress`] learned about the compressed input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HuffmanInfo {
    /// Bits up to and including the EOF code.
    pub bits: usize,
    /// Bytes of input the compressed stream takes, as its writer made it:
    /// `ceil(bits / 8)`, plus the legacy zero byte if present.
    pub len: usize,
    /// True if the DDNet >= 20.0 writer produces exactly `input[..len]`.
    pub ddnet: bool,
    /// True if the legacy writer produces exactly `input[..len]`.
    pub legacy: bool,
    /// Bytes after the compressed stream (DDNet ignores them).
    pub trailing: usize,
}

impl HuffmanInfo {
    /// A flavor that reproduces the input, preferring `preferred`; `None`
    /// if neither writer produces these bytes (non-zero padding bits).
    pub fn flavor(&self, preferred: Flavor) -> Option<Flavor> {
        match (self.ddnet, self.legacy) {
            (true, true) => Some(preferred),
            (true, false) => Some(Flavor::Ddnet),
            (false, true) => Some(Flavor::Legacy),
            (false, false) => None,
        }
    }
}

/// The code tree and the tables derived from it.
struct Tree {
    /// Children of internal nodes `NUM_SYMBOLS..`: `[leaf 0 bit, leaf 1 bit]`.
    children: Vec<[u16; 2]>,
    /// Code of each symbol: bits (first bit in bit 0) and length.
    codes: [(u32, u8); NUM_SYMBOLS],
    /// For every `LUT_BITS`-bit window: the symbol and code length, or for
    /// longer codes the internal node reached after `LUT_BITS` bits.
    lut: Vec<LutEntry>,
}

#[derive(Clone, Copy, Default)]
struct LutEntry {
    /// A symbol if `len > 0`, else an internal node.
    node: u16,
    len: u8,
}

static TREE: LazyLock<Tree> = LazyLock::new(Tree::build);

impl Tree {
    fn build() -> Tree {
        // (frequency, node id); DDNet bubble-sorts by descending frequency,
        // which is stable, then merges the two last (lowest) entries, the
        // new node taking the second-last slot.
        let mut left: Vec<(u32, u16)> = (0..NUM_SYMBOLS)
            .map(|i| (FREQUENCIES.get(i).copied().unwrap_or(1), i as u16))
            .collect();
        let mut children = Vec::with_capacity(NUM_SYMBOLS - 1);
        while let [.., _, _] = left[..] {
            left.sort_by_key(|&(freq, _)| std::cmp::Reverse(freq));
            let (Some(a), Some(b)) = (left.pop(), left.last_mut()) else {
                break;
            };
            let id = (NUM_SYMBOLS + children.len()) as u16;
            children.push([a.1, b.1]);
            *b = (a.0.wrapping_add(b.0), id);
        }
        let root = (NUM_SYMBOLS + children.len() - 1) as u16;
        let mut codes = [(0u32, 0u8); NUM_SYMBOLS];
        // Depth-first: bit 1 for the second child, first bit in bit 0.
        let mut stack = vec![(root, 0u32, 0u8)];
        while let Some((node, bits, depth)) = stack.pop() {
            if (node as usize) < NUM_SYMBOLS {
                codes[node as usize] = (bits, depth);
            } else {
                let [zero, one] = children[node as usize - NUM_SYMBOLS];
                stack.push((zero, bits, depth + 1));
                stack.push((one, bits | 1 << depth, depth + 1));
            }
        }
        let mut lut = vec![LutEntry::default(); 1 << LUT_BITS];
        for (window, entry) in lut.iter_mut().enumerate() {
            let mut node = root;
            let mut len = 0u8;
            while node as usize >= NUM_SYMBOLS && (len as u32) < LUT_BITS {
                node = children[node as usize - NUM_SYMBOLS][(window >> len) & 1];
                len += 1;
            }
            *entry = if (node as usize) < NUM_SYMBOLS {
                LutEntry { node, len }
            } else {
                LutEntry { node, len: 0 }
            };
        }
        Tree {
            children,
            codes,
            lut,
        }
    }
}

/// Appends the compressed form of `input` in the given writer's flavor.
pub fn compress(input: &[u8], flavor: Flavor, out: &mut Vec<u8>) {
    let tree = &*TREE;
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

/// Compresses into a new vector.
pub fn compress_to_vec(input: &[u8], flavor: Flavor) -> Vec<u8> {
    let mut out = Vec::new();
    compress(input, flavor, &mut out);
    out
}

/// Decompresses `input`, appending at most `max_out` bytes to `out`, with
/// DDNet's error rules: the stream must end with the EOF code before the
/// input's bits run out, and the output must fit. Offsets in errors are
/// relative to `base`, the position of `input[0]` in the enclosing data.
pub fn decompress(
    input: &[u8],
    out: &mut Vec<u8>,
    max_out: usize,
    base: u64,
) -> Result<HuffmanInfo, DecodeError> {
    let tree = &*TREE;
    let mut bits = BitReader::new(input);
    let start_len = out.len();
    loop {
        bits.refill();
        let entry = tree.lut[(bits.buf & ((1 << LUT_BITS) - 1)) as usize];
        let (symbol, len) = if entry.len > 0 {
            (entry.node as usize, u32::from(entry.len))
        } else {
            // A code longer than the table: walk on bit by bit (codes are
            // at most 15 bits, all in the buffer after a refill).
            let mut node = entry.node as usize;
            let mut len = LUT_BITS;
            while node >= NUM_SYMBOLS {
                let bit = (bits.buf >> len & 1) as usize;
                node = tree.children[node - NUM_SYMBOLS][bit] as usize;
                len += 1;
            }
            (node, len)
        };
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

/// Which writers produce `input` given that its EOF code ends at bit `bits`.
fn stream_info(input: &[u8], bits: usize) -> HuffmanInfo {
    let whole = bits / 8;
    let rem = bits % 8;
    // Padding bits after EOF in the last byte must be zero for any writer.
    let clean = rem == 0 || input[whole] >> rem == 0;
    let ddnet_len = bits.div_ceil(8);
    let legacy_zero = rem == 0 && input.get(whole) == Some(&0);
    let (len, legacy) = if rem != 0 {
        (ddnet_len, clean)
    } else if legacy_zero {
        // Ambiguous: a DDNet stream followed by a zero byte, or a legacy
        // stream. Counting the zero byte as the legacy writer's is the
        // reading that explains every byte.
        (whole + 1, true)
    } else {
        (ddnet_len, false)
    };
    HuffmanInfo {
        bits,
        len,
        ddnet: clean && len == ddnet_len,
        legacy,
        trailing: input.len() - len,
    }
}

#[cfg(test)]
mod tests {
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
                assert!(!info.ddnet);
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
}
