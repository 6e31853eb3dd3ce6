//! UDP datagrams from packet captures (pcap and pcapng; Ethernet, BSD
//! loopback, Linux cooked and raw IP link types), in capture order.
//!
//! File and frame parsing is done by the `pcap-file` and `etherparse`
//! crates; this module picks out the UDP payloads and where in the file
//! each one lies, and where a damaged file stops being readable: every
//! frame before a record or block that cannot be read is kept, then the
//! record's first byte and what is wrong with it (a length no writer makes,
//! or a file that ends inside it).

use crate::codec::DecodeError;
#[cfg(feature = "capture")]
use crate::codec::ErrorKind;
#[cfg(feature = "capture")]
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
#[cfg(feature = "capture")]
use pcap_file::pcap::{PcapParser, RawPcapPacket};
#[cfg(feature = "capture")]
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock as Interface, InterfaceDescriptionOption,
};
#[cfg(feature = "capture")]
use pcap_file::pcapng::{Block, PcapNgParser};
#[cfg(feature = "capture")]
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use serde::Serialize;
use std::fmt;
#[cfg(feature = "capture")]
use std::net::IpAddr;
use std::net::SocketAddr;
use std::time::Duration;

/// One UDP datagram of a capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Datagram {
    /// Frame number in the capture, from 1 (as Wireshark counts).
    pub frame: usize,
    /// File byte where the UDP payload starts (0 for datagrams not read
    /// from a file).
    pub offset: u64,
    /// Capture timestamp, from the file.
    pub time: Duration,
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
    /// The UDP payload.
    #[serde(serialize_with = "crate::packet::hex_bytes")]
    pub payload: Vec<u8>,
}

/// A frame that carried no UDP datagram we can read, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Frame number, from 1.
    pub frame: usize,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// Why a frame was skipped.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkipReason {
    /// A link type this reader does not take apart.
    UnsupportedLink {
        /// The pcap `LINKTYPE_*` number.
        link: u32,
    },
    /// The link or IP headers do not parse.
    UnreadableFrame,
    /// Not an IPv4 or IPv6 packet (ARP, ...).
    NotIp,
    /// An IP fragment: fragments are not reassembled.
    IpFragment,
    /// An IP packet that is not UDP.
    NotUdp,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::UnsupportedLink { link } => write!(f, "unsupported link type {link}"),
            SkipReason::UnreadableFrame => f.write_str("not a readable IP frame"),
            SkipReason::NotIp => f.write_str("not an IP packet"),
            SkipReason::IpFragment => f.write_str("IP fragment (not reassembled)"),
            SkipReason::NotUdp => f.write_str("not UDP"),
        }
    }
}

/// What a capture holds: every frame up to the end of the file, or up to
/// a record or block that cannot be read, and then why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Capture {
    /// `pcap` or `pcapng`.
    pub format: &'static str,
    /// Every UDP datagram, in capture order.
    pub datagrams: Vec<Datagram>,
    /// Frames that held no readable UDP datagram.
    pub skipped: Vec<Skipped>,
    /// Why reading stopped before the end of the file: `offset` is the
    /// first byte of the pcap record or pcapng block that cannot be read.
    /// Every frame before it is in `datagrams` or `skipped`. A file that
    /// ends inside a record (a writer killed mid-write) stops with
    /// `unexpected_eof`: see [`Capture::truncated`].
    pub error: Option<DecodeError>,
}

impl Capture {
    /// Frames read (with a UDP datagram or skipped).
    pub fn frames(&self) -> usize {
        self.datagrams.len() + self.skipped.len()
    }

    /// True if reading stopped only because the file ends inside its last
    /// record or block, as a capture whose writer was killed ends.
    pub fn truncated(&self) -> bool {
        self.error.as_ref().is_some_and(DecodeError::is_eof)
    }

    /// Where and why reading stopped, in a line ("the file ends inside the
    /// record after frame 500: at byte N (0xN): ..."), if it stopped early.
    pub fn stop_note(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        let what = if self.truncated() {
            "the file ends inside"
        } else {
            "cannot read"
        };
        let part = match self.format {
            "pcapng" => "block",
            _ => "record",
        };
        Some(format!(
            "{what} the {part} after frame {}: {e}",
            self.frames()
        ))
    }
}

/// The largest pcapng block libpcap reads (16 MiB): a longer length that
/// runs past the end of the file is damage, not a cut.
#[cfg(feature = "capture")]
const MAX_BLOCK_LEN: u32 = 16 << 20;

/// pcapng's section header block type, which also says the section's byte
/// order.
#[cfg(feature = "capture")]
const SECTION_HEADER: u32 = 0x0a0d_0d0a;

/// True if `bytes` start like a pcap or pcapng file.
pub fn is_capture(bytes: &[u8]) -> bool {
    matches!(
        bytes.get(..4),
        Some(
            [0xd4, 0xc3, 0xb2, 0xa1]
                | [0xa1, 0xb2, 0xc3, 0xd4]
                | [0x4d, 0x3c, 0xb2, 0xa1]
                | [0xa1, 0xb2, 0x3c, 0x4d]
                | [0x0a, 0x0d, 0x0d, 0x0a]
        )
    )
}

/// Reads every frame of a pcap or pcapng file held in memory.
///
/// Fails only when the file header (pcap) or first section header block
/// (pcapng) cannot be read; a record or block after it that cannot be
/// read ends the capture there, with [`Capture::error`] saying why.
///
/// ```
/// let bytes = std::fs::read("corpus/packet/ddnet-20.1/A_join_move_leave.pcap")?;
/// let capture = teeoracle::capture::read(&bytes)?;
/// assert_eq!((capture.format, capture.datagrams.len()), ("pcap", 1158));
/// assert_eq!(capture.error, None);
/// let first = &capture.datagrams[0];
/// assert_eq!(first.frame, 1);
/// // Where its UDP payload lies in the file.
/// let at = first.offset as usize;
/// assert_eq!(&bytes[at..at + first.payload.len()], &first.payload[..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "capture")]
pub fn read(bytes: &[u8]) -> Result<Capture, DecodeError> {
    let mut capture = Capture::default();
    let mut frame = 0;
    let mut push = |capture: &mut Capture, link: DataLink, time: Duration, data: &[u8]| {
        frame += 1;
        match udp(link, data) {
            Ok((src, dst, payload)) => capture.datagrams.push(Datagram {
                frame,
                offset: offset_in(bytes, payload),
                time,
                src,
                dst,
                payload: payload.to_vec(),
            }),
            Err(reason) => capture.skipped.push(Skipped { frame, reason }),
        }
    };
    let error = |rest: &[u8], (context, kind)| {
        DecodeError::new((bytes.len() - rest.len()) as u64, context, kind)
    };
    if bytes.starts_with(&SECTION_HEADER.to_be_bytes()) {
        capture.format = "pcapng";
        let (mut rest, mut parser) = PcapNgParser::new(bytes).map_err(|e| {
            let (context, kind) = block_fault(bytes, Endianness::Big, e);
            let context = match context {
                "pcapng.block.length" => "pcapng.section_header.length",
                _ => "pcapng.section_header",
            };
            error(bytes, (context, kind))
        })?;
        while !rest.is_empty() {
            let (next, block) = match parser.next_block(rest) {
                Ok(read) => read,
                Err(e) => {
                    let fault = block_fault(rest, parser.section().endianness, e);
                    capture.error = Some(error(rest, fault));
                    break;
                }
            };
            // The parser keeps the current section's interfaces.
            let interface = |id: u32| parser.interfaces().get(id as usize);
            let link = |i: Option<&Interface>| i.map_or(DataLink::ETHERNET, |i| i.linktype);
            match block {
                Block::EnhancedPacket(p) => {
                    let i = interface(p.interface_id);
                    push(&mut capture, link(i), pcapng_time(p.timestamp, i), &p.data)
                }
                Block::SimplePacket(p) => {
                    push(&mut capture, link(interface(0)), Duration::ZERO, &p.data)
                }
                _ => {}
            }
            rest = next;
        }
    } else {
        capture.format = "pcap";
        let (mut rest, parser) = PcapParser::new(bytes).map_err(|e| {
            let kind = match e {
                PcapError::IncompleteBuffer => ErrorKind::UnexpectedEof {
                    needed: 24,
                    available: bytes.len(),
                },
                PcapError::InvalidField("PcapHeader: wrong magic number") => ErrorKind::BadMagic,
                e => crate_fault(e),
            };
            error(bytes, ("pcap.header", kind))
        })?;
        let link = parser.header().datalink;
        while !rest.is_empty() {
            match pcap_record(&parser, rest) {
                Ok((next, time, raw)) => {
                    push(&mut capture, link, time, &raw.data);
                    rest = next;
                }
                Err(fault) => {
                    capture.error = Some(error(rest, fault));
                    break;
                }
            }
        }
    }
    Ok(capture)
}

/// The time of a pcapng enhanced packet. `pcap-file` hands its 64-bit
/// timestamp over as nanoseconds; its unit is the interface's
/// `if_tsresol` (`10^-n` s, or `2^-n` s with the top bit set; by default
/// microseconds).
#[cfg(feature = "capture")]
fn pcapng_time(raw: Duration, interface: Option<&Interface>) -> Duration {
    let resolution = interface
        .and_then(|i| {
            i.options.iter().find_map(|o| match o {
                InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
                _ => None,
            })
        })
        .unwrap_or(6);
    let exponent = u32::from(resolution & 0x7f);
    let per_second = match resolution & 0x80 {
        0 => 10u128.checked_pow(exponent),
        _ => 2u128.checked_pow(exponent),
    };
    // Exact: the crate made the Duration from the u64 ticks.
    let ticks = raw.as_nanos();
    match per_second {
        Some(n) => Duration::new((ticks / n) as u64, ((ticks % n) * 1_000_000_000 / n) as u32),
        // Units too small for a u128: under a nanosecond since 1970.
        None => Duration::ZERO,
    }
}

/// The pcap record at the start of `rest`: what follows it, its timestamp
/// and the record; or the context and kind of its fault. `pcap-file`
/// frames it; its fields are checked here: only a captured length over the
/// file's snapshot length is refused (an original length over it is what
/// `tcpdump -s` writes, and libpcap does not check timestamps).
#[cfg(feature = "capture")]
fn pcap_record<'a>(
    parser: &PcapParser,
    rest: &'a [u8],
) -> Result<(&'a [u8], Duration, RawPcapPacket<'a>), (&'static str, ErrorKind)> {
    let header = parser.header();
    let snaplen = header.snaplen;
    let over = |len: u32| {
        let kind = ErrorKind::OverSnapshotLength { len, snaplen };
        (len > snaplen).then_some(("pcap.record.captured_len", kind))
    };
    match parser.next_raw_packet(rest) {
        Ok((next, raw)) => {
            if let Some(fault) = over(raw.incl_len) {
                return Err(fault);
            }
            let nanos = match header.ts_resolution {
                TsResolution::MicroSecond => u64::from(raw.ts_frac) * 1000,
                TsResolution::NanoSecond => u64::from(raw.ts_frac),
            };
            let time = Duration::from_secs(raw.ts_sec.into()) + Duration::from_nanos(nanos);
            Ok((next, time, raw))
        }
        // The framing fails only where the file ends inside the record.
        Err(_) => {
            let len = u32_at(rest, 8, header.endianness);
            let cut = ErrorKind::UnexpectedEof {
                needed: 16 + len.map_or(0, |len| len as usize),
                available: rest.len(),
            };
            Err(len.and_then(over).unwrap_or(("pcap.record", cut)))
        }
    }
}

/// The context and kind of the fault of the pcapng block at the start of
/// `rest`, which `pcap-file` refused with `e`. Its framing is checked here
/// (the crate's errors do not say which length is wrong, nor whether the
/// file merely ends inside the block); a well-framed block gets the
/// crate's word.
#[cfg(feature = "capture")]
fn block_fault(rest: &[u8], endianness: Endianness, e: PcapError) -> (&'static str, ErrorKind) {
    // A section header block says its own byte order after its length.
    let endianness = match (u32_at(rest, 0, Endianness::Big), rest.get(8..12)) {
        (Some(SECTION_HEADER), Some([0x1a, 0x2b, 0x3c, 0x4d])) => Endianness::Big,
        (Some(SECTION_HEADER), Some([0x4d, 0x3c, 0x2b, 0x1a])) => Endianness::Little,
        _ => endianness,
    };
    let cut = |needed| {
        let available = rest.len();
        (
            "pcapng.block",
            ErrorKind::UnexpectedEof { needed, available },
        )
    };
    let Some(len) = u32_at(rest, 4, endianness) else {
        return cut(12);
    };
    let kind = if len % 4 != 0 || len < 12 {
        ErrorKind::BadBlockLength { len }
    } else if len as usize > rest.len() {
        if len <= MAX_BLOCK_LEN {
            return cut(len as usize);
        }
        ErrorKind::LengthTooLarge {
            len: len.into(),
            max: MAX_BLOCK_LEN as usize,
        }
    } else {
        match u32_at(rest, len as usize - 4, endianness) {
            Some(end) if end != len => ErrorKind::BlockLengthsDiffer { start: len, end },
            _ => return ("pcapng.block", crate_fault(e)),
        }
    };
    ("pcapng.block.length", kind)
}

/// A `pcap-file` refusal of contents whose framing is sound.
#[cfg(feature = "capture")]
fn crate_fault(e: PcapError) -> ErrorKind {
    let field = match e {
        PcapError::InvalidField(field) => field,
        PcapError::InvalidInterfaceId(id) => return ErrorKind::UnknownInterface { id },
        PcapError::Utf8Error(_) | PcapError::FromUtf8Error(_) => "a text option that is not UTF-8",
        PcapError::IncompleteBuffer | PcapError::IoError(_) => {
            "a field or option runs past the end of its block"
        }
    };
    ErrorKind::InvalidCaptureField { field }
}

/// The u32 at `at` in `bytes`, if it is all there.
#[cfg(feature = "capture")]
fn u32_at(bytes: &[u8], at: usize, endianness: Endianness) -> Option<u32> {
    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(match endianness {
        Endianness::Big => u32::from_be_bytes(word),
        Endianness::Little => u32::from_le_bytes(word),
    })
}

/// Where `inner`, a slice of `outer`, starts in it (0 if it is not one:
/// the parsers borrow frames from the file, so it always is).
#[cfg(feature = "capture")]
fn offset_in(outer: &[u8], inner: &[u8]) -> u64 {
    let (start, at) = (outer.as_ptr() as usize, inner.as_ptr() as usize);
    if at >= start && at + inner.len() <= start + outer.len() {
        (at - start) as u64
    } else {
        0
    }
}

/// The UDP addresses and payload of one frame.
#[cfg(feature = "capture")]
fn udp(link: DataLink, data: &[u8]) -> Result<(SocketAddr, SocketAddr, &[u8]), SkipReason> {
    let sliced = match link {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data),
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data),
        // BSD loopback: a 4-byte address family, then the IP packet.
        DataLink::NULL | DataLink::LOOP => SlicedPacket::from_ip(data.get(4..).unwrap_or(&[])),
        other => {
            return Err(SkipReason::UnsupportedLink {
                link: u32::from(other),
            });
        }
    }
    .map_err(|_| SkipReason::UnreadableFrame)?;
    let (src_ip, dst_ip, fragment): (IpAddr, IpAddr, bool) = match &sliced.net {
        Some(NetSlice::Ipv4(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
            ip.payload().fragmented,
        ),
        Some(NetSlice::Ipv6(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
            ip.payload().fragmented,
        ),
        _ => return Err(SkipReason::NotIp),
    };
    if fragment {
        return Err(SkipReason::IpFragment);
    }
    match sliced.transport {
        Some(TransportSlice::Udp(udp)) => Ok((
            SocketAddr::new(src_ip, udp.source_port()),
            SocketAddr::new(dst_ip, udp.destination_port()),
            udp.payload(),
        )),
        _ => Err(SkipReason::NotUdp),
    }
}

#[cfg(all(test, feature = "capture"))]
mod tests {
    use super::*;

    fn corpus_a() -> Vec<u8> {
        crate::testing::corpus("packet/ddnet-20.1/A_join_move_leave.pcap")
    }

    fn corpus(name: &str) -> Vec<u8> {
        crate::testing::corpus(&format!("packet/{name}"))
    }

    /// `bytes` read: its error's offset, context and kind, and the frames
    /// kept before it.
    fn stop(bytes: &[u8]) -> (u64, &'static str, ErrorKind, usize) {
        let capture = read(bytes).unwrap();
        let e = capture.error.clone().expect("a capture that stops early");
        (e.offset, e.context, e.kind.clone(), capture.frames())
    }

    /// File byte of pcap record `n` (from 1) of `bytes`.
    fn pcap_record_at(bytes: &[u8], n: usize) -> usize {
        let mut at = 24;
        for _ in 1..n {
            at += 16 + u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        }
        at
    }

    #[test]
    fn a_cut_record_keeps_every_frame_before_it() {
        let bytes = corpus_a();
        let whole = read(&bytes).unwrap();
        // Cut the file 3 bytes into the last datagram's payload.
        let last = whole.datagrams.last().unwrap();
        let cut = read(&bytes[..last.offset as usize + 3]).unwrap();
        assert_eq!(
            cut.datagrams[..],
            whole.datagrams[..whole.datagrams.len() - 1]
        );
        assert!(cut.truncated(), "{:?}", cut.error);
        let e = cut.error.as_ref().unwrap();
        let at = pcap_record_at(&bytes, whole.frames());
        let (len, left) = (16 + last.payload.len() + 42, last.offset as usize + 3 - at);
        assert_eq!(
            (e.offset, e.context, &e.kind),
            (
                at as u64,
                "pcap.record",
                &ErrorKind::UnexpectedEof {
                    needed: len,
                    available: left
                }
            )
        );
        assert_eq!(
            cut.stop_note().unwrap(),
            format!(
                "the file ends inside the record after frame 1157: at byte {at} (0x{at:x}): \
                 reading pcap.record: unexpected end of input: expected {len} more byte(s), {left} available"
            )
        );
        // Cut inside the record header: it needs 16 bytes, or more once its
        // length is there.
        assert_eq!(
            stop(&bytes[..at + 5]).2,
            ErrorKind::UnexpectedEof {
                needed: 16,
                available: 5
            }
        );
        assert_eq!(
            stop(&bytes[..at + 12]).2,
            ErrorKind::UnexpectedEof {
                needed: len,
                available: 12
            }
        );
    }

    #[test]
    fn a_record_over_the_snapshot_length_fails_there_with_the_frames_before_it() {
        let bytes = corpus("malformed/record_501_bad_length.pcap");
        let at = pcap_record_at(&bytes, 501);
        let kind = ErrorKind::OverSnapshotLength {
            len: u32::MAX,
            snaplen: 262144,
        };
        assert_eq!(
            stop(&bytes),
            (at as u64, "pcap.record.captured_len", kind.clone(), 500)
        );
        // Whole or cut, a record longer than any record can be is damage.
        let capture = read(&bytes[..at + 20]).unwrap();
        assert!(!capture.truncated(), "{:?}", capture.error);
        assert_eq!(capture.error.unwrap().kind, kind);
        // An original length over the snapshot length is what `tcpdump -s`
        // writes: read.
        let mut short = corpus_a();
        let at = pcap_record_at(&short, 2);
        short[at + 12..at + 16].copy_from_slice(&300_000u32.to_le_bytes());
        assert_eq!(read(&short).unwrap(), read(&corpus_a()).unwrap());
    }

    #[test]
    fn pcapng_block_faults_name_the_length() {
        let bytes = corpus("malformed/block_501_bad_length.pcapng");
        let (at, context, kind, frames) = stop(&bytes);
        assert_eq!(
            (context, kind, frames),
            (
                "pcapng.block.length",
                ErrorKind::BadBlockLength { len: 106 },
                500
            )
        );
        // The same block with its length mended, then spoiled otherwise.
        let at = at as usize;
        let set = |len: u32| {
            let mut b = bytes.clone();
            b[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
            b
        };
        let mended = read(&set(104)).unwrap();
        assert_eq!((&mended.error, mended.frames()), (&None, 510));
        // 4 bytes longer: where its end would be lies the next block's type.
        assert_eq!(
            stop(&set(108)).2,
            ErrorKind::BlockLengthsDiffer { start: 108, end: 6 }
        );
        assert_eq!(stop(&set(8)).2, ErrorKind::BadBlockLength { len: 8 });
        assert_eq!(
            stop(&set(0x7fff_fff0)).2,
            ErrorKind::LengthTooLarge {
                len: 0x7fff_fff0,
                max: 16 << 20
            }
        );
        // Within libpcap's limit, a length past the end of the file is a cut.
        let cut = read(&set(1 << 20)).unwrap();
        assert!(cut.truncated(), "{:?}", cut.error);
        // A well-framed block whose contents pcap-file refuses: a captured
        // length past the end of its block.
        let mut b = set(104);
        b[at + 20..at + 24].copy_from_slice(&200u32.to_le_bytes());
        let field = "EnhancedPacketBlock: captured_len + padding > block length";
        assert_eq!(
            stop(&b),
            (
                at as u64,
                "pcapng.block",
                ErrorKind::InvalidCaptureField { field },
                500
            )
        );
    }

    #[test]
    fn a_cut_pcapng_block_is_a_truncation() {
        let bytes = corpus("edge/cut_in_block_501.pcapng");
        let capture = read(&bytes).unwrap();
        assert!(capture.truncated(), "{:?}", capture.error);
        let e = capture.error.as_ref().unwrap();
        assert_eq!(
            (e.offset as usize, e.context, &e.kind, capture.frames()),
            (
                bytes.len() - 40,
                "pcapng.block",
                &ErrorKind::UnexpectedEof {
                    needed: 104,
                    available: 40
                },
                500
            )
        );
        // The pcapng prefix holds the same frames as the pcap one.
        let pcap = read(&corpus("edge/cut_in_record_501.pcap")).unwrap();
        let payloads = |c: &Capture| -> Vec<(usize, Vec<u8>, Duration)> {
            c.datagrams
                .iter()
                .map(|d| (d.frame, d.payload.clone(), d.time))
                .collect()
        };
        assert_eq!(payloads(&capture), payloads(&pcap));
    }

    #[test]
    fn pcapng_times_follow_the_interface_resolution() {
        let ticks = Duration::from_nanos(1_795_314_494_781_141);
        let with = |r: Option<u8>| {
            let options = r
                .map(InterfaceDescriptionOption::IfTsResol)
                .into_iter()
                .collect();
            pcapng_time(
                ticks,
                Some(&Interface {
                    linktype: DataLink::ETHERNET,
                    snaplen: 0,
                    options,
                }),
            )
        };
        // Microseconds by default; the corpus files say nanoseconds.
        assert_eq!(with(None), Duration::new(1_795_314_494, 781_141_000));
        assert_eq!(with(Some(9)), ticks);
        assert_eq!(pcapng_time(ticks, None), with(Some(6)));
        // 2^-10 s: 1_795_314_494_781_141 / 1024 s.
        assert_eq!(
            with(Some(0x8a)),
            Duration::new(1_753_236_811_309, 708_007_812)
        );
        assert_eq!(with(Some(100)), Duration::ZERO);
    }

    #[test]
    fn a_bad_header_is_an_error() {
        let mut bytes = corpus_a();
        bytes.truncate(10);
        let e = read(&bytes).unwrap_err();
        assert_eq!(
            (e.offset, e.context, &e.kind),
            (
                0,
                "pcap.header",
                &ErrorKind::UnexpectedEof {
                    needed: 24,
                    available: 10
                }
            )
        );
        let pcapng = corpus("edge/cut_in_block_501.pcapng");
        let e = read(&pcapng[..20]).unwrap_err();
        assert_eq!(
            (e.offset, e.context, &e.kind),
            (
                0,
                "pcapng.section_header",
                &ErrorKind::UnexpectedEof {
                    needed: 28,
                    available: 20
                }
            )
        );
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            (json["kind"].as_str(), json["needed"].as_u64()),
            (Some("unexpected_eof"), Some(28))
        );
    }

    #[test]
    fn frames_that_are_not_udp_are_skipped_with_a_reason() {
        // Raw IPv4 link type: an ICMP packet, then a fragment of a UDP one.
        let icmp = hex::decode(
            "4500001c0000000040010000 7f000001 7f000001 0800f7ff00000000".replace(' ', ""),
        )
        .unwrap();
        let frag = hex::decode(
            "4500001c0000200040110000 7f000001 7f000001 0001000200080000".replace(' ', ""),
        )
        .unwrap();
        assert_eq!(udp(DataLink::RAW, &icmp), Err(SkipReason::NotUdp));
        assert_eq!(udp(DataLink::RAW, &frag), Err(SkipReason::IpFragment));
        assert_eq!(
            udp(DataLink::RAW, &[0x45]),
            Err(SkipReason::UnreadableFrame)
        );
        assert_eq!(
            udp(DataLink::from(147), &icmp),
            Err(SkipReason::UnsupportedLink { link: 147 })
        );
    }
}
