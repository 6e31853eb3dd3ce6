//! The bots' traffic as pcapng: IPv4/UDP datagrams (link type RAW),
//! written as they pass, a whole block at a time, so that however a run
//! ends the file ends on a block boundary once [`Pcapng::finish`] flushed
//! it. The writing is a thread's: a write the kernel holds up (a loaded
//! machine's disk) must not hold up the bots, whose datagrams are due on
//! their ticks.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::SystemTime;

/// Datagrams waiting for the writer, at most: beyond, the bots wait for
/// the disk (a 64-client run passes about 7,000 a second).
const QUEUED: usize = 1 << 16;

pub struct Pcapng {
    queue: Option<SyncSender<(Vec<u8>, SystemTime)>>,
    writer: Option<JoinHandle<io::Result<()>>>,
}

fn io_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("pcapng: {e}"))
}

type Writer = pcap_file::pcapng::PcapNgWriter<io::BufWriter<std::fs::File>>;

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
        let (queue, queued) = sync_channel(QUEUED);
        let writer = std::thread::Builder::new()
            .name("pcapng".into())
            .spawn(move || write_all(writer, queued))?;
        Ok(Pcapng {
            queue: Some(queue),
            writer: Some(writer),
        })
    }

    /// A datagram from `from` to `to`, at `at`.
    pub fn packet(
        &mut self,
        from: SocketAddr,
        to: SocketAddr,
        payload: &[u8],
        at: SystemTime,
    ) -> io::Result<()> {
        let (SocketAddr::V4(from), SocketAddr::V4(to)) = (from, to) else {
            return Ok(());
        };
        let builder = etherparse::PacketBuilder::ipv4(from.ip().octets(), to.ip().octets(), 64)
            .udp(from.port(), to.port());
        let mut data = Vec::with_capacity(builder.size(payload.len()));
        builder.write(&mut data, payload).map_err(io_error)?;
        let sent = self.queue.as_ref().map(|q| q.send((data, at)));
        match sent {
            Some(Ok(())) => Ok(()),
            // The writer stopped: its error is the one to give.
            _ => self.finish().and(Err(io_error("the writer stopped"))),
        }
    }

    /// Writes what is queued and flushes it (whole blocks only).
    pub fn finish(&mut self) -> io::Result<()> {
        self.queue = None;
        match self.writer.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(written)) => written,
            Some(Err(_)) => Err(io_error("the writer panicked")),
        }
    }
}

/// The writer thread: each datagram as an enhanced packet block, until
/// the queue closes; then the flush.
fn write_all(mut writer: Writer, queued: Receiver<(Vec<u8>, SystemTime)>) -> io::Result<()> {
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    for (data, at) in queued {
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
        writer.write_pcapng_block(block).map_err(io_error)?;
    }
    writer.get_mut().flush()
}

/// A run that ends otherwise still leaves whole blocks.
impl Drop for Pcapng {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
