//! Where a checked file's bytes come from: a file, standard input or
//! memory, read through its compression (gzip, bzip2, xz, zstd) when the
//! `archive` feature brings the decompressors. The first bytes are read
//! once to recognise the format, then handed back in front of the rest.
//! Decompression is capped ([`default_max_decompressed`]): no field of a
//! file decides how much is inflated.

use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::codec::{DECOMPRESSION_RATIO, MIN_MAX_DECOMPRESSED};

/// How many leading bytes formats are recognised by.
pub const HEAD_LEN: usize = 512;

/// The cap on how many bytes a compressed file of `bytes` bytes (a checked
/// file, an archive) is decompressed to: [`DECOMPRESSION_RATIO`] times its
/// size, at least [`MIN_MAX_DECOMPRESSED`]. No field of the file decides
/// it; `--max-decompressed` raises it.
pub fn default_max_decompressed(bytes: u64) -> u64 {
    bytes
        .saturating_mul(DECOMPRESSION_RATIO)
        .max(MIN_MAX_DECOMPRESSED)
}

/// A compression a checked file was read through.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// gzip (`.gz`).
    Gzip,
    /// bzip2 (`.bz2`).
    Bzip2,
    /// xz (`.xz`).
    Xz,
    /// Zstandard (`.zst`).
    Zstd,
}

impl Compression {
    /// The compression a stream starting with `head` is in, by magic bytes.
    pub fn detect(head: &[u8]) -> Option<Compression> {
        if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Some(Compression::Bzip2)
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Compression::Xz)
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

type BoxRead = Box<dyn Read + Send>;

enum Origin {
    File(PathBuf),
    Stdin,
    Bytes(Vec<u8>),
}

/// A file to check.
pub struct Source {
    name: String,
    origin: Option<Origin>,
    /// The first decoded bytes, once read.
    head: Option<Vec<u8>>,
    compression: Option<Compression>,
    /// The decoded stream after `head`.
    rest: Option<BoxRead>,
    /// The cap on decompressed bytes (`None`: the default).
    max_decompressed: Option<u64>,
    /// Threads its check may use.
    threads: usize,
}

impl Source {
    /// A file on disk.
    pub fn file(path: impl Into<PathBuf>) -> Source {
        let path = path.into();
        Source::with(path.display().to_string(), Origin::File(path))
    }

    /// Standard input (named `-`).
    pub fn stdin() -> Source {
        Source::with("-".into(), Origin::Stdin)
    }

    /// Bytes in memory, with the name to show (and to judge its file name
    /// ending by).
    pub fn bytes(name: impl Into<String>, bytes: Vec<u8>) -> Source {
        Source::with(name.into(), Origin::Bytes(bytes))
    }

    /// `-` for standard input, else a file.
    pub fn arg(path: &Path) -> Source {
        if path == Path::new("-") {
            Source::stdin()
        } else {
            Source::file(path)
        }
    }

    fn with(name: String, origin: Origin) -> Source {
        Source {
            name,
            origin: Some(origin),
            head: None,
            compression: None,
            rest: None,
            max_decompressed: None,
            threads: 1,
        }
    }

    /// Sets the cap on decompressed bytes (`None`: the default,
    /// [`default_max_decompressed`] of the compressed size).
    pub fn set_max_decompressed(&mut self, cap: Option<u64>) {
        self.max_decompressed = cap;
    }

    /// Sets the threads its check may use (a large file's: 0 and 1 mean
    /// one, the default).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads set by [`Source::set_threads`].
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The cap set by [`Source::set_max_decompressed`].
    pub fn max_decompressed(&self) -> Option<u64> {
        self.max_decompressed
    }

    /// The name shown for it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file on disk, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.origin {
            Some(Origin::File(p)) => Some(p),
            _ => None,
        }
    }

    /// True if it lies in a folder named `malformed` (a deliberate bad
    /// case).
    pub fn in_malformed_folder(&self) -> bool {
        Path::new(&self.name)
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == "malformed"))
    }

    /// The compression it is read through (known after [`Source::head`]).
    pub fn compression(&self) -> Option<Compression> {
        self.compression
    }

    /// Its first (up to [`HEAD_LEN`]) bytes, decompressed.
    pub fn head(&mut self) -> io::Result<&[u8]> {
        if self.head.is_none() {
            // The compressed size, where it is known before reading.
            let (mut raw, size): (BoxRead, Option<u64>) = match self.origin.take() {
                Some(Origin::File(p)) => {
                    let file = std::fs::File::open(&p)?;
                    let size = file.metadata()?.len();
                    self.origin = Some(Origin::File(p));
                    let buffered = io::BufReader::with_capacity(1 << 16, file);
                    (Box::new(buffered), Some(size))
                }
                Some(Origin::Stdin) => {
                    let buffered = io::BufReader::with_capacity(1 << 16, io::stdin());
                    (Box::new(buffered), None)
                }
                Some(Origin::Bytes(b)) => {
                    let size = b.len() as u64;
                    (Box::new(Cursor::new(b)), Some(size))
                }
                None => return Err(io::Error::other("the source was already read")),
            };
            let raw_head = read_up_to(&mut raw, HEAD_LEN)?;
            let joined: BoxRead = Box::new(Cursor::new(raw_head.clone()).chain(raw));
            let (mut decoded, compression) = match Compression::detect(&raw_head) {
                Some(c) if cfg!(feature = "archive") => {
                    // Standard input's size is known only as it is read:
                    // the cap follows what has been read so far.
                    let read = Arc::new(AtomicU64::new(0));
                    let counted = Box::new(CountRead {
                        inner: joined,
                        read: read.clone(),
                    });
                    let capped = CapRead {
                        inner: decoder(c, counted),
                        produced: 0,
                        cap: self.max_decompressed.or(size.map(default_max_decompressed)),
                        read,
                    };
                    (Box::new(capped) as BoxRead, Some(c))
                }
                _ => (joined, None),
            };
            self.compression = compression;
            self.head = Some(read_up_to(&mut decoded, HEAD_LEN)?);
            self.rest = Some(decoded);
        }
        Ok(self.head.as_deref().unwrap_or_default())
    }

    /// The whole content, decompressed, as a stream.
    pub fn into_reader(mut self) -> io::Result<BoxRead> {
        self.head()?;
        let head = self.head.take().unwrap_or_default();
        let rest = self.rest.take().unwrap_or_else(|| Box::new(io::empty()));
        Ok(Box::new(Cursor::new(head).chain(rest)))
    }

    /// The whole content, decompressed, in memory. The buffer grows by a
    /// quarter at a time (not doubling), so a file cut off by its cap
    /// never held much more than the cap.
    pub fn into_bytes(self) -> io::Result<Vec<u8>> {
        let mut src = self.into_reader()?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            if out.len() == out.capacity() {
                out.reserve_exact((out.len() / 4).max(1 << 16));
            }
            let spare = out.capacity() - out.len();
            let n = (&mut src).take(spare as u64).read_to_end(&mut out)?;
            if n == 0 {
                return Ok(out);
            }
        }
    }
}

/// Counts the bytes read through it.
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
        if self.produced > cap {
            return Err(crate::codec::DecompressionCap { cap }.into_io());
        }
        Ok(n)
    }
}

fn read_up_to(src: &mut impl Read, n: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    src.take(n as u64).read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(feature = "archive")]
fn decoder(c: Compression, src: BoxRead) -> BoxRead {
    let buffered = io::BufReader::with_capacity(1 << 16, src);
    match c {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
        Compression::Zstd => match ruzstd::decoding::StreamingDecoder::new(buffered) {
            Ok(d) => Box::new(d),
            Err(e) => Box::new(Failing(Some(io::Error::other(format!("zstd: {e}"))))),
        },
        // lzma-rs decodes xz only by pushing into a writer: run it on a
        // thread and read its output through a bounded channel.
        Compression::Xz => Box::new(XzReader::spawn(buffered)),
    }
}

#[cfg(not(feature = "archive"))]
fn decoder(_: Compression, src: BoxRead) -> BoxRead {
    src
}

/// A reader that fails once with its error, then ends.
#[cfg(feature = "archive")]
struct Failing(Option<io::Error>);

#[cfg(feature = "archive")]
impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// xz decompressed on a thread, read through a channel of at most a few
/// 64 KiB pieces (so memory stays bounded whatever the input).
#[cfg(feature = "archive")]
struct XzReader {
    pieces: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Cursor<Vec<u8>>,
}

#[cfg(feature = "archive")]
impl XzReader {
    fn spawn(mut src: impl io::BufRead + Send + 'static) -> XzReader {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        std::thread::spawn(move || {
            let mut sink = ChannelWriter {
                tx: tx.clone(),
                buf: Vec::new(),
            };
            let result = lzma_rs::xz_decompress(&mut src, &mut sink);
            let _ = io::Write::flush(&mut sink);
            if let Err(e) = result {
                let _ = tx.send(Err(io::Error::other(format!("xz: {e}"))));
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
impl io::Write for ChannelWriter {
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
