//! Mutants of packets.

use super::*;

pub(super) fn mutants() -> Vec<Mutant> {
    use Unit::*;
    vec![
        Mutant {
            name: "packet_ack_low_byte_only",
            bug: "the ack is read from byte 1 alone, without its two high bits in byte 0",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if is_connection(v) {
                        v["packet"]["ack"] = json!(b[1]);
                    }
                })
            },
        },
        Mutant {
            name: "packet_ack_four_high_bits",
            bug: "the ack's high bits taken from byte 0's low nibble (a 12-bit ack) instead of its two low bits",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if is_connection(v) {
                        v["packet"]["ack"] = json!((u16::from(b[0] & 0xf) << 8) | u16::from(b[1]));
                    }
                })
            },
        },
        Mutant {
            name: "packet06_chunk_size_07_split",
            bug: "0.6 chunk headers read with 0.7's split (6 size bits in byte 1, not 4)",
            units: &[Packet06],
            answer: |c| {
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, 3, 4) {
                        for (i, (at, _)) in h.into_iter().enumerate() {
                            let size =
                                (usize::from(b[at] & 0x3f) << 6) | usize::from(b[at + 1] & 0x3f);
                            v["packet"]["chunks"][i]["size"] = json!(size);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet07_chunk_size_06_split",
            bug: "0.7 chunk headers read with 0.6's split (4 size bits in byte 1, not 6)",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, 7, 6) {
                        for (i, (at, _)) in h.into_iter().enumerate() {
                            let size =
                                (usize::from(b[at] & 0x3f) << 4) | usize::from(b[at + 1] & 0x0f);
                            v["packet"]["chunks"][i]["size"] = json!(size);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet_chunk_seq_low_byte",
            bug: "a vital chunk's sequence read from its third byte alone (8 of its 10 bits)",
            units: &[Packet06, Packet07],
            answer: |c| {
                let (header, split) = match c.unit {
                    Unit::Packet06 => (3, 4),
                    _ => (7, 6),
                };
                decoded(c, |b, v| {
                    if let Some(h) = chunk_headers(b, v, header, split) {
                        for (i, (at, len)) in h.into_iter().enumerate() {
                            if len == 3 {
                                v["packet"]["chunks"][i]["seq"] = json!(b[at + 2]);
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet_chunk_flags_swapped",
            bug: "the chunk flag bits swapped: vital read as resend and resend as vital",
            units: &[Packet06, Packet07],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(chunks) = v["packet"]["chunks"].as_array_mut() {
                        for ch in chunks {
                            let (vital, resend) = (ch["vital"].clone(), ch["resend"].clone());
                            ch["vital"] = resend;
                            ch["resend"] = vital;
                        }
                    }
                })
            },
        },
        Mutant {
            name: "packet06_token_after_header",
            bug: "DDNet's 0.6 security token read after the header (where 0.7 puts its token), not from the datagram's end",
            units: &[Packet06],
            answer: |c| {
                decoded(c, |b, v| {
                    if v["packet"]["token"].is_string() && b.len() >= 7 {
                        v["packet"]["token"] = json!(hex::encode(&b[3..7]));
                    }
                })
            },
        },
        Mutant {
            name: "packet07_token_at_end",
            bug: "the 0.7 header token read from the datagram's last 4 bytes (where DDNet's 0.6 token is)",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |b, v| {
                    if v["packet"]["header_token"].is_string() && b.len() >= 4 {
                        v["packet"]["header_token"] = json!(hex::encode(&b[b.len() - 4..]));
                    }
                })
            },
        },
        Mutant {
            name: "packet07_connless_tokens_swapped",
            bug: "a 0.7 connectionless datagram's token and response token swapped",
            units: &[Packet07],
            answer: |c| {
                decoded(c, |_, v| {
                    let p = &mut v["packet"];
                    if p["response_token"].is_string() {
                        let t = p["token"].clone();
                        p["token"] = p["response_token"].clone();
                        p["response_token"] = t;
                    }
                })
            },
        },
        Mutant {
            name: "packet_no_size_limit",
            bug: "no size checks: datagrams over 1400 bytes or shorter than the header are read",
            units: &[Packet06, Packet07],
            answer: |c| {
                let n = bytes(c).len();
                match reference_answer(c) {
                    Answer::Rejected(_)
                        if c.op == teeoracle::conform::Op::Decode && !(3..=1400).contains(&n) =>
                    {
                        Answer::Decoded(json!({}))
                    }
                    other => other,
                }
            },
        },
        Mutant {
            name: "packet_lenient_flags",
            bug: "no IsValidConnectionOrientedPacket: control packets with chunks, data packets without, unknown flags read",
            units: &[Packet06, Packet07],
            answer: |c| {
                lenient(
                    c,
                    &[
                        "DDNet 20.1 drops it (flags",
                        "DDNet 20.1 drops it (control",
                        "DDNet 20.1 drops it (no_chunks",
                    ],
                )
            },
        },
        Mutant {
            name: "packet_encode_ack_swapped",
            bug: "the writer puts the ack's low bits in byte 0 and its high bits in byte 1",
            units: &[Packet06, Packet07],
            answer: |c| {
                encoded(c, |v, out| {
                    if is_connection(v) && out.len() >= 2 {
                        let ack = v["packet"]["ack"].as_u64().unwrap_or(0) as u16;
                        out[0] = (out[0] & 0xfc) | (ack & 3) as u8;
                        out[1] = (ack >> 2) as u8;
                    }
                })
            },
        },
        Mutant {
            name: "packet06_encode_token_after_header",
            bug: "the 0.6 writer puts DDNet's security token after the header instead of at the end",
            units: &[Packet06],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["packet"]["token"].is_string() && out.len() >= 7 {
                        let token: Vec<u8> = out.split_off(out.len() - 4);
                        out.splice(3..3, token);
                    }
                })
            },
        },
        Mutant {
            name: "packet_encode_resend_flag_lost",
            bug: "the writer drops a chunk's resend flag",
            units: &[Packet06, Packet07],
            answer: |c| {
                let (header, split) = match c.unit {
                    Unit::Packet06 => (3, 4),
                    _ => (7, 6),
                };
                encoded(c, |v, out| {
                    let wire = out.clone();
                    if let Some(h) =
                        chunk_headers(&wire, &json!({"packet": v["packet"]}), header, split)
                    {
                        for (at, _) in h {
                            out[at] &= 0x7f;
                        }
                    }
                })
            },
        },
    ]
}
