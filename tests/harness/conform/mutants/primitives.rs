//! Mutants of varints, strings and Huffman.

use super::*;

pub(super) fn mutants() -> Vec<Mutant> {
    use Unit::*;
    vec![
        // varint
        Mutant {
            name: "varint_sign_negated",
            bug: "a negative varint read as minus its magnitude instead of its bitwise NOT (-63 for -64)",
            units: &[Varint],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(a) = v["ints"].as_array_mut() {
                        for x in a {
                            let n = x.as_i64().unwrap();
                            if n < 0 {
                                *x = json!(n + 1);
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "varint_write_7_bit_first_byte",
            bug: "the writer puts 64..127 in one byte, forgetting the first byte's sign bit",
            units: &[Varint],
            answer: |c| {
                encoded(c, |v, out| {
                    out.clear();
                    for n in v["ints"].as_array().unwrap() {
                        let n = n.as_i64().unwrap();
                        if (0..128).contains(&n) {
                            out.push(n as u8);
                        } else {
                            out.extend(encode(Varint, &json!({"ints": [n]})).unwrap());
                        }
                    }
                })
            },
        },
        Mutant {
            name: "varint_overlong_rejected",
            bug: "a strict reader refuses over-long forms (0 in two bytes), which DDNet reads",
            units: &[Varint],
            answer: |c| {
                let input = bytes(c).to_vec();
                strict(c, |v| encode(Varint, v).is_ok_and(|b| b != input))
            },
        },
        Mutant {
            name: "varint_fifth_byte_unmasked",
            bug: "the fifth byte's high bits are not masked off as DDNet masks them",
            units: &[Varint],
            answer: |c| match read_varints(bytes(c), false, 5) {
                Some(ints) if c.op == teeoracle::conform::Op::Decode => {
                    if matches!(reference_answer(c), Answer::Decoded(_)) {
                        Answer::Decoded(json!({ "ints": ints }))
                    } else {
                        reference_answer(c)
                    }
                }
                _ => reference_answer(c),
            },
        },
        Mutant {
            name: "varint_sixth_byte",
            bug: "a fifth byte with its continuation bit set is followed by a sixth (DDNet stops at five)",
            units: &[Varint],
            answer: |c| match read_varints(bytes(c), true, 6) {
                Some(ints) if c.op == teeoracle::conform::Op::Decode => {
                    Answer::Decoded(json!({ "ints": ints }))
                }
                None => Answer::Rejected("cut".into()),
                _ => reference_answer(c),
            },
        },
        Mutant {
            name: "varint_cut_reads_zeros",
            bug: "a varint cut by the end of the input is completed with zero bytes",
            units: &[Varint],
            answer: |c| lenient(c, &["unexpected end of input"]),
        },
        // string
        Mutant {
            name: "string_unterminated_accepted",
            bug: "a string without its NUL at the end of the input is accepted",
            units: &[String],
            answer: |c| lenient(c, &["NUL-terminated"]),
        },
        Mutant {
            name: "string_lossy_utf8",
            bug: "bytes that are not UTF-8 replaced by U+FFFD (a lossy string type)",
            units: &[String],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(a) = v["strings"].as_array_mut() {
                        for s in a {
                            if let Some(h) = s["hex"].as_str() {
                                let b = hex::decode(h).unwrap();
                                *s = json!(std::string::String::from_utf8_lossy(&b));
                            }
                        }
                    }
                })
            },
        },
        Mutant {
            name: "string_no_last_nul",
            bug: "the writer separates strings with NUL but does not end the last one",
            units: &[String],
            answer: |c| {
                encoded(c, |_, out| {
                    out.pop();
                })
            },
        },
        // huffman
        Mutant {
            name: "huffman_legacy_always_zero_byte",
            bug: "the legacy writer appends a zero byte after every stream, not only when its bits end on a byte boundary",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] == "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Ddnet);
                        out.push(0);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_ddnet_writes_legacy",
            bug: "DDNet's >= 20.0 writer adds the legacy zero byte on a byte boundary (DDNet <= 19's writer)",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] != "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Legacy);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_legacy_without_zero_byte",
            bug: "the legacy writer forgets its zero byte on a byte boundary",
            units: &[Huffman],
            answer: |c| {
                encoded(c, |v, out| {
                    if v["flavor"] == "legacy" {
                        let raw = hex::decode(v["hex"].as_str().unwrap()).unwrap();
                        *out = huffman::compress_to_vec(&raw, Flavor::Ddnet);
                    }
                })
            },
        },
        Mutant {
            name: "huffman_empty_payload_rejected",
            bug: "a stream of only the end symbol (an empty payload) is refused",
            units: &[Huffman],
            answer: |c| strict(c, |v| v["hex"] == ""),
        },
        Mutant {
            name: "huffman_end_of_input_is_end",
            bug: "the end of the input ends the stream: no end symbol needed",
            units: &[Huffman],
            answer: |c| lenient(c, &["unexpected end of input"]),
        },
        Mutant {
            name: "huffman_trailing_bytes_rejected",
            bug: "bytes after the end symbol are refused (DDNet stops at the end symbol)",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let trailing = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing > 0);
                strict(c, |_| trailing)
            },
        },
        Mutant {
            name: "huffman_padding_bits_rejected",
            bug: "set padding bits after the end symbol are refused (DDNet ignores them)",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let padded = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing == 0 && !i.ddnet && !i.legacy);
                strict(c, |_| padded)
            },
        },
        Mutant {
            name: "huffman_flavor_prefers_legacy",
            bug: "a stream both writers make is reported as the legacy writer's",
            units: &[Huffman],
            answer: |c| {
                let mut raw = Vec::new();
                let both = huffman::decompress(bytes(c), &mut raw, usize::MAX, 0)
                    .is_ok_and(|i| i.trailing == 0 && i.ddnet && i.legacy);
                decoded(c, |_, v| {
                    if both {
                        v["flavor"] = json!("legacy");
                    }
                })
            },
        },
    ]
}
