//! A bounded window over a byte stream, for a reader that parses a file as
//! it reads it.

use super::{Mode, Reader};
use std::io::{self, Read};

/// The bytes of a stream not consumed yet, read a piece at a time into one
/// reused buffer: a parser takes a [`Reader`] over what is there
/// ([`Window::reader`]), and when a unit runs past the window's end asks for
/// [`Window::more`] and tries again. The buffer grows only while one unit
/// does not fit, up to `max` bytes: the longest unit the parser reads
/// whole bounds the memory, whatever the stream's length.
pub struct Window {
    src: Box<dyn Read>,
    buf: Vec<u8>,
    /// `buf[start..filled]` is not consumed yet.
    start: usize,
    filled: usize,
    /// The stream offset of `buf[0]`.
    base: u64,
    max: usize,
    /// No more bytes will come: the stream ended, or failed.
    ended: bool,
    error: Option<io::Error>,
}

impl Window {
    /// A window over `src`, whose next byte is at offset `base`, starting
    /// with `initial` bytes of buffer and growing to at most `max`.
    pub fn new(src: impl Read + 'static, base: u64, initial: usize, max: usize) -> Window {
        let initial = initial.clamp(1, max.max(1));
        Window {
            src: Box::new(src),
            buf: vec![0; initial],
            start: 0,
            filled: 0,
            base,
            max: max.max(initial),
            ended: false,
            error: None,
        }
    }

    /// A reader over the bytes not consumed yet, at their stream offsets.
    #[inline]
    pub fn reader(&self, mode: Mode) -> Reader<'_> {
        Reader::at(
            &self.buf[self.start..self.filled],
            self.base + self.start as u64,
            mode,
        )
    }

    /// The bytes not consumed yet.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.filled]
    }

    /// Marks the first `n` of those bytes consumed.
    #[inline]
    pub fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.filled);
    }

    /// Reads more of the stream: the bytes not consumed move to the front,
    /// the buffer doubles (up to `max`) if they fill it, and the rest of it
    /// is read. False if no byte came: the stream ended or failed
    /// ([`Window::error`]), or `max` bytes are waiting already.
    pub fn more(&mut self) -> bool {
        if self.ended {
            return false;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.base += self.start as u64;
            self.filled -= self.start;
            self.start = 0;
        }
        if self.filled == self.buf.len() {
            if self.buf.len() >= self.max {
                return false;
            }
            let grown = (self.buf.len() * 2).min(self.max);
            self.buf.resize(grown, 0);
        }
        let (n, end) = read_full(&mut self.src, &mut self.buf[self.filled..]);
        self.filled += n;
        if let Some(end) = end {
            self.ended = true;
            // Kept for after the bytes read so far are parsed.
            self.error = end.err();
        }
        n > 0
    }

    /// The buffer's length: the most bytes it holds before it grows.
    pub fn room(&self) -> usize {
        self.buf.len()
    }

    /// The stream's read error, once met (the bytes before it were given).
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }
}

/// Reads into `buf` until it is full or the stream ends: the bytes read,
/// and `Some` if it ended there (`Err`: it failed).
pub(crate) fn read_full(src: &mut impl Read, buf: &mut [u8]) -> (usize, Option<io::Result<()>>) {
    let mut filled = 0;
    while filled < buf.len() {
        match src.read(&mut buf[filled..]) {
            Ok(0) => return (filled, Some(Ok(()))),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (filled, Some(Err(e))),
        }
    }
    (filled, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream that gives at most `step` bytes a read, then fails if asked.
    struct Trickle {
        bytes: Vec<u8>,
        step: usize,
        fail: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.bytes.is_empty() && self.fail {
                return Err(io::Error::other("gone"));
            }
            let n = self.bytes.len().min(self.step).min(out.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes.drain(..n);
            Ok(n)
        }
    }

    /// Units of `1 + len` bytes (a length byte, then that many), read
    /// through a window: every unit whole, at its offset, and the buffer
    /// never past the longest.
    #[test]
    fn units_come_whole_at_their_offsets_in_a_bounded_buffer() {
        let mut stream = Vec::new();
        let mut want = Vec::new();
        for i in 0..300u32 {
            let len = (i * 37 % 200) as u8;
            want.push((stream.len() as u64 + 1000, len));
            stream.push(len);
            stream.extend((0..len).map(|j| j ^ len));
        }
        for (initial, step) in [(1, 1), (3, 7), (64, 1000), (4096, 5)] {
            let src = Trickle {
                bytes: stream.clone(),
                step,
                fail: false,
            };
            let mut w = Window::new(src, 1000, initial, 256);
            let mut got = Vec::new();
            loop {
                let mut r = w.reader(Mode::Strict);
                let at = r.offset();
                let unit = r.u8("len").and_then(|len| r.take(len.into(), "unit"));
                match unit {
                    Ok(body) => {
                        let len = body.len() as u8;
                        assert!(body.iter().enumerate().all(|(j, &b)| b == j as u8 ^ len));
                        got.push((at, len));
                        let n = r.position();
                        w.consume(n);
                    }
                    Err(e) if e.is_eof() => {
                        if !w.more() {
                            break;
                        }
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!(got, want, "initial {initial}, step {step}");
            assert!(w.bytes().is_empty() && w.error().is_none());
            assert!(w.room() <= 256, "{}", w.room());
        }
    }

    #[test]
    fn a_read_error_ends_the_stream_after_the_bytes_before_it() {
        let src = Trickle {
            bytes: b"abc".to_vec(),
            step: 2,
            fail: true,
        };
        let mut w = Window::new(src, 0, 8, 8);
        assert!(w.more());
        assert_eq!(w.bytes(), b"abc");
        assert_eq!(w.error().map(|e| e.to_string()), Some("gone".into()));
        assert!(!w.more());
    }

    #[test]
    fn a_full_window_at_its_most_takes_no_more() {
        let src = Trickle {
            bytes: vec![7; 100],
            step: 100,
            fail: false,
        };
        let mut w = Window::new(src, 0, 4, 16);
        while w.more() {}
        assert_eq!(w.bytes().len(), 16);
        w.consume(10);
        assert!(w.more());
        assert_eq!(w.bytes().len(), 16);
        assert_eq!(w.reader(Mode::Strict).offset(), 10);
    }
}
