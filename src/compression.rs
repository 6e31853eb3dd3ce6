//! Compression: which one a file is in (by its magic bytes), its
//! decoders, and reading through them within the decompression cap.
//!
//! A compressed file may hold several complete streams one after another
//! (bzip2 streams, zstd frames, gzip members); the tools that write them
//! read them as one, and so do the decoders here. Such a stream is a
//! *frame*: it decodes on its own from its first byte, which is what lets
//! an archive be read from the middle.
//!
//! The decoders come with the `archive` feature; without it a compressed
//! file is read as it is. No field of a file decides how much is
//! decompressed: the cap is [`default_max_decompressed`] of the file's
//! size unless the caller sets one, and passing it fails with
//! [`DecompressionCap`], which names it.

use std::io::{self, BufRead, Read};
#[cfg(feature = "archive")]
use std::io::{Cursor, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(feature = "zlib")]
pub mod zlib;

pub use crate::codec::{DECOMPRESSION_RATIO, DecompressionCap, MIN_MAX_DECOMPRESSED};

/// A decompressed (or plain) stream.
pub type BoxRead = Box<dyn Read + Send>;

/// The cap on how many bytes a compressed file of `bytes` bytes (a checked
/// file, an archive) is decompressed to: [`DECOMPRESSION_RATIO`] times its
/// size, at least [`MIN_MAX_DECOMPRESSED`]. No field of the file decides
/// it; `--max-decompressed` raises it.
pub fn default_max_decompressed(bytes: u64) -> u64 {
    bytes
        .saturating_mul(DECOMPRESSION_RATIO)
        .max(MIN_MAX_DECOMPRESSED)
}

/// The error once `produced` decompressed bytes are past `cap`.
fn within_cap(produced: u64, cap: u64) -> io::Result<()> {
    if produced > cap {
        return Err(DecompressionCap { cap }.into_io());
    }
    Ok(())
}

/// How a file is compressed.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// Not compressed.
    None,
    /// bzip2 (`.bz2`; archives are written in it, one stream per frame).
    Bzip2,
    /// gzip (`.gz`, read only).
    Gzip,
    /// xz (`.xz`, read only).
    Xz,
    /// Zstandard (`.zst`, read only).
    Zstd,
}

impl Compression {
    /// The compression of a stream starting with `head`, by its magic
    /// bytes ([`Compression::None`] if it starts with none of them).
    pub fn detect(head: &[u8]) -> Compression {
        if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// Its name in reports (and in an archive's `index.txt`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Bzip2 => "bzip2",
            Compression::Gzip => "gzip",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// Whether teeoracle writes it (the others are read only).
    pub fn writable(self) -> bool {
        matches!(self, Compression::None | Compression::Bzip2)
    }

    /// Whether this build decompresses it: a compression, and the
    /// `archive` feature (which brings the decoders).
    pub fn decoded(self) -> bool {
        self != Compression::None && cfg!(feature = "archive")
    }
}

/// Where one frame starts: its first decompressed and compressed byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Offset in the decompressed stream.
    pub uncompressed: u64,
    /// Offset in the compressed file.
    pub compressed: u64,
}

/// A reader that counts the bytes consumed from it.
pub struct CountingBufRead<R> {
    inner: R,
    /// Bytes consumed so far.
    pub consumed: u64,
}

impl<R: BufRead> CountingBufRead<R> {
    /// Counts what is consumed from `inner`.
    pub fn new(inner: R) -> Self {
        CountingBufRead { inner, consumed: 0 }
    }
}

impl<R: BufRead> Read for CountingBufRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for CountingBufRead<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed += amt as u64;
        self.inner.consume(amt);
    }
}

/// `src`, compressed with `compression`, decompressed (every frame):
/// reading fails with [`DecompressionCap`] once it passes `cap` bytes, or,
/// without one (a stream whose size is not known before it is read, such
/// as standard input), [`default_max_decompressed`] of the compressed
/// bytes read so far. A compression this build does not decode
/// ([`Compression::decoded`]) is read as it is.
pub fn capped_reader(compression: Compression, src: BoxRead, cap: Option<u64>) -> BoxRead {
    if !compression.decoded() {
        return src;
    }
    let read = Arc::new(AtomicU64::new(0));
    let counted = CountRead {
        inner: src,
        read: read.clone(),
    };
    Box::new(CapRead {
        inner: decoder(compression, io::BufReader::with_capacity(1 << 16, counted)),
        produced: 0,
        cap,
        read,
    })
}

/// Counts the bytes read through it, for a cap that follows them (shared
/// with the cap: the xz decoder reads on a thread of its own).
struct CountRead {
    inner: BoxRead,
    read: Arc<AtomicU64>,
}

impl Read for CountRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressed stream that fails once it passes its cap: `cap`, or
/// [`default_max_decompressed`] of the compressed bytes read so far.
struct CapRead {
    inner: BoxRead,
    produced: u64,
    cap: Option<u64>,
    read: Arc<AtomicU64>,
}

impl Read for CapRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.produced += n as u64;
        let cap = self
            .cap
            .unwrap_or_else(|| default_max_decompressed(self.read.load(Ordering::Relaxed)));
        within_cap(self.produced, cap)?;
        Ok(n)
    }
}

/// Without the decoders, nothing is decompressed
/// ([`Compression::decoded`] is false).
#[cfg(not(feature = "archive"))]
fn decoder(_: Compression, src: impl BufRead + Send + 'static) -> BoxRead {
    Box::new(src)
}

/// `src`, compressed with `compression`, decompressed: every frame, one
/// after another, as the compression's own tool reads it.
#[cfg(feature = "archive")]
pub fn decoder(compression: Compression, src: impl BufRead + Send + 'static) -> BoxRead {
    match compression {
        Compression::None => Box::new(src),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(src)),
        Compression::Bzip2 | Compression::Zstd => Box::new(Frames::new(compression, src)),
        Compression::Xz => Box::new(XzReader::spawn(src)),
    }
}

/// Decompresses one bzip2 frame from `src` (positioned at its first byte):
/// stops at the end of that stream, so `src.consumed` then says where the
/// next frame starts.
#[cfg(feature = "archive")]
pub fn bzip2_frame<R: BufRead>(src: &mut CountingBufRead<R>) -> impl Read + '_ {
    bzip2::bufread::BzDecoder::new(src)
}

/// bzip2 streams or zstd frames, decoded one after another, each noted
/// where it starts.
#[cfg(feature = "archive")]
struct Frames<R: BufRead> {
    /// [`Compression::Bzip2`] or [`Compression::Zstd`].
    compression: Compression,
    state: FrameState<R>,
    /// Decompressed bytes so far.
    produced: u64,
    /// Where the frame being decoded starts.
    current: Frame,
    /// Where every frame started, if asked for (an archive's `index.txt`
    /// is checked against them).
    starts: Option<Vec<Frame>>,
}

#[cfg(feature = "archive")]
enum FrameState<R: BufRead> {
    /// Before the first frame, or after one.
    Between(CountingBufRead<R>),
    Bzip2(bzip2::bufread::BzDecoder<CountingBufRead<R>>),
    /// Boxed: a zstd frame decoder is large.
    Zstd(
        Box<ruzstd::decoding::StreamingDecoder<CountingBufRead<R>, ruzstd::decoding::FrameDecoder>>,
    ),
    /// A zstd frame header did not decode: nothing follows.
    Failed,
}

#[cfg(feature = "archive")]
impl<R: BufRead> Frames<R> {
    fn new(compression: Compression, src: R) -> Frames<R> {
        Frames {
            compression,
            state: FrameState::Between(CountingBufRead::new(src)),
            produced: 0,
            current: Frame {
                uncompressed: 0,
                compressed: 0,
            },
            starts: None,
        }
    }

    /// Starts a frame at the reader's position.
    fn start_frame(&mut self) -> io::Result<()> {
        let FrameState::Between(src) = std::mem::replace(&mut self.state, FrameState::Failed)
        else {
            return Ok(());
        };
        self.current = Frame {
            uncompressed: self.produced,
            compressed: src.consumed,
        };
        if let Some(starts) = &mut self.starts {
            starts.push(self.current);
        }
        self.state = match self.compression {
            Compression::Zstd => match ruzstd::decoding::StreamingDecoder::new(src) {
                Ok(d) => FrameState::Zstd(Box::new(d)),
                Err(e) => return Err(io::Error::other(e)),
            },
            _ => FrameState::Bzip2(bzip2::bufread::BzDecoder::new(src)),
        };
        Ok(())
    }

    /// The frame ended: back between frames.
    fn end_frame(&mut self) {
        self.state = match std::mem::replace(&mut self.state, FrameState::Failed) {
            FrameState::Bzip2(d) => FrameState::Between(d.into_inner()),
            FrameState::Zstd(d) => FrameState::Between((*d).into_inner()),
            other => other,
        };
    }
}

#[cfg(feature = "archive")]
impl<R: BufRead> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = match &mut self.state {
                FrameState::Between(src) => {
                    if src.fill_buf()?.is_empty() {
                        return Ok(0);
                    }
                    self.start_frame()?;
                    continue;
                }
                FrameState::Bzip2(d) => d.read(buf)?,
                FrameState::Zstd(d) => d.read(buf)?,
                FrameState::Failed => {
                    return Err(io::Error::other("a zstd frame header did not decode"));
                }
            };
            if n > 0 || buf.is_empty() {
                self.produced += n as u64;
                return Ok(n);
            }
            // Every frame consumes its bytes: the loop moves on.
            self.end_frame();
        }
    }
}

/// What [`decompress_to`] found on the way.
#[derive(Debug, Default)]
pub struct Decompressed {
    /// Where each frame started (bzip2 streams, zstd frames; empty for
    /// gzip and xz, which are not read frame by frame).
    pub frames: Vec<Frame>,
    /// The decompressor's complaint, if the compressed data ended early or
    /// is corrupt; everything before it was written.
    pub error: Option<String>,
}

/// Decompresses the whole of `src` (compressed with `compression`) into
/// `out`, in bounded memory. A corrupt or cut input is reported in
/// [`Decompressed::error`], not raised: what decompressed before the fault
/// is kept. Failures to write `out` are errors, and so is passing `cap`
/// bytes ([`DecompressionCap`], after writing the first `cap`).
#[cfg(feature = "archive")]
pub fn decompress_to(
    src: impl BufRead + Send + 'static,
    compression: Compression,
    cap: u64,
    out: &mut impl Write,
) -> io::Result<Decompressed> {
    let fault = |what: &str, at: u64, e: io::Error| {
        Some(format!("{what} at compressed byte {at} (0x{at:x}): {e}"))
    };
    Ok(match compression {
        Compression::Bzip2 | Compression::Zstd => {
            let mut frames = Frames::new(compression, src);
            frames.starts = Some(Vec::new());
            let (_, e) = copy_capped(&mut frames, out, cap)?;
            let what = match compression {
                Compression::Bzip2 => "bzip2 stream starting",
                _ => "zstd frame starting",
            };
            Decompressed {
                error: e.and_then(|e| fault(what, frames.current.compressed, e)),
                frames: frames.starts.unwrap_or_default(),
            }
        }
        _ => {
            let (_, e) = copy_capped(&mut decoder(compression, src), out, cap)?;
            let what = format!("{} data", compression.name());
            Decompressed {
                frames: Vec::new(),
                error: e.and_then(|e| fault(&what, 0, e)),
            }
        }
    })
}

/// Copies `src` to `out` until the end or a read error, which is returned
/// (with the bytes copied before it) rather than raised; write errors are
/// raised, and so is passing `cap` bytes (after the first `cap` are
/// written).
#[cfg(feature = "archive")]
fn copy_capped(
    src: &mut impl Read,
    out: &mut impl Write,
    cap: u64,
) -> io::Result<(u64, Option<io::Error>)> {
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => return Ok((total, None)),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Ok((total, Some(e))),
        };
        let room = usize::try_from(cap.saturating_sub(total)).unwrap_or(usize::MAX);
        out.write_all(&buf[..n.min(room)])?;
        total += n as u64;
        within_cap(total, cap)?;
    }
}

/// xz decompressed on a thread, read through a channel of at most a few
/// 64 KiB pieces (so memory stays bounded whatever the input): lzma-rs
/// decodes xz only by pushing into a writer.
#[cfg(feature = "archive")]
struct XzReader {
    pieces: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Cursor<Vec<u8>>,
}

#[cfg(feature = "archive")]
impl XzReader {
    fn spawn(mut src: impl BufRead + Send + 'static) -> XzReader {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        std::thread::spawn(move || {
            let mut sink = ChannelWriter {
                tx: tx.clone(),
                buf: Vec::new(),
            };
            let result = lzma_rs::xz_decompress(&mut src, &mut sink);
            let _ = io::Write::flush(&mut sink);
            if let Err(e) = result {
                let _ = tx.send(Err(io::Error::other(e.to_string())));
            }
        });
        XzReader {
            pieces: rx,
            current: Cursor::new(Vec::new()),
        }
    }
}

#[cfg(feature = "archive")]
impl Read for XzReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            match self.pieces.recv() {
                Ok(Ok(piece)) => self.current = Cursor::new(piece),
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0), // the decoder finished
            }
        }
    }
}

#[cfg(feature = "archive")]
struct ChannelWriter {
    tx: std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

#[cfg(feature = "archive")]
impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let piece = std::mem::take(&mut self.buf);
            // The reader is gone: stop decoding.
            self.tx
                .send(Ok(piece))
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_magic() {
        let cases: [(&[u8], Compression); 7] = [
            (b"BZh91AY&SY", Compression::Bzip2),
            (b"BZh0", Compression::None),
            (&[0x1f, 0x8b, 8], Compression::Gzip),
            (&[0xfd, b'7', b'z', b'X', b'Z', 0, 0], Compression::Xz),
            (&[0x28, 0xb5, 0x2f, 0xfd], Compression::Zstd),
            (b"hello", Compression::None),
            (b"", Compression::None),
        ];
        for (head, expected) in cases {
            assert_eq!(Compression::detect(head), expected, "{head:?}");
        }
    }

    #[cfg(feature = "archive")]
    mod decoders {
        use super::super::*;
        use crate::codec::ReadFault;
        use std::io::{Cursor, Write};

        fn compress(compression: Compression, data: &[u8]) -> Vec<u8> {
            match compression {
                Compression::Bzip2 => {
                    let mut e =
                        bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                    e.write_all(data).unwrap();
                    e.finish().unwrap()
                }
                Compression::Gzip => {
                    let mut e =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    e.write_all(data).unwrap();
                    e.finish().unwrap()
                }
                Compression::Zstd => ruzstd::encoding::compress_to_vec(
                    data,
                    ruzstd::encoding::CompressionLevel::Fastest,
                ),
                Compression::Xz => {
                    let mut out = Vec::new();
                    lzma_rs::xz_compress(&mut &data[..], &mut out).unwrap();
                    out
                }
                _ => data.to_vec(),
            }
        }

        fn read_all(mut r: impl Read) -> io::Result<Vec<u8>> {
            let mut out = Vec::new();
            r.read_to_end(&mut out)?;
            Ok(out)
        }

        /// Every compression decodes to what was compressed.
        #[test]
        fn each_compression_decodes() {
            let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
            for c in [
                Compression::None,
                Compression::Bzip2,
                Compression::Gzip,
                Compression::Xz,
                Compression::Zstd,
            ] {
                let packed = compress(c, &data);
                let got = read_all(decoder(c, Cursor::new(packed))).unwrap();
                assert!(
                    got == data,
                    "{}: {} bytes back of {}",
                    c.name(),
                    got.len(),
                    data.len()
                );
            }
        }

        /// Frames one after another read as one file, as `bzip2 -d`,
        /// `gzip -d` and `zstd -d` read them (the decoder of checked zstd
        /// files read only the first frame).
        #[test]
        fn every_frame_is_read() {
            for c in [Compression::Bzip2, Compression::Gzip, Compression::Zstd] {
                let two = [compress(c, b"hello "), compress(c, b"world")].concat();
                let got = read_all(decoder(c, Cursor::new(two))).unwrap();
                assert_eq!(String::from_utf8_lossy(&got), "hello world", "{}", c.name());
            }
        }

        /// [`decompress_to`] notes where each frame starts and names the
        /// frame a fault is in, keeping what came before it.
        #[test]
        fn decompress_to_notes_frames_and_the_faulty_one() {
            for (c, what) in [
                (Compression::Bzip2, "bzip2 stream starting"),
                (Compression::Zstd, "zstd frame starting"),
            ] {
                let first = compress(c, b"hello ");
                let two = [first.clone(), compress(c, b"world")].concat();
                let mut out = Vec::new();
                let found = decompress_to(Cursor::new(two.clone()), c, 1 << 20, &mut out).unwrap();
                assert_eq!(String::from_utf8_lossy(&out), "hello world", "{what}");
                let starts = [
                    Frame {
                        uncompressed: 0,
                        compressed: 0,
                    },
                    Frame {
                        uncompressed: 6,
                        compressed: first.len() as u64,
                    },
                ];
                assert_eq!(found.frames, starts, "{what}");
                assert_eq!(found.error, None, "{what}");
                let mut cut = Vec::new();
                let found = decompress_to(
                    Cursor::new(two[..two.len() - 5].to_vec()),
                    c,
                    1 << 20,
                    &mut cut,
                )
                .unwrap();
                let at = first.len();
                let expected = format!("{what} at compressed byte {at} (0x{at:x}): ");
                let error = found.error.unwrap_or_default();
                assert!(error.starts_with(&expected), "{what}: {error}");
                assert!(cut.starts_with(b"hello "), "{what}: {cut:?}");
            }
        }

        /// Past the cap, reading fails with an error naming it: spooled,
        /// after exactly the cap's bytes; streamed, at the read that passes
        /// it. Without a cap, the default follows the compressed bytes.
        #[test]
        fn the_cap_stops_decompression() {
            let zeros = compress(Compression::Bzip2, &[0; 100_000]);
            let mut out = Vec::new();
            let e = decompress_to(
                Cursor::new(zeros.clone()),
                Compression::Bzip2,
                1000,
                &mut out,
            )
            .unwrap_err();
            assert_eq!(out.len(), 1000, "written before the cap");
            assert_eq!(ReadFault::of(&e), ReadFault::OverCap { cap: 1000 });
            let capped = capped_reader(
                Compression::Bzip2,
                Box::new(Cursor::new(zeros.clone())),
                Some(1000),
            );
            let e = read_all(capped).unwrap_err();
            assert!(
                e.to_string().contains("decompresses past 1000 bytes"),
                "{e}"
            );
            let uncapped = capped_reader(Compression::Bzip2, Box::new(Cursor::new(zeros)), None);
            assert_eq!(read_all(uncapped).unwrap().len(), 100_000);
        }
    }
}
