//! Test helpers shared by the unit tests (`crate::testing`) and the
//! integration tests (`tests/common` includes this file by path), so there
//! is one seed, one quickcheck configuration and one round-trip check.

#![allow(dead_code)]

// `super::codec` and `super::files` are the crate's modules: `crate::...`
// in the library, re-exported by `tests/common` for the integration tests.
use super::codec::{Codec, Mode, Reader, decode_exact, encode_to_vec};

/// Seed for every quickcheck run, so failures reproduce. Override the number
/// of cases with `QUICKCHECK_TESTS` for deeper local runs.
pub const SEED: u64 = 0x7ee0_2ac1e;

/// A seeded quickcheck runner.
pub fn qc() -> quickcheck::QuickCheck {
    quickcheck::QuickCheck::new().rng(quickcheck::Gen::from_size_and_seed(100, SEED))
}

/// The bytes of a file of the bundled corpus, by its path below `corpus/`.
pub fn corpus(rel: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The crate root: the corpus and the snapshots are below it.
pub fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file below `dir`, in path order (each folder's entries sorted,
/// sub-folders walked in place): the one corpus walker of the tests.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    super::files::files_under(dir).unwrap_or_else(|e| panic!("{e}"))
}

/// Every file below `corpus/sub`, in path order; a folder with none
/// fails, so a lost folder is noticed.
pub fn corpus_files(sub: &str) -> Vec<std::path::PathBuf> {
    let files = files_under(&root().join("corpus").join(sub));
    assert!(!files.is_empty(), "no files under corpus/{sub}");
    files
}

/// The codec law for a value: it encodes to bytes that decode, using every
/// byte, to the same value; and a strict decode of those bytes encodes
/// back to them exactly. Returns a description of the first broken law.
pub fn codec_law<'a, T, C>(value: &T, ctx: C, bytes: &'a mut Vec<u8>) -> Result<(), String>
where
    T: Codec<'a, C> + PartialEq + std::fmt::Debug,
    C: Copy,
{
    *bytes = encode_to_vec(value, ctx);
    let bytes: &'a [u8] = bytes;
    let again: T = decode_exact(bytes, Mode::Lenient, ctx).map_err(|e| {
        format!(
            "{value:?} encodes to {} which does not decode: {e}",
            hex::encode(bytes)
        )
    })?;
    if &again != value {
        return Err(format!(
            "{value:?} encodes to {} which decodes to {again:?}",
            hex::encode(bytes)
        ));
    }
    strict_law::<T, C>(bytes, ctx)
}

/// The strict half of the law: if `bytes` decode strictly (using every
/// byte), the value encodes back to exactly `bytes`.
pub fn strict_law<'a, T, C>(bytes: &'a [u8], ctx: C) -> Result<(), String>
where
    T: Codec<'a, C> + std::fmt::Debug,
    C: Copy,
{
    let mut r = Reader::new(bytes, Mode::Strict);
    let Ok(value) = T::decode(&mut r, ctx) else {
        return Ok(());
    };
    if r.remaining() != 0 {
        return Ok(());
    }
    let again = encode_to_vec(&value, ctx);
    if again != bytes {
        return Err(format!(
            "{} decodes strictly to {value:?}, which encodes to {}",
            hex::encode(bytes),
            hex::encode(&again)
        ));
    }
    Ok(())
}
