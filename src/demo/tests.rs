//! The codec laws for the demo wire types, over arbitrary values and
//! bytes (every corpus demo round-trips through them in the integration
//! tests: `tests/harness/demos.rs`).

use super::chunk::compress_ints;
use super::*;
use crate::codec::{Codec, Mode, Reader, encode_to_vec};
use crate::huffman::Flavor;
use crate::testing::{codec_law, qc, strict_law};
use quickcheck::{Arbitrary, Gen, TestResult};

fn bytes(g: &mut Gen, max: usize) -> Vec<u8> {
    (0..usize::arbitrary(g) % (max + 1))
        .map(|_| u8::arbitrary(g))
        .collect()
}

fn array<const N: usize>(g: &mut Gen) -> [u8; N] {
    std::array::from_fn(|_| u8::arbitrary(g))
}

fn header(g: &mut Gen, map_size: u32) -> Header {
    Header {
        version: 3 + u8::arbitrary(g) % 4,
        net_version: FixedStr(array(g)),
        map_name: FixedStr(array(g)),
        map_size,
        map_crc: u32::arbitrary(g),
        kind: FixedStr(array(g)),
        length: u32::arbitrary(g),
        timestamp: FixedStr(array(g)),
    }
}

fn timeline(g: &mut Gen) -> Timeline {
    Timeline {
        count: i32::arbitrary(g),
        slots: std::array::from_fn(|_| i32::arbitrary(g)),
    }
}

/// What one chunk is made of, owned, so that a [`Chunk`] can borrow it.
#[derive(Clone, Debug)]
enum ChunkCase {
    Tick {
        byte: u8,
        tick: i32,
        delta: Option<u8>,
    },
    /// A payload as a writer makes it.
    Ints {
        kind: ChunkKind,
        form: SizeForm,
        ints: Vec<i32>,
        flavor: Flavor,
        trailing: Vec<u8>,
    },
    /// Bytes as they come: they may not decode, or decode to a payload
    /// no writer gives back.
    Raw {
        kind: ChunkKind,
        form: SizeForm,
        raw: Vec<u8>,
    },
}

fn kind(g: &mut Gen) -> ChunkKind {
    *g.choose(&[
        ChunkKind::Snapshot,
        ChunkKind::Message,
        ChunkKind::Delta,
        ChunkKind::Unknown,
    ])
    .unwrap_or(&ChunkKind::Message)
}

/// A size form that holds `len` bytes.
fn form(g: &mut Gen, len: usize) -> SizeForm {
    let forms: Vec<SizeForm> = [SizeForm::Inline, SizeForm::OneByte, SizeForm::TwoBytes]
        .into_iter()
        .filter(|f| f.holds(len))
        .collect();
    *g.choose(&forms).unwrap_or(&SizeForm::TwoBytes)
}

impl ChunkCase {
    /// An arbitrary chunk after a marker at `tick` in a file of `version`.
    fn arbitrary(g: &mut Gen, version: u8, tick: Option<i32>) -> ChunkCase {
        match u8::arbitrary(g) % 3 {
            0 => {
                let keyframe = if bool::arbitrary(g) { 0x40 } else { 0 };
                let room = tick.map(|t| MAX_TICK as i32 - 1 - t);
                match (room, version >= 5) {
                    (Some(room), true) if room >= 31 && bool::arbitrary(g) => {
                        let d = u8::arbitrary(g) % 32;
                        let byte = 0x80 | keyframe | 0x20 | d;
                        let tick = tick.unwrap_or_default() + i32::from(d);
                        ChunkCase::Tick {
                            byte,
                            tick,
                            delta: Some(d),
                        }
                    }
                    (Some(room), false) if room >= 63 && bool::arbitrary(g) => {
                        let d = 1 + u8::arbitrary(g) % 63;
                        let byte = 0x80 | keyframe | d;
                        let tick = tick.unwrap_or_default() + i32::from(d);
                        ChunkCase::Tick {
                            byte,
                            tick,
                            delta: Some(d),
                        }
                    }
                    // Absolute: from version 5 the low bits are free.
                    (_, new) => ChunkCase::Tick {
                        byte: 0x80 | keyframe | if new { u8::arbitrary(g) & 0x1f } else { 0 },
                        tick: (u32::arbitrary(g) % MAX_TICK as u32) as i32,
                        delta: None,
                    },
                }
            }
            1 => {
                let ints: Vec<i32> = Vec::arbitrary(g);
                let mut flavor = *g.choose(&[Flavor::Ddnet, Flavor::Legacy]).unwrap();
                let [ddnet, legacy] = [Flavor::Ddnet, Flavor::Legacy].map(|f| {
                    let mut out = Vec::new();
                    compress_ints(&ints, f, &mut Vec::new(), &mut out);
                    out
                });
                // Where both writers give the bytes, decoding names DDNet's;
                // after a DDNet stream on a byte boundary, a zero byte is
                // read as the legacy writer's.
                if ddnet == legacy {
                    flavor = Flavor::Ddnet;
                }
                let mut trailing = bytes(g, 4);
                if let Some(b) = trailing.first_mut()
                    && flavor == Flavor::Ddnet
                    && *b == 0
                {
                    *b = 1;
                }
                let len = legacy.len() + trailing.len();
                ChunkCase::Ints {
                    kind: kind(g),
                    form: form(g, len),
                    ints,
                    flavor,
                    trailing,
                }
            }
            _ => {
                let raw = bytes(g, 40);
                ChunkCase::Raw {
                    kind: kind(g),
                    form: form(g, raw.len()),
                    raw,
                }
            }
        }
    }

    /// The chunk, as decoding at `at` after a marker at `tick` gives it.
    fn chunk(&self, at: u64, tick: Option<i32>) -> Chunk<'_> {
        match self {
            ChunkCase::Tick { byte, tick, delta } => Chunk::Tick {
                byte: *byte,
                tick: *tick,
                keyframe: byte & 0x40 != 0,
                delta: *delta,
            },
            ChunkCase::Ints {
                kind,
                form,
                ints,
                flavor,
                trailing,
            } => Chunk::Data {
                kind: *kind,
                form: *form,
                payload: Payload::Ints {
                    ints: ints.clone(),
                    flavor: *flavor,
                    trailing,
                },
            },
            ChunkCase::Raw { kind, form, raw } => Chunk::Data {
                kind: *kind,
                form: *form,
                payload: Payload::read(
                    raw,
                    at + form.header_len(),
                    tick,
                    &mut chunk::Scratch::default(),
                ),
            },
        }
    }
}

#[derive(Clone, Debug)]
struct ArbChunk {
    ctx: ChunkContext,
    case: ChunkCase,
}

impl Arbitrary for ArbChunk {
    fn arbitrary(g: &mut Gen) -> Self {
        let version = 3 + u8::arbitrary(g) % 4;
        let tick = Option::<u32>::arbitrary(g).map(|t| (t % MAX_TICK as u32) as i32);
        ArbChunk {
            ctx: ChunkContext { version, tick },
            case: ChunkCase::arbitrary(g, version, tick),
        }
    }
}

#[test]
fn prop_chunks_obey_the_codec_law() {
    fn prop(c: ArbChunk) -> Result<(), String> {
        codec_law(&c.case.chunk(0, c.ctx.tick), c.ctx, &mut Vec::new())
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(ArbChunk) -> Result<(), String>);
}

#[test]
fn prop_chunk_bytes_obey_the_strict_law() {
    fn prop(version: u8, tick: Option<u16>, bytes: Vec<u8>) -> Result<(), String> {
        let ctx = ChunkContext {
            version: 3 + version % 4,
            tick: tick.map(i32::from),
        };
        strict_law::<Chunk<'_>, _>(&bytes, ctx)
    }
    qc().tests(3_000)
        .quickcheck(prop as fn(u8, Option<u16>, Vec<u8>) -> Result<(), String>);
}

#[derive(Clone, Debug)]
struct ArbPrefix {
    header: Header,
    timeline: Timeline,
    sha: Option<[u8; 32]>,
}

impl Arbitrary for ArbPrefix {
    fn arbitrary(g: &mut Gen) -> Self {
        let map_size = u32::arbitrary(g);
        ArbPrefix {
            header: header(g, map_size),
            timeline: timeline(g),
            sha: bool::arbitrary(g).then(|| array(g)),
        }
    }
}

#[test]
fn prop_header_timeline_and_sha256_item_obey_the_codec_law() {
    fn prop(p: ArbPrefix) -> Result<(), String> {
        codec_law(&p.header, (), &mut Vec::new())?;
        codec_law(&p.timeline, (), &mut Vec::new())?;
        match p.sha {
            Some(sha) => codec_law(&MapSha256(sha), (), &mut Vec::new()),
            None => Ok(()),
        }
    }
    qc().tests(500)
        .quickcheck(prop as fn(ArbPrefix) -> Result<(), String>);
}

#[test]
fn prop_header_bytes_obey_the_strict_law() {
    fn prop(version: u8, rest: Vec<u8>) -> Result<(), String> {
        let mut bytes = MAGIC.to_vec();
        bytes.push(version % 8);
        bytes.extend(rest.iter().cycle().take(HEADER_LEN - 8));
        bytes.resize(HEADER_LEN, 0);
        strict_law::<Header, _>(&bytes, ())?;
        strict_law::<Timeline, _>(&rest.repeat(TIMELINE_LEN), ())
    }
    qc().tests(500)
        .quickcheck(prop as fn(u8, Vec<u8>) -> Result<(), String>);
}

/// A whole file: a prefix and chunks whose ticks follow each other, and
/// maybe a cut chunk at the end.
#[derive(Clone, Debug)]
struct ArbDemo {
    header: Header,
    timeline: Option<Timeline>,
    sha: Option<[u8; 32]>,
    map: Vec<u8>,
    chunks: Vec<ChunkCase>,
    cut: Option<usize>,
}

impl Arbitrary for ArbDemo {
    fn arbitrary(g: &mut Gen) -> Self {
        let map = bytes(g, 64);
        let header = header(g, map.len() as u32);
        let version = header.version;
        let mut tick = None;
        let chunks: Vec<ChunkCase> = (0..usize::arbitrary(g) % 12)
            .map(|_| {
                let case = ChunkCase::arbitrary(g, version, tick);
                if let ChunkCase::Tick { tick: t, .. } = case {
                    tick = Some(t);
                }
                case
            })
            .collect();
        ArbDemo {
            timeline: (version >= 4).then(|| timeline(g)),
            sha: (version >= 6 && bool::arbitrary(g)).then(|| array(g)),
            header,
            map,
            cut: bool::arbitrary(g).then(|| usize::arbitrary(g)),
            chunks,
        }
    }
}

impl ArbDemo {
    /// The demo, and the bytes its cut chunk is made from (kept here so
    /// that the demo can borrow them).
    fn demo<'a>(&'a self, cut_from: &'a mut Vec<u8>) -> Demo<'a> {
        let mut at = (HEADER_LEN
            + self.timeline.map_or(0, |_| TIMELINE_LEN)
            + self.sha.map_or(0, |_| 48)
            + self.map.len()) as u64;
        let mut tick = None;
        let mut chunks = Vec::new();
        for case in &self.chunks {
            let chunk = case.chunk(at, tick);
            at += encode_to_vec(&chunk, ChunkContext::default()).len() as u64;
            tick = chunk.tick_after(tick);
            chunks.push(chunk);
        }
        // A cut chunk: the start of a last one that takes two bytes or
        // more.
        let truncated = self.cut.and_then(|n| {
            *cut_from = encode_to_vec(chunks.last()?, ChunkContext::default());
            let len = cut_from.len().checked_sub(1).filter(|&l| l > 0)?;
            chunks.pop();
            Some(&cut_from[..1 + n % len])
        });
        Demo {
            header: self.header.clone(),
            timeline: self.timeline,
            map_sha256: self.sha.map(MapSha256),
            map: &self.map,
            chunks,
            truncated,
            damage: None,
        }
    }
}

#[test]
fn prop_demos_obey_the_codec_law() {
    fn prop(d: ArbDemo) -> TestResult {
        // A map that starts with the SHA-256 item's UUID reads as the item.
        if d.sha.is_none() && d.map.starts_with(SHA256_UUID.as_bytes()) {
            return TestResult::discard();
        }
        let mut cut = Vec::new();
        let demo = d.demo(&mut cut);
        match codec_law(&demo, (), &mut Vec::new()) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(ArbDemo) -> TestResult);
}

#[test]
fn prop_demo_bytes_obey_the_strict_law() {
    static PREFIX: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/demo/edge/unknown_chunk_type.demo"
        );
        let bytes = std::fs::read(path).unwrap_or_default();
        bytes[..bytes.len().min(518)].to_vec()
    });
    fn prop(tail: Vec<u8>) -> Result<(), String> {
        let mut bytes = PREFIX.clone();
        bytes.extend_from_slice(&tail);
        strict_law::<Demo<'_>, _>(&bytes, ())
    }
    assert_eq!(
        PREFIX.len(),
        518,
        "the edge demo's header, timeline, item and map"
    );
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<u8>) -> Result<(), String>);
}

#[test]
fn a_chunk_ends_where_its_size_says() {
    let bytes = [0x40 | 3, 0xaa, 0xbb, 0xcc, 0xdd];
    let mut r = Reader::new(&bytes, Mode::Strict);
    let chunk = Chunk::decode(&mut r, ChunkContext::default()).unwrap();
    assert_eq!(r.remaining(), 1);
    assert!(
        matches!(
            chunk,
            Chunk::Data {
                kind: ChunkKind::Message,
                form: SizeForm::Inline,
                ..
            }
        ),
        "{chunk:?}"
    );
}

/// Any demo followed by a damaged chunk (an absolute tick marker out of
/// range, then anything): both readers keep every chunk before it, then
/// give the one error at the marker's byte, naming the tick in force; the
/// bytes from the marker on are kept, so the file encodes back.
#[test]
fn prop_a_damaged_chunk_keeps_the_chunks_before_it() {
    fn prop(d: ArbDemo, tick: u32, junk: Vec<u8>) -> TestResult {
        if d.sha.is_none() && d.map.starts_with(SHA256_UUID.as_bytes()) {
            return TestResult::discard();
        }
        let mut cut = Vec::new();
        let mut demo = d.demo(&mut cut);
        demo.truncated = None;
        let sound = encode_to_vec(&demo, ());
        let mut bytes = sound.clone();
        let bad = i64::from(tick).max(MAX_TICK) as u32;
        bytes.push(0x80);
        bytes.extend_from_slice(&bad.to_be_bytes());
        bytes.extend_from_slice(&junk);
        let last_tick = demo.chunks.iter().fold(None, |t, c| c.tick_after(t));

        let (got, offsets) = match Demo::decode_partial(&bytes) {
            Ok(x) => x,
            Err(e) => return TestResult::error(e.to_string()),
        };
        let Some(damage) = &got.damage else {
            return TestResult::error("no damage");
        };
        let checks = [
            (got.chunks == demo.chunks, "the chunks before it"),
            (offsets.len() == demo.chunks.len(), "their offsets"),
            (damage.error.offset == sound.len() as u64, "the offset"),
            (damage.error.tick == last_tick, "the tick in force"),
            (damage.rest == &bytes[sound.len()..], "the rest kept"),
            (encode_to_vec(&got, ()) == bytes, "encodes back"),
            (Demo::decode(&bytes).is_err(), "decode fails"),
        ];
        if let Some((_, what)) = checks.iter().find(|c| !c.0) {
            return TestResult::error(*what);
        }
        // The streaming reader: the same chunks, then the same error.
        let mut events = match Events::new(&bytes) {
            Ok(e) => e,
            Err(e) => return TestResult::error(e.to_string()),
        };
        let replay = events.replay();
        let streamed = (events.chunks(), events.error());
        TestResult::from_bool(
            streamed == (demo.chunks.len(), Some(&damage.error)) && replay.last_tick == last_tick,
        )
    }
    qc().tests(500)
        .quickcheck(prop as fn(ArbDemo, u32, Vec<u8>) -> TestResult);
}

/// A file that gives at most `step` bytes a read, and fails after `fail_at`
/// bytes if that is set.
struct Trickle {
    file: std::io::Cursor<Vec<u8>>,
    step: usize,
    fail_at: Option<u64>,
}

impl std::io::Read for Trickle {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let at = self.file.position();
        let left = self.fail_at.map_or(u64::MAX, |f| f.saturating_sub(at));
        if left == 0 && at < self.file.get_ref().len() as u64 {
            return Err(std::io::Error::other("the disk is gone"));
        }
        let n = out
            .len()
            .min(self.step)
            .min(left.try_into().unwrap_or(usize::MAX));
        self.file.read(&mut out[..n])
    }
}

impl std::io::Seek for Trickle {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(to)
    }
}

/// `bytes` streamed ([`Events::stream_in`], a `window`-byte window and
/// reads of at most `step` bytes) play as the whole file does, or, when
/// the stream does not start, the whole file does not read; with a read
/// error at `fail_at`, as the file cut there (and the error is told).
fn streams_as_whole(
    bytes: &[u8],
    window: usize,
    step: usize,
    fail_at: Option<u64>,
) -> Result<(), String> {
    let file = Trickle {
        file: std::io::Cursor::new(bytes.to_vec()),
        step,
        fail_at,
    };
    let streamed = match Events::stream_in(file, bytes.len() as u64, window) {
        Ok(Some(events)) => events,
        Ok(None) => {
            return match Events::new(bytes) {
                Err(_) => Ok(()),
                Ok(_) => Err("not streamed, but it reads whole".into()),
            };
        }
        Err(e) => {
            return match fail_at.is_some_and(|f| f < bytes.len() as u64) {
                true => Ok(()),
                false => Err(format!("the stream failed: {e}")),
            };
        }
    };
    // The map is skipped: a read error in it is met where the chunks start.
    let Ok((demo, _)) = Demo::decode_partial(bytes) else {
        return Err("streamed, but what comes before the chunks does not read".into());
    };
    let chunks = demo.map.as_ptr() as usize - bytes.as_ptr() as usize + demo.map.len();
    let cut = fail_at.map_or(bytes.len(), |f| (f as usize).clamp(chunks, bytes.len()));
    let (got, want) = (play(Ok(streamed)), play(Events::new(&bytes[..cut])));
    // A read error is told if the reading met it: only where there was
    // one, and surely where the cut file reads to its end.
    let failed = cut < bytes.len();
    let told_right = match got.1 {
        true => failed,
        false => !failed || want.2,
    };
    match got.0 == want.0 && told_right {
        true => Ok(()),
        false => Err(format!(
            "{got:?}\n!=\n{want:?} (a read error at {fail_at:?})"
        )),
    }
}

/// Everything [`Events`] tells of a file, for comparing two readings;
/// whether it met a read error, and a damaged chunk.
fn play(events: Result<Events<'_>, DecodeError>) -> (String, bool, bool) {
    match events {
        Ok(mut events) => {
            let replay = events.replay();
            let told = format!(
                "{replay:?} {:?} {} {:?} {:?} {:?}",
                events.info(),
                events.chunks(),
                events.error(),
                events.truncated(),
                events.unfinished()
            );
            (
                told,
                events.read_error().is_some(),
                events.error().is_some(),
            )
        }
        Err(e) => (format!("{e:?}"), false, true),
    }
}

/// Any demo, maybe with another map size in its header (the map then
/// running past the end, or into the chunks) or cut anywhere, streamed
/// through any window (1 byte on: every chunk met cut first), in reads of
/// any length, maybe failing anywhere: it plays as the whole file.
#[test]
fn prop_a_demo_streamed_plays_as_the_whole_file() {
    fn prop(
        d: ArbDemo,
        map_size: Option<u32>,
        cut: Option<usize>,
        window: u8,
        step: u8,
        fail_at: Option<u16>,
    ) -> TestResult {
        if d.sha.is_none() && d.map.starts_with(SHA256_UUID.as_bytes()) {
            return TestResult::discard();
        }
        let mut cut_from = Vec::new();
        let mut bytes = encode_to_vec(&d.demo(&mut cut_from), ());
        if let Some(size) = map_size {
            bytes[136..140].copy_from_slice(&(size % 512).to_be_bytes());
        }
        if let Some(n) = cut {
            bytes.truncate(n % (bytes.len() + 1));
        }
        if !is_demo(&bytes) {
            return TestResult::discard();
        }
        let window = usize::from(window) + 1;
        let step = usize::from(step % 64) + 1;
        let fail_at = fail_at.map(|f| u64::from(f) % (bytes.len() as u64 + 1));
        match streams_as_whole(&bytes, window, step, fail_at) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    qc().tests(1_000).quickcheck(
        prop as fn(ArbDemo, Option<u32>, Option<usize>, u8, u8, Option<u16>) -> TestResult,
    );
}

/// The bench demos (a chunk cut at each refill of the window) and the
/// edge cases, streamed as `demo stats` does and through small windows.
#[test]
fn the_corpus_demos_streamed_play_as_whole_files() {
    for name in [
        "ddnet-bench/Multeasymap_bench.demo",
        "ddnet-bench/RaiNyMore2_bench.demo",
        "ddnet-20.1/B_eight_bots_dm1.demo",
        "edge/unknown_chunk_type.demo",
        "edge/truncated_mid_chunk.demo",
        "edge/tick_backwards.demo",
    ] {
        let bytes = crate::testing::corpus(&format!("demo/{name}"));
        for (window, step) in [(32 * 1024, usize::MAX), (1, 4096), (1000, 777)] {
            streams_as_whole(&bytes, window, step, None)
                .unwrap_or_else(|e| panic!("{name} ({window}, {step}): {e}"));
        }
        let streamed = Events::stream(std::io::Cursor::new(bytes.clone()), bytes.len() as u64);
        assert!(streamed.unwrap().unwrap().map().is_empty(), "{name}");
    }
}

/// However long a demo, a stream of it holds one chunk at most: a file
/// of a thousand 60 KiB chunks plays in a window of 64 KiB.
#[test]
fn a_stream_holds_one_chunk_at_most() {
    let real = crate::testing::corpus("demo/ddnet-20.1/A_join_move_leave.demo");
    let (mut demo, _) = Demo::decode(&real).unwrap();
    demo.chunks.clear();
    let mut bytes = encode_to_vec(&demo, ());
    // Data chunks of 60,000 bytes (two-byte sizes), which do not decode.
    for _ in 0..1000 {
        bytes.push(0x1f);
        bytes.extend_from_slice(&60_000u16.to_le_bytes());
        bytes.extend(std::iter::repeat_n(0xAA, 60_000));
    }
    let mut events = Events::stream(std::io::Cursor::new(bytes.clone()), bytes.len() as u64)
        .unwrap()
        .unwrap();
    let _ = events.replay();
    assert_eq!(events.chunks(), 1000);
    assert!(events.window_len() <= 3 + 0xFFFF, "{}", events.window_len());
}

#[test]
fn a_file_that_is_no_demo_is_not_streamed() {
    let gzip = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0];
    let streamed = Events::stream(std::io::Cursor::new(gzip), 8).unwrap();
    assert!(streamed.is_none());
}

/// Payloads read with one scratch, repeats among them (demos repeat many
/// byte for byte, and the scratch keeps recent ones), read as each does
/// with a new scratch: the same ints, writer, trailing bytes or error
/// (whose offset is where the repeat is), damaged ones too; and so for
/// the player's `unpack` and `check`.
#[test]
fn prop_repeated_payloads_read_as_new_ones() {
    type Case = (Vec<i32>, bool, Vec<u8>, Option<u8>);
    fn prop(pool: Vec<Case>, picks: Vec<(u8, u16)>) -> TestResult {
        if pool.is_empty() {
            return TestResult::discard();
        }
        let raws: Vec<Vec<u8>> = pool
            .iter()
            .map(|(ints, legacy, junk, cut)| {
                let flavor = if *legacy {
                    Flavor::Legacy
                } else {
                    Flavor::Ddnet
                };
                let mut raw = Vec::new();
                compress_ints(ints, flavor, &mut Vec::new(), &mut raw);
                raw.extend_from_slice(junk);
                if let Some(n) = cut {
                    raw.truncate(usize::from(*n));
                }
                raw
            })
            .collect();
        let mut shared = chunk::Scratch::default();
        for (pick, at) in picks {
            let raw = &raws[usize::from(pick) % raws.len()];
            let at = u64::from(at);
            let again = Payload::read(raw, at, Some(7), &mut shared);
            let anew = Payload::read(raw, at, Some(7), &mut chunk::Scratch::default());
            if again != anew {
                return TestResult::error(format!("{raw:02x?} at {at}: {again:?} != {anew:?}"));
            }
            // The player's two readers, on the same scratch.
            let mut new = chunk::Scratch::default();
            let again = chunk::unpack(raw, at, None, &mut shared);
            let anew = chunk::unpack(raw, at, None, &mut new);
            if again != anew || (anew.is_ok() && shared.ints != new.ints) {
                return TestResult::error(format!("unpack {raw:02x?}: {again:?} != {anew:?}"));
            }
            let again = chunk::check(raw, at, Some(7), &mut shared);
            let anew = chunk::check(raw, at, Some(7), &mut chunk::Scratch::default());
            if again != anew {
                return TestResult::error(format!("check {raw:02x?}: {again:?} != {anew:?}"));
            }
        }
        TestResult::passed()
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<Case>, Vec<(u8, u16)>) -> TestResult);
}
