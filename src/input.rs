//! Where a checked file's bytes come from: a file, standard input or
//! memory, read through its compression ([`crate::compression`]: gzip,
//! bzip2, xz, zstd, when the `archive` feature brings the decoders). The
//! first bytes are read once to recognise the format, then handed back in
//! front of the rest. Decompression is capped
//! ([`default_max_decompressed`]): no field of a file decides how much is
//! inflated.

use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};

use crate::compression::{BoxRead, capped_reader};
pub use crate::compression::{
    Compression, DECOMPRESSION_RATIO, MIN_MAX_DECOMPRESSED, default_max_decompressed,
};

/// How many leading bytes formats are recognised by.
pub const HEAD_LEN: usize = 512;

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
        }
    }

    /// Sets the cap on decompressed bytes (`None`: the default,
    /// [`default_max_decompressed`] of the compressed size).
    pub fn set_max_decompressed(&mut self, cap: Option<u64>) {
        self.max_decompressed = cap;
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
            let compression = Compression::detect(&raw_head);
            let mut decoded = if compression.decoded() {
                // Standard input's size is known only as it is read: the
                // cap then follows what has been read so far.
                let cap = self.max_decompressed.or(size.map(default_max_decompressed));
                self.compression = Some(compression);
                capped_reader(compression, joined, cap)
            } else {
                joined
            };
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

fn read_up_to(src: &mut impl Read, n: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    src.take(n as u64).read_to_end(&mut out)?;
    Ok(out)
}
