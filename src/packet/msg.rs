//! Messages inside chunks: `varint(id << 1 | sys)`, then for id 0 a UUID
//! (DDNet's extended messages), then the body.

use crate::codec::{DecodeError, ErrorKind, Mode, Reader};
use crate::packer::{read_int, read_uuid};
use serde::Serialize;
use uuid::Uuid;

/// A message id: a number, or a UUID for DDNet's extended messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum MsgId {
    Ordinal(i32),
    Uuid(Uuid),
}

/// The start of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MsgHeader {
    /// A system (engine) message rather than a game message.
    pub sys: bool,
    pub id: MsgId,
}

/// Splits chunk data into the message header and body. Lenient: an
/// over-long id varint is accepted as DDNet accepts it.
pub fn split(data: &[u8]) -> Result<(MsgHeader, &[u8]), DecodeError> {
    let mut r = Reader::new(data, Mode::Lenient);
    let raw = read_int(&mut r, "message.id")?;
    let (sys, id) = (raw & 1 != 0, raw >> 1);
    if !(0..0x10000).contains(&id) {
        return Err(DecodeError::new(
            0,
            "message.id",
            ErrorKind::UnknownMessageId(id),
        ));
    }
    let id = if id == 0 {
        MsgId::Uuid(read_uuid(&mut r, "message.uuid")?)
    } else {
        MsgId::Ordinal(id)
    };
    Ok((MsgHeader { sys, id }, r.rest()))
}
