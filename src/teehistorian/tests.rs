//! Unit and property tests of the teehistorian codec, stream and replay.

use super::*;
use crate::bytes::{Blob, Text};
use crate::codec::{Codec, Mode, Reader, decode_exact, encode_to_vec};
use crate::packet::Version;
use crate::testing::{codec_law, qc, strict_law};
use message::{Field, Mixes, MoveLengths};
use quickcheck::{Arbitrary, Gen, TestResult};
use std::io::Write;
use uuid::Uuid;

/// The UUIDs of DDNet 20.1's `teehistorian_ex_chunks.h`, as listed in the
/// spec (section 1.4); ours are computed from the names.
#[test]
fn extension_uuids_match_ddnet() {
    let expected = [
        "6bb8ba88-0f0b-382e-8dae-dbf4052b8b7d",
        "41b49541-f26f-325d-8715-9baf4b544ef9",
        "1397b63e-ee4e-3919-b86a-b058887fcaf5",
        "60daba5c-52c4-3aeb-b8ba-b2953fb55a17",
        "37ecd3b8-9218-3bb9-a71b-a935b86f6a81",
        "d4f5abe8-edd2-3fb9-abd8-1c8bb84f4a63",
        "1899a382-71e3-36da-937d-c9de6bb95b1d",
        "59239b05-0540-318d-bea4-9aa1e80e7d2b",
        "5de9b633-49cf-3e99-9a25-d4a78e9717d7",
        "4560c756-da29-3036-81d4-90a50f0182cd",
        "b29901d5-1244-3bd0-bbde-23d04b1f7ba9",
        "e05408d3-a313-33df-9eb3-ddb990ab954a",
        "ef8905a2-c695-3591-a1cd-53d2015992dd",
        "a111c04e-1ea8-38e0-90b1-d7f993ca0da9",
        "5792834e-81d1-34c9-a29b-b5ff25dac3bc",
        "638587c9-3f75-3887-918e-a3c2614ffaa0",
        "c1e921d5-96f5-37bb-8a45-7a06f163d27e",
        "866bfdac-fb49-3c0b-a887-5fe1f3ea00b8",
        "d016f9b9-4151-3b87-87e5-3a6087eb5f26",
        "68943c01-2348-3e01-9490-3f27f8269d94",
        "9588b9af-3fdc-3760-8043-82deeee317a5",
    ];
    assert_eq!(ExKind::ALL.len(), 21);
    for (kind, uuid) in ExKind::ALL.iter().zip(expected) {
        assert_eq!(kind.uuid().to_string(), uuid, "{}", kind.name());
        assert_eq!(ExKind::from_uuid(&kind.uuid()), Some(*kind));
    }
    let names: Vec<_> = ExKind::ALL.iter().map(|k| k.kind_name()).collect();
    assert_eq!(
        names,
        [
            "test",
            "ddnetver_old",
            "ddnetver",
            "auth_init",
            "auth_login",
            "auth_logout",
            "joinver6",
            "joinver7",
            "player_swap",
            "save_success",
            "save_failure",
            "load_success",
            "load_failure",
            "player_team",
            "team_practice",
            "player_ready",
            "rejoinver6",
            "antibot",
            "player_name",
            "player_finish",
            "team_finish"
        ]
    );
}

/// The serde tag of every message equals its dump kind.
#[test]
fn serde_kind_matches_kind_name() {
    let mut g = Gen::from_size_and_seed(30, crate::testing::SEED);
    for _ in 0..500 {
        let ArbMessage(msg) = ArbMessage::arbitrary(&mut g);
        let value = serde_json::to_value(&msg).unwrap();
        assert_eq!(value["kind"], msg.kind_name(), "{msg:?}");
    }
}

/// The spec's example: `PLAYER_DIFF cid=0 … PLAYER_NEW cid=5 … PLAYER_OLD
/// cid=3` has an implicit tick between cid 5 and cid 3; equal cids start a
/// tick too; TICK_SKIP resets the previous cid.
#[test]
fn tick_clock_follows_ddnet() {
    let mut clock = TickClock::default();
    let mut tick = |m: Message<'_>| clock.advance(&m).unwrap();
    assert_eq!(
        tick(Message::PlayerDiff {
            cid: 0,
            dx: 1,
            dy: 0
        }),
        1,
        "first record: tick 1"
    );
    assert_eq!(tick(Message::Join { cid: 9 }), 1);
    assert_eq!(tick(Message::PlayerNew { cid: 5, x: 0, y: 0 }), 1);
    assert_eq!(tick(Message::PlayerOld { cid: 3 }), 2, "3 <= 5");
    assert_eq!(tick(Message::PlayerOld { cid: 3 }), 3, "3 <= 3");
    assert_eq!(tick(Message::TickSkip { dt: 4 }), 8);
    assert_eq!(
        tick(Message::PlayerDiff {
            cid: 0,
            dx: 1,
            dy: 0
        }),
        8,
        "reset by TICK_SKIP"
    );
    let mut clock = TickClock::default();
    clock
        .advance(&Message::TickSkip { dt: i32::MAX - 1 })
        .unwrap();
    assert_eq!(clock.advance(&Message::PlayerOld { cid: 0 }), Ok(i32::MAX));
    assert_eq!(
        clock.advance(&Message::PlayerOld { cid: 0 }),
        Err(TickError::Overflow)
    );
}

/// Arbitrary messages of every kind, with owned bytes.
#[derive(Clone, Debug)]
pub(crate) struct ArbMessage(pub(crate) Message<'static>);

fn text(g: &mut Gen) -> Text<'static> {
    let bytes: Vec<u8> = Vec::<u8>::arbitrary(g)
        .into_iter()
        .filter(|&b| b != 0)
        .collect();
    Text::from(bytes)
}

fn blob(g: &mut Gen) -> Blob<'static> {
    Blob::from(Vec::<u8>::arbitrary(g))
}

fn uuid(g: &mut Gen) -> Uuid {
    Uuid::from_u128(u128::arbitrary(g))
}

fn cid(g: &mut Gen) -> i32 {
    // Mostly real client ids, sometimes anything.
    if bool::arbitrary(g) {
        i32::from(u8::arbitrary(g) % 130)
    } else {
        i32::arbitrary(g)
    }
}

fn ex(g: &mut Gen) -> Ex<'static> {
    let i = |g: &mut Gen| i32::arbitrary(g);
    match u8::arbitrary(g) % 22 {
        0 => Ex::Test {},
        1 => Ex::DdnetverOld {
            cid: cid(g),
            version: i(g),
        },
        2 => Ex::Ddnetver {
            cid: cid(g),
            connection_id: uuid(g),
            version: i(g),
            version_str: text(g),
        },
        3 => Ex::AuthInit {
            cid: cid(g),
            level: i(g),
            auth_name: text(g),
        },
        4 => Ex::AuthLogin {
            cid: cid(g),
            level: i(g),
            auth_name: text(g),
        },
        5 => Ex::AuthLogout { cid: cid(g) },
        6 => Ex::Joinver6 { cid: cid(g) },
        7 => Ex::Joinver7 { cid: cid(g) },
        8 => Ex::PlayerSwap {
            cid1: cid(g),
            cid2: cid(g),
        },
        9 => Ex::SaveSuccess {
            team: i(g),
            save_id: uuid(g),
            save: text(g),
        },
        10 => Ex::SaveFailure { team: i(g) },
        11 => Ex::LoadSuccess {
            team: i(g),
            save_id: uuid(g),
            save: text(g),
        },
        12 => Ex::LoadFailure { team: i(g) },
        13 => Ex::PlayerTeam {
            cid: cid(g),
            team: i(g),
        },
        14 => Ex::TeamPractice {
            team: i(g),
            practice: i(g),
        },
        15 => Ex::PlayerReady { cid: cid(g) },
        16 => Ex::Rejoinver6 { cid: cid(g) },
        17 => Ex::Antibot { data: blob(g) },
        18 => Ex::PlayerName {
            cid: cid(g),
            name: text(g),
        },
        19 => Ex::PlayerFinish {
            cid: cid(g),
            time: i(g),
        },
        20 => Ex::TeamFinish {
            team: i(g),
            time: i(g),
        },
        _ => loop {
            let uuid = uuid(g);
            if ExKind::from_uuid(&uuid).is_none() {
                break Ex::UnknownEx {
                    uuid,
                    data: blob(g),
                };
            }
        },
    }
}

impl Arbitrary for ArbMessage {
    fn arbitrary(g: &mut Gen) -> Self {
        let i = |g: &mut Gen| i32::arbitrary(g);
        let input = |g: &mut Gen| std::array::from_fn(|_| i32::arbitrary(g));
        ArbMessage(match u8::arbitrary(g) % 12 {
            0 => Message::PlayerDiff {
                cid: cid(g).max(0),
                dx: i(g),
                dy: i(g),
            },
            1 => Message::Finish,
            2 => Message::TickSkip { dt: i(g) },
            3 => Message::PlayerNew {
                cid: cid(g),
                x: i(g),
                y: i(g),
            },
            4 => Message::PlayerOld { cid: cid(g) },
            5 => Message::InputDiff {
                cid: cid(g),
                dinput: input(g),
            },
            6 => Message::InputNew {
                cid: cid(g),
                input: input(g),
            },
            7 => Message::NetMessage {
                cid: cid(g),
                data: blob(g),
            },
            8 => Message::Join { cid: cid(g) },
            9 => Message::Drop {
                cid: cid(g),
                reason: text(g),
            },
            10 => ConsoleCommand {
                cid: cid(g),
                flags: i(g),
                cmd: text(g),
                args: (0..u8::arbitrary(g) % 4).map(|_| text(g)).collect(),
            }
            .into(),
            _ => {
                let ex = ex(g);
                // Trailing bytes are only distinguishable after fixed fields.
                let trailing = match ex {
                    Ex::Antibot { .. } | Ex::UnknownEx { .. } => Blob::default(),
                    _ if bool::arbitrary(g) => blob(g),
                    _ => Blob::default(),
                };
                Message::Ex(Box::new(ExMessage { ex, trailing }))
            }
        })
    }
}

/// The text form's ` key=value` pairs are the JSON form's fields, in
/// order, whatever the message.
#[test]
fn prop_text_pairs_are_the_json_fields() {
    fn prop(ArbMessage(msg): ArbMessage) -> bool {
        let mut pairs = String::new();
        if let serde_json::Value::Object(map) = serde_json::to_value(&msg).unwrap() {
            for (k, v) in map.iter().filter(|(k, _)| *k != "kind") {
                pairs.push_str(&format!(" {k}={v}"));
            }
        }
        crate::bytes::key_values(&msg, &["kind"]) == pairs
    }
    qc().tests(2_000).quickcheck(prop as fn(ArbMessage) -> bool);
}

#[test]
fn dump_lines_start_with_offset_and_tick_columns() {
    for (offset, tick) in [
        (0, 0),
        (0xe38, 7),
        (u64::MAX, -1),
        (1 << 36, i32::MIN),
        (5, 1_234_567),
    ] {
        let rec = Record {
            offset,
            tick,
            raw: &[],
            msg: Message::Finish,
            noncanonical: false,
            protocol: None,
        };
        assert_eq!(rec.to_string(), format!("0x{offset:08x} {tick:>7} finish"));
    }
}

/// Panics with the broken law, if one is.
fn law(result: Result<(), String>) -> bool {
    result.map_err(|e| panic!("{e}")).is_ok()
}

#[test]
fn prop_message_codec_law() {
    fn prop(ArbMessage(msg): ArbMessage, bytes: Vec<u8>) -> bool {
        law(codec_law(&msg, (), &mut Vec::new())) && law(strict_law::<Message, _>(&bytes, ()))
    }
    qc().tests(3_000)
        .quickcheck(prop as fn(ArbMessage, Vec<u8>) -> bool);
}

/// An EX record's Codec covers the bytes after the message id, decode and
/// encode alike.
#[test]
fn prop_ex_message_codec_law() {
    fn prop(ArbMessage(msg): ArbMessage, bytes: Vec<u8>) -> TestResult {
        let Message::Ex(ex) = msg else {
            return TestResult::discard();
        };
        let mut buf = Vec::new();
        let ok = law(codec_law(&*ex, (), &mut buf))
            && law(strict_law::<ExMessage, _>(&bytes, ()))
            && [
                encode_to_vec(&Message::Ex(ex.clone()), ())[..1].to_vec(),
                buf,
            ]
            .concat()
                == encode_to_vec(&Message::Ex(ex), ());
        TestResult::from_bool(ok)
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(ArbMessage, Vec<u8>) -> TestResult);
}

#[test]
fn prop_console_command_codec_law() {
    fn prop(ArbMessage(msg): ArbMessage, bytes: Vec<u8>) -> TestResult {
        let Message::ConsoleCommand(c) = msg else {
            return TestResult::discard();
        };
        TestResult::from_bool(
            law(codec_law(&*c, (), &mut Vec::new()))
                && law(strict_law::<ConsoleCommand, _>(&bytes, ())),
        )
    }
    qc().tests(500)
        .quickcheck(prop as fn(ArbMessage, Vec<u8>) -> TestResult);
}

#[test]
fn prop_field_codec_laws() {
    fn prop(n: i32, u: u128, input: Vec<i32>, args: u8, bytes: Vec<u8>) -> bool {
        let mut g = Gen::from_size_and_seed(20, u as u64);
        let f = Field("test");
        let input: Input = std::array::from_fn(|i| input.get(i).copied().unwrap_or(n));
        let args: Vec<Text> = (0..args % 5).map(|_| text(&mut g)).collect();
        law(codec_law(&n, f, &mut Vec::new()))
            && law(codec_law(&Uuid::from_u128(u), f, &mut Vec::new()))
            && law(codec_law(&text(&mut g), f, &mut Vec::new()))
            && law(codec_law(&blob(&mut g), f, &mut Vec::new()))
            && law(codec_law(&input, f, &mut Vec::new()))
            && law(codec_law(&args, f, &mut Vec::new()))
            && law(strict_law::<i32, _>(&bytes, f))
            && law(strict_law::<Uuid, _>(&bytes, f))
            && law(strict_law::<Text, _>(&bytes, f))
            && law(strict_law::<Blob, _>(&bytes, f))
            && law(strict_law::<Input, _>(&bytes, f))
            && law(strict_law::<Vec<Text>, _>(&bytes, f))
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(i32, u128, Vec<i32>, u8, Vec<u8>) -> bool);
}

/// Header infos DDNet could write: versions 1 and 2, any text in the
/// values, distinct config and tuning names (JSON objects have one value
/// per key).
#[derive(Clone, Debug)]
struct ArbHeader(Header);

impl Arbitrary for ArbHeader {
    fn arbitrary(g: &mut Gen) -> Self {
        let s = |g: &mut Gen| Option::<String>::arbitrary(g);
        let pairs = |g: &mut Gen| {
            let mut seen = std::collections::BTreeSet::new();
            Vec::<(String, String)>::arbitrary(g)
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect()
        };
        ArbHeader(Header::from_info(HeaderInfo {
            version: 1 + u32::from(bool::arbitrary(g)),
            version_minor: s(g),
            comment: s(g),
            game_uuid: s(g),
            prev_game_uuid: s(g),
            server_version: s(g),
            start_time: s(g),
            server_name: s(g),
            server_port: s(g),
            game_type: s(g),
            map_name: s(g),
            map_size: s(g),
            map_sha256: s(g),
            map_crc: s(g),
            prng_description: s(g),
            config: pairs(g),
            tuning: pairs(g),
            uuids: Vec::arbitrary(g),
        }))
    }
}

#[test]
fn prop_header_codec_law() {
    fn prop(ArbHeader(header): ArbHeader, json: String, magic: bool) -> bool {
        // Arbitrary text after the magic: whatever decodes re-encodes exactly.
        let mut bytes = if magic {
            MAGIC.as_bytes().to_vec()
        } else {
            Vec::new()
        };
        bytes.extend_from_slice(json.as_bytes());
        bytes.push(0);
        law(codec_law(&header, (), &mut Vec::new())) && law(strict_law::<Header, _>(&bytes, ()))
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(ArbHeader, String, bool) -> bool);
}

#[test]
fn header_errors_name_the_file_byte() {
    let mut bytes = b"xx".to_vec();
    let header = Header::from_info(HeaderInfo {
        version: 2,
        ..HeaderInfo::default()
    });
    header.encode(&mut bytes, ());
    // Read from byte 2 on: offsets are absolute.
    let mut r = Reader::at(&bytes[2..], 2, Mode::Strict);
    assert_eq!(Header::decode(&mut r, ()).unwrap(), header);
    assert_eq!(r.remaining(), 0);
    bytes[5] ^= 1;
    let err = Header::decode(&mut Reader::at(&bytes[2..], 2, Mode::Strict), ()).unwrap_err();
    assert_eq!(
        (err.offset, &err.kind),
        (2, &crate::codec::ErrorKind::BadMagic)
    );
    bytes[5] ^= 1;
    let cut = &bytes[2..bytes.len() - 1];
    let err = Header::decode(&mut Reader::at(cut, 2, Mode::Strict), ()).unwrap_err();
    assert!(err.is_eof(), "{err}");
    assert_eq!(err.offset, bytes.len() as u64 - 1, "{err}");
}

pub(crate) fn file(messages: &[Message<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    Header::from_info(HeaderInfo {
        version: 2,
        ..HeaderInfo::default()
    })
    .encode(&mut out, ());
    for m in messages {
        m.encode(&mut out, ());
    }
    out
}

#[test]
fn prop_message_streams_round_trip() {
    fn prop(messages: Vec<ArbMessage>) -> bool {
        let messages: Vec<Message> = messages.into_iter().map(|m| m.0).collect();
        let bytes = file(&messages);
        let (header, reader) = SliceReader::new(&bytes, Mode::Strict).unwrap();
        let mut out = Vec::new();
        header.encode(&mut out, ());
        let mut decoded = Vec::new();
        let mut reader = reader;
        for rec in reader.by_ref() {
            let rec = rec.unwrap();
            rec.encode(&mut out);
            decoded.push(rec.msg);
        }
        out.extend_from_slice(reader.rest());
        // The stream ends at the first FINISH; everything after it is rest.
        let until_finish = messages
            .iter()
            .position(|m| matches!(m, Message::Finish))
            .map_or(messages.len(), |i| i + 1);
        out == bytes && decoded == messages[..until_finish]
    }
    qc().tests(500)
        .quickcheck(prop as fn(Vec<ArbMessage>) -> bool);
}

/// The decoder's path for the common records reads what the general one
/// reads, declines whatever it cannot read exactly so, and reads only bytes
/// the encoder writes for what it read: `check` skips the re-encoding of
/// these records on that promise (`Visit::common`), so this test is the
/// round trip for them. Arbitrary messages; arbitrary bytes led by a
/// PLAYER_DIFF's or INPUT_DIFF's id; and such records of arbitrary ints.
#[test]
fn prop_common_records_decode_as_the_general_path() {
    fn prop(
        ArbMessage(msg): ArbMessage,
        lead: u8,
        mut body: Vec<u8>,
        ints: Vec<i16>,
        input: Vec<(i8, u8)>,
    ) -> bool {
        let mut encoded = Vec::new();
        msg.encode(&mut encoded, ());
        for aims_mix in [false, true] {
            let decoded = Message::decode_common(&encoded, aims_mix);
            assert!(decoded.is_none_or(|(m, n)| m == msg && n == encoded.len()));
        }
        // An INPUT_DIFF whose cid and ints take one to five bytes (half of
        // them one or two), at the input's end or followed by a few bytes.
        let mut ints_of = input.iter().map(|&(v, shift)| match shift {
            0..128 => i32::from(v),
            _ => i32::from(v) << (shift % 25),
        });
        let mut aimed = vec![0x44];
        for v in (0..11).map(|_| ints_of.next().unwrap_or(0)) {
            crate::packer::write_int(&mut aimed, v);
        }
        for (n, fill) in [0, 1, 2, 3, 4, 8]
            .into_iter()
            .flat_map(|n| [(n, 0), (n, 0xff)])
        {
            let buf = [&aimed[..], &vec![fill; n]].concat();
            assert!(common_agrees(&buf));
        }
        // INPUT_DIFF's id (0x44) or any byte first, then anything.
        let lead = if lead.is_multiple_of(2) { 0x44 } else { lead };
        body.insert(0, lead);
        // The same lead, then ints of one to three bytes.
        let mut record = vec![lead];
        for &v in &ints {
            crate::packer::write_int(&mut record, i32::from(v));
        }
        let followed = [&record[..], &[0; 24]].concat();
        let continued = [&record[..], &[0xff; 24]].concat();
        common_agrees(&encoded)
            && common_agrees(&body)
            && common_agrees(&record)
            && common_agrees(&followed)
            && common_agrees(&continued)
    }
    qc().tests(5_000)
        .quickcheck(prop as fn(ArbMessage, u8, Vec<u8>, Vec<i16>, Vec<(i8, u8)>) -> bool);
}

/// What [`prop_common_records_decode_as_the_general_path`] asks of one
/// buffer: the common path declines it, or reads what the general path
/// reads in strict mode, and encoding that writes exactly the bytes read.
/// Both ways of reading an INPUT_DIFF (`aims_mix` or not) read the same.
fn common_agrees(buf: &[u8]) -> bool {
    let read = Message::decode_common(buf, false);
    assert_eq!(read, Message::decode_common(buf, true), "{buf:?}");
    // The counting loop's read of a PLAYER_DIFF from a block, at its
    // start and further in (after bytes that continue), where the eight
    // bytes it reads are the input's: none, or what this one reads.
    if buf.len() >= 8 {
        let player_diff = match read {
            Some((Message::PlayerDiff { cid, .. }, len)) => Some((cid, len)),
            _ => None,
        };
        for at in [0, 1, MoveLengths::STARTS - 1] {
            let mut span = [0xff; MoveLengths::SPAN];
            let n = buf.len().min(span.len() - at);
            span[at..at + n].copy_from_slice(&buf[..n]);
            let block = MoveLengths::of(&span).player_diff(&span, at);
            assert!(block.is_none() || block == player_diff, "{buf:?} at {at}");
        }
    }
    let Some((msg, len)) = read else {
        return true;
    };
    let mut r = Reader::new(buf, Mode::Strict);
    let general = Message::decode(&mut r, ()).expect("the general path reads it");
    assert_eq!((&msg, len), (&general, r.position()), "{buf:?}");
    assert_eq!(encode_to_vec(&msg, ()), buf[..len], "{msg:?}");
    true
}

/// Every one- and two-byte sequence in every int of a common record: the
/// common path reads its canonical forms (at the input's end and followed
/// by more), and whatever it reads encodes back to the same bytes (the
/// other ints hold 0, or -64 in INPUT_DIFF: 0x7f, every bit but the
/// continuation set, so an int read with its neighbours' bits, as the
/// one-byte INPUT_DIFF's ints are, all at once, shows).
#[test]
fn common_records_of_every_short_int_encode_to_their_bytes() {
    let forms = (0..=255u8)
        .map(|b| vec![b])
        .chain((0..=0xffffu16).map(|v| v.to_be_bytes().to_vec()));
    for form in forms {
        let canonical = match form[..] {
            [b] => b < 0x80,
            [b0, b1] => b0 >= 0x80 && (1..0x80).contains(&b1),
            _ => false,
        };
        // PLAYER_DIFF (cid 5): dx, dy, also beside a two-byte move (0xc1
        // 0x01); INPUT_DIFF: cid, each input int.
        let mut records = vec![
            [&[5][..], &form, &[0]].concat(),
            [&[5, 0][..], &form].concat(),
            [&[5][..], &form, &[0xc1, 0x01]].concat(),
            [&[5, 0xc1, 0x01][..], &form].concat(),
        ];
        for (at, other) in (0..11).flat_map(|at| [(at, 0), (at, 0x7f)]) {
            let mut record = vec![0x44];
            record.extend((0..at).map(|_| other));
            record.extend_from_slice(&form);
            record.extend((at..10).map(|_| other));
            records.push(record);
        }
        // INPUT_DIFF: the aim's other int (target x or y) of two bytes.
        let aim = [&[0x44, 3, 0][..], &form, &[0xc1, 0x01], &[0; 7]].concat();
        records.push(aim);
        let aim = [&[0x44, 3, 0, 0xc1, 0x01][..], &form, &[0; 7]].concat();
        records.push(aim);
        for record in &records {
            // As the last bytes of the input, and followed by more (zeros,
            // or bytes that would continue an int).
            let zeros = [&record[..], &[0; 24]].concat();
            let ones = [&record[..], &[0xff; 24]].concat();
            assert!(common_agrees(record) && common_agrees(&zeros) && common_agrees(&ones));
            if canonical {
                for (buf, aims_mix) in [&record[..], &zeros, &ones]
                    .into_iter()
                    .flat_map(|buf| [(buf, false), (buf, true)])
                {
                    let read = Message::decode_common(buf, aims_mix).map(|(_, len)| len);
                    assert_eq!(read, Some(record.len()), "{record:?}");
                }
                // The counting loop reads a PLAYER_DIFF followed by a
                // record's first byte (here 0) from a block.
                if record[0] < 0x40 {
                    let mut span = [0; MoveLengths::SPAN];
                    span[..record.len()].copy_from_slice(record);
                    let read = MoveLengths::of(&span).player_diff(&span, 0);
                    assert_eq!(read, Some((5, record.len())), "{record:?}");
                }
            }
        }
    }
}

/// The common loop reads INPUT_DIFFs without a test for one-byte ints
/// first where more than a quarter of those it looks at take a long aim,
/// and PLAYER_DIFFs a block at a time where more than a sixth of those
/// take a long move; each keeps what it had where it sees none.
#[test]
fn mixes_where_a_quarter_of_the_aims_or_a_sixth_of_the_moves_are_long() {
    let input = |aim: &[u8]| [&[0x44, 3, 0][..], aim, &[0; 7]].concat();
    let (near, far) = (input(&[1, 1]), input(&[0xc1, 0x01, 1]));
    let (short, long) = (vec![5, 1, 1], vec![5, 0xc1, 0x01, 1]);
    // `n` records of `of` among `in_all`, after `lead`.
    let records = |lead: &[u8], n: usize, of: &[u8], in_all: usize, rest: &[u8]| {
        let records = (0..in_all).map(|i| if i < n { of } else { rest });
        [lead, &records.collect::<Vec<_>>().concat()].concat()
    };
    for aims in [false, true] {
        for moves in [false, true] {
            let was = Mixes { aims, moves };
            let look = |buf: &[u8]| Message::mixes(buf, was);
            let inputs = |n| look(&records(&short, n, &far, 8, &near)).aims;
            assert!(!inputs(0) && !inputs(2) && inputs(3) && inputs(8));
            let players = |n| look(&records(&near, n, &long, 12, &short)).moves;
            assert!(!players(0) && !players(2) && players(3) && players(12));
            // Only one kind, or nothing to read.
            assert_eq!(look(&records(&[], 0, &near, 2, &near)).moves, moves);
            assert_eq!(look(&records(&[], 0, &short, 2, &short)).aims, aims);
            assert_eq!(look(&[]), was);
        }
    }
}

/// Both readers' loops over the records (the common ones in a run of their
/// own) give what reading record by record gives: the same records, and
/// the same error or end.
#[test]
fn prop_record_loops_read_as_record_by_record() {
    fn seen(rec: &Record<'_>) -> String {
        format!("{rec:?}")
    }
    fn prop(
        messages: Vec<ArbMessage>,
        moves: Vec<(u8, i8, i16)>,
        tail: Vec<u8>,
        near_max: bool,
    ) -> bool {
        // Runs of the common records among arbitrary ones, then anything;
        // also from near the largest tick, where the clock stops.
        let mut all: Vec<Message> = Vec::new();
        if near_max {
            all.push(Message::TickSkip { dt: i32::MAX - 40 });
        }
        for (m, &(cid, dx, dy)) in messages.into_iter().zip(moves.iter().cycle()) {
            let cid = i32::from(cid % 66);
            all.push(Message::PlayerDiff {
                cid,
                dx: i32::from(dx),
                dy: i32::from(dy),
            });
            // Inputs of one-byte ints, or of some two-byte ones.
            let steps = [i32::from(dx) / 2, i32::from(dy) / 4];
            all.push(Message::InputDiff {
                cid,
                dinput: std::array::from_fn(|i| steps[i % 2 * usize::from(cid % 3 == 0)]),
            });
            all.push(m.0);
        }
        let mut bytes = file(&all);
        bytes.extend_from_slice(&tail);
        let (_, mut one) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let expected: Vec<_> = one.by_ref().map(|r| r.map(|r| seen(&r))).collect();
        let (_, mut slice) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let mut got = Vec::new();
        let last = slice.for_each_record(|r| {
            got.push(Ok(seen(r)));
            std::ops::ControlFlow::<()>::Continue(())
        });
        if let Err(e) = last {
            got.push(Err(e));
        }
        let (_, mut stream) = StreamReader::new(&bytes[..], Mode::Lenient).unwrap();
        let mut streamed = Vec::new();
        let last = stream.for_each_record(|r| {
            streamed.push(Ok(seen(r)));
            std::ops::ControlFlow::<()>::Continue(())
        });
        if let Err(ReadError::Decode(e)) = last {
            streamed.push(Err(e));
        }
        got == expected
            && streamed == expected
            && slice.end() == one.end()
            && stream.end() == one.end()
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<ArbMessage>, Vec<(u8, i8, i16)>, Vec<u8>, bool) -> bool);
}

/// `check`'s pass replays the common records with the reader's clock
/// (`Replay::handle_common`), not one of the replay's own: the same
/// inconsistencies and the same replay as handling record by record, also
/// where the tick overflows (a file that starts near the largest tick);
/// and `Scan::run`, whose replay follows only what its verdicts need, the
/// same inconsistencies.
#[test]
fn prop_scan_replays_as_record_by_record() {
    fn prop(
        messages: Vec<ArbMessage>,
        moves: Vec<(u8, i8)>,
        near_max: bool,
        long_moves: bool,
    ) -> bool {
        let mut all: Vec<Message> = Vec::new();
        lead_moves(&mut all, long_moves);
        if near_max {
            all.push(Message::TickSkip { dt: i32::MAX - 40 });
        }
        for (m, &(cid, d)) in messages.into_iter().zip(moves.iter().cycle()) {
            let raw = cid % 68;
            let cid = i32::from(raw.min(65));
            // An INPUT_DIFF's cid also past the replay's dense table, and
            // negative: both still read by the common loop.
            let input_cid = match raw {
                66 => 300,
                67 => -3,
                _ => cid,
            };
            let d = i32::from(d);
            all.push(Message::PlayerDiff { cid, dx: d, dy: -d });
            // Then one read from the bytes kept of the one before.
            all.push(Message::PlayerDiff {
                cid: (cid + 1) % 64,
                dx: 2 * d,
                dy: d / 3,
            });
            all.push(Message::InputDiff {
                cid: input_cid,
                dinput: [d; 10],
            });
            all.push(m.0);
        }
        let bytes = file(&all);
        let (_, reader) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let mut replay = Replay::new(scan::Verify::all().replay.unwrap());
        let (mut inconsistencies, mut first) = (0, None);
        for rec in reader {
            let rec = rec.unwrap();
            if let Err(inc) = replay.handle(rec.offset, &rec.msg) {
                inconsistencies += 1;
                first.get_or_insert(inc);
            }
        }
        let (_, scan, scanned) =
            scan::Scan::run_with(&bytes[..], scan::Verify::all(), |_, _| {}).unwrap();
        let (_, verdicts_only) = scan::Scan::run(&bytes[..], scan::Verify::all()).unwrap();
        scan.inconsistencies == Some(inconsistencies)
            && scan.first_inconsistency == first
            && scanned == replay
            && verdicts_only.inconsistencies == Some(inconsistencies)
            && verdicts_only.first_inconsistency == first
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<ArbMessage>, Vec<(u8, i8)>, bool, bool) -> bool);
}

/// A pass's counts are what counting record by record gives: the common
/// loop says a tick is new where its clock moves and leaves the tally's
/// last tick to the end of its run, also where a file starts with a common
/// record, and near the largest tick.
#[test]
fn prop_scan_counts_as_record_by_record() {
    fn prop(
        messages: Vec<ArbMessage>,
        moves: Vec<(u8, i8)>,
        first: u8,
        near_max: bool,
        long_moves: bool,
    ) -> bool {
        let mut all: Vec<Message> = Vec::new();
        match first % 3 {
            0 => all.push(Message::PlayerDiff {
                cid: 3,
                dx: 1,
                dy: 1,
            }),
            1 => all.push(Message::InputDiff {
                cid: 3,
                dinput: [1; 10],
            }),
            _ => {}
        }
        lead_moves(&mut all, long_moves);
        if near_max {
            all.push(Message::TickSkip { dt: i32::MAX - 40 });
        }
        for (m, &(cid, d)) in messages.into_iter().zip(moves.iter().cycle()) {
            let cid = i32::from(cid % 66);
            let d = i32::from(d);
            all.push(Message::PlayerDiff { cid, dx: d, dy: -d });
            all.push(Message::InputDiff {
                cid,
                dinput: [d; 10],
            });
            all.push(Message::PlayerDiff {
                cid: (cid + 5) % 64,
                dx: d,
                dy: d,
            });
            // Right after it, moves of other lengths: the counting loop
            // reads a PLAYER_DIFF from the bytes it kept of the one before.
            all.push(Message::PlayerDiff {
                cid: (cid + 6) % 64,
                dx: 2 * d,
                dy: d / 3,
            });
            all.push(m.0);
        }
        let bytes = file(&all);
        let (_, reader) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let (mut records, mut ticks, mut last_tick) = (0, 0, None);
        let mut cids = std::collections::BTreeSet::new();
        let mut counts = std::collections::BTreeMap::new();
        for rec in reader {
            let Ok(rec) = rec else { break };
            records += 1;
            *counts.entry(rec.msg.kind_name()).or_insert(0) += 1;
            ticks += u64::from(last_tick != Some(rec.tick));
            last_tick = Some(rec.tick);
            cids.extend(rec.msg.cids().into_iter().flatten().filter(|&c| c >= 0));
        }
        [scan::Verify::default(), scan::Verify::all()]
            .into_iter()
            .all(|verify| {
                let (_, scan) = scan::Scan::run(&bytes[..], verify).unwrap();
                (scan.records, scan.ticks_with_records, scan.last_tick)
                    == (records, ticks, last_tick.unwrap_or(0))
                    && (scan.cids, scan.max_cid) == (cids.len(), cids.last().copied())
                    && scan.counts == counts
            })
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<ArbMessage>, Vec<(u8, i8)>, u8, bool, bool) -> bool);
}

/// PLAYER_DIFFs whose moves all take two bytes, or one: the common loop
/// looks at them first ([`Message::mixes`]), so a pass reads the records
/// after them with moves mixed or not, both ways of counting them.
fn lead_moves(all: &mut Vec<Message>, long: bool) {
    let d = if long { 100 } else { 1 };
    all.extend((0..8).map(|cid| Message::PlayerDiff { cid, dx: d, dy: -d }));
}

/// Decodes and replays everything; the invariants every input must keep.
fn survive(bytes: &[u8], mode: Mode) -> TestResult {
    let Ok((_, reader)) = SliceReader::new(bytes, mode) else {
        return TestResult::passed();
    };
    let mut reader = reader;
    let mut replay = Replay::new(ReplayConfig::default());
    for rec in reader.by_ref() {
        match rec {
            Ok(rec) => {
                // Strict decode => exact re-encode; lenient records flagged
                // non-canonical re-encode from their raw bytes.
                let mut out = Vec::new();
                rec.encode(&mut out);
                if out != rec.raw || (mode == Mode::Strict && rec.noncanonical) {
                    return TestResult::error(format!("re-encode differs at {}", rec.offset));
                }
                let _ = replay.handle(rec.offset, &rec.msg);
            }
            Err(e) if e.offset <= bytes.len() as u64 => return TestResult::passed(),
            Err(e) => return TestResult::error(format!("offset outside input: {e}")),
        }
    }
    let _ = replay.world();
    // Without an error the stream must say how it ended.
    TestResult::from_bool(reader.end().is_some())
}

#[test]
fn prop_arbitrary_bodies_never_panic_and_reencode_exactly() {
    fn prop(body: Vec<u8>, strict: bool) -> TestResult {
        let mut bytes = file(&[]);
        bytes.extend_from_slice(&body);
        survive(&bytes, if strict { Mode::Strict } else { Mode::Lenient })
    }
    qc().tests(5_000)
        .quickcheck(prop as fn(Vec<u8>, bool) -> TestResult);
}

#[test]
fn prop_arbitrary_message_mixes_never_panic_the_replay() {
    fn prop(messages: Vec<ArbMessage>) -> bool {
        let mut replay = Replay::new(ReplayConfig::default());
        for (i, ArbMessage(m)) in messages.iter().enumerate() {
            let _ = replay.handle(i as u64, m);
        }
        let world = replay.world();
        // Determinism: the same stream gives the same world.
        let mut again = Replay::new(ReplayConfig::default());
        for (i, ArbMessage(m)) in messages.iter().enumerate() {
            let _ = again.handle(i as u64, m);
        }
        again.world() == world
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<ArbMessage>) -> bool);
}

#[test]
fn prop_arbitrary_files_never_panic() {
    fn prop(bytes: Vec<u8>, magic: bool) -> TestResult {
        let mut input = if magic {
            MAGIC.as_bytes().to_vec()
        } else {
            Vec::new()
        };
        input.extend_from_slice(&bytes);
        let slice = survive(&input, Mode::Lenient);
        // The bounded reader must agree with the slice reader on the header.
        let a = SliceReader::new(&input, Mode::Lenient).map(|(h, _)| h);
        let b = StreamReader::new(&input[..], Mode::Lenient).map(|(h, _)| h);
        match (a, b) {
            (Ok(a), Ok(b)) if a == b => slice,
            (Err(a), Err(ReadError::Decode(b))) if a == b => slice,
            (a, b) => TestResult::error(format!("{a:?} vs {b:?}")),
        }
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<u8>, bool) -> TestResult);
}

/// A checkpoint taken anywhere resumes to the same world as a replay that
/// never stopped.
#[test]
fn prop_checkpoint_resume_equals_continuous_replay() {
    fn prop(messages: Vec<ArbMessage>, cut: usize) -> bool {
        let cut = if messages.is_empty() {
            0
        } else {
            cut % messages.len()
        };
        let mut full = Replay::new(ReplayConfig::default());
        let mut first = Replay::new(ReplayConfig::default());
        for (i, ArbMessage(m)) in messages.iter().enumerate() {
            let _ = full.handle(i as u64, m);
            if i < cut {
                let _ = first.handle(i as u64, m);
            }
        }
        // Through RON, as checkpoints are stored.
        let ron = ron::to_string(&first.checkpoint()).unwrap();
        let mut resumed = Replay::resume(ron::from_str(&ron).unwrap());
        for (i, ArbMessage(m)) in messages.iter().enumerate().skip(cut) {
            let _ = resumed.handle(i as u64, m);
        }
        resumed.world() == full.world()
    }
    qc().tests(300)
        .quickcheck(prop as fn(Vec<ArbMessage>, usize) -> bool);
}

#[test]
fn replay_reports_inconsistencies_and_goes_on() {
    let mut replay = Replay::new(ReplayConfig::default());
    let diff = Message::InputDiff {
        cid: 3,
        dinput: [1; 10],
    };
    let err = replay.handle(40, &diff).unwrap_err();
    assert_eq!(
        err,
        Inconsistency {
            offset: 40,
            tick: 0,
            kind: InconsistencyKind::InputDiffWithoutNew { cid: 3 }
        }
    );
    replay
        .handle(
            50,
            &Message::InputNew {
                cid: 3,
                input: [i32::MAX; 10],
            },
        )
        .unwrap();
    replay.handle(60, &diff).unwrap();
    assert_eq!(
        replay.player(3).unwrap().input,
        Some(PlayerInput::from([i32::MIN; 10])),
        "wrapping add"
    );
    replay.handle(70, &Message::Finish).unwrap();
    let err = replay.handle(80, &Message::Join { cid: 0 }).unwrap_err();
    assert_eq!(err.kind, InconsistencyKind::AfterFinish);
}

#[test]
fn huge_client_ids_do_not_allocate_tables() {
    let mut replay = Replay::new(ReplayConfig::default());
    replay
        .handle(
            0,
            &Message::PlayerNew {
                cid: 2_000_000_000,
                x: 1,
                y: 2,
            },
        )
        .unwrap();
    replay
        .handle(
            1,
            &Message::InputNew {
                cid: -7,
                input: [0; 10],
            },
        )
        .unwrap();
    let world = replay.world();
    let cids: Vec<i32> = world.players.iter().map(|p| p.cid).collect();
    assert_eq!(cids, [-7, 2_000_000_000], "sorted by cid");
}

#[test]
fn ex_payload_keeps_trailing_bytes_and_unknown_uuids() {
    // player_ready cid=7 with 3 extra payload bytes.
    let mut bytes = vec![0x4a];
    bytes.extend_from_slice(ExKind::PlayerReady.uuid().as_bytes());
    bytes.extend_from_slice(&[4, 7, 1, 2, 3]);
    let msg = decode_exact::<Message, _>(&bytes, Mode::Strict, ()).unwrap();
    let Message::Ex(m) = &msg else {
        panic!("{msg:?}");
    };
    assert_eq!(m.ex, Ex::PlayerReady { cid: 7 });
    assert_eq!(&m.trailing[..], [1, 2, 3]);
    assert_eq!(encode_to_vec(&msg, ()), bytes);
}

#[test]
fn lenient_reader_flags_noncanonical_records() {
    let mut bytes = file(&[]);
    let body_at = bytes.len() as u64;
    bytes.extend_from_slice(&[0x42, 0x80, 0x00, 0x00, 0x00, 0x40]); // PLAYER_NEW, cid 80 00
    let (_, mut reader) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
    let rec = reader.next().unwrap().unwrap();
    assert_eq!(rec.noncanonical_at(), Some(body_at + 1));
    assert_eq!(rec.msg, Message::PlayerNew { cid: 0, x: 0, y: 0 });
    let mut out = Vec::new();
    rec.encode(&mut out);
    assert_eq!(out, rec.raw, "kept verbatim");
    let (_, mut strict) = SliceReader::new(&bytes, Mode::Strict).unwrap();
    let err = strict.next().unwrap().unwrap_err();
    assert_eq!(err.offset, body_at + 1);
    let _ = Reader::new(&[], Mode::Strict);
}

/// Every record's line through a `JsonlWriter` (serde's lines written
/// through it between the common ones, as in a dump) and serde's, and
/// whether the writer took each record as common.
fn jsonl_lines(records: &[Record<'_>]) -> (Vec<u8>, Vec<u8>, Vec<bool>) {
    let (mut fast, mut serde, mut taken) = (Vec::new(), Vec::new(), Vec::new());
    let mut writer = super::json::JsonlWriter::new(&mut fast);
    for rec in records {
        let line = super::json::RecordLine::new(rec);
        serde_json::to_writer(&mut serde, &line).unwrap();
        serde.push(b'\n');
        let common = writer.common(rec).unwrap();
        if !common {
            serde_json::to_writer(&mut writer, &line).unwrap();
            writer.write_all(b"\n").unwrap();
        }
        taken.push(common);
    }
    writer.flush().unwrap();
    drop(writer);
    (fast, serde, taken)
}

/// A canonical record of `msg` at `offset` and `tick`, its bytes in `raw`.
fn record_of<'a>(msg: Message<'a>, offset: u64, tick: i32, raw: &'a mut Vec<u8>) -> Record<'a> {
    msg.encode(raw, ());
    Record {
        offset,
        tick,
        raw,
        protocol: matches!(msg, Message::NetMessage { .. }).then_some(Version::V06),
        msg,
        noncanonical: false,
    }
}

/// The hand-written JSON lines of the common records are serde's, byte
/// for byte, at any offset and tick (the one before or another), with
/// ints of every width and sign in every field; every other record is
/// left to serde.
#[test]
fn prop_common_json_lines_are_serdes() {
    /// Ints of every number of digits (quickcheck's are mostly 10 wide).
    fn spread(v: i32) -> i32 {
        v >> (v.unsigned_abs() % 32)
    }
    fn prop(records: Vec<(ArbMessage, u64, i32)>) -> bool {
        let mut raws = vec![Vec::new(); records.len()];
        let mut common = Vec::new();
        let (mut recs, mut last_tick) = (Vec::new(), 0);
        for ((ArbMessage(mut msg), offset, tick), raw) in records.into_iter().zip(&mut raws) {
            match &mut msg {
                Message::PlayerDiff { cid, dx: a, dy: b }
                | Message::PlayerNew { cid, x: a, y: b } => {
                    (*cid, *a, *b) = (spread(*cid), spread(*a), spread(*b));
                }
                Message::InputDiff { cid, dinput: input } | Message::InputNew { cid, input } => {
                    *cid = spread(*cid);
                    input.iter_mut().for_each(|v| *v = spread(*v));
                }
                Message::PlayerOld { cid } | Message::Join { cid } => *cid = spread(*cid),
                Message::TickSkip { dt } => *dt = spread(*dt),
                _ => {}
            }
            common.push(matches!(
                msg,
                Message::PlayerDiff { .. }
                    | Message::PlayerNew { .. }
                    | Message::PlayerOld { .. }
                    | Message::InputDiff { .. }
                    | Message::InputNew { .. }
                    | Message::Join { .. }
                    | Message::TickSkip { .. }
                    | Message::Finish
            ));
            // Half the records at the tick before, as most in a file.
            if tick % 2 != 0 {
                last_tick = spread(tick);
            }
            recs.push(record_of(msg, offset >> (offset % 64), last_tick, raw));
        }
        let (fast, serde, taken) = jsonl_lines(&recs);
        fast == serde && taken == common
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<(ArbMessage, u64, i32)>) -> bool);
}

/// The same at each edge of the digit writing: 0, every power of ten and
/// the int before it, both signs, the widest ints, offsets past 4 GiB; in
/// every field of the common records, and a line longer than the
/// writer's buffer (serde's, written through it).
#[test]
fn common_json_lines_at_every_width() {
    let mut edges = vec![0, i32::MIN, i32::MAX, i32::MIN + 1];
    for p in (0..10).map(|k| 10i32.pow(k)) {
        edges.extend([p, p - 1, p + 1, -p, 1 - p, -1 - p]);
    }
    let offsets = (0..20)
        .map(|k| 10u64.pow(k))
        .flat_map(|p| [p, p - 1])
        .chain([u32::MAX.into(), u64::from(u32::MAX) + 1, u64::MAX]);
    let mut msgs = Vec::new();
    for &v in &edges {
        msgs.extend([
            Message::PlayerDiff {
                cid: v,
                dx: v,
                dy: v.saturating_neg(),
            },
            Message::PlayerNew { cid: v, x: v, y: v },
            Message::PlayerOld { cid: v },
            Message::Join { cid: v },
            Message::TickSkip { dt: v },
        ]);
        for i in 0..10 {
            let mut input = [1; 10];
            input[i] = v;
            msgs.push(Message::InputDiff {
                cid: 1,
                dinput: input,
            });
            msgs.push(Message::InputNew {
                cid: v,
                input: [v; 10],
            });
        }
    }
    msgs.push(Message::Finish);
    msgs.push(Message::NetMessage {
        cid: 0,
        data: Blob::from(vec![7; 200_000]),
    });
    let ticks = edges.iter().cycle();
    let offsets = offsets.cycle();
    let mut raws = vec![Vec::new(); msgs.len()];
    let recs: Vec<_> = msgs
        .into_iter()
        .zip(&mut raws)
        .zip(ticks.zip(offsets))
        .map(|((msg, raw), (&tick, offset))| record_of(msg, offset, tick, raw))
        .collect();
    let (fast, serde, taken) = jsonl_lines(&recs);
    assert_eq!(
        String::from_utf8(fast).unwrap(),
        String::from_utf8(serde).unwrap()
    );
    assert_eq!(
        taken.iter().filter(|t| !**t).count(),
        1,
        "only the message is serde's"
    );
}

/// A MESSAGE record is read with the tables of the protocol its client
/// joined with: 0.7 from its JOINVER7 until its DROP, else 0.6; a cid
/// outside DDNet's 128 is data (0.6, never remembered), not a panic.
#[test]
fn client_protocols_follow_joinver_and_drop() {
    let ex = |ex| {
        Message::Ex(Box::new(ExMessage {
            ex,
            trailing: Blob::from(&b""[..]),
        }))
    };
    let msg = |cid| Message::NetMessage {
        cid,
        data: Blob::from(&[0x3c, 0x02][..]),
    };
    let mut p = ClientProtocols::default();
    let six = Some(Version::V06);
    let seven = Some(Version::V07);
    let steps: Vec<(Message<'static>, Option<Version>)> = vec![
        (msg(4), six),
        (ex(Ex::Joinver7 { cid: 4 }), None),
        (Message::Join { cid: 4 }, None),
        (msg(4), seven),
        (msg(3), six),
        (ex(Ex::Rejoinver6 { cid: 4 }), None),
        (msg(4), seven),
        (
            Message::Drop {
                cid: 4,
                reason: Text::from(&b""[..]),
            },
            None,
        ),
        (msg(4), six),
        (ex(Ex::Joinver7 { cid: 127 }), None),
        (msg(127), seven),
        (ex(Ex::Joinver6 { cid: 127 }), None),
        (msg(127), six),
        (ex(Ex::Joinver7 { cid: 128 }), None),
        (ex(Ex::Joinver7 { cid: -1 }), None),
        (ex(Ex::Joinver7 { cid: i32::MIN }), None),
        (msg(128), six),
        (msg(-1), six),
        (msg(i32::MAX), six),
    ];
    for (i, (m, want)) in steps.iter().enumerate() {
        assert_eq!(p.observe(m), *want, "step {i}: {m:?}");
    }
    assert_eq!(
        p,
        ClientProtocols::default(),
        "nothing out of range is kept"
    );
}

/// `any_seven` false only where every cid reads as 0.6.
#[test]
fn no_seven_means_every_client_is_06() {
    fn property(joins: Vec<(u8, bool)>) -> bool {
        let mut p = ClientProtocols::default();
        for (cid, seven) in joins {
            let cid = i32::from(cid % 132) - 2;
            let ex = match seven {
                true => Ex::Joinver7 { cid },
                false => Ex::Joinver6 { cid },
            };
            p.observe(&Message::Ex(Box::new(ExMessage {
                ex,
                trailing: Blob::from(&b""[..]),
            })));
        }
        p.any_seven() || (-2..132).all(|c| p.of(c) == Version::V06)
    }
    qc().tests(5_000)
        .quickcheck(property as fn(Vec<(u8, bool)>) -> bool);
}

/// DDNet 16.4 with a 0.6 bot ("six", cid 0) and a 0.7 bot ("seven", cid 1)
/// (`record` of `corpus/record/mixed_06_07.ron`): the 0.7 bot's
/// Cl_StartInfo is 0.7's id 27 (0.6's Sv_DDRaceTimeLegacy), and no
/// MESSAGE record, which is always what a client sent, reads as a server's
/// message.
#[test]
fn a_07_clients_messages_are_read_with_07s_tables() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/teehistorian/ddnet-16.4/mixed_06_07.teehistorian"
    );
    let bytes = std::fs::read(path).unwrap();
    let (_, reader) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
    let mut seen = Vec::new();
    let mut joined7 = false;
    for rec in reader {
        let rec = rec.unwrap();
        if let Message::Ex(m) = &rec.msg {
            joined7 |= matches!(m.ex, Ex::Joinver7 { cid: 1 });
        }
        let Some(m) = json::client_message(&rec) else {
            assert_eq!(rec.protocol, None, "{rec}");
            continue;
        };
        let m = m.unwrap();
        let Message::NetMessage { cid, .. } = rec.msg else {
            unreachable!()
        };
        let text = m.to_string();
        assert!(
            !text.contains(" Sv_"),
            "a client's message read as a server's: {rec} -> {text}"
        );
        let line = serde_json::to_value(json::RecordLine::new(&rec)).unwrap();
        seen.push((cid, joined7, line["protocol"].clone(), text));
    }
    let want = [
        (
            0,
            false,
            serde_json::json!("0.6"),
            r#"game:20 Cl_StartInfo name="six" clan="teeoracle" country=-1 skin="default" use_custom_color=0 color_body=0 color_feet=0"#,
        ),
        (
            1,
            true,
            serde_json::json!("0.7"),
            r#"game:27 Cl_StartInfo name="seven" clan="teeoracle" country=-1 skin_part_names=["standard","","","standard","standard","standard"] use_custom_colors=[0,0,0,0,0,0] skin_part_colors=[0,0,0,0,0,0]"#,
        ),
    ];
    let want: Vec<_> = want
        .into_iter()
        .map(|(c, j, p, t)| (c, j, p, t.to_string()))
        .collect();
    assert_eq!(
        seen, want,
        "the MESSAGE records as read (cid, after joinver7, protocol, text)"
    );
}
