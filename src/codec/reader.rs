//! A borrowed byte reader that knows its absolute offset.

use super::error::{DecodeError, ErrorKind, NonCanonical};

/// How non-canonical encodings are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Accept what DDNet accepts; remember where the first non-canonical
    /// form was so that callers can keep the original bytes.
    #[default]
    Lenient,
    /// Reject every non-canonical form. A strict decode that succeeds
    /// re-encodes to exactly the bytes it consumed.
    Strict,
}

/// A cursor over a byte slice. Offsets in errors are absolute: `base` is the
/// offset of `buf[0]` in the enclosing file.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
    base: u64,
    mode: Mode,
    noncanonical: Option<u64>,
}

impl<'a> Reader<'a> {
    /// A reader over `buf`, which starts at offset 0.
    pub fn new(buf: &'a [u8], mode: Mode) -> Self {
        Self::at(buf, 0, mode)
    }

    /// A reader over `buf`, whose first byte is at absolute offset `base`.
    #[inline(always)]
    pub fn at(buf: &'a [u8], base: u64, mode: Mode) -> Self {
        Reader {
            buf,
            pos: 0,
            end: buf.len(),
            base,
            mode,
            noncanonical: None,
        }
    }

    /// Absolute offset of the next byte.
    #[inline(always)]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position relative to the start of the slice.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left before the current end (which `limited` may lower).
    #[inline]
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// The decoding mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Offset of the first non-canonical form seen since the last reset
    /// (lenient mode only; strict mode errors instead).
    #[inline(always)]
    pub fn noncanonical(&self) -> Option<u64> {
        self.noncanonical
    }

    /// Forget any non-canonical form seen so far.
    pub fn reset_noncanonical(&mut self) {
        self.noncanonical = None;
    }

    /// The bytes between an earlier position and the current one.
    #[inline(always)]
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.buf[start..self.pos]
    }

    /// An error at the current offset.
    #[cold]
    pub fn error(&self, context: &'static str, kind: ErrorKind) -> DecodeError {
        DecodeError::new(self.offset(), context, kind)
    }

    #[cold]
    fn eof(&self, context: &'static str, needed: usize) -> DecodeError {
        self.error(
            context,
            ErrorKind::UnexpectedEof {
                needed,
                available: self.remaining(),
            },
        )
    }

    /// Records a non-canonical form at `offset`, or rejects it in strict mode.
    pub fn non_canonical(
        &mut self,
        offset: u64,
        context: &'static str,
        what: NonCanonical,
    ) -> Result<(), DecodeError> {
        match self.mode {
            Mode::Strict => Err(DecodeError::new(
                offset,
                context,
                ErrorKind::NonCanonical { form: what },
            )),
            Mode::Lenient => {
                self.noncanonical.get_or_insert(offset);
                Ok(())
            }
        }
    }

    /// The next `N` bytes without consuming them, if there are that many.
    #[inline(always)]
    pub fn peek_array<const N: usize>(&self) -> Option<&'a [u8; N]> {
        self.buf[..self.end].get(self.pos..)?.first_chunk::<N>()
    }

    /// The next byte without consuming it.
    #[inline(always)]
    pub fn peek_u8(&self) -> Option<u8> {
        if self.pos < self.end {
            self.buf.get(self.pos).copied()
        } else {
            None
        }
    }

    /// Skips `n` bytes already seen through a peek.
    #[inline(always)]
    pub fn skip_peeked(&mut self, n: usize) {
        debug_assert!(n <= self.remaining());
        self.pos += n;
    }

    /// One byte.
    #[inline]
    pub fn u8(&mut self, context: &'static str) -> Result<u8, DecodeError> {
        if self.pos < self.end {
            let b = self.buf[self.pos];
            self.pos += 1;
            Ok(b)
        } else {
            Err(self.eof(context, 1))
        }
    }

    /// Exactly `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize, context: &'static str) -> Result<&'a [u8], DecodeError> {
        if n <= self.remaining() {
            let s = &self.buf[self.pos..self.pos + n];
            self.pos += n;
            Ok(s)
        } else {
            Err(self.eof(context, n))
        }
    }

    /// Exactly `N` bytes as an array.
    #[inline]
    pub fn take_array<const N: usize>(
        &mut self,
        context: &'static str,
    ) -> Result<[u8; N], DecodeError> {
        let s = self.take(N, context)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Everything up to the current end.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..self.end];
        self.pos = self.end;
        s
    }

    /// Runs `f` on the next `n` bytes only, as on a length-delimited body.
    /// Whatever `f` leaves unread is returned alongside its result, and the
    /// reader continues after the `n` bytes. Running out of bytes inside the
    /// body is a malformed body ([`ErrorKind::PayloadTooShort`]), not an
    /// end of input that more data could fix.
    pub fn limited<T>(
        &mut self,
        n: usize,
        context: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<(T, &'a [u8]), DecodeError> {
        if n > self.remaining() {
            return Err(self.eof(context, n));
        }
        let outer_end = self.end;
        self.end = self.pos + n;
        let result = f(self).map_err(|mut e| {
            e.kind = match std::mem::replace(&mut e.kind, ErrorKind::BadMagic) {
                ErrorKind::UnexpectedEof { needed, available } => {
                    ErrorKind::PayloadTooShort { needed, available }
                }
                ErrorKind::UnterminatedString => ErrorKind::UnterminatedPayloadString,
                kind => kind,
            };
            e
        });
        let leftover = self.rest();
        self.end = outer_end;
        Ok((result?, leftover))
    }

    /// Fails unless every byte has been read.
    pub fn finish(&self, context: &'static str) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            len => Err(self.error(context, ErrorKind::TrailingData { len })),
        }
    }
}
