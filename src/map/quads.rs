//! The data blocks of quads and sounds layers (DDNet's `CQuad`,
//! `CSoundSource`), and of text (`GetDataString`, the info item's
//! settings). Points and sizes are 22.10 fixed point.

use crate::bytes::Blob;
use crate::codec::{Codec, DecodeError, Reader};
use serde::Serialize;

/// A quad (`CQuad`, 152 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Quad {
    /// Its four corners, then its centre (the pivot).
    pub points: [[i32; 2]; 5],
    /// Each corner's colour, RGBA 0 to 255.
    pub colors: [[i32; 4]; 4],
    /// Each corner's texture coordinates.
    pub texcoords: [[i32; 2]; 4],
    /// Position envelope, or -1.
    pub pos_env: i32,
    /// Position envelope offset, in ms.
    pub pos_env_offset: i32,
    /// Colour envelope, or -1.
    pub color_env: i32,
    /// Colour envelope offset, in ms.
    pub color_env_offset: i32,
}

/// A sound source (`CSoundSource`, 52 bytes) of a sounds layer (kind
/// 10; the first kind, 9, stores 36-byte sources, kept as bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SoundSource {
    /// Position.
    pub position: [i32; 2],
    /// Not 0: loops.
    pub looped: i32,
    /// Not 0: panned.
    pub pan: i32,
    /// Delay, in s.
    pub time_delay: i32,
    /// Falloff, 0 to 255.
    pub falloff: i32,
    /// Position envelope, or -1.
    pub pos_env: i32,
    /// Position envelope offset, in ms.
    pub pos_env_offset: i32,
    /// Volume envelope, or -1.
    pub sound_env: i32,
    /// Volume envelope offset, in ms.
    pub sound_env_offset: i32,
    /// Shape: 0 rectangle (width, height), 1 circle (radius, unused).
    pub shape: [i32; 3],
}

/// A fixed-size record of int32s.
pub trait Record: Sized {
    /// Its ints, in file order.
    const INTS: usize;
    /// The record from its ints (exactly [`Record::INTS`]).
    fn from_ints(v: &[i32]) -> Self;
    /// Its ints, in file order.
    fn to_ints(&self) -> Vec<i32>;
}

impl Record for Quad {
    const INTS: usize = 38;
    fn from_ints(v: &[i32]) -> Self {
        let pair = |at: usize| [v[at], v[at + 1]];
        let four = |at: usize| [v[at], v[at + 1], v[at + 2], v[at + 3]];
        Quad {
            points: [pair(0), pair(2), pair(4), pair(6), pair(8)],
            colors: [four(10), four(14), four(18), four(22)],
            texcoords: [pair(26), pair(28), pair(30), pair(32)],
            pos_env: v[34],
            pos_env_offset: v[35],
            color_env: v[36],
            color_env_offset: v[37],
        }
    }
    fn to_ints(&self) -> Vec<i32> {
        let mut v: Vec<i32> = self.points.iter().flatten().copied().collect();
        v.extend(self.colors.iter().flatten());
        v.extend(self.texcoords.iter().flatten());
        v.extend([
            self.pos_env,
            self.pos_env_offset,
            self.color_env,
            self.color_env_offset,
        ]);
        v
    }
}

impl Record for SoundSource {
    const INTS: usize = 13;
    fn from_ints(v: &[i32]) -> Self {
        SoundSource {
            position: [v[0], v[1]],
            looped: v[2],
            pan: v[3],
            time_delay: v[4],
            falloff: v[5],
            pos_env: v[6],
            pos_env_offset: v[7],
            sound_env: v[8],
            sound_env_offset: v[9],
            shape: [v[10], v[11], v[12]],
        }
    }
    fn to_ints(&self) -> Vec<i32> {
        let mut v = self.position.to_vec();
        v.extend([
            self.looped,
            self.pan,
            self.time_delay,
            self.falloff,
            self.pos_env,
            self.pos_env_offset,
            self.sound_env,
            self.sound_env_offset,
        ]);
        v.extend(self.shape);
        v
    }
}

/// A block read as records: every whole one, and the bytes after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Records<'a, T> {
    /// The records.
    pub records: Vec<T>,
    /// Bytes after the last whole record, as they are.
    pub extra: Blob<'a>,
}

impl<'a, T: Record> Codec<'a> for Records<'a, T> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let len = 4 * T::INTS;
        let body = r.take(r.remaining() / len * len, "map.records")?;
        let records = body
            .chunks_exact(len)
            .map(|b| {
                let ints: Vec<i32> = b.chunks_exact(4).map(super::datafile::le_i32).collect();
                T::from_ints(&ints)
            })
            .collect();
        Ok(Records {
            records,
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        for record in &self.records {
            for v in record.to_ints() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.extra);
    }
}

/// A block as text, as DDNet's `GetDataString` reads it: one NUL, at its
/// end, and UTF-8 before it; `None` for anything else (DDNet reads no
/// string there).
pub fn data_string(block: &[u8]) -> Option<&str> {
    let (&last, text) = block.split_last()?;
    if last != 0 || text.contains(&0) {
        return None;
    }
    std::str::from_utf8(text).ok()
}

/// The info item's settings block: the server commands it holds, each up
/// to its NUL (as DDNet's editor splits them; a last one without a NUL
/// runs to the end).
pub fn settings(block: &[u8]) -> Vec<&[u8]> {
    if block.is_empty() {
        return Vec::new();
    }
    let mut commands: Vec<&[u8]> = block.split(|&b| b == 0).collect();
    if block.last() == Some(&0) {
        commands.pop();
    }
    commands
}
