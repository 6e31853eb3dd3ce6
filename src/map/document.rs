//! A map as one JSON document, and that document back to the file's
//! bytes: the conformance suite's `map` unit (`src/schema.md`, `# conform`,
//! "The map unit").
//!
//! The document is the container as stored (header fields, the item types
//! table, each item's type, id, size field and payload, each data block
//! as stored with its declared size), each item typed as DDNet's loader
//! reads it ([`Map::new`]), each data block's inflated bytes by SHA-256,
//! and each tiles layer's tiles. It is bounded by the file: the tiles of
//! all layers together are shown as hex up to [`TILES_HEX_BUDGET`]
//! inflated bytes, the rest only by their block's hash.

use super::grid::grid;
use super::items::{LayerBody, MapItem, Physics};
use super::tiles::Tiles;
use super::{Datafile, Item, ItemType, Magic, Map};
use crate::codec::encode_to_vec;
use crate::compression::zlib::inflate_with;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The inflated tile bytes, over all layers of a map, that the document
/// shows as hex; a layer past it shows `null` (its block's `sha256` is
/// always there).
pub const TILES_HEX_BUDGET: u64 = 1 << 18;

/// The document of `datafile` (whose blocks are inflated up to `cap`
/// bytes each, streamed for their hashes).
pub fn document(datafile: &Datafile<'_>, cap: u64) -> Value {
    let map = Map::new(datafile);
    let header = json!({
        "magic": std::str::from_utf8(datafile.magic.bytes()).unwrap_or("DATA"),
        "version": datafile.version,
        "size": datafile.size,
        "swaplen": datafile.swaplen,
        "num_item_types": datafile.item_types.len(),
        "num_items": datafile.items.len(),
        "num_data": datafile.data.len(),
        "item_size": datafile.item_size(),
        "data_size": datafile.data_size(),
    });
    let item_types: Vec<Value> = datafile
        .item_types
        .iter()
        .map(|t| json!({ "type_id": t.type_id, "start": t.start, "num": t.num }))
        .collect();
    let items: Vec<Value> = datafile
        .items
        .iter()
        .zip(&map.items)
        .map(|(item, typed)| {
            json!({
                "type_id": item.type_id(),
                "id": item.id(),
                "size": item.size,
                "hex": hex::encode(item.payload),
                "item": typed.as_ref().ok(),
            })
        })
        .collect();
    let data: Vec<Value> = (0..datafile.data.len())
        .map(|i| block_entry(datafile, i, cap))
        .collect();
    let mut budget = TILES_HEX_BUDGET;
    let mut layers = Vec::new();
    for (i, item) in map.items.iter().enumerate() {
        let Ok(MapItem::Layer(layer)) = item else {
            continue;
        };
        let LayerBody::Tiles(t) = &layer.body else {
            continue;
        };
        let block = t.tiles_data();
        let tiles = block
            .and_then(|b| usize::try_from(b).ok())
            .and_then(|b| tiles_hex(datafile, b, cap, &mut budget));
        layers.push(json!({
            "item": i,
            "physics": t.physics().map(|p| p.name().to_ascii_lowercase()),
            "width": t.width,
            "height": t.height,
            "block": block,
            "tiles": tiles,
        }));
    }
    let game = game(datafile, &map, cap, &mut budget);
    json!({
        "header": header,
        "item_types": item_types,
        "items": items,
        "data": data,
        "layers": layers,
        "game": game,
        "trailing_hex": hex::encode(datafile.trailing),
    })
}

/// The game layer DDNet's loader uses (the last tiles layer with the game
/// flag among the groups' layers), its tiles expanded (version 4 skip
/// runs) to one index byte and one flags byte each: what a reader of the
/// game's physics gives. `null` without one; `index_hex` and `flags_hex`
/// are `null` when its tiles do not read or pass the budget.
fn game(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64, budget: &mut u64) -> Value {
    let Some((item, t)) = map.physics_layer(Physics::Game) else {
        return Value::Null;
    };
    let count = i64::from(t.width) * i64::from(t.height);
    let tiles = (count > 0 && 2 * count as u64 <= *budget)
        .then(|| {
            let Ok(Tiles::Tile(tiles)) = grid(datafile, t, cap) else {
                return None;
            };
            *budget -= 2 * count as u64;
            let index: Vec<u8> = tiles.iter().map(|t| t.index).collect();
            let flags: Vec<u8> = tiles.iter().map(|t| t.flags).collect();
            Some((hex::encode(index), hex::encode(flags)))
        })
        .flatten();
    let (index, flags) = tiles.unzip();
    json!({
        "item": item,
        "width": t.width,
        "height": t.height,
        "index_hex": index,
        "flags_hex": flags,
    })
}

/// Block `i`: as stored, its declared size, and the SHA-256 of what
/// DDNet's reader gives for it (or why it gives nothing).
fn block_entry(datafile: &Datafile<'_>, i: usize, cap: u64) -> Value {
    let stored = datafile.data[i];
    let declared = datafile.data_sizes.as_ref().and_then(|s| s.get(i).copied());
    let mut hash = Sha256::new();
    let (len, fault) = match declared {
        None => {
            hash.update(stored);
            (Some(stored.len() as u64), None)
        }
        Some(d) => {
            let mut len = 0u64;
            match inflate_with(stored, d.into(), cap, |chunk| {
                hash.update(chunk);
                len += chunk.len() as u64;
            }) {
                Ok(_) => (Some(len), None),
                Err(f) => (None, Some(f)),
            }
        }
    };
    let digest = len.map(|_| hex::encode(hash.finalize()));
    json!({
        "size": declared,
        "stored_size": stored.len(),
        "stored_hex": hex::encode(stored),
        "inflated_size": len,
        "sha256": digest,
        "fault": fault,
    })
}

/// Block `b` inflated, as hex, if it gives its bytes and they fit what
/// is left of `budget`.
fn tiles_hex(datafile: &Datafile<'_>, b: usize, cap: u64, budget: &mut u64) -> Option<String> {
    let declared = datafile.declared_size(b)?;
    if declared <= 0 || declared as u64 > *budget {
        return None;
    }
    let bytes = super::data::block(datafile, b, cap.min(*budget)).ok()?;
    *budget -= bytes.len() as u64;
    Some(hex::encode(bytes))
}

/// The file a document stands for: its header's magic, version, size and
/// swaplen, its item types, its items' type, id, size and `hex`, its
/// blocks' `stored_hex` and (version 4) `size`, and `trailing_hex`; the
/// counts, offsets and the rest follow from them.
pub fn encode(doc: &Value) -> Result<Vec<u8>, String> {
    let header = &doc["header"];
    let int = |v: &Value, what: &str| -> Result<i32, String> {
        v.as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| format!("`{what}` is not an int32"))
    };
    let magic = match header["magic"].as_str() {
        Some("DATA") => Magic::Data,
        Some("ATAD") => Magic::Atad,
        _ => return Err("`header.magic` is not \"DATA\" or \"ATAD\"".into()),
    };
    let version = int(&header["version"], "header.version")?;
    let list = |name: &str| -> Result<&Vec<Value>, String> {
        doc[name]
            .as_array()
            .ok_or_else(|| format!("`{name}` is not an array"))
    };
    let item_types = list("item_types")?
        .iter()
        .map(|t| {
            Ok(ItemType {
                type_id: int(&t["type_id"], "item_types[].type_id")?,
                start: int(&t["start"], "item_types[].start")?,
                num: int(&t["num"], "item_types[].num")?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let hex_of = |v: &Value, what: &str| -> Result<Vec<u8>, String> {
        let s = v
            .as_str()
            .ok_or_else(|| format!("`{what}` is not a string"))?;
        hex::decode(s).map_err(|e| format!("`{what}`: {e}"))
    };
    let mut heads = Vec::new();
    let mut payloads = Vec::new();
    for item in list("items")? {
        let field = |name: &str, max: i64| {
            item[name]
                .as_i64()
                .filter(|n| (0..=max).contains(n))
                .ok_or_else(|| format!("`items[].{name}` is not in 0..={max}"))
        };
        let type_and_id = (field("type_id", 0xffff)? << 16 | field("id", 0xffff)?) as u32;
        heads.push((type_and_id, int(&item["size"], "items[].size")?));
        payloads.push(hex_of(&item["hex"], "items[].hex")?);
    }
    let mut sizes = Vec::new();
    let mut blocks = Vec::new();
    for block in list("data")? {
        blocks.push(hex_of(&block["stored_hex"], "data[].stored_hex")?);
        if version == 4 {
            sizes.push(int(&block["size"], "data[].size")?);
        }
    }
    let trailing = hex_of(&doc["trailing_hex"], "trailing_hex")?;
    let datafile = Datafile {
        magic,
        version,
        size: int(&header["size"], "header.size")?,
        swaplen: int(&header["swaplen"], "header.swaplen")?,
        item_types,
        items: heads
            .iter()
            .zip(&payloads)
            .map(|(&(type_and_id, size), payload)| Item {
                type_and_id,
                size,
                payload,
            })
            .collect(),
        data: blocks.iter().map(Vec::as_slice).collect(),
        data_sizes: (version == 4).then_some(sizes),
        trailing: &trailing,
    };
    Ok(encode_to_vec(&datafile, ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every corpus map that the reader splits (the malformed ones DDNet
    /// refuses by a rule included) is its document's bytes again.
    #[test]
    fn every_corpus_map_is_its_document_encoded() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/map");
        let mut read = 0;
        for path in crate::files::files_under(&root).unwrap() {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(datafile) = Datafile::decode(&bytes) else {
                continue;
            };
            let doc = document(&datafile, 1 << 26);
            assert_eq!(
                encode(&doc).as_deref(),
                Ok(&bytes[..]),
                "{}",
                path.display()
            );
            read += 1;
        }
        assert!(read >= 10, "{read} maps");
    }
}
