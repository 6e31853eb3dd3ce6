//! The bots' traffic as pcapng: IPv4/UDP datagrams (link type RAW),
//! written as they pass, a whole block at a time, so that however a run
//! ends the file ends on a block boundary once [`Pcapng::finish`] flushed
//! it.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::time::SystemTime;

pub struct Pcapng {
    writer: pcap_file::pcapng::PcapNgWriter<io::BufWriter<std::fs::File>>,
}

fn io_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("pcapng: {e}"))
}

impl Pcapng {
    pub fn create(path: &Path) -> io::Result<Pcapng> {
        use pcap_file::pcapng::blocks::interface_description::{
            InterfaceDescriptionBlock, InterfaceDescriptionOption,
        };
        let file = io::BufWriter::new(std::fs::File::create(path)?);
        let mut writer = pcap_file::pcapng::PcapNgWriter::new(file).map_err(io_error)?;
        let idb = InterfaceDescriptionBlock {
            linktype: pcap_file::DataLink::RAW,
            snaplen: 0,
            // pcap-file writes timestamps in nanoseconds; the default
            // resolution is microseconds.
            options: vec![InterfaceDescriptionOption::IfTsResol(9)],
        };
        writer.write_pcapng_block(idb).map_err(io_error)?;
        Ok(Pcapng { writer })
    }

    /// A datagram from `from` to `to`, at `at`.
    pub fn packet(
        &mut self,
        from: SocketAddr,
        to: SocketAddr,
        payload: &[u8],
        at: SystemTime,
    ) -> io::Result<()> {
        use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
        let (SocketAddr::V4(from), SocketAddr::V4(to)) = (from, to) else {
            return Ok(());
        };
        let builder = etherparse::PacketBuilder::ipv4(from.ip().octets(), to.ip().octets(), 64)
            .udp(from.port(), to.port());
        let mut data = Vec::with_capacity(builder.size(payload.len()));
        builder.write(&mut data, payload).map_err(io_error)?;
        let timestamp = at
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let block = EnhancedPacketBlock {
            interface_id: 0,
            timestamp,
            original_len: data.len() as u32,
            data: data.into(),
            options: Vec::new(),
        };
        self.writer.write_pcapng_block(block).map_err(io_error)?;
        Ok(())
    }

    /// Flushes what was written (whole blocks only).
    pub fn finish(&mut self) -> io::Result<()> {
        self.writer.get_mut().flush()
    }
}
