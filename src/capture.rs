//! UDP datagrams from packet captures (pcap and pcapng; Ethernet, BSD
//! loopback, Linux cooked and raw IP link types), in capture order.
//!
//! File and frame parsing is done by the `pcap-file` and `etherparse`
//! crates; this module only picks out the UDP payloads.

#[cfg(feature = "capture")]
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
#[cfg(feature = "capture")]
use pcap_file::DataLink;
#[cfg(feature = "capture")]
use pcap_file::pcap::PcapReader;
#[cfg(feature = "capture")]
use pcap_file::pcapng::{Block, PcapNgReader};
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
    /// Capture timestamp, from the file.
    pub time: Duration,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    #[serde(serialize_with = "crate::packet::hex_bytes")]
    pub payload: Vec<u8>,
}

/// A frame that carried no UDP datagram we can read, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub frame: usize,
    pub reason: String,
}

/// What a capture holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Capture {
    /// `pcap` or `pcapng`.
    pub format: &'static str,
    pub datagrams: Vec<Datagram>,
    pub skipped: Vec<Skipped>,
}

/// A capture file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureError(pub String);

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
#[cfg(feature = "capture")]
pub fn read(bytes: &[u8]) -> Result<Capture, CaptureError> {
    let mut capture = Capture::default();
    let mut frame = 0;
    let mut push = |capture: &mut Capture, link: DataLink, time: Duration, data: &[u8]| {
        frame += 1;
        match udp(link, data) {
            Ok((src, dst, payload)) => capture.datagrams.push(Datagram {
                frame,
                time,
                src,
                dst,
                payload: payload.to_vec(),
            }),
            Err(reason) => capture.skipped.push(Skipped { frame, reason }),
        }
    };
    if bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        capture.format = "pcapng";
        let mut reader =
            PcapNgReader::new(bytes).map_err(|e| CaptureError(format!("pcapng: {e}")))?;
        // Link types of the current section's interfaces, by interface id.
        let mut links: Vec<DataLink> = Vec::new();
        while let Some(block) = reader.next_block() {
            let block = block.map_err(|e| CaptureError(format!("pcapng block: {e}")))?;
            let link = |id: u32| {
                links
                    .get(id as usize)
                    .copied()
                    .unwrap_or(DataLink::ETHERNET)
            };
            match block {
                Block::SectionHeader(_) => links.clear(),
                Block::InterfaceDescription(i) => links.push(i.linktype),
                Block::EnhancedPacket(p) => {
                    push(&mut capture, link(p.interface_id), p.timestamp, &p.data)
                }
                Block::SimplePacket(p) => push(&mut capture, link(0), Duration::ZERO, &p.data),
                _ => {}
            }
        }
    } else {
        capture.format = "pcap";
        let mut reader = PcapReader::new(bytes).map_err(|e| CaptureError(format!("pcap: {e}")))?;
        let link = reader.header().datalink;
        while let Some(packet) = reader.next_packet() {
            let packet = packet.map_err(|e| CaptureError(format!("pcap packet: {e}")))?;
            push(&mut capture, link, packet.timestamp, &packet.data);
        }
    }
    Ok(capture)
}

/// The UDP addresses and payload of one frame.
#[cfg(feature = "capture")]
fn udp(link: DataLink, data: &[u8]) -> Result<(SocketAddr, SocketAddr, &[u8]), String> {
    let sliced = match link {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data),
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data),
        // BSD loopback: a 4-byte address family, then the IP packet.
        DataLink::NULL | DataLink::LOOP => SlicedPacket::from_ip(data.get(4..).unwrap_or(&[])),
        other => return Err(format!("unsupported link type {other:?}")),
    }
    .map_err(|e| format!("not a readable IP frame: {e}"))?;
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
        _ => return Err("not an IP packet".into()),
    };
    if fragment {
        return Err("IP fragment (not reassembled)".into());
    }
    match sliced.transport {
        Some(TransportSlice::Udp(udp)) => Ok((
            SocketAddr::new(src_ip, udp.source_port()),
            SocketAddr::new(dst_ip, udp.destination_port()),
            udp.payload(),
        )),
        _ => Err("not UDP".into()),
    }
}
