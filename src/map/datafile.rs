//! The datafile container a map is (DDNet's `datafile.cpp`; Teeworlds 0.6
//! and 0.7 write the same): a 36-byte header, the item types table, the
//! item offsets, the data offsets, (version 4) each data block's
//! uncompressed size, the items, then the data blocks. Every number is a
//! little-endian int32.
//!
//! Decoding splits the file as DDNet's reader does, by its offsets; what
//! the offsets cannot split is a [`DecodeError`] at the field that says
//! so. Every other field is kept as stored, so that encoding gives the
//! file back: the header's size and swaplen, the item types table, each
//! item's size field, the uncompressed sizes, bytes after the data. The
//! offsets and counts are not kept: a file that decodes has exactly the
//! ones its items and blocks give. Whether DDNet's reader accepts the
//! stored fields is [`Datafile::faults`]' business.

use super::Tally;
use crate::codec::{Codec, DecodeError, ErrorKind, Mode, Reader};
use crate::report::{Code, Finding, Severity};
use serde::Serialize;

/// Bytes of the header.
pub const HEADER_LEN: usize = 36;
/// Bytes of one entry of the item types table.
pub const ITEM_TYPE_LEN: usize = 12;
/// Bytes of an item's own header (type and id, size).
pub const ITEM_HEADER_LEN: usize = 8;
/// The item type whose items give the UUIDs of extension item types
/// (`ITEMTYPE_EX`): the item's id is the type number its UUID's items use.
pub const ITEMTYPE_EX: u16 = 0xffff;
/// The header's size and swaplen count from after the first four fields.
const SIZE_BASE: i64 = 16;

/// The first four bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Magic {
    /// `DATA`, what every writer we know writes.
    Data,
    /// `ATAD`, which DDNet's and Teeworlds' readers accept too (the magic
    /// as a big-endian writer's int would put it).
    Atad,
}

impl Magic {
    /// Its bytes.
    pub fn bytes(self) -> &'static [u8; 4] {
        match self {
            Magic::Data => b"DATA",
            Magic::Atad => b"ATAD",
        }
    }
}

/// One entry of the item types table, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ItemType {
    /// The type (0 to 0xffff).
    pub type_id: i32,
    /// Index of its first item.
    pub start: i32,
    /// How many items it has.
    pub num: i32,
}

/// One item: its header and its payload (whole int32s in a valid file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// Type in the high 16 bits, id in the low 16.
    pub type_and_id: u32,
    /// The size field as stored (DDNet requires the payload's length).
    pub size: i32,
    /// The bytes up to the next item's offset.
    pub payload: &'a [u8],
}

impl Item<'_> {
    /// The item's type.
    pub fn type_id(&self) -> u16 {
        (self.type_and_id >> 16) as u16
    }

    /// The item's id.
    pub fn id(&self) -> u16 {
        self.type_and_id as u16
    }

    /// The payload as int32s (a last partial int is left out).
    pub fn ints(&self) -> impl Iterator<Item = i32> + '_ {
        self.payload.chunks_exact(4).map(le_i32)
    }
}

/// A decoded datafile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datafile<'a> {
    /// `DATA` or `ATAD`.
    pub magic: Magic,
    /// 3 (data stored as is) or 4 (data zlib-compressed, with sizes).
    pub version: i32,
    /// The header's size field: the file's length less 16, as the writer
    /// computed it.
    pub size: i32,
    /// The header's swaplen field: the bytes before the data less 16.
    pub swaplen: i32,
    /// The item types table, as stored.
    pub item_types: Vec<ItemType>,
    /// The items, in file order.
    pub items: Vec<Item<'a>>,
    /// The data blocks as stored (zlib streams in version 4).
    pub data: Vec<&'a [u8]>,
    /// Each block's uncompressed size (version 4 only).
    pub data_sizes: Option<Vec<i32>>,
    /// Bytes after the last data block (DDNet refuses such a file).
    pub trailing: &'a [u8],
}

/// Where a datafile's parts lie in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The item types table.
    pub item_types: u64,
    /// The item offsets.
    pub item_offsets: u64,
    /// The data offsets.
    pub data_offsets: u64,
    /// The uncompressed data sizes (version 4).
    pub data_sizes: u64,
    /// Each item's first byte (its header).
    pub items: Vec<u64>,
    /// Each data block's first byte.
    pub data: Vec<u64>,
    /// The first byte after the items: the data.
    pub data_start: u64,
    /// The first byte after the data.
    pub end: u64,
}

/// The header field at `at` in a 36-byte header.
fn header_field(raw: &[u8; HEADER_LEN], at: usize) -> i32 {
    le_i32(&raw[at..at + 4])
}

/// A little-endian int32 from (at most) the first 4 bytes of `b`.
pub(crate) fn le_i32(b: &[u8]) -> i32 {
    i32::from_le_bytes(b.first_chunk().copied().unwrap_or_default())
}

/// A count or size field, which must not be negative. How many bytes
/// it stands for is checked by reading them (`Reader::take`), before
/// anything is sized by it.
fn count(
    raw: &[u8; HEADER_LEN],
    at: usize,
    base: u64,
    context: &'static str,
) -> Result<usize, DecodeError> {
    let value = header_field(raw, at);
    usize::try_from(value).map_err(|_| {
        DecodeError::new(
            base + at as u64,
            context,
            ErrorKind::NegativeLength { len: value.into() },
        )
    })
}

/// Splits `region` at `offsets` (int32s at file byte `table`), which
/// must start at 0, rise strictly and stay inside it, as DDNet's reader
/// requires: each part runs to the next offset, the last to the end.
fn split<'a>(
    region: &'a [u8],
    offsets: &[u8],
    table: u64,
    what: Split,
) -> Result<Vec<&'a [u8]>, DecodeError> {
    let starts: Vec<i32> = offsets.chunks_exact(4).map(le_i32).collect();
    if starts.is_empty() && !region.is_empty() {
        return Err(DecodeError::new(
            table,
            what.context,
            ErrorKind::InvalidValue {
                found: region.len() as i64,
                expected: format!("0 bytes of {}: there are none", what.plural),
            },
        ));
    }
    let mut parts = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let entry = table + 4 * i as u64;
        let previous = i.checked_sub(1).map(|p| starts[p]);
        let expected = match previous {
            None if start != 0 => Some(format!("0 (the first {} offset)", what.singular)),
            Some(p) if start <= p => Some(format!("an offset past the one before ({p})")),
            _ if start as usize >= region.len() => Some(format!(
                "an offset inside the {} ({} bytes)",
                what.plural,
                region.len()
            )),
            _ => None,
        };
        if let Some(expected) = expected {
            return Err(DecodeError::new(
                entry,
                what.context,
                ErrorKind::InvalidValue {
                    found: start.into(),
                    expected,
                },
            ));
        }
        let end = starts.get(i + 1).map_or(region.len(), |&e| e as usize);
        // In range: `start` is below `region.len()`, and a next offset
        // past `start`; one past the region fails on its own turn.
        parts.push(
            region
                .get(start as usize..end.min(region.len()))
                .unwrap_or_default(),
        );
    }
    Ok(parts)
}

/// Names for [`split`]'s errors.
struct Split {
    context: &'static str,
    singular: &'static str,
    plural: &'static str,
}

impl<'a> Datafile<'a> {
    /// Reads a whole file (bytes after the data are kept in
    /// [`Datafile::trailing`]).
    ///
    /// ```
    /// use teeoracle::map::Datafile;
    /// let err = Datafile::decode(b"DATA\x05\0\0\0").unwrap_err();
    /// assert_eq!(err.to_string(), "at byte 0 (0x0): reading map.header: \
    ///     unexpected end of input: expected 36 more byte(s), 8 available");
    /// ```
    pub fn decode(bytes: &'a [u8]) -> Result<Datafile<'a>, DecodeError> {
        <Datafile as Codec>::decode(&mut Reader::new(bytes, Mode::Lenient), ())
    }

    /// Where each part lies in the file it encodes to.
    pub fn layout(&self) -> Layout {
        let item_types = HEADER_LEN as u64;
        let item_offsets = item_types + (ITEM_TYPE_LEN * self.item_types.len()) as u64;
        let data_offsets = item_offsets + 4 * self.items.len() as u64;
        let data_sizes = data_offsets + 4 * self.data.len() as u64;
        let mut at = data_sizes + self.data_sizes.as_ref().map_or(0, |s| 4 * s.len() as u64);
        let mut items = Vec::with_capacity(self.items.len());
        for item in &self.items {
            items.push(at);
            at += (ITEM_HEADER_LEN + item.payload.len()) as u64;
        }
        let data_start = at;
        let mut data = Vec::with_capacity(self.data.len());
        for block in &self.data {
            data.push(at);
            at += block.len() as u64;
        }
        Layout {
            item_types,
            item_offsets,
            data_offsets,
            data_sizes,
            items,
            data,
            data_start,
            end: at,
        }
    }

    /// The size and swaplen fields DDNet's writer (since 2010) computes
    /// for these items and blocks.
    pub fn writer_sizes(&self) -> (i32, i32) {
        let layout = self.layout();
        let size = layout.end as i64 - SIZE_BASE;
        let swaplen = layout.data_start as i64 - SIZE_BASE;
        (size as i32, swaplen as i32)
    }

    /// Bytes of the items, headers included (the header's item size).
    pub fn item_size(&self) -> u64 {
        self.items
            .iter()
            .map(|i| (ITEM_HEADER_LEN + i.payload.len()) as u64)
            .sum()
    }

    /// Bytes of the stored data (the header's data size).
    pub fn data_size(&self) -> u64 {
        self.data.iter().map(|d| d.len() as u64).sum()
    }

    /// The items of one type, in file order (by each item's own type).
    pub fn items_of(&self, type_id: u16) -> impl Iterator<Item = &Item<'a>> + '_ {
        self.items.iter().filter(move |i| i.type_id() == type_id)
    }

    /// The block's declared uncompressed size: version 4's table, else
    /// the stored length.
    pub fn declared_size(&self, index: usize) -> Option<i64> {
        match &self.data_sizes {
            Some(sizes) => sizes.get(index).map(|&s| s.into()),
            None => self.data.get(index).map(|d| d.len() as i64),
        }
    }

    /// What DDNet 20.1's reader (`CDataFileReader::Open` and its
    /// validation) says of the stored fields: each rule it refuses the
    /// file by (severity fail), and each quirk it lets through (note).
    /// Repeats of one rule are counted on its first finding.
    pub fn faults(&self) -> Vec<Finding> {
        let layout = self.layout();
        let mut tally = Tally::default();
        self.header_faults(&layout, &mut tally);
        self.item_type_faults(&layout, &mut tally);
        self.item_faults(&layout, &mut tally);
        if let Some(sizes) = &self.data_sizes {
            for (i, &size) in sizes.iter().enumerate() {
                let at = layout.data_sizes + 4 * i as u64;
                if size < 0 {
                    tally.add("data_size_negative", || {
                        fail(format!(
                            "data block {i} declares the uncompressed size {size}: DDNet's reader \
                             refuses a negative size"
                        ))
                        .at(at)
                    });
                } else if size == 0 {
                    tally.add("data_size_zero", || {
                        Finding::new(
                            Severity::Note,
                            Code::Datafile,
                            format!(
                                "data block {i} declares the uncompressed size 0: DDNet's reader \
                                 opens the file (old maps have such blocks) but never loads \
                                 the block"
                            ),
                        )
                        .at(at)
                    });
                }
            }
        }
        tally.finish()
    }

    fn header_faults(&self, layout: &Layout, tally: &mut Tally) {
        let file_len = layout.end as i64 + self.trailing.len() as i64;
        if !self.trailing.is_empty() {
            tally.add("trailing", || {
                fail(format!(
                    "{} byte(s) after the data: DDNet's reader refuses a file longer than its \
                     header's sizes (Teeworlds' reader ignores them)",
                    self.trailing.len()
                ))
                .at(layout.end)
            });
        }
        // Version 4 files written before Teeworlds fixed its writer (2010) leave the
        // uncompressed sizes out of size and swaplen; DDNet adds them back.
        let fix = match self.version {
            4 => 4 * self.data.len() as i64,
            _ => 0,
        };
        let size = i64::from(self.size) + SIZE_BASE;
        if size != file_len {
            if fix != 0 && size + fix == file_len {
                tally.add("size_fixed", || {
                    note(format!(
                        "the header's size {} leaves out the {fix} bytes of uncompressed sizes, \
                         as Teeworlds' writer did until 2010: DDNet's reader adds them back",
                        self.size
                    ))
                    .at(8)
                });
            } else {
                tally.add("size", || {
                    fail(format!(
                        "the header's size {} is not the file's length less 16 ({}): DDNet's \
                         reader refuses the file",
                        self.size,
                        file_len - SIZE_BASE
                    ))
                    .at(8)
                });
            }
        }
        let swaplen = i64::from(self.swaplen) + SIZE_BASE;
        let before_data = layout.data_start as i64;
        if swaplen != before_data {
            if fix != 0 && self.swaplen % 4 == 0 && swaplen + fix == before_data {
                tally.add("swaplen_fixed", || {
                    note(format!(
                        "the header's swaplen {} leaves out the {fix} bytes of uncompressed \
                         sizes, as Teeworlds' writer did until 2010: DDNet's reader adds them back",
                        self.swaplen
                    ))
                    .at(12)
                });
            } else {
                tally.add("swaplen", || {
                    fail(format!(
                        "the header's swaplen {} is not the bytes before the data less 16 ({}): \
                         DDNet's reader refuses the file",
                        self.swaplen,
                        before_data - SIZE_BASE
                    ))
                    .at(12)
                });
            }
        }
        if self.item_types.len() > usize::from(u16::MAX) + 1 {
            tally.add("item_types_count", || {
                fail(format!(
                    "{} item types, more than the 65536 types there are: DDNet's reader \
                     refuses the file",
                    self.item_types.len()
                ))
                .at(16)
            });
        }
        if !self.item_size().is_multiple_of(4) {
            tally.add("item_size_alignment", || {
                fail(format!(
                    "the items take {} bytes, not whole int32s: DDNet's reader refuses the file",
                    self.item_size()
                ))
                .at(28)
            });
        }
    }

    fn item_type_faults(&self, layout: &Layout, tally: &mut Tally) {
        let mut seen = std::collections::BTreeSet::new();
        let mut counted: i64 = 0;
        for (i, t) in self.item_types.iter().enumerate() {
            let at = layout.item_types + (ITEM_TYPE_LEN * i) as u64;
            if !(0..=i32::from(u16::MAX)).contains(&t.type_id) {
                tally.add("item_type_range", || {
                    fail(format!(
                        "item type {i} is {}, outside 0 to 65535: DDNet's reader refuses the file",
                        t.type_id
                    ))
                    .at(at)
                });
            }
            if !seen.insert(t.type_id) {
                tally.add("item_type_duplicate", || {
                    fail(format!(
                        "item type {} is listed twice (entry {i}): DDNet's reader refuses the file",
                        t.type_id
                    ))
                    .at(at)
                });
            }
            if t.num <= 0 {
                tally.add("item_type_num", || {
                    fail(format!(
                        "item type {} has {} items: DDNet's reader refuses a type with none",
                        t.type_id, t.num
                    ))
                    .at(at + 8)
                });
            }
            if i64::from(t.start) != counted {
                tally.add("item_type_start", || {
                    fail(format!(
                        "item type {} starts at item {}, not at {counted} (after the types \
                         before it): DDNet's reader refuses the file",
                        t.type_id, t.start
                    ))
                    .at(at + 4)
                });
            }
            counted += i64::from(t.num);
        }
        if counted != self.items.len() as i64 {
            tally.add("item_type_total", || {
                fail(format!(
                    "the item types count {counted} items, the file has {}: DDNet's reader \
                     refuses the file",
                    self.items.len()
                ))
                .at(layout.item_types)
            });
        }
    }

    fn item_faults(&self, layout: &Layout, tally: &mut Tally) {
        // Each item against its entry in the item types table, for the
        // entries that follow on from each other (the others are faults
        // of their own): so each item is looked at once.
        let mut ids: std::collections::BTreeSet<(u16, u16)> = Default::default();
        let mut counted: usize = 0;
        for t in &self.item_types {
            if i64::from(t.start) != counted as i64 || t.num <= 0 {
                break;
            }
            let end = counted.saturating_add(t.num as usize).min(self.items.len());
            for index in counted..end {
                let (item, at) = (&self.items[index], layout.items[index]);
                if i32::from(item.type_id()) != t.type_id {
                    tally.add("item_type_mismatch", || {
                        fail(format!(
                            "item {index} has type {}, but the item types table puts it under \
                             type {}: DDNet's reader refuses the file",
                            item.type_id(),
                            t.type_id
                        ))
                        .at(at)
                    });
                }
                if ids.insert((item.type_id(), item.id())) {
                    continue;
                }
                // Old DDNet tools wrote ITEMTYPE_EX items twice; DDNet lets
                // that type repeat ids.
                if item.type_id() == ITEMTYPE_EX {
                    tally.add("item_ex_duplicate", || {
                        note(format!(
                            "item {index} repeats the UUID item id {}, as old DDNet tools \
                             wrote them: DDNet's reader lets this type (0xffff) repeat ids",
                            item.id()
                        ))
                        .at(at)
                    });
                } else {
                    tally.add("item_id_duplicate", || {
                        fail(format!(
                            "item {index} (type {}) repeats id {}: DDNet's reader refuses the file",
                            item.type_id(),
                            item.id()
                        ))
                        .at(at)
                    });
                }
            }
            counted = end;
        }
        for (index, item) in self.items.iter().enumerate() {
            let at = layout.items[index] + 4;
            if i64::from(item.size) != item.payload.len() as i64 {
                tally.add("item_size", || {
                    fail(format!(
                        "item {index}'s size field is {}, its offsets give it {} bytes: \
                         DDNet's reader refuses the file",
                        item.size,
                        item.payload.len()
                    ))
                    .at(at)
                });
            } else if !item.payload.len().is_multiple_of(4) {
                tally.add("item_size_alignment", || {
                    fail(format!(
                        "item {index} has {} bytes, not whole int32s: DDNet's reader refuses \
                         the file",
                        item.payload.len()
                    ))
                    .at(at)
                });
            }
        }
    }
}

fn fail(message: String) -> Finding {
    Finding::new(Severity::Fail, Code::Datafile, message)
}

fn note(message: String) -> Finding {
    Finding::new(Severity::Note, Code::Datafile, message)
}

impl<'a> Codec<'a> for Datafile<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let base = r.offset();
        let raw: [u8; HEADER_LEN] = r.take_array("map.header")?;
        let magic = match &raw[..4] {
            b"DATA" => Magic::Data,
            b"ATAD" => Magic::Atad,
            _ => return Err(DecodeError::new(base, "map.magic", ErrorKind::BadMagic)),
        };
        let version = header_field(&raw, 4);
        if version != 3 && version != 4 {
            return Err(DecodeError::new(
                base + 4,
                "map.version",
                ErrorKind::UnsupportedVersion {
                    found: Some(version.into()),
                    supported: "3 or 4",
                },
            ));
        }
        let num_types = count(&raw, 16, base, "map.header.num_item_types")?;
        let num_items = count(&raw, 20, base, "map.header.num_items")?;
        let num_data = count(&raw, 24, base, "map.header.num_data")?;
        let item_size = count(&raw, 28, base, "map.header.item_size")?;
        let data_size = count(&raw, 32, base, "map.header.data_size")?;
        // Each count is under 2^31: its bytes fit a 64-bit usize.
        let types = r.take(num_types * ITEM_TYPE_LEN, "map.item_types")?;
        let item_types = types
            .chunks_exact(ITEM_TYPE_LEN)
            .map(|t| ItemType {
                type_id: le_i32(t),
                start: le_i32(&t[4..]),
                num: le_i32(&t[8..]),
            })
            .collect();
        let item_offsets_at = r.offset();
        let item_offsets = r.take(4 * num_items, "map.item_offsets")?;
        let data_offsets_at = r.offset();
        let data_offsets = r.take(4 * num_data, "map.data_offsets")?;
        let data_sizes = match version {
            4 => Some(
                r.take(4 * num_data, "map.data_sizes")?
                    .chunks_exact(4)
                    .map(le_i32)
                    .collect(),
            ),
            _ => None,
        };
        let items_at = r.offset();
        let item_region = r.take(item_size, "map.items")?;
        let data_region = r.take(data_size, "map.data")?;
        let trailing = r.rest();

        let spans = split(
            item_region,
            item_offsets,
            item_offsets_at,
            Split {
                context: "map.item_offsets",
                singular: "item",
                plural: "items",
            },
        )?;
        let mut items = Vec::with_capacity(spans.len());
        let mut at = items_at;
        for span in spans {
            let Some((head, payload)) = span.split_first_chunk::<ITEM_HEADER_LEN>() else {
                return Err(DecodeError::new(
                    at,
                    "map.item",
                    ErrorKind::InvalidValue {
                        found: span.len() as i64,
                        expected: format!(
                            "an item of at least {ITEM_HEADER_LEN} bytes (its type, id and size)"
                        ),
                    },
                ));
            };
            items.push(Item {
                type_and_id: le_i32(head) as u32,
                size: le_i32(&head[4..]),
                payload,
            });
            at += span.len() as u64;
        }
        let data = split(
            data_region,
            data_offsets,
            data_offsets_at,
            Split {
                context: "map.data_offsets",
                singular: "data",
                plural: "data blocks",
            },
        )?;
        Ok(Datafile {
            magic,
            version,
            size: header_field(&raw, 8),
            swaplen: header_field(&raw, 12),
            item_types,
            items,
            data,
            data_sizes,
            trailing,
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        let int = |out: &mut Vec<u8>, v: i64| out.extend_from_slice(&(v as i32).to_le_bytes());
        out.extend_from_slice(self.magic.bytes());
        for v in [self.version, self.size, self.swaplen] {
            int(out, v.into());
        }
        int(out, self.item_types.len() as i64);
        int(out, self.items.len() as i64);
        int(out, self.data.len() as i64);
        int(out, self.item_size() as i64);
        int(out, self.data_size() as i64);
        for t in &self.item_types {
            for v in [t.type_id, t.start, t.num] {
                int(out, v.into());
            }
        }
        let mut at = 0;
        for item in &self.items {
            int(out, at);
            at += (ITEM_HEADER_LEN + item.payload.len()) as i64;
        }
        let mut at = 0;
        for block in &self.data {
            int(out, at);
            at += block.len() as i64;
        }
        for &size in self.data_sizes.iter().flatten() {
            int(out, size.into());
        }
        for item in &self.items {
            int(out, i64::from(item.type_and_id as i32));
            int(out, item.size.into());
            out.extend_from_slice(item.payload);
        }
        for block in &self.data {
            out.extend_from_slice(block);
        }
        out.extend_from_slice(self.trailing);
    }
}
