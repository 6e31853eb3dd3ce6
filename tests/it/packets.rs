//! The packet layer over the bundled captures (`corpus/packet`), DDNet's
//! golden handshake bytes, and round-trip properties. What each malformed
//! datagram of `corpus/packet/malformed/packets.txt` decodes to is a golden
//! in `tests/harness/golden.rs`.

use crate::common;

use std::path::Path;
use teeoracle::capture;
use teeoracle::codec::{Codec, Mode, Reader};
use teeoracle::packet::{Packet, PacketCtx, TokenMode, Version, control, detect_version};
use teeoracle::session::{self, Direction};

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/packet")
            .join(rel),
    )
    .unwrap()
}

fn decode(
    bytes: &[u8],
    version: Option<Version>,
) -> Result<Packet<'_>, teeoracle::codec::DecodeError> {
    Packet::decode(
        &mut Reader::new(bytes, Mode::Lenient),
        PacketCtx {
            version,
            token: TokenMode::Auto,
        },
    )
}

fn encode(p: &Packet<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    p.encode(&mut out, PacketCtx::default());
    out
}

/// Values from `../shared/corpus/ddnet-20.1/README.md`, computed by the
/// corpus authors' own pcap reader.
#[test]
fn captures_match_the_independent_corpus_summary() {
    // file, packets, c2s, s2c, compressed, clients, vital, non-vital, connless, control
    let table = [
        ("A_join_move_leave", 1158, 717, 441, 511, 1, 146, 1819, 2, 4),
        (
            "B_eight_bots_dm1",
            29523,
            16528,
            12995,
            14772,
            10,
            1730,
            46132,
            11,
            40,
        ),
        ("C_rcon_auth", 7275, 3774, 3501, 2733, 3, 692, 10933, 4, 12),
        ("E_map_change", 5895, 3430, 2465, 2776, 3, 948, 9133, 7, 12),
        (
            "F_crash_truncated",
            6075,
            3181,
            2894,
            3565,
            4,
            560,
            9157,
            5,
            12,
        ),
    ];
    for (name, packets, c2s, s2c, compressed, clients, vital, nonvital, connless, control) in table
    {
        let bytes = corpus(&format!("ddnet-20.1/{name}.pcap"));
        let cap = capture::read(&bytes).unwrap();
        assert!(cap.skipped.is_empty(), "{name}");
        let port = session::server_port(&cap).unwrap();
        let mut session = session::Session::new(&cap, port);
        // Every 0.6 connection packet of a DDNet 20.1 session carries the token.
        while let Some(d) = session.next_datagram() {
            if let Ok(Packet::Connection(p)) = &d.packet {
                assert!(
                    p.token.is_some(),
                    "{name} frame {}: no token",
                    d.datagram.frame
                );
                assert_eq!(d.version, Version::V06);
            }
        }
        let (s, _) = session.finish();
        assert_eq!(
            (s.datagrams, s.to_server, s.to_client, s.compressed, s.peers),
            (packets, c2s, s2c, compressed, clients),
            "{name}"
        );
        assert_eq!(
            (s.vital_chunks, s.chunks - s.vital_chunks),
            (vital, nonvital),
            "{name}"
        );
        assert_eq!((s.connless, s.control), (connless, control), "{name}");
        assert_eq!(
            (s.exact, s.mismatched, s.errors),
            (packets, 0, 0),
            "{name}: byte-exact"
        );
        // Every system message with a known layout fits it and re-encodes.
        assert!(
            s.typed_messages > packets / 2,
            "{name}: {}",
            s.typed_messages
        );
        assert_eq!(s.typed_inexact, 0, "{name}");
    }
}

// Spec section 5.1: a real DDNet handshake (token 10a3d6a0).
#[test]
fn ddnet_06_handshake_golden_bytes() {
    let cases = [
        (
            "10000001544b454effffffff",
            control::CONNECT,
            Some([0xff; 4]),
        ),
        (
            "10000002544b454e10a3d6a0",
            control::CONNECTACCEPT,
            Some([0x10, 0xa3, 0xd6, 0xa0]),
        ),
        (
            "1000000310a3d6a0",
            control::ACCEPT_06,
            Some([0x10, 0xa3, 0xd6, 0xa0]),
        ),
    ];
    for (hex, id, token) in cases {
        let bytes = hex::decode(hex).unwrap();
        assert_eq!(detect_version(&bytes).0, Version::V06);
        let p = decode(&bytes, None).unwrap();
        let Packet::Connection(c) = &p else {
            panic!("{hex}")
        };
        assert!(c.is_control(), "{hex}: {c:?}");
        assert_eq!(c.control().map(|(i, _)| i), Some(id), "{hex}");
        assert_eq!(c.token, token, "{hex}");
        assert_eq!(encode(&p), bytes);
    }
}

// Spec section 5.2: the verified 0.7 handshake.
#[test]
fn ddnet_07_handshake_golden_bytes() {
    let pad = "00".repeat(508);
    let cases = [
        (
            format!("040000ffffffff0511223344{pad}"),
            control::TOKEN,
            [0xff; 4],
        ),
        (
            "04000011223344 05618161dd".replace(' ', ""),
            control::TOKEN,
            [0x11, 0x22, 0x33, 0x44],
        ),
        (
            format!("040000618161dd0111223344{pad}"),
            control::CONNECT,
            [0x61, 0x81, 0x61, 0xdd],
        ),
        (
            "04000011223344 02dd618161".replace(' ', ""),
            control::ACCEPT_07,
            [0x11, 0x22, 0x33, 0x44],
        ),
    ];
    for (hex, id, header_token) in cases {
        let bytes = hex::decode(&hex).unwrap();
        assert_eq!(detect_version(&bytes).0, Version::V07, "{hex}");
        let p = decode(&bytes, None).unwrap();
        let Packet::Connection(c) = &p else {
            panic!("{hex}")
        };
        assert_eq!(
            (c.control().map(|(i, _)| i), c.header_token),
            (Some(id), Some(header_token))
        );
        assert_eq!(encode(&p), bytes);
    }
}

#[test]
fn session_directions_follow_the_server_port() {
    let cap = capture::read(&corpus("ddnet-20.1/A_join_move_leave.pcap")).unwrap();
    assert_eq!(session::server_port(&cap), Some(18320));
    let mut session = session::Session::new(&cap, 18320);
    assert_eq!(
        session.next_datagram().unwrap().direction,
        Direction::ToServer
    );
    assert_eq!(
        session.next_datagram().unwrap().direction,
        Direction::ToClient
    );
}

mod properties {
    use super::*;
    use common::testing::qc;
    use quickcheck::TestResult;

    /// Whatever decodes re-encodes to exactly the bytes it came from.
    #[test]
    fn prop_decoded_datagrams_reencode_exactly() {
        fn prop(bytes: Vec<u8>, v7: bool, compress: bool) -> TestResult {
            let mut bytes = bytes;
            if compress && bytes.len() > 3 {
                // Give the Huffman path a real stream to chew on.
                let flags = if v7 { 0x10 } else { 0x80 };
                bytes[0] = flags;
                let head = if v7 { 7 } else { 3 };
                if bytes.len() > head {
                    let body = teeoracle::huffman::compress_to_vec(
                        &bytes[head..],
                        teeoracle::huffman::Flavor::Ddnet,
                    );
                    bytes.truncate(head);
                    bytes.extend(body);
                }
            }
            let version = Some(if v7 { Version::V07 } else { Version::V06 });
            match decode(&bytes, version) {
                Ok(p) => TestResult::from_bool(encode(&p) == bytes),
                Err(e) => TestResult::from_bool(e.offset <= bytes.len() as u64),
            }
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, bool, bool) -> TestResult);
    }
}

mod replay {
    use super::*;
    use teeoracle::capture::{Capture, Datagram};
    use teeoracle::codec::encode_to_vec;
    use teeoracle::packet::{CHUNK_VITAL, ChunkHeader};
    use teeoracle::session::{Anomaly, is_seq_in_backroom};

    #[test]
    fn backroom_is_ddnets() {
        // The 512 sequence numbers up to and including ack, with wrap-around.
        let within = [(5, 5), (0, 5), (1000, 5)].map(|(seq, ack)| is_seq_in_backroom(seq, ack));
        assert!(
            is_seq_in_backroom(5, 5) && is_seq_in_backroom(0, 5) && is_seq_in_backroom(1000, 5),
            "5, 0, 1000 with ack 5: {within:?}"
        );
        let within = [(6, 5), (516, 5)].map(|(seq, ack)| is_seq_in_backroom(seq, ack));
        assert!(
            !is_seq_in_backroom(6, 5) && !is_seq_in_backroom(516, 5),
            "6, 516 with ack 5: {within:?}"
        );
        assert!(
            is_seq_in_backroom(517, 5),
            "5 - 512 + 1024 = 517 is the bottom, included"
        );
        let within = [200, 87, 88].map(|seq| is_seq_in_backroom(seq, 600));
        assert!(
            is_seq_in_backroom(200, 600)
                && !is_seq_in_backroom(87, 600)
                && is_seq_in_backroom(88, 600),
            "200, 87, 88 with ack 600: {within:?}"
        );
    }

    #[test]
    fn corpus_sessions_have_only_the_expected_anomalies() {
        for (name, expected) in [
            ("A_join_move_leave", vec![]),
            // flint stops acking at 41 s; the server resends its unacked
            // chat chunk every second, which flint already has.
            ("B_eight_bots_dm1", vec![("duplicate", 15)]),
            ("C_rcon_auth", vec![]),
            ("E_map_change", vec![]),
            ("F_crash_truncated", vec![]),
        ] {
            let cap = capture::read(&corpus(&format!("ddnet-20.1/{name}.pcap"))).unwrap();
            let (_, replayed) =
                session::Session::new(&cap, session::server_port(&cap).unwrap()).finish();
            assert_eq!(
                replayed
                    .anomalies
                    .into_iter()
                    .map(|(code, n)| (code.as_str(), n))
                    .collect::<Vec<_>>(),
                expected,
                "{name}"
            );
        }
    }

    const SERVER: &str = "127.0.0.1:8303";
    const CLIENT: &str = "127.0.0.1:40000";

    fn datagram(frame: usize, to_server: bool, bytes: Vec<u8>) -> Datagram {
        let (src, dst) = if to_server {
            (CLIENT, SERVER)
        } else {
            (SERVER, CLIENT)
        };
        Datagram {
            frame,
            offset: 0,
            time: std::time::Duration::from_millis(frame as u64),
            src: src.parse().unwrap(),
            dst: dst.parse().unwrap(),
            payload: bytes,
        }
    }

    /// A 0.6 data packet with one vital chunk (READY, which has no fields)
    /// and a token.
    fn vital(ack: u16, seq: u16, token: [u8; 4]) -> Vec<u8> {
        let mut p = vec![(ack >> 8) as u8, ack as u8, 1];
        p.extend(encode_to_vec(
            &ChunkHeader::new(Version::V06, CHUNK_VITAL, 1, Some(seq)),
            Version::V06,
        ));
        p.push(14 << 1 | 1); // sys READY
        p.extend(token);
        p
    }

    #[test]
    fn a_made_up_session_gets_every_verdict() {
        let t = [0x10, 0xa3, 0xd6, 0xa0];
        let packets = vec![
            (true, hex::decode("10000001544b454effffffff").unwrap()), // CONNECT
            (false, hex::decode("10000002544b454e10a3d6a0").unwrap()), // CONNECTACCEPT
            (true, vital(0, 1, t)),                                   // accepted
            (true, vital(0, 3, t)),                                   // out of order
            (true, vital(0, 1, t)),                                   // duplicate
            (true, vital(0, 2, [1, 2, 3, 4])),                        // wrong token
            (false, vital(7, 1, t)), // acks 7: the client sent up to 3
            (true, vital(0, 2, t)),  // accepted
        ];
        let cap = Capture {
            format: "pcap",
            datagrams: packets
                .into_iter()
                .enumerate()
                .map(|(i, (s, b))| datagram(i + 1, s, b))
                .collect(),
            ..Capture::default()
        };
        let mut session = session::Session::new(&cap, 8303);
        let mut got: Vec<Vec<Anomaly>> = Vec::new();
        while let Some(d) = session.next_datagram() {
            got.push(d.anomalies);
        }
        assert_eq!(got[..3], [vec![], vec![], vec![]]);
        assert_eq!(
            got[3],
            [Anomaly::OutOfOrder {
                seq: 3,
                expected: 2
            }]
        );
        assert_eq!(got[4], [Anomaly::Duplicate { seq: 1, ack: 1 }]);
        assert_eq!(
            got[5],
            [Anomaly::WrongToken {
                expected: t,
                got: [1, 2, 3, 4]
            }]
        );
        assert_eq!(
            got[6],
            [Anomaly::AckOutOfRange {
                ack: 7,
                peer_ack: 0,
                own_seq: 3
            }]
        );
        assert_eq!(got[7], []);
    }
}

/// The commands' JSON carries what their text shows, and their exit codes.
mod cli {
    use super::common::run;
    use serde_json::Value;

    const A: &str = "corpus/packet/ddnet-20.1/A_join_move_leave.pcap";

    fn json(bytes: &[u8]) -> Value {
        serde_json::from_slice(bytes).unwrap()
    }

    #[test]
    fn packet_decode_json_has_every_layer() {
        // A CONNECT, then a data packet with INFO (sys 1) and a game
        // message (Cl_Say, 17) in two chunks, then one whose chunk is cut.
        let data = "000002 4107 01 03 302e3620363236666365396137373864663464340000 0004 2201 7800 ";
        let out = run(&[
            "packet",
            "decode",
            "--format",
            "json",
            "10000001544b454effffffff",
            &data.replace(' ', ""),
            "0000014005010203",
        ]);
        assert_eq!(out.status.code(), Some(1), "the cut packet fails");
        let doc = json(&out.stdout);
        assert_eq!(
            (doc["kind"].as_str(), doc["schema_version"].as_u64()),
            (Some("packet_decode"), Some(1))
        );
        assert_eq!(doc["failed"], true);
        let packets = doc["packets"].as_array().unwrap();
        assert_eq!(packets.len(), 3);

        let connect = &packets[0];
        assert_eq!(connect["bytes"], 12);
        assert_eq!(connect["version"], "0.6");
        assert_eq!(connect["version_reason"], "default_06");
        let reason = connect["version_reason_text"].as_str().unwrap();
        assert!(reason.contains("no 0.7 marker"), "{reason}");
        assert_eq!(connect["packet"]["form"], "connection");
        assert_eq!(connect["packet"]["control_message"]["name"], "CONNECT");
        assert_eq!(connect["packet"]["token"], "ffffffff");
        assert_eq!(connect["reencode"]["status"], "exact");
        assert_eq!(connect["failed"], false);

        let data = &packets[1]["packet"];
        assert_eq!(
            (data["num_chunks"].as_u64(), data["control"].as_bool()),
            (Some(2), Some(false))
        );
        let chunks = data["chunks"].as_array().unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0]["vital"], true);
        assert_eq!(chunks[0]["seq"], 1);
        assert_eq!(chunks[0]["size"], 23);
        assert_eq!(chunks[0]["canonical"], true);
        let info = &chunks[0]["message"];
        assert_eq!(
            (
                info["system"].as_bool(),
                info["id"].as_i64(),
                info["name"].as_str()
            ),
            (Some(true), Some(1), Some("INFO"))
        );
        assert_eq!(info["fields"]["version"], "0.6 626fce9a778df4d4");
        assert_eq!(info["fields"]["password"], "");
        assert!(info.get("trailing").is_none(), "no trailing bytes: {info}");
        let say = &chunks[1]["message"];
        assert_eq!(
            (say["system"].as_bool(), say["name"].as_str()),
            (Some(false), Some("Cl_Say"))
        );
        assert_eq!(
            say["fields"],
            serde_json::json!({"team": 1, "message": "x"})
        );
        assert!(say.get("body").is_none(), "{say}");
        assert_eq!(data["after_chunks"], "");
        assert_eq!(packets[1]["failed"], false);

        let cut = &packets[2];
        assert_eq!(cut["failed"], true);
        let e = &cut["packet"]["payload_error"];
        assert_eq!(
            (e["offset"].as_u64(), e["kind"].as_str()),
            (Some(6), Some("unexpected_eof"))
        );
        assert_eq!(e["context"], "payload.chunk.data");
        assert_eq!(cut["reencode"]["status"], "exact");
    }

    #[test]
    fn packet_decode_json_reports_an_undecodable_packet() {
        let out = run(&[
            "packet",
            "decode",
            "--format",
            "json",
            "--version",
            "0.7",
            "0400",
        ]);
        assert_eq!(out.status.code(), Some(1));
        let doc = json(&out.stdout);
        let p = &doc["packets"][0];
        assert_eq!(p["version_reason"], "given");
        assert!(p.get("packet").is_none(), "{}", p["packet"]);
        assert_eq!(p["error"]["context"], "packet.header.num_chunks");
        assert_eq!(p["reencode"]["status"], "not_checked");
        assert_eq!(p["failed"], true);
        // Undecodable, and judged all the same.
        assert_eq!(p["verdict"]["ddnet"]["rule"], "too_short");
        assert_eq!(p["verdict"]["teeworlds_0_7_5"]["rule"], "too_short_07");
    }

    #[test]
    fn packet_decode_shows_the_verdicts_in_text_and_json() {
        // A control packet without its control byte: decoded and exact,
        // and dropped by DDNet.
        let out = run(&["packet", "decode", "100000"]);
        assert_eq!(out.status.code(), Some(0), "a drop is not a decode failure");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("ddnet 20.1: read as 0.6, dropped (control_without_byte): control packet without a control byte (IsValidConnectionOrientedPacket)"),
            "{text}"
        );
        assert!(
            !text.contains("teeworlds"),
            "no 0.7.5 verdict for 0.6: {text}"
        );
        // A 0.7 connless packet with version bits 0: DDNet reads it as 0.6.
        let out = run(&[
            "packet",
            "decode",
            "--format",
            "json",
            "--version",
            "0.7",
            "20aabbccdd11223344",
        ]);
        let v = &json(&out.stdout)["packets"][0]["verdict"];
        assert_eq!(
            v["ddnet"],
            serde_json::json!({"read_as": "0.6", "accepted": true})
        );
        assert_eq!(v["teeworlds_0_7_5"]["rule"], "connless_version_bits");
    }

    #[test]
    fn packet_decode_token_forces_the_0_6_token() {
        // A DDNet CONNECT: the guess finds the token; `no` keeps it in the
        // control data.
        let connect = "10000001544b454effffffff";
        let token = |arg: &str| {
            let out = run(&[
                "packet", "decode", "--format", "json", "--token", arg, connect,
            ]);
            assert_eq!(out.status.code(), Some(0));
            json(&out.stdout)["packets"][0]["packet"]["token"].clone()
        };
        assert_eq!(token("auto"), "ffffffff");
        assert_eq!(token("yes"), "ffffffff");
        assert_eq!(token("no"), Value::Null);
        // A KEEPALIVE with 4 bytes after it: a token unless told otherwise.
        let keepalive = |arg: &str| {
            let out = run(&[
                "packet",
                "decode",
                "--format",
                "json",
                "--token",
                arg,
                "1000000011223344",
            ]);
            let p = json(&out.stdout)["packets"][0]["packet"].clone();
            (p["control_message"]["data"].clone(), p["token"].clone())
        };
        assert_eq!(keepalive("auto"), ("".into(), "11223344".into()));
        assert_eq!(keepalive("no"), ("11223344".into(), Value::Null));
        // Too short for a token: the decode fails, naming it.
        let out = run(&[
            "packet", "decode", "--format", "json", "--token", "yes", "100000",
        ]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            json(&out.stdout)["packets"][0]["error"]["context"],
            "packet.token"
        );
        let out = run(&["packet", "decode", "--token", "maybe", "100000"]);
        assert_eq!(out.status.code(), Some(2));
    }

    #[test]
    fn pcap_dump_jsonl_is_a_framed_stream_with_everything_the_text_shows() {
        let out = run(&["pcap", "dump", "--format", "jsonl", A]);
        assert_eq!(out.status.code(), Some(0));
        let lines: Vec<Value> = out
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(json)
            .collect();
        assert_eq!(lines.len(), 1158 + 2);
        assert_eq!(lines[0]["kind"], "start");
        assert_eq!(lines[0]["command"], "pcap dump");
        assert_eq!(lines[0]["input"], A);
        let end = lines.last().unwrap();
        assert_eq!(end["kind"], "end");
        assert_eq!(end["port"], 18320);
        assert_eq!(end["totals"]["datagrams"], 1158);
        assert_eq!(end["totals"]["exact"], 1158);
        assert_eq!(end["replay"]["snapshots"], 421);
        assert_eq!(end["replay"]["rebuilt"], 421);
        let datagrams = &lines[1..lines.len() - 1];
        for d in datagrams {
            assert!(d["kind"] == "datagram" && d["failed"] == false, "{d}");
        }
        // Frame 4: the client's clientver and INFO, as the text shows them.
        let d = &datagrams[3];
        assert_eq!(
            (d["frame"].as_u64(), d["direction"].as_str()),
            (Some(4), Some("to_server"))
        );
        assert_eq!(d["peer"], "127.0.0.1:34663");
        assert_eq!(d["bytes"], 83);
        let payload = std::fs::read(A).unwrap();
        let at = d["offset"].as_u64().unwrap() as usize;
        assert_eq!(
            payload[at..at + 3],
            [0x00, 0x00, 0x02],
            "offset is the datagram's file byte"
        );
        let clientver = &d["packet"]["chunks"][0]["message"];
        assert_eq!(clientver["name"], "clientver@ddnet.tw");
        assert_eq!(clientver["uuid"], "8c001304-8461-3e47-8787-f672b3835bd4");
        assert_eq!(clientver["fields"]["ddnet_version"], 20010);
        // The snapshots the text marks with "= snapshot", with their CRC.
        let snapshots: usize = datagrams
            .iter()
            .map(|d| d["snapshots"].as_array().unwrap().len())
            .sum();
        assert_eq!(snapshots, 421);
        let first = datagrams
            .iter()
            .find(|d| !d["snapshots"].as_array().unwrap().is_empty())
            .unwrap();
        let s = &first["snapshots"][0];
        assert_eq!(
            (
                s["tick"].as_i64(),
                s["parts"].as_i64(),
                s["rebuilt"].as_bool()
            ),
            (Some(90), Some(1), Some(true))
        );
        assert!(s["crc"].is_i64(), "{}", s["crc"]);
        assert_eq!(first["packet"]["compression"]["compressed_size"], 544);
    }

    #[test]
    fn pcap_check_fails_on_a_port_no_datagram_uses() {
        let out = run(&["pcap", "check", "--port", "1", A]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no datagram to or from port 1 (1158 UDP datagrams"),
            "{stderr}"
        );
        let out = run(&["pcap", "check", "--port", "1", "--format", "json", A]);
        assert_eq!(out.status.code(), Some(1));
        let doc = json(&out.stdout);
        assert_eq!(doc["kind"], "pcap_check");
        assert_eq!(doc["status"], "fail");
        assert_eq!(doc["findings"][0]["code"], "no_datagrams");
        assert!(doc["totals"].is_null(), "{}", doc["totals"]);
    }

    #[test]
    fn pcap_check_json_has_the_totals_the_text_prints() {
        let out = run(&["pcap", "check", "--format", "json", A]);
        assert_eq!(out.status.code(), Some(0));
        let doc = json(&out.stdout);
        assert_eq!(
            (doc["status"].as_str(), doc["format"].as_str()),
            (Some("pass"), Some("capture"))
        );
        assert_eq!(doc["roundtrip"]["status"], "exact");
        assert_eq!(doc["counts"]["records"], 1158);
        assert_eq!(doc["counts"]["more"]["port"], 18320);
        // Every message of the capture has a layout.
        assert_eq!(doc["totals"]["typed_messages"], 1965);
        assert_eq!(doc["totals"]["chunks"], 1965);
        let summary = doc["summary"].as_str().unwrap();
        assert!(
            summary.starts_with("1158 datagrams byte-exact"),
            "{summary}"
        );
        assert_eq!(doc["replay"]["crc_checked"], 250);
    }

    #[test]
    fn a_capture_cut_short_names_its_byte() {
        let dir = std::env::temp_dir().join(format!("teeoracle-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cut = dir.join("cut.pcap");
        std::fs::write(&cut, &std::fs::read(A).unwrap()[..100]).unwrap();
        // A cut inside the last record is how a killed writer leaves a
        // capture: the frame before it is dumped, then where it stops (6
        // bytes of the next record's 16-byte header are there).
        let out = run(&["pcap", "dump", cut.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("#1 "), "{stdout}");
        assert!(
            stdout.trim_end().ends_with(
                "# stopped: the file ends inside the record after frame 1: at byte 94 (0x5e): \
                 reading pcap.record: unexpected end of input: expected 16 more byte(s), 6 available"
            ),
            "{stdout}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
