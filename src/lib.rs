#![forbid(unsafe_code)]
#![warn(missing_docs)]
//! teeoracle: a byte-exact reference oracle for the Teeworlds/DDNet binary
//! formats.
//!
//! Decoding then encoding a real file gives its bytes back exactly; where
//! DDNet's writer has quirks they are modelled, and unknown ids and UUIDs
//! are kept as data. Bad input gets one [`codec::DecodeError`] naming the
//! file byte, what was being read and what was expected; nothing panics.
//!
//! # Where to start
//!
//! - [`check`]: one pipeline per format (recognise, decode, re-encode,
//!   replay, count) giving a [`check::Verdict`]; what `teeoracle check` runs.
//! - [`teehistorian`]: DDNet's server input recordings: streaming readers,
//!   a writer model, and the world-state replay.
//! - [`demo`]: TWDEMO files: chunks, payloads, snapshot replay, DDNet's
//!   recorder.
//! - [`map`]: map files: the datafile container, byte-exact, and the
//!   typed map items, layers and tiles, with DDNet's loader's rules.
//! - [`packet`] and [`session`]: 0.6 and 0.7 datagrams, chunks, messages,
//!   and what DDNet's connection would do with each packet of a capture.
//! - [`snapshot`]: snapshots and deltas, as DDNet builds and applies them.
//! - `simulation` (feature `zlib`): DDNet's game from a teehistorian
//!   file's inputs, its physics and DDRace rules, as a sans-IO
//!   `Simulation` checked against the file's positions and the server's
//!   demo.
//! - [`huffman`], [`packer`]: DDNet's Huffman coder and variable-width ints.
//! - [`codec`]: the core every format uses: [`codec::Reader`],
//!   [`codec::Codec`], [`codec::DecodeError`].
//! - [`report`]: what a check says ([`report::Verdict`], [`report::Finding`]
//!   and its typed [`report::Code`]); [`input`]: a checked file's bytes,
//!   through its [`compression`] (detection, decoders, the cap).
//! - [`schema`]: the JSON shapes the command line prints.
//!
//! `ARCHITECTURE.md` draws the layers these modules form.
//!
//! ```
//! use teeoracle::check::{self, Code, Options, Source, Status};
//!
//! let verdict = check::check(
//!     Source::file("corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian"),
//!     &Options::default(),
//! );
//! // A server that crashed: everything before the cut decodes, re-encodes
//! // and replays; the file passes with a warning saying where it ends.
//! assert_eq!(verdict.status, Status::Warn);
//! assert_eq!(verdict.findings[0].code, Code::Truncated);
//! assert_eq!(verdict.findings[0].offset, Some(27206));
//! ```
//!
//! # Features
//!
//! With `default-features = false` the crate is the formats only: their
//! codecs, replays and check pipelines, over the core (dependencies:
//! serde, serde_json, itoa, ron, uuid, hex, sha2 and crc32fast for
//! demo map checksums, and on x86-64 safe_arch for the simulation's
//! float-to-int conversion; `.ci/run` checks this list). `jobs` adds `check`,
//! `conform`, `diff`, `generate` and the bot (and `similar`); `archive`
//! adds recording archives and reading compressed files; `capture` adds
//! reading pcap and pcapng files; `zlib` adds inflating map data blocks
//! (flate2), with map checks; `export` adds writing recordings as Apache
//! Parquet tables (arrow, parquet); `cli` (the default) is the `teeoracle`
//! command and brings them all.

#[cfg(feature = "archive")]
pub mod archive;
#[cfg(feature = "jobs")]
pub mod bot;
pub mod bytes;
pub mod capture;
#[cfg(feature = "jobs")]
pub mod check;
pub mod codec;
pub mod compression;
#[cfg(feature = "jobs")]
pub mod conform;
pub mod demo;
#[cfg(feature = "jobs")]
pub mod diff;
#[cfg(feature = "export")]
pub mod export;
pub mod files;
#[cfg(feature = "jobs")]
pub mod generate;
pub mod huffman;
pub mod input;
pub mod json_diff;
pub mod log;
pub mod map;
pub mod packer;
pub mod packet;
pub mod report;
pub mod schema;
pub mod session;
#[cfg(feature = "zlib")]
pub mod simulation;
pub mod snapshot;
pub mod teehistorian;

#[cfg(test)]
mod testing;

/// The `teeoracle` command line, for the binary (`src/main.rs`) and the
/// Python package's `teeoracle` command: not an API of the library.
#[cfg(feature = "cli")]
#[doc(hidden)]
#[allow(missing_docs)]
pub mod cli;
// The command line names the library by its name, as the binary did.
#[cfg(feature = "cli")]
extern crate self as teeoracle;
