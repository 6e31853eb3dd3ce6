//! The int-level twin of [`crate::codec::Codec`]: snapshots and deltas are
//! int32 arrays (that is how DDNet handles them, packed as varints only on
//! the wire), so they decode from an [`IntReader`] that knows its int
//! offset and encode to a `Vec<i32>`, with the same laws: decoding what
//! was encoded gives the value back, and a decode that uses every int
//! encodes back to exactly those ints.

use super::{Delta, ItemSizes, SnapError, SnapFault, Snapshot};

/// A cursor over an int array; errors name int offsets (`at`).
#[derive(Clone, Copy, Debug)]
pub struct IntReader<'a> {
    ints: &'a [i32],
    pos: usize,
}

impl<'a> IntReader<'a> {
    /// A reader at the first int.
    pub fn new(ints: &'a [i32]) -> Self {
        IntReader { ints, pos: 0 }
    }

    /// Index of the next int.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Ints not yet read.
    pub fn rest(&self) -> &'a [i32] {
        &self.ints[self.pos..]
    }

    /// Consumes `n` ints (at most what is left).
    pub fn skip(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.ints.len());
    }

    /// Fails unless every int has been read.
    pub fn finish(&self) -> Result<(), SnapError> {
        match self.ints.len() - self.pos {
            0 => Ok(()),
            count => Err(SnapError {
                at: self.pos,
                fault: SnapFault::TrailingInts { count },
            }),
        }
    }
}

/// A value with one int-array form.
pub trait IntCodec<'a, Ctx: Copy = ()>: Sized {
    /// Reads one value, advancing the reader past it.
    fn decode(r: &mut IntReader<'a>, ctx: Ctx) -> Result<Self, SnapError>;
    /// Appends the value's ints to `out`.
    fn encode(&self, out: &mut Vec<i32>, ctx: Ctx);
}

/// Decodes a value that must use every int of `ints`.
pub fn decode_exact_ints<'a, T: IntCodec<'a, C>, C: Copy>(
    ints: &'a [i32],
    ctx: C,
) -> Result<T, SnapError> {
    let mut r = IntReader::new(ints);
    let value = T::decode(&mut r, ctx)?;
    r.finish()?;
    Ok(value)
}

/// `CSnapshot`: data size, item count, offsets, then the items; as long
/// as its header says (`IsValid`'s rules).
impl<'a> IntCodec<'a> for Snapshot {
    fn decode(r: &mut IntReader<'a>, _: ()) -> Result<Self, SnapError> {
        let rest = r.rest();
        // The header says how long the snapshot is; IsValid's errors come
        // from reading exactly that (or all there is, if less).
        let len = match rest {
            [data_size, num_items, ..] if *data_size >= 0 && *num_items >= 0 => {
                (2 + *num_items as usize + *data_size as usize / 4).min(rest.len())
            }
            _ => rest.len(),
        };
        let mut snap = Snapshot::new();
        snap.read_ints(&rest[..len]).map_err(|mut e| {
            e.at += r.position();
            e
        })?;
        r.skip(len);
        Ok(snap)
    }

    fn encode(&self, out: &mut Vec<i32>, _: ()) {
        self.write_ints(out);
    }
}

/// A delta as on the wire; `sizes` says which types have a pre-agreed
/// size. An empty array is the empty delta.
impl<'a> IntCodec<'a, &'a ItemSizes> for Delta {
    fn decode(r: &mut IntReader<'a>, sizes: &'a ItemSizes) -> Result<Self, SnapError> {
        let at = r.position();
        let (delta, used) = Delta::read(r.rest(), sizes).map_err(|mut e| {
            e.at += at;
            e
        })?;
        r.skip(used);
        Ok(delta)
    }

    fn encode(&self, out: &mut Vec<i32>, _: &'a ItemSizes) {
        self.write_ints(out);
    }
}
