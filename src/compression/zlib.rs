//! zlib streams that declare their inflated size, as a map's version 4
//! data blocks store them: inflated as DDNet's reader does (`uncompress`
//! into a buffer of the declared size), bounded by the declared size and
//! by a cap no field of the file decides; and bytes deflated again at the
//! level DDNet's writer uses (zlib's default, 6), to see whether they come
//! out the same. The deflater is flate2's (miniz_oxide), not zlib's code:
//! it gives back fewer blocks than zlib.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use serde::Serialize;
use std::fmt;

/// Why a block does not give its declared bytes. DDNet's reader returns
/// no data for such a block (the layer or image using it is empty, and a
/// game layer's makes the map fail to load).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The declared size is 0 or negative: DDNet never loads the block.
    DeclaredSize {
        /// The declared size.
        declared: i64,
    },
    /// The declared size is over the cap: not inflated (DDNet would
    /// allocate it).
    OverCap {
        /// The declared size.
        declared: i64,
        /// The cap.
        cap: u64,
    },
    /// The zlib stream is corrupt after `inflated` bytes.
    Corrupt {
        /// Bytes inflated before the fault.
        inflated: u64,
    },
    /// The block ends before its zlib stream does.
    Cut {
        /// Bytes inflated before the end.
        inflated: u64,
    },
    /// The stream inflates to another size than declared (`inflated` is
    /// at most the cap: `over_cap` says it went on).
    SizeDiffers {
        /// The declared size.
        declared: i64,
        /// The size it inflates to.
        inflated: u64,
        /// It inflated past the cap and was stopped there.
        over_cap: bool,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Fault::DeclaredSize { declared } => write!(
                f,
                "it declares {declared} uncompressed bytes: DDNet's reader loads no block of \
                 fewer than 1"
            ),
            Fault::OverCap { declared, cap } => write!(
                f,
                "it declares {declared} uncompressed bytes, over the cap of {cap} \
                 (--max-decompressed raises it): not inflated"
            ),
            Fault::Corrupt { inflated } => write!(
                f,
                "its zlib stream is corrupt after {inflated} inflated bytes: DDNet's reader \
                 returns no data for it"
            ),
            Fault::Cut { inflated } => write!(
                f,
                "it ends before its zlib stream does, after {inflated} inflated bytes: DDNet's \
                 reader returns no data for it"
            ),
            Fault::SizeDiffers {
                declared,
                inflated,
                over_cap,
            } => {
                let more = if over_cap { "more than " } else { "" };
                write!(
                    f,
                    "it inflates to {more}{inflated} bytes, where it declares {declared}: \
                     DDNet's reader returns no data for it"
                )
            }
        }
    }
}

/// A block inflated to its declared size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inflated {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Bytes of the block after the end of its zlib stream, which DDNet's
    /// reader ignores.
    pub unused: usize,
}

/// Inflates `stored` (a zlib stream) that declares `declared` bytes,
/// keeping at most `cap` bytes and never allocating for more: what
/// DDNet's `uncompress` into a buffer of `declared` bytes gives, or why
/// it gives nothing.
///
/// ```
/// use teeoracle::compression::zlib::{Fault, deflate, inflate};
/// let stored = deflate(b"tiles", 6);
/// assert_eq!(inflate(&stored, 5, 1 << 20).map(|i| i.bytes), Ok(b"tiles".to_vec()));
/// let short = inflate(&stored, 4, 1 << 20);
/// assert_eq!(short, Err(Fault::SizeDiffers { declared: 4, inflated: 5, over_cap: false }));
/// ```
pub fn inflate(stored: &[u8], declared: i64, cap: u64) -> Result<Inflated, Fault> {
    let mut bytes: Vec<u8> = Vec::new();
    let unused = inflate_with(stored, declared, cap, |chunk| {
        // Grown at most to the declared size (checked against the cap
        // first), doubling from 64 KiB.
        if bytes.capacity() - bytes.len() < chunk.len() {
            let room = (declared as usize - bytes.len()).min(bytes.len().max(1 << 16));
            bytes.reserve_exact(room.max(chunk.len()));
        }
        bytes.extend_from_slice(chunk);
    })?;
    Ok(Inflated { bytes, unused })
}

/// [`inflate`] without keeping the bytes: each piece of at most 16 KiB
/// within the declared size goes to `sink` as it comes out (what is past
/// it is only counted, up to one byte past the cap), so a block is
/// checked, or hashed, in constant memory. Returns the bytes of `stored`
/// after the zlib stream.
pub fn inflate_with(
    stored: &[u8],
    declared: i64,
    cap: u64,
    mut sink: impl FnMut(&[u8]),
) -> Result<usize, Fault> {
    if declared <= 0 {
        return Err(Fault::DeclaredSize { declared });
    }
    if declared as u64 > cap {
        return Err(Fault::OverCap { declared, cap });
    }
    let keep = declared as u64;
    let mut z = Decompress::new(true);
    let mut scratch = [0u8; 1 << 14];
    loop {
        let input = stored.get(z.total_in() as usize..).unwrap_or_default();
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let room = (cap.saturating_add(1) - out_before).min(scratch.len() as u64) as usize;
        let status = z.decompress(input, &mut scratch[..room], FlushDecompress::None);
        let inflated = z.total_out();
        let made = (inflated - out_before) as usize;
        let within = keep.saturating_sub(out_before).min(made as u64) as usize;
        if within > 0 {
            sink(&scratch[..within]);
        }
        if inflated > cap {
            return Err(Fault::SizeDiffers {
                declared,
                inflated: cap,
                over_cap: true,
            });
        }
        match status {
            Err(_) => return Err(Fault::Corrupt { inflated }),
            Ok(Status::StreamEnd) => break,
            Ok(Status::Ok | Status::BufError) => {
                if z.total_in() == in_before && inflated == out_before {
                    return Err(Fault::Cut { inflated });
                }
            }
        }
    }
    let inflated = z.total_out();
    if inflated != keep {
        return Err(Fault::SizeDiffers {
            declared,
            inflated,
            over_cap: false,
        });
    }
    Ok(stored.len().saturating_sub(z.total_in() as usize))
}

/// `bytes` compressed as one zlib stream at `level` (0 to 9), by flate2's
/// deflate (a valid stream; zlib's `compress2`, which DDNet's writer
/// calls at level 6, may choose other matches).
pub fn deflate(bytes: &[u8], level: u32) -> Vec<u8> {
    let mut z = Compress::new(Compression::new(level.min(9)), true);
    // zlib's compressBound: a stored stream never needs more.
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 1000 + 64);
    loop {
        let consumed = z.total_in() as usize;
        let input = bytes.get(consumed..).unwrap_or_default();
        if out.len() == out.capacity() {
            out.reserve(1 << 12);
        }
        match z.compress_vec(input, &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) | Err(_) => return out,
            Ok(Status::Ok | Status::BufError) => {}
        }
    }
}

/// True if deflating `bytes` at `level` gives exactly `stored`: compared
/// as it comes out, so a stream that differs early costs little.
pub fn deflates_back(bytes: &[u8], stored: &[u8], level: u32) -> bool {
    let mut z = Compress::new(Compression::new(level.min(9)), true);
    let mut out = [0u8; 1 << 14];
    loop {
        let (in_at, out_at) = (z.total_in() as usize, z.total_out() as usize);
        let input = bytes.get(in_at..).unwrap_or_default();
        let status = z.compress(input, &mut out, FlushCompress::Finish);
        let made = z.total_out() as usize - out_at;
        if stored.get(out_at..out_at + made) != Some(&out[..made]) {
            return false;
        }
        match status {
            Ok(Status::StreamEnd) => return z.total_out() as usize == stored.len(),
            Ok(Status::Ok | Status::BufError) => {}
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflating_is_bounded_and_names_each_fault() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let stored = deflate(&bytes, 6);
        let ok = inflate(&stored, 5000, 1 << 20).expect("it inflates");
        assert_eq!((ok.bytes == bytes, ok.unused), (true, 0));
        let cases = [
            (
                4999,
                1 << 20,
                Fault::SizeDiffers {
                    declared: 4999,
                    inflated: 5000,
                    over_cap: false,
                },
            ),
            (
                5001,
                1 << 20,
                Fault::SizeDiffers {
                    declared: 5001,
                    inflated: 5000,
                    over_cap: false,
                },
            ),
            (0, 1 << 20, Fault::DeclaredSize { declared: 0 }),
            (
                5000,
                4000,
                Fault::OverCap {
                    declared: 5000,
                    cap: 4000,
                },
            ),
            (
                10,
                100,
                Fault::SizeDiffers {
                    declared: 10,
                    inflated: 100,
                    over_cap: true,
                },
            ),
        ];
        for (declared, cap, fault) in cases {
            assert_eq!(
                inflate(&stored, declared, cap),
                Err(fault),
                "declared {declared}, cap {cap}"
            );
        }
        let cut = inflate(&stored[..stored.len() - 6], 5000, 1 << 20);
        assert!(
            matches!(cut, Err(Fault::Cut { .. })),
            "a cut stream: {cut:?}"
        );
        let mut corrupt = stored.clone();
        corrupt[0] = 0;
        let corrupt = inflate(&corrupt, 5000, 1 << 20);
        assert_eq!(
            corrupt,
            Err(Fault::Corrupt { inflated: 0 }),
            "a bad zlib header"
        );
        assert!(deflates_back(&bytes, &stored, 6));
        assert!(!deflates_back(&bytes, &stored[..stored.len() - 1], 6));
        assert!(!deflates_back(&bytes[1..], &stored, 6));
        let mut longer = stored.clone();
        longer.extend_from_slice(b"xyz");
        assert!(!deflates_back(&bytes, &longer, 6), "bytes after");
        let longer = inflate(&longer, 5000, 1 << 20).expect("bytes after the stream");
        assert_eq!(longer.unused, 3);
    }
}
