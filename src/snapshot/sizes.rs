//! Pre-agreed item sizes: the types whose size a delta leaves out.

/// Item types below this may have a pre-agreed size (`MAX_NETOBJSIZES`).
const MAX_NETOBJSIZES: usize = 64;

/// Which item types have a pre-agreed size (in ints) in a delta. Both ends
/// must use the same table, or decoding misaligns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemSizes {
    sizes: [u16; MAX_NETOBJSIZES],
    name: &'static str,
}

impl ItemSizes {
    /// DDNet's 0.6 table: `GetObjSize` for the 21 0.6 netobj types (type 0,
    /// the UUID registration, is always sized).
    pub fn ddnet_06() -> ItemSizes {
        let known = [
            0, 10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3,
        ];
        Self::from_table("0.6", &known)
    }

    /// Teeworlds 0.7's table (the first 23 0.7 types; the last, the
    /// Damage event, is Common's 2 ints plus its own 5).
    pub fn teeworlds_07() -> ItemSizes {
        let known = [
            0, 10, 6, 5, 3, 3, 3, 2, 4, 15, 22, 3, 4, 58, 5, 32, 2, 2, 2, 2, 3, 3, 7,
        ];
        Self::from_table("0.7", &known)
    }

    fn from_table(name: &'static str, known: &[u16]) -> ItemSizes {
        let mut sizes = [0; MAX_NETOBJSIZES];
        sizes[..known.len()].copy_from_slice(known);
        ItemSizes { sizes, name }
    }

    /// The pre-agreed size of a type, if it has one.
    pub fn get(&self, type_id: i32) -> Option<usize> {
        let size = *self.sizes.get(usize::try_from(type_id).ok()?)?;
        (size != 0).then_some(size.into())
    }

    /// Which table this is ("0.6" or "0.7").
    pub fn name(&self) -> &'static str {
        self.name
    }
}
