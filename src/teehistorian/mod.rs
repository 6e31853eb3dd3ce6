//! DDNet teehistorian files: header, messages, streams, DDNet's writer
//! model and the replay state machine.

pub mod check;
mod header;
pub mod json;
pub mod log;
mod message;
mod recorder;
mod replay;
pub mod scan;
pub mod spec;
mod stream;
mod world_at;

pub use header::{Header, HeaderInfo, MAGIC, MAX_HEADER_LEN, escape_json_into};
pub use message::{ConsoleCommand, Ex, ExKind, ExMessage, Input, MAX_RECORD_LEN, Message, id};
pub use recorder::{Recorder, RecorderError};
pub use replay::{
    Auth, Checkpoint, ConsoleEntry, History, HistoryLen, Inconsistency, InconsistencyKind, Player,
    PlayerInput, Replay, ReplayConfig, SaveEvent, SaveKind, SwapEvent, Team, World,
};
pub use stream::{
    ClientProtocols, End, MAX_RECORD_SPAN, ReadError, Record, SliceReader, StreamReader,
    StreamWriter, TickClock, TickError,
};
pub use world_at::{WorldAtError, world_at};

/// True if `bytes` start with the teehistorian magic.
pub fn is_teehistorian(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC.as_bytes())
}

#[cfg(test)]
mod tests;
