//! A version 4 data block's bytes: its zlib stream inflated as DDNet's
//! reader does (`uncompress` into a buffer of the declared size), bounded
//! by the declared size and by a cap no field of the file decides; and
//! bytes deflated again at the level DDNet's writer uses (zlib's default,
//! 6), to see whether they come out the same. The deflater is flate2's
//! (miniz_oxide), not zlib's code: it gives back fewer blocks than zlib.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// Why a block does not give its declared bytes. DDNet's reader returns
/// no data for such a block (the layer or image using it is empty, and a
/// game layer's makes the map fail to load).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum DataFault {
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

impl fmt::Display for DataFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DataFault::DeclaredSize { declared } => write!(
                f,
                "it declares {declared} uncompressed bytes: DDNet's reader loads no block of \
                 fewer than 1"
            ),
            DataFault::OverCap { declared, cap } => write!(
                f,
                "it declares {declared} uncompressed bytes, over the cap of {cap} \
                 (--max-decompressed raises it): not inflated"
            ),
            DataFault::Corrupt { inflated } => write!(
                f,
                "its zlib stream is corrupt after {inflated} inflated bytes: DDNet's reader \
                 returns no data for it"
            ),
            DataFault::Cut { inflated } => write!(
                f,
                "it ends before its zlib stream does, after {inflated} inflated bytes: DDNet's \
                 reader returns no data for it"
            ),
            DataFault::SizeDiffers {
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
/// use teeoracle::map::data::{DataFault, deflate, inflate};
/// let stored = deflate(b"tiles", 6);
/// assert_eq!(inflate(&stored, 5, 1 << 20).map(|i| i.bytes), Ok(b"tiles".to_vec()));
/// let short = inflate(&stored, 4, 1 << 20);
/// assert_eq!(short, Err(DataFault::SizeDiffers { declared: 4, inflated: 5, over_cap: false }));
/// ```
pub fn inflate(stored: &[u8], declared: i64, cap: u64) -> Result<Inflated, DataFault> {
    if declared <= 0 {
        return Err(DataFault::DeclaredSize { declared });
    }
    if declared as u64 > cap {
        return Err(DataFault::OverCap { declared, cap });
    }
    let keep = declared as usize;
    let mut z = Decompress::new(true);
    let mut bytes: Vec<u8> = Vec::new();
    // Past the declared size the bytes are only counted, and only up to
    // one past the cap.
    let mut scratch = [0u8; 1 << 14];
    loop {
        let input = stored.get(z.total_in() as usize..).unwrap_or_default();
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let status = if bytes.len() < keep {
            let len = bytes.len();
            bytes.resize(len + (keep - len).min(1 << 16), 0);
            let status = z.decompress(input, &mut bytes[len..], FlushDecompress::None);
            bytes.truncate(len + (z.total_out() - out_before) as usize);
            status
        } else {
            let room = (cap.saturating_add(1) - out_before).min(scratch.len() as u64) as usize;
            z.decompress(input, &mut scratch[..room], FlushDecompress::None)
        };
        let inflated = z.total_out();
        if inflated > cap {
            return Err(DataFault::SizeDiffers {
                declared,
                inflated: cap,
                over_cap: true,
            });
        }
        match status {
            Err(_) => return Err(DataFault::Corrupt { inflated }),
            Ok(Status::StreamEnd) => break,
            Ok(Status::Ok | Status::BufError) => {
                if z.total_in() == in_before && inflated == out_before {
                    return Err(DataFault::Cut { inflated });
                }
            }
        }
    }
    let inflated = z.total_out();
    if inflated != declared as u64 {
        return Err(DataFault::SizeDiffers {
            declared,
            inflated,
            over_cap: false,
        });
    }
    Ok(Inflated {
        bytes,
        unused: stored.len().saturating_sub(z.total_in() as usize),
    })
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

/// A block's bytes as DDNet's reader gives them: version 3's as stored,
/// version 4's inflated (bounded by its declared size and `cap`).
pub fn block<'a>(
    datafile: &super::Datafile<'a>,
    index: usize,
    cap: u64,
) -> Result<Cow<'a, [u8]>, DataFault> {
    let stored = datafile.data.get(index).copied().unwrap_or_default();
    match &datafile.data_sizes {
        None => Ok(Cow::Borrowed(stored)),
        Some(sizes) => {
            let declared = sizes.get(index).copied().unwrap_or(0).into();
            inflate(stored, declared, cap).map(|i| Cow::Owned(i.bytes))
        }
    }
}
