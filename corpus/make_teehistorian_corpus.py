#!/usr/bin/env python3
"""Writes the hand-made teehistorian corpus files (ddnet-unit-tests/, edge/,
malformed/). Bytes are packed here, independently of teeoracle's encoder, so
that these files also check the Rust codec. Run from the repository root:

    python3 corpus/make_teehistorian_corpus.py

The real recordings in ddnet-20.1/ are copied unchanged, never generated.
"""
import json
import os
import uuid

from twpack import varint

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "teehistorian")
MAGIC = bytes.fromhex("699db17b8efb34ffb1d8da6f60c15dd1")
NS = uuid.UUID("e05ddaaa-c4e6-4cfb-b642-5d48e80c0029")


def ex_uuid(name):
    return uuid.uuid3(NS, name).bytes


i = varint


def s(text):
    return (text.encode() if isinstance(text, str) else text) + b"\0"


def ex(name, payload, raw_uuid=None):
    return i(-11) + (raw_uuid or ex_uuid(name)) + i(len(payload)) + payload


def header(**overrides):
    """The DDNet test fixture header (teehistorian_test.cpp Expect()), with
    start time 0 in UTC; the uuids list is the one a DDNet 20.1 server writes
    (taken from a real 20.1 file in this corpus)."""
    with open(os.path.join(ROOT, "ddnet-20.1", "A_join_move_leave.teehistorian"), "rb") as f:
        real = f.read()
    uuids = json.loads(real[16 : real.index(b"\0", 16)])["uuids"]
    fields = [
        ("comment", "teehistorian@ddnet.tw"),
        ("version", "2"),
        ("version_minor", "22"),
        ("game_uuid", "a1eb7182-796e-3b3e-941d-38ca71b2a4a8"),
        ("prev_game_uuid", None),
        ("server_version", "DDNet test"),
        ("start_time", "1970-01-01T00:00:00+0000"),
        ("server_name", "server name"),
        ("server_port", "8303"),
        ("game_type", "game type"),
        ("map_name", "Kobra 3 Solo"),
        ("map_size", "903514"),
        ("map_sha256", "0123456789" * 6 + "0123"),
        ("map_crc", "eceaf25c"),
        ("prng_description", "test-prng:02468ace"),
    ]
    fields = [(k, overrides.get(k, v)) for k, v in fields]
    body = ",".join('"%s":"%s"' % (k, v) for k, v in fields if v is not None)
    text = "{%s,\"config\":{},\"tuning\":{},\"uuids\":[%s]}" % (
        body,
        ",".join('"%s"' % u for u in uuids),
    )
    return MAGIC + text.encode() + b"\0"


def write(folder, name, data):
    path = os.path.join(ROOT, folder, name + ".teehistorian")
    with open(path, "wb") as f:
        f.write(data)


# DDNet src/test/teehistorian_test.cpp (DDNet 20.1): the expected body bytes
# of every test. 22 come from corpus/upstream/test-vectors (the EXPECTED
# arrays); the rest from the test's char literals and calls (see README).
UNIT_TESTS = {
    "Empty": "",
    "Finished": "40",
    "TickImplicitOneTick": "4200010240",
    "TickImplicitTwoTicks": "4200010200014040",
    "TickImplicitDescendingClientId": "420102034200040540",
    "TickExplicitAscendingClientId": "4200040541004201020340",
    "TickImplicitEmpty": "40",
    "TickExplicitStart": "41b3074200404040",
    "TickExplicitPlayerMessage": "4100463f010040",
    "ExtraMessage": "41004a6bb8ba880f0b382e8daedbf4052b8b7d0040",
    "DDNetVersion": "4a1397b63eee4e3919b86ab058887fcaf53200fb13a576d35f4893b815eedc6d98015b92cb01"
    + b"DDNet 13.1 (3623f5e4cd184556)".hex()
    + "004a41b49541f26f325d87159baf4b544ef9040192cb0140",
    "Auth": "4a60daba5c52c43aebb8bab2953fb55a17100003" + b"default_admin".hex() + "00"
    "4a37ecd3b892183bb9a71ba935b86f6a81090102" + b"foobar".hex() + "00"
    "4a37ecd3b892183bb9a71ba935b86f6a81070201" + b"help".hex() + "00"
    "4ad4f5abe8edd23fb9abd81c8bb84f4a63010140",
    "JoinLeave": "4a1899a38271e336da937dc9de6bb95b1d010647064a59239b050540318dbea49aa1e80e7d2b0107470748"
    "06" + b"too many pancakes".hex() + "0040",
    "Input": "410045000102030405060708090a44004000000000000000000045000002030405060708090a40",
    "SaveSuccess": "4a4560c756da29303681d490a50f0182cd1a15fb13a576d35f4893b815eedc6d98015b3209482e0a6c6c300040",
    "SaveFailed": "4ab29901d512443bd0bbde23d04b1f7ba9010c40",
    "LoadSuccess": "4ae05408d3a31333df9eb3ddb990ab954a1a15fb13a576d35f4893b815eedc6d98015b3209482e0a6c6c300040",
    "LoadFailed": "4aef8905a2c6953591a1cd53d2015992dd010c40",
    "PlayerSwap": "41004a5de9b63349cf3e999a25d4a78e9717d7020b1540",
    "PlayerTeam": "41004aa111c04e1ea838e090b1d7f993ca0da902213641004aa111c04e1ea838e090b1d7f993ca0da902030c"
    "4aa111c04e1ea838e090b1d7f993ca0da902210040",
    "TeamPractice": "41004a5792834e81d134c9a29bb5ff25dac3bc02170141004a5792834e81d134c9a29bb5ff25dac3bc020101"
    "4a5792834e81d134c9a29bb5ff25dac3bc02170040",
    "PlayerRejoinVer6": "4ac1e921d596f537bb8a457a06f163d27e010240",
    "PlayerReady": "4a638587c93f753887918ea3c2614ffaa0013f40",
    "PlayerReadyMultiple": "41004a638587c93f753887918ea3c2614ffaa001004a638587c93f753887918ea3c2614ffaa0010b"
    "41004a638587c93f753887918ea3c2614ffaa0013f40",
    "AntibotEmpty": "4a866bfdacfb493c0ba8875fe1f3ea00b800",
    "AntibotEmptyNulBytes": "4a866bfdacfb493c0ba8875fe1f3ea00b80400000000",
    "AntibotEmptyMessage": "4a866bfdacfb493c0ba8875fe1f3ea00b804f09fa496",
    "PlayerName": "4ad016f9b941513b8787e53a6087eb5f260e156e616d656c6573732074656500",
    "PlayerFinish": "4a68943c0123483e0194903f27f8269d94040180897a",
    "TeamFinish": "4a9588b9af3fdc3760804382deeee317a5033fa80f",
}


def unit_tests():
    for name, body in UNIT_TESTS.items():
        write("ddnet-unit-tests", name, header() + bytes.fromhex(body))
    write(
        "ddnet-unit-tests",
        "PrevGameUuid",
        header(prev_game_uuid="fe19c218-f555-4002-a273-126c59ccc17a") + bytes.fromhex("40"),
    )


def P(cid, x, y):  # PLAYER_NEW
    return i(-3) + i(cid) + i(x) + i(y)


def D(cid, dx, dy):  # PLAYER_DIFF
    return i(cid) + i(dx) + i(dy)


def O(cid):  # PLAYER_OLD
    return i(-4) + i(cid)


def skip(dt):
    return i(-2) + i(dt)


FINISH = i(-1)


def edge_cases():
    h = header()
    # Client id 127 and team 128 (super) are valid since DDNet 20.0.
    write("edge", "cid_127_team_128", h + P(127, 10, 20) + D(127, -5, 5)
          + ex("teehistorian-player-team@ddnet.tw", i(127) + i(128)) + FINISH)
    # Equal cid starts a new tick: OLD 3 (tick 1) then NEW 3 (tick 2).
    write("edge", "equal_cid_new_tick", h + P(3, 0, 0) + O(3) + P(3, 1, 1) + FINISH)
    # TICK_SKIP resets the previous cid: PLAYER 0 after SKIP is the same tick.
    write("edge", "skip_resets_cid", h + P(5, 0, 0) + skip(1) + P(2, 0, 0) + D(5, 1, 1) + FINISH)
    # A newer DDNet's extension (auth-init-role) is unknown here: kept raw.
    write("edge", "unknown_ex_uuid", h
          + ex("", i(0) + s("admin") + s("default_admin"),
               raw_uuid=bytes.fromhex("7a202cc735913d4fa8a698286d5c4f9c")) + FINISH)
    # A known extension whose payload has 3 bytes after its fields.
    write("edge", "ex_trailing_bytes", h
          + ex("teehistorian-player-ready@ddnet.tw", i(7) + b"\x01\x02\x03") + FINISH)
    # Over-long varints DDNet accepts but never writes (dx = 80 00, dy = c0 00).
    write("edge", "overlong_varint", h + P(0, 1, 1) + b"\x00\x80\x00\xc0\x00" + FINISH)
    # Cut in the middle of a record, as a crash can leave it.
    write("edge", "truncated_mid_record", h + P(0, 100, 200) + i(-5) + i(0) + i(1))
    # Header only: a server that crashed before its first record.
    write("edge", "header_only", h)
    # Format version 1 (no EX records).
    write("edge", "version_1", header(version="1") + P(0, 1, 2) + FINISH)
    # Console command with args, non-UTF-8 and control bytes kept raw.
    write("edge", "console_raw_bytes", h + skip(0) + i(-10) + i(-1) + i(4) + s("say")
          + i(2) + s(b"caf\xe9") + s(b"tab\there\x01") + i(-9) + i(0) + s(b"\xff") + FINISH)
    # Input diffs wrap around 32 bits.
    write("edge", "input_wrapping", h + skip(0) + i(-6) + i(0) + b"".join(i(v) for v in [2**31 - 1] + [0] * 9)
          + i(-5) + i(0) + b"".join(i(v) for v in [1] + [0] * 9) + FINISH)
    # Every known extension once, with DDNet's field layout.
    conn = bytes.fromhex("fb13a576d35f4893b815eedc6d98015b")
    all_ex = [
        ("teehistorian-test@ddnet.tw", b""),
        ("teehistorian-ddnetver-old@ddnet.tw", i(1) + i(12080)),
        ("teehistorian-ddnetver@ddnet.tw", i(0) + conn + i(20010) + s("DDNet 20.1")),
        ("teehistorian-auth-init@ddnet.tw", i(0) + i(3) + s("default_admin")),
        ("teehistorian-auth-login@ddnet.tw", i(1) + i(2) + s("default_mod")),
        ("teehistorian-auth-logout@ddnet.tw", i(1)),
        ("teehistorian-joinver6@ddnet.tw", i(0)),
        ("teehistorian-joinver7@ddnet.tw", i(1)),
        ("teehistorian-player-swap@ddnet.tw", i(0) + i(1)),
        ("teehistorian-save-success@ddnet.tw", i(5) + conn + s("2\tH.\nll0")),
        ("teehistorian-save-failure@ddnet.tw", i(5)),
        ("teehistorian-load-success@ddnet.tw", i(5) + conn + s("2\tH.\nll0")),
        ("teehistorian-load-failure@ddnet.tw", i(5)),
        ("teehistorian-player-team@ddnet.tw", i(0) + i(5)),
        ("teehistorian-team-practice@ddnet.tw", i(5) + i(1)),
        ("teehistorian-player-ready@ddnet.tw", i(0)),
        ("teehistorian-rejoinver6@ddnet.org", i(1)),
        ("teehistorian-antibot@ddnet.org", b"\x00\x01\xfe"),
        ("teehistorian-player-name@ddnet.org", i(0) + s("nameless tee")),
        ("teehistorian-player-finish@ddnet.org", i(0) + i(1000000)),
        ("teehistorian-team-finish@ddnet.org", i(5) + i(1000)),
    ]
    write("edge", "every_extension", h + skip(0) + b"".join(ex(n, p) for n, p in all_ex) + FINISH)


def malformed():
    h = header()
    write("malformed", "bad_magic", b"\x00" + h[1:] + FINISH)
    write("malformed", "unsupported_version", header(version="3") + FINISH)
    write("malformed", "header_not_json", MAGIC + b"{\"version\":\"2\",}\0" + FINISH)
    write("malformed", "header_unterminated", h[:-1])
    write("malformed", "unknown_message_id", h + P(0, 0, 0) + i(-12) + FINISH)
    write("malformed", "ex_in_version_1", header(version="1")
          + ex("teehistorian-player-ready@ddnet.tw", i(0)) + FINISH)
    write("malformed", "negative_message_size", h + skip(0) + i(-7) + i(0) + i(-1) + FINISH)
    write("malformed", "message_size_too_large", h + skip(0) + i(-7) + i(0) + i(2**31 - 1) + FINISH)
    write("malformed", "ex_payload_too_short", h + ex("teehistorian-player-name@ddnet.org", i(0) + b"abc") + FINISH)
    write("malformed", "bytes_after_finish", h + P(0, 0, 0) + FINISH + b"\x00\x01")
    write("malformed", "player_diff_absent", h + D(0, 1, 1) + FINISH)
    write("malformed", "player_new_present", h + P(0, 0, 0) + skip(0) + P(0, 1, 1) + FINISH)
    write("malformed", "player_old_absent", h + O(4) + FINISH)
    write("malformed", "input_diff_before_new", h + skip(0) + i(-5) + i(0) + i(1) + i(0) * 9 + FINISH)
    write("malformed", "tick_overflow", h + skip(2**31 - 1) + FINISH)
    write("malformed", "negative_tick_skip", h + skip(5) + skip(-3) + FINISH)


if __name__ == "__main__":
    unit_tests()
    edge_cases()
    malformed()
