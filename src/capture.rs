//! UDP datagrams from packet captures (pcap and pcapng; Ethernet, BSD
//! loopback, Linux cooked and raw IP link types), in capture order.
//!
//! File and frame parsing is done by the `pcap-file` and `etherparse`
//! crates; this module only picks out the UDP payloads and where in the
//! file each one lies.

#[cfg(feature = "capture")]
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
#[cfg(feature = "capture")]
use pcap_file::pcap::PcapParser;
#[cfg(feature = "capture")]
use pcap_file::pcapng::{Block, PcapNgParser};
#[cfg(feature = "capture")]
use pcap_file::{DataLink, PcapError};
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

/// What a capture holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Capture {
    /// `pcap` or `pcapng`.
    pub format: &'static str,
    /// Every UDP datagram, in capture order.
    pub datagrams: Vec<Datagram>,
    /// Frames that held no readable UDP datagram.
    pub skipped: Vec<Skipped>,
}

/// A capture file that cannot be read: where, what was being read, and
/// what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureError {
    /// File byte where the unreadable header, record or block starts.
    pub offset: u64,
    /// What was being read.
    pub reading: CaptureRecord,
    /// What was wrong.
    #[serde(flatten)]
    pub kind: CaptureErrorKind,
}

/// The parts of a capture file.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureRecord {
    /// The pcap file header.
    PcapHeader,
    /// A pcap packet record.
    PcapRecord,
    /// The first pcapng block (the section header).
    PcapngSectionHeader,
    /// A pcapng block.
    PcapngBlock,
}

/// What was wrong with a part of a capture file.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CaptureErrorKind {
    /// The file ends inside it.
    Truncated,
    /// A field holds a value the format does not allow.
    InvalidField {
        /// The field, as `pcap-file` names it.
        field: &'static str,
    },
    /// A text option that is not UTF-8.
    InvalidText,
    /// A packet of an interface the section does not describe.
    UnknownInterface {
        /// The interface id.
        id: u32,
    },
}

impl fmt::Display for CaptureRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureRecord::PcapHeader => "the pcap file header",
            CaptureRecord::PcapRecord => "a pcap packet record",
            CaptureRecord::PcapngSectionHeader => "the pcapng section header",
            CaptureRecord::PcapngBlock => "a pcapng block",
        })
    }
}

impl fmt::Display for CaptureErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureErrorKind::Truncated => f.write_str("the file ends inside it"),
            CaptureErrorKind::InvalidField { field } => write!(f, "invalid field: {field}"),
            CaptureErrorKind::InvalidText => f.write_str("a text option that is not UTF-8"),
            CaptureErrorKind::UnknownInterface { id } => {
                write!(
                    f,
                    "a packet of interface {id}, which the section does not describe"
                )
            }
        }
    }
}

/// One line: "at byte N (0xN): reading WHAT: WHY".
impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {} (0x{:x}): reading {}: {}",
            self.offset, self.offset, self.reading, self.kind
        )
    }
}

impl std::error::Error for CaptureError {}

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
/// ```
/// let bytes = std::fs::read("corpus/packet/ddnet-20.1/A_join_move_leave.pcap")?;
/// let capture = teeoracle::capture::read(&bytes)?;
/// assert_eq!((capture.format, capture.datagrams.len()), ("pcap", 1158));
/// let first = &capture.datagrams[0];
/// assert_eq!(first.frame, 1);
/// // Where its UDP payload lies in the file.
/// let at = first.offset as usize;
/// assert_eq!(&bytes[at..at + first.payload.len()], &first.payload[..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "capture")]
pub fn read(bytes: &[u8]) -> Result<Capture, CaptureError> {
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
    let error = |rest: &[u8], reading, e| CaptureError {
        offset: (bytes.len() - rest.len()) as u64,
        reading,
        kind: error_kind(e),
    };
    if bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        capture.format = "pcapng";
        let (mut rest, mut parser) = PcapNgParser::new(bytes)
            .map_err(|e| error(bytes, CaptureRecord::PcapngSectionHeader, e))?;
        while !rest.is_empty() {
            let (next, block) = parser
                .next_block(rest)
                .map_err(|e| error(rest, CaptureRecord::PcapngBlock, e))?;
            // The parser keeps the current section's interfaces.
            let link = |id: u32| {
                parser
                    .interfaces()
                    .get(id as usize)
                    .map_or(DataLink::ETHERNET, |i| i.linktype)
            };
            match block {
                Block::EnhancedPacket(p) => {
                    push(&mut capture, link(p.interface_id), p.timestamp, &p.data)
                }
                Block::SimplePacket(p) => push(&mut capture, link(0), Duration::ZERO, &p.data),
                _ => {}
            }
            rest = next;
        }
    } else {
        capture.format = "pcap";
        let (mut rest, parser) =
            PcapParser::new(bytes).map_err(|e| error(bytes, CaptureRecord::PcapHeader, e))?;
        let link = parser.header().datalink;
        while !rest.is_empty() {
            let (next, packet) = parser
                .next_packet(rest)
                .map_err(|e| error(rest, CaptureRecord::PcapRecord, e))?;
            push(&mut capture, link, packet.timestamp, &packet.data);
            rest = next;
        }
    }
    Ok(capture)
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

#[cfg(feature = "capture")]
fn error_kind(e: PcapError) -> CaptureErrorKind {
    match e {
        PcapError::IncompleteBuffer | PcapError::IoError(_) => CaptureErrorKind::Truncated,
        PcapError::InvalidField(field) => CaptureErrorKind::InvalidField { field },
        PcapError::Utf8Error(_) | PcapError::FromUtf8Error(_) => CaptureErrorKind::InvalidText,
        PcapError::InvalidInterfaceId(id) => CaptureErrorKind::UnknownInterface { id },
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
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("corpus/packet/ddnet-20.1/A_join_move_leave.pcap"),
        )
        .unwrap()
    }

    #[test]
    fn a_cut_record_names_its_file_byte() {
        let bytes = corpus_a();
        let whole = read(&bytes).unwrap();
        // Cut the file 3 bytes into the last datagram's payload.
        let last = whole.datagrams.last().unwrap();
        let cut = last.offset as usize + 3;
        let e = read(&bytes[..cut]).unwrap_err();
        assert_eq!(e.reading, CaptureRecord::PcapRecord);
        assert_eq!(e.kind, CaptureErrorKind::Truncated);
        // The record header (16 bytes) and the frame headers precede it.
        assert!(
            e.offset < last.offset && last.offset - e.offset < 100,
            "{e}"
        );
        assert!(e.to_string().starts_with(&format!("at byte {} ", e.offset)));
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["kind"], "truncated");
        assert_eq!(json["reading"], "pcap_record");
    }

    #[test]
    fn a_bad_header_is_a_structured_error() {
        let mut bytes = corpus_a();
        bytes.truncate(10);
        let e = read(&bytes).unwrap_err();
        assert_eq!(
            (e.offset, e.reading, e.kind),
            (0, CaptureRecord::PcapHeader, CaptureErrorKind::Truncated)
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
