//! teeoracle: a byte-exact reference oracle for the Teeworlds/DDNet binary
//! formats.
//!
//! Every format sits on one small codec core ([`codec`]): a [`codec::Reader`]
//! that knows its absolute offset, the symmetric [`codec::Codec`] trait and
//! one [`codec::DecodeError`] that names the offset, what was being read and
//! what was expected. Decoding then encoding real files gives their bytes
//! back exactly; where DDNet's writer has quirks they are modelled, and
//! unknown ids are kept as data.

#[cfg(feature = "archive")]
pub mod archive;
pub mod bytes;
pub mod capture;
pub mod check;
pub mod codec;
pub mod demo;
pub mod huffman;
pub mod packer;
pub mod packet;
pub mod schema;
pub mod session;
pub mod snapshot;
pub mod teehistorian;

#[cfg(test)]
mod testing;
