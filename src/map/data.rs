//! A data block's bytes as DDNet's reader gives them.

use crate::compression::zlib::{Fault, inflate};
use std::borrow::Cow;

/// A block's bytes as DDNet's reader gives them: version 3's as stored,
/// version 4's inflated (bounded by its declared size and `cap`).
pub fn block<'a>(
    datafile: &super::Datafile<'a>,
    index: usize,
    cap: u64,
) -> Result<Cow<'a, [u8]>, Fault> {
    let stored = datafile.data.get(index).copied().unwrap_or_default();
    match &datafile.data_sizes {
        None => Ok(Cow::Borrowed(stored)),
        Some(sizes) => {
            let declared = sizes.get(index).copied().unwrap_or(0).into();
            inflate(stored, declared, cap).map(|i| Cow::Owned(i.bytes))
        }
    }
}
