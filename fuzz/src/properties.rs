//! What each fuzz target checks on one input: more than "no crash". Every
//! function panics when a property fails. `tests/it/fuzz_regressions.rs`
//! runs the same functions over the corpus and every saved finding, so
//! this file depends on teeoracle and std only.

use std::ops::ControlFlow;
use teeoracle::codec::{Codec, Mode, Reader, encode_to_vec};
use teeoracle::teehistorian::{Replay, ReplayConfig, SliceReader, StreamReader};

/// Teehistorian: the slice reader and the stream reader agree record for
/// record (offset, tick, bytes, message) and on where and why they stop;
/// every record re-encodes to its bytes; a strict read, where it
/// succeeds, gives the same records; the replay handles whatever the
/// readers give, and resuming from a checkpoint (whole, or sharing its
/// history) ends in the same world as replaying straight through.
pub fn teehistorian(data: &[u8]) {
    let slice = SliceReader::new(data, Mode::Lenient);
    let stream = StreamReader::new(data, Mode::Lenient);
    let (mut slice, mut stream) = match (slice, stream) {
        (Ok((h1, s)), Ok((h2, t))) => {
            assert_eq!(h1, h2, "the readers read different headers");
            (s, t)
        }
        (Err(a), Err(teeoracle::teehistorian::ReadError::Decode(b))) => {
            assert_eq!(a, b, "the readers reject the header differently");
            return;
        }
        (a, b) => panic!(
            "one reader reads the header, the other does not: {:?} / {:?}",
            a.err(),
            b.err()
        ),
    };
    let mut records = Vec::new();
    let mut buf = Vec::new();
    let slice_end = slice.for_each_record(|rec| {
        buf.clear();
        rec.encode(&mut buf);
        assert_eq!(
            buf, rec.raw,
            "record at {} re-encodes differently",
            rec.offset
        );
        records.push((rec.offset, rec.tick, rec.raw.to_vec(), rec.msg.clone()));
        ControlFlow::<()>::Continue(())
    });
    let mut n = 0;
    let stream_end = stream.for_each_record(|rec| {
        let (offset, tick, raw, msg) = records
            .get(n)
            .unwrap_or_else(|| panic!("the stream reader reads more records ({n})"));
        assert_eq!((rec.offset, rec.tick), (*offset, *tick), "record {n}");
        assert_eq!(rec.raw, &raw[..], "record {n}");
        assert_eq!(&rec.msg, msg, "record {n}");
        n += 1;
        ControlFlow::<()>::Continue(())
    });
    assert_eq!(n, records.len(), "the stream reader stops early");
    match (slice_end, stream_end) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(teeoracle::teehistorian::ReadError::Decode(b))) => assert_eq!(a, b),
        (a, b) => panic!("the readers end differently: {:?} / {:?}", a.err(), b.err()),
    }
    assert_eq!(slice.end(), stream.end(), "the readers see different ends");

    // A strict read gives the same records as far as it goes.
    if let Ok((_, strict)) = SliceReader::new(data, Mode::Strict) {
        for (rec, (offset, _, raw, _)) in strict.map_while(Result::ok).zip(&records) {
            assert_eq!((rec.offset, rec.raw), (*offset, &raw[..]));
        }
    }

    // The replay, straight through and resumed half-way.
    let mut straight = Replay::new(ReplayConfig::default());
    let half = records.len() / 2;
    let mut whole = None;
    let mut shared = None;
    for (i, (offset, _, _, msg)) in records.iter().enumerate() {
        if i == half {
            whole = Some(straight.checkpoint());
            shared = Some((straight.checkpoint_sharing_history(), straight.history()));
        }
        let _ = straight.handle(*offset, msg);
    }
    let (Some(whole), Some(((mut part, len), history))) = (whole, shared) else {
        return;
    };
    part.world.set_history(
        history
            .prefix(len)
            .expect("the history is as long as it says"),
    );
    assert_eq!(part, whole, "a checkpoint sharing its history differs");
    let mut resumed = Replay::resume(whole);
    for (offset, _, _, msg) in &records[half..] {
        let _ = resumed.handle(*offset, msg);
    }
    assert_eq!(resumed.world(), straight.world(), "resuming differs");
}

/// Demos: a demo that decodes re-encodes to its bytes; one that decodes
/// only in part never panics, and neither does re-recording it (DDNet's
/// recorder fed the decoded demo).
pub fn demo(data: &[u8]) {
    use teeoracle::demo::{Demo, rerecord};
    if let Ok((demo, _)) = Demo::decode(data) {
        assert_eq!(
            encode_to_vec(&demo, ()),
            data,
            "the demo re-encodes differently"
        );
    }
    let _ = Demo::decode_partial(data);
    let _ = rerecord(data);
}

/// Packets: the first byte picks 0.6 or 0.7, the rest is a datagram. A
/// strict decode re-encodes to its bytes; a lenient one never panics, nor
/// do its chunks and contents.
pub fn packet(data: &[u8]) {
    use teeoracle::packet::{Packet, PacketCtx, TokenMode, Version};
    let Some((&which, datagram)) = data.split_first() else {
        return;
    };
    let version = [None, Some(Version::V06), Some(Version::V07)][usize::from(which % 3)];
    for token in [TokenMode::Auto, TokenMode::Present, TokenMode::Absent] {
        let ctx = PacketCtx { version, token };
        if let Ok(p) = Packet::decode(&mut Reader::new(datagram, Mode::Strict), ctx) {
            let mut out = Vec::new();
            p.encode(&mut out, ctx);
            assert_eq!(out, datagram, "a strict decode re-encodes differently");
        }
        if let Ok(Packet::Connection(c)) =
            Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx)
        {
            let _ = c.chunks();
            let _ = c.contents();
            let _ = c.control();
        }
    }
}

/// Captures: reading a pcap or pcapng file and replaying every session in
/// it (DDNet's connection rules, snapshots rebuilt) never panics.
pub fn session(data: &[u8]) {
    use teeoracle::{capture, session};
    let Ok(capture) = capture::read(data) else {
        return;
    };
    let Some(port) = session::server_port(&capture) else {
        return;
    };
    let mut s = session::Session::new(&capture, port);
    while s.next_datagram().is_some() {}
    let _ = s.finish();
}

/// Snapshots and deltas: the input is a snapshot's ints, then a delta's.
/// A snapshot that reads writes back the same ints and its CRC is its
/// items' data summed; `unpack_in_place`
/// gives what `unpack` gives whenever it takes the delta, and leaves the
/// snapshot alone when it declines; a delta made by `create` between two
/// snapshots applies (to the items of `to`, in DDNet's order, when no key
/// repeats).
pub fn snapshot(data: &[u8]) {
    use teeoracle::snapshot::{DeltaCodec, ItemSizes, Snapshot, create};
    let ints: Vec<i32> = data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let sizes = ItemSizes::ddnet_06();
    // The first int says where the snapshot ends.
    let Some((&split, rest)) = ints.split_first() else {
        return;
    };
    let cut = (split.unsigned_abs() as usize).min(rest.len());
    let (snap_ints, delta) = rest.split_at(cut);
    let Ok(from) = Snapshot::from_ints(snap_ints) else {
        return;
    };
    assert_eq!(
        from.to_ints(),
        snap_ints,
        "the snapshot re-encodes differently"
    );
    // `CSnapshot::Crc`: the items' data, summed (keys and ints before the
    // first item are not data).
    let data_sum = from
        .items()
        .flat_map(|i| i.data.iter())
        .fold(0i32, |a, &v| a.wrapping_add(v));
    assert_eq!(
        from.crc(),
        data_sum,
        "the CRC is not the items' data summed"
    );
    let mut codec = DeltaCodec::new(sizes.clone());
    let mut unpacked = Snapshot::new();
    let result = codec.unpack(&from, delta, &mut unpacked);
    let mut in_place = from.clone();
    if codec.unpack_in_place(&mut in_place, delta) {
        assert!(result.is_ok(), "in place took a delta unpack refuses");
        assert_eq!(in_place, unpacked, "in place differs from unpack");
    } else {
        assert_eq!(in_place, from, "in place changed what it declined");
    }
    let unique = |s: &Snapshot| {
        let mut keys: Vec<i32> = s.items().map(|i| i.key).collect();
        keys.sort_unstable();
        keys.windows(2).all(|w| w[0] != w[1])
    };
    // With a repeated key DDNet's own CreateDelta can write a delta its
    // UnpackDelta refuses (a second copy of another size is diffed against
    // the first): the round trip is a property of unique keys only.
    if result.is_ok() && unique(&from) && unique(&unpacked) {
        let d = create(&from, &unpacked, &sizes);
        let again = teeoracle::snapshot::apply(&from, &d, &sizes).expect("a created delta applies");
        {
            let sorted = |s: &Snapshot| {
                let mut v: Vec<(i32, Vec<i32>)> =
                    s.items().map(|i| (i.key, i.data.to_vec())).collect();
                v.sort();
                v
            };
            assert_eq!(
                sorted(&again),
                sorted(&unpacked),
                "create then apply differs"
            );
        }
    }
}

/// Huffman: any bytes compress and decompress back, in both flavours; an
/// input that decompresses re-compresses to its own bytes with the flavour
/// that wrote it (when one did).
pub fn huffman(data: &[u8]) {
    use teeoracle::huffman::{Flavor, compress_to_vec, decompress};
    for flavor in [Flavor::Ddnet, Flavor::Legacy] {
        let packed = compress_to_vec(data, flavor);
        let mut out = Vec::new();
        decompress(&packed, &mut out, data.len(), 0).expect("our own output decompresses");
        assert_eq!(out, data, "a round trip differs");
    }
    let mut out = Vec::new();
    if let Ok(info) = decompress(data, &mut out, 1 << 16, 0)
        && let Some(flavor) = info.flavor(Flavor::Ddnet)
    {
        assert_eq!(
            compress_to_vec(&out, flavor),
            data[..info.len],
            "re-compression differs"
        );
    }
}

/// Archives (written to a temporary file): opening, `info`, `verify`, a
/// seek and the log of each map never panic; in an archive that verifies
/// (seek trusts a checkpoint that matches its table of contents, as
/// `archive seek` without `--check` does), a seek equals a replay from the
/// start.
pub fn archive(data: &[u8], dir: &std::path::Path) {
    use teeoracle::archive::Archive;
    let path = dir.join("fuzz.tar");
    std::fs::write(&path, data).expect("a temporary file");
    let Ok(mut a) = Archive::open(&path) else {
        return;
    };
    let _ = a.summary();
    let sound = !a.verify().failed();
    for n in a.map_numbers().into_iter().take(4) {
        let _ = a.log(n);
        for tick in [0, 50, 1000] {
            if let Ok(seek) = a.seek(n, tick)
                && sound
            {
                let straight = a.replay_from_start(n, tick).expect("the seek replayed it");
                assert_eq!(seek.world, straight, "seek differs from a replay");
            }
        }
    }
    if let Ok(full) = Archive::open_full(&path) {
        let _ = full.verify();
    }
}

/// Maps: whatever decodes re-encodes to its bytes, each typed item to
/// its payload and the conformance unit's map document to the file;
/// `check` (every data block inflated, 16 MiB at most, under
/// the target's allocation bound; DDNet's reader and loader rules) never
/// panics.
pub fn map(data: &[u8]) {
    use teeoracle::input::Source;
    use teeoracle::map::check::MapFormat;
    use teeoracle::map::{Datafile, Map};
    use teeoracle::report::{Format, Verdict};
    let mut source = Source::bytes("fuzz.map", data.to_vec());
    source.set_max_decompressed(Some(16 << 20));
    MapFormat.check(source, &Default::default(), &mut Verdict::new("fuzz.map"));
    let Ok(datafile) = Datafile::decode(data) else {
        return;
    };
    assert_eq!(
        encode_to_vec(&datafile, ()),
        data,
        "the map re-encodes differently"
    );
    let typed = Map::new(&datafile);
    for (i, item) in datafile.items.iter().enumerate() {
        if let Some(payload) = typed.encode_item(i) {
            assert_eq!(payload, item.payload, "item {i} re-encodes differently");
        }
    }
    let doc = teeoracle::map::document::document(&datafile, 16 << 20);
    assert_eq!(
        teeoracle::map::document::encode(&doc).as_deref(),
        Ok(data),
        "the map document encodes differently"
    );
}
