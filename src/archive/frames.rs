//! Compression around the tar stream: detection by magic bytes, a writer
//! that cuts the compressed output into independent frames, and readers.
//!
//! A frame is one complete compressed stream (a bzip2 stream). Concatenated
//! bzip2 streams are still one valid `.bz2` file (`bzip2 -d`, `tar xjf` and
//! libarchive read them all), but each frame can also be decompressed on its
//! own, starting at its first compressed byte. `index.txt` lists where the
//! frames start, which is what lets a reader jump into the middle of a
//! compressed archive instead of decompressing everything before it.

use serde::Serialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How the tar stream of an archive is stored.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// A plain tar file.
    None,
    /// bzip2 (written and read; one stream per frame).
    Bzip2,
    /// gzip (read only).
    Gzip,
    /// xz (read only).
    Xz,
    /// zstd (read only).
    Zstd,
}

impl Compression {
    /// The compression of a file starting with `head` (its first 512 bytes
    /// or fewer), or `None` if it is neither compressed nor a tar file.
    pub fn detect(head: &[u8]) -> Option<Compression> {
        use crate::input::Compression as Magic;
        match Magic::detect(head) {
            Some(Magic::Bzip2) => Some(Compression::Bzip2),
            Some(Magic::Gzip) => Some(Compression::Gzip),
            Some(Magic::Xz) => Some(Compression::Xz),
            Some(Magic::Zstd) => Some(Compression::Zstd),
            None if head.len() >= 512 && is_tar_header(&head[..512]) => Some(Compression::None),
            None => None,
        }
    }

    /// The name used in `index.txt` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Bzip2 => "bzip2",
            Compression::Gzip => "gzip",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// Whether teeoracle writes this compression (the others are read only).
    pub fn writable(self) -> bool {
        matches!(self, Compression::None | Compression::Bzip2)
    }
}

/// True if `block` is a tar header: its checksum (the byte sum with the
/// checksum field read as spaces) matches the octal number stored there.
pub fn is_tar_header(block: &[u8]) -> bool {
    if block.len() != 512 || block.iter().all(|&b| b == 0) {
        return false;
    }
    let field = &block[148..156];
    let digits: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|&b| b == b' ')
        .take_while(|b| (b'0'..=b'7').contains(b))
        .collect();
    let Some(stored) = std::str::from_utf8(&digits)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 8).ok())
    else {
        return false;
    };
    let sum: u32 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(b)
            }
        })
        .sum();
    sum == stored
}

/// Where one frame starts: its first uncompressed and compressed byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Offset in the uncompressed tar stream.
    pub uncompressed: u64,
    /// Offset in the compressed file.
    pub compressed: u64,
}

/// Counts the bytes written through it.
struct Counting<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

enum Sink<W: Write> {
    /// Between frames (or writing a plain tar).
    Idle(Counting<W>),
    Bzip2(bzip2::write::BzEncoder<Counting<W>>),
    /// Only while a frame is being finished.
    Gone,
}

/// Writes the tar stream, compressed as a sequence of independent frames.
/// A new frame starts at the first write after [`FrameWriter::cut`].
pub struct FrameWriter<W: Write> {
    sink: Sink<W>,
    compression: Compression,
    uncompressed: u64,
    frames: Vec<Frame>,
    /// A frame boundary was asked for since the last frame started.
    cut_pending: bool,
}

impl<W: Write> FrameWriter<W> {
    /// A writer for `compression` ([`Compression::None`] or
    /// [`Compression::Bzip2`]).
    pub fn new(out: W, compression: Compression) -> FrameWriter<W> {
        debug_assert!(compression.writable());
        FrameWriter {
            sink: Sink::Idle(Counting {
                inner: out,
                count: 0,
            }),
            compression,
            uncompressed: 0,
            frames: Vec::new(),
            cut_pending: true,
        }
    }

    /// Uncompressed bytes written so far.
    pub fn position(&self) -> u64 {
        self.uncompressed
    }

    /// Ends the current frame; the next byte written starts a new one.
    pub fn cut(&mut self) -> io::Result<()> {
        if let Sink::Bzip2(_) = self.sink {
            let Sink::Bzip2(encoder) = std::mem::replace(&mut self.sink, Sink::Gone) else {
                unreachable!("matched above")
            };
            self.sink = Sink::Idle(encoder.finish()?);
        }
        self.cut_pending = true;
        Ok(())
    }

    /// Ends the last frame; returns the output and where every frame starts.
    pub fn finish(mut self) -> io::Result<(W, Vec<Frame>)> {
        self.cut()?;
        match self.sink {
            Sink::Idle(mut out) => {
                out.flush()?;
                Ok((out.inner, self.frames))
            }
            _ => unreachable!("cut leaves the sink idle"),
        }
    }

    fn start_frame(&mut self) {
        let Sink::Idle(out) = std::mem::replace(&mut self.sink, Sink::Gone) else {
            unreachable!("frames start between frames")
        };
        self.frames.push(Frame {
            uncompressed: self.uncompressed,
            compressed: out.count,
        });
        self.sink = match self.compression {
            Compression::Bzip2 => Sink::Bzip2(bzip2::write::BzEncoder::new(
                out,
                bzip2::Compression::best(),
            )),
            _ => Sink::Idle(out),
        };
        self.cut_pending = false;
    }
}

impl<W: Write> Write for FrameWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.cut_pending {
            self.start_frame();
        }
        let n = match &mut self.sink {
            Sink::Idle(out) => out.write(buf)?,
            Sink::Bzip2(encoder) => encoder.write(buf)?,
            Sink::Gone => unreachable!("the sink is restored before returning"),
        };
        self.uncompressed += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Idle(out) => out.flush(),
            Sink::Bzip2(encoder) => encoder.flush(),
            Sink::Gone => Ok(()),
        }
    }
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

/// Decompresses one bzip2 frame from `src` (positioned at its first byte):
/// stops at the end of that stream, so `src.consumed` then says where the
/// next frame starts.
pub fn bzip2_frame<R: BufRead>(src: &mut CountingBufRead<R>) -> impl Read + '_ {
    bzip2::bufread::BzDecoder::new(src)
}

/// Reads the uncompressed tar stream from compressed byte `compressed` of
/// `file`, where a frame starts, on through every following frame.
pub fn read_frames_from(
    mut file: File,
    compression: Compression,
    compressed: u64,
) -> io::Result<Box<dyn Read + Send>> {
    file.seek(SeekFrom::Start(compressed))?;
    let buffered = BufReader::with_capacity(1 << 16, file);
    Ok(match compression {
        Compression::None => Box::new(buffered),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
        other => {
            return Err(io::Error::other(format!(
                "{} archives have no frames to start from",
                other.name()
            )));
        }
    })
}

/// What [`decompress_to`] found on the way.
#[derive(Debug, Default)]
pub struct Decompressed {
    /// Where each bzip2 stream started (empty for other compressions).
    pub frames: Vec<Frame>,
    /// The decompressor's complaint, if the compressed data ended early or
    /// is corrupt; everything before it was written.
    pub error: Option<String>,
}

/// Decompresses the whole of `path` (compressed with `compression`) into
/// `out`, in bounded memory. A corrupt or cut input is reported in
/// [`Decompressed::error`], not raised: what decompressed before the fault
/// is kept. Failures to write `out` are errors.
pub fn decompress_to(
    path: &Path,
    compression: Compression,
    out: &mut impl Write,
) -> io::Result<Decompressed> {
    let file = File::open(path)?;
    let mut src = CountingBufRead::new(BufReader::with_capacity(1 << 16, file));
    let mut found = Decompressed::default();
    let fault = |what: &str, at: u64, e: &dyn std::fmt::Display| {
        Some(format!("{what} at compressed byte {at} (0x{at:x}): {e}"))
    };
    match compression {
        Compression::None => {
            io::copy(&mut src, out)?;
        }
        Compression::Bzip2 => {
            let mut written = 0u64;
            loop {
                if src.fill_buf()?.is_empty() {
                    break;
                }
                let start = src.consumed;
                found.frames.push(Frame {
                    uncompressed: written,
                    compressed: start,
                });
                match copy(&mut bzip2_frame(&mut src), out)? {
                    (n, None) => written += n,
                    (_, Some(e)) => {
                        found.error = fault("bzip2 stream starting", start, &e);
                        break;
                    }
                }
            }
        }
        Compression::Gzip => {
            let mut decoder = flate2::bufread::MultiGzDecoder::new(&mut src);
            if let (_, Some(e)) = copy(&mut decoder, out)? {
                found.error = fault("gzip data", 0, &e);
            }
        }
        Compression::Xz => {
            let mut sink = FaultSink { out, failed: None };
            if let Err(e) = lzma_rs::xz_decompress(&mut src, &mut sink) {
                if let Some(output_error) = sink.failed {
                    return Err(output_error);
                }
                found.error = fault("xz data", 0, &e);
            }
        }
        Compression::Zstd => loop {
            if src.fill_buf()?.is_empty() {
                break;
            }
            let start = src.consumed;
            match ruzstd::decoding::StreamingDecoder::new(&mut src) {
                Ok(mut decoder) => {
                    if let (_, Some(e)) = copy(&mut decoder, out)? {
                        found.error = fault("zstd frame starting", start, &e);
                        break;
                    }
                }
                Err(e) => {
                    found.error = fault("zstd frame starting", start, &e);
                    break;
                }
            }
        },
    }
    Ok(found)
}

/// An output sink that keeps its own failure, so that it can be told apart
/// from a fault in the compressed input.
struct FaultSink<'w, W: Write> {
    out: &'w mut W,
    failed: Option<io::Error>,
}

impl<W: Write> Write for FaultSink<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf).inspect_err(|e| {
            self.failed = Some(io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Copies `src` to `out` until the end or a read error, which is returned
/// (with the bytes copied before it) rather than raised; write errors are
/// raised.
fn copy(src: &mut impl Read, out: &mut impl Write) -> io::Result<(u64, Option<io::Error>)> {
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => return Ok((total, None)),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Ok((total, Some(e))),
        };
        out.write_all(&buf[..n])?;
        total += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_magic() {
        assert_eq!(Compression::detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(Compression::detect(b"BZh0"), None);
        assert_eq!(
            Compression::detect(&[0x1f, 0x8b, 8]),
            Some(Compression::Gzip)
        );
        assert_eq!(
            Compression::detect(&[0xfd, b'7', b'z', b'X', b'Z', 0, 0]),
            Some(Compression::Xz)
        );
        assert_eq!(
            Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]),
            Some(Compression::Zstd)
        );
        let mut header = tar::Header::new_ustar();
        header.set_path("a.txt").unwrap();
        header.set_size(3);
        header.set_cksum();
        assert_eq!(
            Compression::detect(header.as_bytes()),
            Some(Compression::None)
        );
        let mut bad = *header.as_bytes();
        bad[0] ^= 1;
        assert_eq!(Compression::detect(&bad), None);
        assert_eq!(Compression::detect(&[0; 512]), None);
    }

    /// Frames written separately decompress as one stream and one by one.
    #[test]
    fn frames_are_independent_streams() {
        let mut w = FrameWriter::new(Vec::new(), Compression::Bzip2);
        w.write_all(b"hello ").unwrap();
        w.cut().unwrap();
        w.cut().unwrap(); // an empty frame is never written
        w.write_all(b"world").unwrap();
        let (bytes, frames) = w.finish().unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[1].uncompressed, 6);
        let mut all = String::new();
        bzip2::read::MultiBzDecoder::new(&bytes[..])
            .read_to_string(&mut all)
            .unwrap();
        assert_eq!(all, "hello world");
        let mut second = String::new();
        bzip2::read::BzDecoder::new(&bytes[frames[1].compressed as usize..])
            .read_to_string(&mut second)
            .unwrap();
        assert_eq!(second, "world");
    }
}
