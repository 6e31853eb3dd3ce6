//! Maps written as DDNet's datafile writer lays them out, from items and
//! inflated blocks: what the generators and the tests build maps with.

use super::{Datafile, Item, ItemType, Magic};
use crate::codec::encode_to_vec;
use crate::compression::zlib::deflate;

/// A map to be written: items (type, id, payload) and blocks (inflated).
#[derive(Clone, Debug)]
pub struct MapSpec {
    /// The items, in the order given (written sorted by type).
    pub items: Vec<(u16, u16, Vec<u8>)>,
    /// The blocks' inflated bytes.
    pub blocks: Vec<Vec<u8>>,
    /// Version 4 (blocks deflated) or 3 (stored).
    pub version: i32,
    /// `DATA` or `ATAD`.
    pub magic: Magic,
}

/// Where the parts of a written map lie.
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// The file byte of each item (its header), in written order.
    pub items: Vec<u64>,
    /// The file byte of each block.
    pub blocks: Vec<u64>,
    /// The file byte of the data sizes table (version 4).
    pub data_sizes: u64,
}

impl MapSpec {
    /// The file, as DDNet's writer makes it: item types by type, each
    /// type's items in the order given, sizes as its writer computes them.
    pub fn write(&self) -> Written {
        self.write_with(|_, _| {})
    }

    /// [`MapSpec::write`] with the stored blocks and (version 4) their
    /// declared sizes changed by `edit` first.
    pub fn write_with(&self, edit: impl FnOnce(&mut Vec<Vec<u8>>, &mut Vec<i32>)) -> Written {
        let mut items = self.items.clone();
        items.sort_by_key(|(t, _, _)| *t);
        let mut types: Vec<ItemType> = Vec::new();
        for (i, (t, _, _)) in items.iter().enumerate() {
            match types.last_mut() {
                Some(last) if last.type_id == i32::from(*t) => last.num += 1,
                _ => types.push(ItemType {
                    type_id: (*t).into(),
                    start: i as i32,
                    num: 1,
                }),
            }
        }
        let mut stored: Vec<Vec<u8>> = match self.version {
            4 => self.blocks.iter().map(|b| deflate(b, 6)).collect(),
            _ => self.blocks.clone(),
        };
        let mut sizes: Vec<i32> = self.blocks.iter().map(|b| b.len() as i32).collect();
        edit(&mut stored, &mut sizes);
        let mut datafile = Datafile {
            magic: self.magic,
            version: self.version,
            size: 0,
            swaplen: 0,
            item_types: types,
            items: items
                .iter()
                .map(|(t, id, payload)| Item {
                    type_and_id: u32::from(*t) << 16 | u32::from(*id),
                    size: payload.len() as i32,
                    payload,
                })
                .collect(),
            data: stored.iter().map(Vec::as_slice).collect(),
            data_sizes: (self.version == 4).then_some(sizes),
            trailing: &[],
        };
        (datafile.size, datafile.swaplen) = datafile.writer_sizes();
        let layout = datafile.layout();
        Written {
            bytes: encode_to_vec(&datafile, ()),
            items: layout.items,
            blocks: layout.data,
            data_sizes: layout.data_sizes,
        }
    }
}
