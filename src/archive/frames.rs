//! How an archive stores its tar stream: plain or compressed ([`detect`]),
//! a writer that cuts the compressed output into independent frames, and
//! reading from a frame on. The decoders themselves, and the cap, are
//! [`crate::compression`]'s.
//!
//! A frame is one complete compressed stream (a bzip2 stream). Concatenated
//! bzip2 streams are still one valid `.bz2` file (`bzip2 -d`, `tar xjf` and
//! libarchive read them all), but each frame can also be decompressed on its
//! own, starting at its first compressed byte. `index.txt` lists where the
//! frames start, which is what lets a reader jump into the middle of a
//! compressed archive instead of decompressing everything before it.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::compression::{BoxRead, decoder};
pub use crate::compression::{Compression, CountingBufRead, Frame, bzip2_frame};

/// How a file starting with `head` (its first 512 bytes or fewer) stores
/// a tar stream: compressed (by its magic bytes), [`Compression::None`]
/// if it starts with a tar header, or `None` if neither.
pub fn detect(head: &[u8]) -> Option<Compression> {
    match Compression::detect(head) {
        Compression::None if head.len() >= 512 && is_tar_header(&head[..512]) => {
            Some(Compression::None)
        }
        Compression::None => None,
        compressed => Some(compressed),
    }
}

/// The first 512 bytes of the tar stream in `path` (decompressed if it is
/// compressed), if there are that many.
pub(super) fn first_block(path: &Path) -> Option<[u8; 512]> {
    let mut file = File::open(path).ok()?;
    let mut head = Vec::with_capacity(512);
    (&mut file).take(512).read_to_end(&mut head).ok()?;
    let compression = detect(&head)?;
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut block = [0u8; 512];
    decoder(compression, BufReader::new(file))
        .read_exact(&mut block)
        .ok()?;
    Some(block)
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

/// Reads the uncompressed tar stream from compressed byte `compressed` of
/// `file`, where a frame starts, on through every following frame.
pub fn read_frames_from(
    mut file: File,
    compression: Compression,
    compressed: u64,
) -> io::Result<BoxRead> {
    if !matches!(compression, Compression::None | Compression::Bzip2) {
        return Err(io::Error::other(format!(
            "{} archives have no frames to start from",
            compression.name()
        )));
    }
    file.seek(SeekFrom::Start(compressed))?;
    Ok(decoder(
        compression,
        BufReader::with_capacity(1 << 16, file),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_magic() {
        assert_eq!(detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(detect(b"BZh0"), None);
        assert_eq!(detect(&[0x1f, 0x8b, 8]), Some(Compression::Gzip));
        assert_eq!(
            detect(&[0xfd, b'7', b'z', b'X', b'Z', 0, 0]),
            Some(Compression::Xz)
        );
        assert_eq!(detect(&[0x28, 0xb5, 0x2f, 0xfd]), Some(Compression::Zstd));
        let mut header = tar::Header::new_ustar();
        header.set_path("a.txt").unwrap();
        header.set_size(3);
        header.set_cksum();
        assert_eq!(detect(header.as_bytes()), Some(Compression::None));
        let mut bad = *header.as_bytes();
        bad[0] ^= 1;
        assert_eq!(detect(&bad), None);
        assert_eq!(detect(&[0; 512]), None);
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
