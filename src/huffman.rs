//! DDNet's Huffman coder (`src/engine/shared/huffman.cpp`), byte-exact.
//!
//! The tree is built by the compiler from DDNet's frequency table exactly as
//! `CHuffman::ConstructTree` builds it; no code table is typed in. Codes are
//! written LSB-first. Two writers exist: DDNet >= 20.0 emits a final partial
//! byte only if bits remain; the legacy writer (vanilla 0.6/0.7, DDNet <=
//! 19.x) always emits one, so it adds a zero byte when the bits end on a
//! byte boundary. [`decompress`] reports which writer the input fits, so
//! [`compress`] can reproduce it exactly.

use crate::codec::{DecodeError, ErrorKind};
use std::cell::RefCell;

/// Symbols: the 256 byte values and the end-of-stream marker.
const NUM_SYMBOLS: usize = 257;
/// The end-of-stream symbol.
const EOF_SYMBOL: usize = 256;
/// The longest code's length (checked when the tables are built): one
/// lookup of a window this wide decodes any code.
const MAX_CODE_BITS: u32 = 15;
/// Mask of a `MAX_CODE_BITS` window.
const WINDOW: u64 = (1 << MAX_CODE_BITS) - 1;
/// Most symbols one fast-table entry yields; its 64-bit store writes 8
/// bytes (the last one its count).
const MULTI: usize = 7;

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
    #[cfg_attr(not(test), allow(dead_code))]
    children: [[u16; 2]; NUM_SYMBOLS - 1],
    /// Code of each symbol: bits (first bit in bit 0) and length.
    #[cfg_attr(not(test), allow(dead_code))]
    codes: [(u32, u8); NUM_SYMBOLS],
    /// `codes` packed for the compressor: bits in 0..16, length in 16..32.
    packed: [u32; NUM_SYMBOLS],
    /// For every `MAX_CODE_BITS`-bit window: its first symbol (bits 4..16)
    /// and that symbol's code length (bits 0..4).
    first: [u16; 1 << MAX_CODE_BITS],
    /// For every window, for the fast decoder: the total length of the
    /// byte symbols (up to `MULTI`) whose codes fit in it one after the
    /// other; 0 if the first symbol is EOF. Kept apart from `bytes`, and
    /// nothing else in the byte, so the lookup that the next window waits
    /// on reads a small table and shifts by what it reads.
    steps: [u8; 1 << MAX_CODE_BITS],
    /// For every window: those byte symbols (the first in bits 0..8) and,
    /// in bits 56..64, their number.
    bytes: [u64; 1 << MAX_CODE_BITS],
}

/// Built by the compiler: no process pays for it at start (a table built
/// at first use was a tenth of `demo stats` on a small demo).
static TREE: Tree = Tree::build();

impl Tree {
    const fn build() -> Tree {
        // (frequency, node id); DDNet sorts by descending frequency,
        // stably, then merges the two last (lowest) entries, the new node
        // taking the second-last slot.
        let mut left = [(1u32, 0u16); NUM_SYMBOLS];
        let mut n = 0;
        while n < NUM_SYMBOLS {
            if n < FREQUENCIES.len() {
                left[n].0 = FREQUENCIES[n];
            }
            left[n].1 = n as u16;
            n += 1;
        }
        let mut children = [[0u16; 2]; NUM_SYMBOLS - 1];
        let mut made = 0;
        while n > 1 {
            // A stable insertion sort: only the last merged node is out of
            // place, so it is linear.
            let mut i = 1;
            while i < n {
                let item = left[i];
                let mut j = i;
                while j > 0 && left[j - 1].0 < item.0 {
                    left[j] = left[j - 1];
                    j -= 1;
                }
                left[j] = item;
                i += 1;
            }
            let (a, b) = (left[n - 1], left[n - 2]);
            children[made] = [a.1, b.1];
            left[n - 2] = (a.0.wrapping_add(b.0), (NUM_SYMBOLS + made) as u16);
            made += 1;
            n -= 1;
        }
        let mut codes = [(0u32, 0u8); NUM_SYMBOLS];
        // Depth-first from the root: bit 1 for the second child, first bit
        // in bit 0. The stack holds at most one node per level and one.
        let mut stack = [(0u16, 0u32, 0u8); NUM_SYMBOLS];
        stack[0].0 = (NUM_SYMBOLS + made - 1) as u16;
        let mut depth_of_stack = 1;
        while depth_of_stack > 0 {
            depth_of_stack -= 1;
            let (node, bits, depth) = stack[depth_of_stack];
            if (node as usize) < NUM_SYMBOLS {
                assert!(depth as u32 <= MAX_CODE_BITS, "one window holds every code");
                codes[node as usize] = (bits, depth);
            } else {
                let [zero, one] = children[node as usize - NUM_SYMBOLS];
                stack[depth_of_stack] = (zero, bits, depth + 1);
                stack[depth_of_stack + 1] = (one, bits | 1 << depth, depth + 1);
                depth_of_stack += 2;
            }
        }
        let mut packed = [0u32; NUM_SYMBOLS];
        // Each code fills the windows that start with it.
        let mut first = [0u16; 1 << MAX_CODE_BITS];
        let mut symbol = 0;
        while symbol < NUM_SYMBOLS {
            let (bits, len) = codes[symbol];
            packed[symbol] = bits | (len as u32) << 16;
            let mut rest = 0;
            while rest < 1 << (MAX_CODE_BITS - len as u32) {
                first[bits as usize | rest << len] = (symbol as u16) << 4 | len as u16;
                rest += 1;
            }
            symbol += 1;
        }
        // The byte symbols whose codes fill each window one after the
        // other, as far as its bits go.
        let mut steps = [0u8; 1 << MAX_CODE_BITS];
        let mut bytes = [0u64; 1 << MAX_CODE_BITS];
        let mut window = 0;
        while window < 1 << MAX_CODE_BITS {
            let (mut count, mut len) = (0, 0);
            while count < MULTI {
                let f = first[window >> len];
                let (symbol, code_len) = ((f >> 4) as u64, (f & 15) as u32);
                if symbol == EOF_SYMBOL as u64 || len + code_len > MAX_CODE_BITS {
                    break;
                }
                bytes[window] |= symbol << (8 * count);
                count += 1;
                len += code_len;
            }
            bytes[window] |= (count as u64) << 56;
            steps[window] = len as u8;
            window += 1;
        }
        Tree {
            children,
            codes,
            packed,
            first,
            steps,
            bytes,
        }
    }
}

/// Reads the fast decoder's tables (`steps` and `bytes`, 288 KiB) once,
/// line after line, for a caller about to decode many payloads: the
/// hardware prefetcher brings them in far faster than the lookups' cache
/// misses one at a time, which held up a small demo's Huffman.
pub fn warm_decoder() {
    let tree = &TREE;
    // A value from each 64-byte line.
    let bytes = tree.bytes.iter().step_by(8).fold(0, |x, &e| x ^ e);
    let steps = tree.steps.iter().step_by(64).fold(0, |x, &s| x ^ s);
    std::hint::black_box((bytes, steps));
}

/// Appends the compressed form of `input` in the given writer's flavor.
pub fn compress(input: &[u8], flavor: Flavor, out: &mut Vec<u8>) {
    compress_parts(&[input], flavor, out)
}

/// Appends the compressed form of the concatenation of `parts` (a payload
/// and its token, say) in the given writer's flavor.
pub fn compress_parts(parts: &[&[u8]], flavor: Flavor, out: &mut Vec<u8>) {
    /// Codes added between two stores: 7 pending bits and three codes of at
    /// most 15 bits fit the 64-bit accumulator.
    const GROUP: usize = 3;
    let tree = &TREE;
    let start = out.len();
    let len: usize = parts.iter().map(|p| p.len()).sum();
    // At most 15 bits a symbol (checked at build), EOF and the last byte
    // fit in `2 * len + 2` bytes; 8 more for the whole-word stores.
    out.resize(start + 2 * len + 2 + 8, 0);
    let buf = &mut out[start..];
    let mut acc: u64 = 0;
    let mut count: u32 = 0;
    let mut at = 0usize;
    // Stores the pending bits as a whole word and keeps the partial byte.
    let mut flush = |acc: &mut u64, count: &mut u32, at: &mut usize| {
        buf[*at..*at + 8].copy_from_slice(&acc.to_le_bytes());
        let bytes = *count / 8;
        *at += bytes as usize;
        // At most 52 bits are pending, so the shift is below 64.
        *acc >>= bytes * 8;
        *count %= 8;
    };
    for part in parts {
        let mut groups = part.chunks_exact(GROUP);
        for group in &mut groups {
            for &byte in group {
                let code = tree.packed[byte as usize];
                acc |= u64::from(code & 0xffff) << count;
                count += code >> 16;
            }
            flush(&mut acc, &mut count, &mut at);
        }
        for &byte in groups.remainder() {
            let code = tree.packed[byte as usize];
            acc |= u64::from(code & 0xffff) << count;
            count += code >> 16;
        }
        flush(&mut acc, &mut count, &mut at);
    }
    let code = tree.packed[EOF_SYMBOL];
    acc |= u64::from(code & 0xffff) << count;
    count += code >> 16;
    flush(&mut acc, &mut count, &mut at);
    // The last store put the final `count` (< 8) bits at `at`.
    if count > 0 || flavor == Flavor::Legacy {
        at += 1;
    }
    out.truncate(start + at);
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
    let bits = Bits::new(input);
    let start_len = out.len();
    // Every symbol takes a bit, so with room for one byte per bit no
    // output bound is met and the halves can be decoded side by side.
    let pos = if (SPLIT_MIN..=SPLIT_MAX).contains(&input.len()) && max_out >= 8 * input.len() {
        decode_halves(input, &bits, out).unwrap_or(0)
    } else {
        0
    };
    decode_from(input, &bits, out, start_len, max_out, base, pos)
}

/// Inputs this long and longer, up to `SPLIT_MAX`, are decoded as two
/// halves side by side.
const SPLIT_MIN: usize = 64;
/// The longest input decoded in halves (their buffer is 8 bytes per input
/// byte and more).
const SPLIT_MAX: usize = 8 * 1024;
/// Lookups of the second half whose starts are kept to meet the first.
const MEET_WITHIN: usize = 32;

/// Decodes the two halves of `input` side by side, each lookup chain
/// hiding the other's latency. The second half starts at a guessed bit,
/// its middle byte: codes fall into step within a few symbols, so the
/// first half's decoding, carried on past the middle one symbol at a time,
/// soon lands on a lookup start of the second's, and from there both read
/// the same symbols. Appends to `out` what the first decodes up to there
/// and what the second decodes after it, and returns where the second
/// stopped (EOF or the last bits, left for [`decode_from`]). `None`, with
/// `out` as it was, if the halves do not meet within [`MEET_WITHIN`]
/// lookups or the first half ends early; the caller decodes from the
/// start then, so the result is always the one-stream result.
fn decode_halves(input: &[u8], bits: &Bits, out: &mut Vec<u8>) -> Option<usize> {
    thread_local! {
        /// The halves' output, kept from call to call: filling new room
        /// with zeros every time cost more than the copy out.
        static HALVES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    HALVES.with_borrow_mut(|halves| decode_halves_into(input, bits, out, halves))
}

/// [`decode_halves`] with `halves` for the halves' output.
fn decode_halves_into(
    input: &[u8],
    bits: &Bits,
    out: &mut Vec<u8>,
    halves: &mut Vec<u8>,
) -> Option<usize> {
    let tree = &TREE;
    let total_bits = input.len() * 8;
    let middle = input.len() / 2 * 8;
    // The first half writes at most a symbol per bit up to the middle, 3
    // lookups past it, then `MEET_WITHIN` lookups' bits symbol by symbol;
    // the second at most a symbol per bit after the middle; each store
    // writes 8 bytes.
    let room_a = middle + 3 * MAX_CODE_BITS as usize + MEET_WITHIN * MAX_CODE_BITS as usize + 8;
    let room_b = total_bits - middle + 8;
    if halves.len() < room_a + room_b {
        halves.resize(room_a + room_b, 0);
    }
    let (a_out, b_out) = halves.split_at_mut(room_a);
    let (mut a, mut b) = (Refill::at(bits, 0), Refill::at(bits, middle));
    let (mut na, mut nb) = (0usize, 0usize);
    // The second half's first lookups: where each starts, and how much it
    // had written.
    let mut starts = [(0usize, 0usize); MEET_WITHIN];
    let mut kept = 0;
    let mut a_done = false;
    let mut b_done = false;
    while !(a_done && b_done) {
        if !a_done {
            for _ in 0..3 {
                if !a.lookup(a_out, &mut na) {
                    // EOF before the middle: the stream ends there.
                    return None;
                }
            }
            a.refill(bits);
            a_done = a.pos() >= middle;
        }
        if !b_done {
            for _ in 0..3 {
                if kept < MEET_WITHIN {
                    starts[kept] = (b.pos(), nb);
                    kept += 1;
                }
                if !b.lookup(b_out, &mut nb) {
                    // EOF: left for `decode_from`.
                    b_done = true;
                    break;
                }
            }
            if !b_done {
                b.refill(bits);
                b_done = b.pos() + 3 * MAX_CODE_BITS as usize > total_bits;
            }
        }
    }
    // The first half on, one symbol at a time, to a lookup start of the
    // second's.
    let mut pos = a.pos();
    let mut next = 0;
    let meet = loop {
        while next < kept && starts[next].0 < pos {
            next += 1;
        }
        if next == kept || na == room_a {
            break None;
        }
        if starts[next].0 == pos {
            break Some(starts[next].1);
        }
        let f = tree.first[(bits.peek(pos) & WINDOW) as usize];
        if usize::from(f >> 4) == EOF_SYMBOL {
            break None;
        }
        a_out[na] = (f >> 4) as u8;
        na += 1;
        pos += usize::from(f & 15);
    };
    let meet = meet?;
    out.extend_from_slice(&a_out[..na]);
    out.extend_from_slice(&b_out[meet..nb]);
    Some(b.pos())
}

/// The bits from a position on, for the fast table: 56 or more after a
/// refill, whose load does not wait on the lookups before it (`at` moves
/// by the bytes the refill before it added), so it adds only a shift and
/// an OR to the chain from lookup to lookup.
struct Refill {
    acc: u64,
    /// Bits in `acc`.
    have: usize,
    /// The next byte to load.
    at: usize,
}

impl Refill {
    /// The buffer from bit `pos` on.
    #[inline]
    fn at(bits: &Bits, pos: usize) -> Refill {
        Refill {
            acc: bits.word(pos / 8) >> (pos % 8),
            have: 64 - pos % 8,
            at: pos / 8 + 8,
        }
    }

    /// The next bit's position.
    #[inline]
    fn pos(&self) -> usize {
        self.at * 8 - self.have
    }

    /// One lookup of the fast table: stores 8 bytes at `out[*n..]`, up to
    /// `MULTI` symbols and then their count (which only says how far `*n`
    /// moves), and takes their bits. `false`, having done nothing, if the
    /// next symbol is EOF. The lookup the next one waits on reads the small
    /// `steps` table.
    #[inline(always)]
    fn lookup(&mut self, out: &mut [u8], n: &mut usize) -> bool {
        let i = (self.acc & WINDOW) as usize;
        let step = TREE.steps[i];
        if step == 0 {
            return false;
        }
        let e = TREE.bytes[i];
        out[*n..*n + 8].copy_from_slice(&e.to_le_bytes());
        *n += (e >> 56) as usize;
        self.acc >>= step;
        self.have -= usize::from(step);
        true
    }

    /// At least 56 bits again; only after a lookup has taken some (a
    /// full buffer would shift a word by all its bits).
    #[inline]
    fn refill(&mut self, bits: &Bits) {
        self.acc |= bits.word(self.at) << self.have;
        self.at += (63 - self.have) >> 3;
        self.have |= 56;
    }
}

/// [`decompress`] from bit `pos` on, `out` holding what the bits before it
/// decoded to (from `start_len` on).
fn decode_from(
    input: &[u8],
    bits: &Bits,
    out: &mut Vec<u8>,
    start_len: usize,
    max_out: usize,
    base: u64,
    mut pos: usize,
) -> Result<HuffmanInfo, DecodeError> {
    let tree = &TREE;
    let total_bits = input.len() * 8;
    // Symbols decoded by the table loops, not yet appended to `out`.
    let mut buf = [0u8; 256];
    let mut used = 0usize;
    loop {
        // Fast: three lookups per refill while every bit they may take
        // (3 * MAX_CODE_BITS) is input, `max_out` is far and `buf` has room.
        let mut r = Refill::at(bits, pos);
        while r.pos() + 3 * MAX_CODE_BITS as usize <= total_bits
            && out.len() - start_len + used + 3 * MULTI <= max_out
            && used < buf.len() - 3 * MULTI
        {
            for _ in 0..3 {
                if !r.lookup(&mut buf, &mut used) {
                    // EOF, within the bits checked to be input.
                    out.extend_from_slice(&buf[..used]);
                    return Ok(stream_info(input, r.pos() + MAX_CODE_BITS as usize));
                }
            }
            r.refill(bits);
        }
        pos = r.pos();
        // Near the end: one lookup per load while its bits are all input.
        while pos + MAX_CODE_BITS as usize <= total_bits
            && out.len() - start_len + used + MULTI <= max_out
            && used <= buf.len() - 8
        {
            let mut r = Refill::at(bits, pos);
            if !r.lookup(&mut buf, &mut used) {
                break;
            }
            pos = r.pos();
        }
        out.extend_from_slice(&buf[..used]);
        used = 0;
        // One symbol, carefully: EOF, the end of the input, the output
        // bound.
        let f = tree.first[(bits.peek(pos) & WINDOW) as usize];
        let (symbol, len) = (usize::from(f >> 4), usize::from(f & 15));
        if pos + len > total_bits {
            return Err(DecodeError::new(
                base + input.len() as u64,
                "huffman",
                ErrorKind::UnexpectedEof {
                    needed: (pos + len - total_bits).div_ceil(8),
                    available: 0,
                },
            ));
        }
        pos += len;
        if symbol == EOF_SYMBOL {
            break;
        }
        if out.len() - start_len == max_out {
            return Err(DecodeError::new(
                base + (pos / 8) as u64,
                "huffman",
                ErrorKind::LengthTooLarge {
                    len: (max_out + 1) as i64,
                    max: max_out,
                },
            ));
        }
        out.push(symbol as u8);
    }
    Ok(stream_info(input, pos))
}

/// The input as a bit stream, zero past its end.
struct Bits<'a> {
    input: &'a [u8],
    /// The input from `tail_start` on (its last 8 bytes at most), then
    /// zeros: enough for a word read at any byte up to 7 past the end.
    tail: [u8; 24],
    tail_start: usize,
}

impl<'a> Bits<'a> {
    fn new(input: &'a [u8]) -> Self {
        let mut tail = [0u8; 24];
        let tail_start = match input.last_chunk::<8>() {
            Some(last) => {
                tail[..8].copy_from_slice(last);
                input.len() - 8
            }
            None => {
                tail[..input.len()].copy_from_slice(input);
                0
            }
        };
        Bits {
            input,
            tail,
            tail_start,
        }
    }

    /// At least 57 bits from bit `pos` on (LSB-first), `pos` up to the end.
    #[inline]
    fn peek(&self, pos: usize) -> u64 {
        self.word(pos / 8) >> (pos % 8)
    }

    /// The 8 bytes from `byte` on, little-endian, `byte` at most 7 past
    /// the end.
    #[inline]
    fn word(&self, byte: usize) -> u64 {
        let bytes = match self.input.get(byte..byte + 8) {
            Some(b) => b,
            None => &self.tail[byte - self.tail_start..byte - self.tail_start + 8],
        };
        u64::from_le_bytes(bytes.try_into().unwrap())
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
mod tests;
