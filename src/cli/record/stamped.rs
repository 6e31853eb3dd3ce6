//! Datagrams read with the time the kernel received them (SO_TIMESTAMPNS),
//! not the time teeoracle got round to reading them: on a loaded machine
//! the bots' step may read a snapshot milliseconds after it came, and
//! both the capture's timestamps and the clock's tick grid would carry
//! that delay.

use nix::sys::socket::{
    ControlMessageOwned, MsgFlags, SockaddrIn, recvmsg, setsockopt, sockopt::ReceiveTimestampns,
};
use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, SystemTime};

/// Asks the kernel to stamp what `socket` receives.
pub fn enable(socket: &UdpSocket) -> io::Result<()> {
    setsockopt(socket, ReceiveTimestampns, &true).map_err(io::Error::from)
}

/// The next datagram waiting on the non-blocking `socket`, if any: its
/// length, sender and arrival time (now, if the kernel gave none).
pub fn recv(
    socket: &UdpSocket,
    buf: &mut [u8],
) -> io::Result<Option<(usize, SocketAddr, SystemTime)>> {
    let mut iov = [IoSliceMut::new(buf)];
    let mut space = nix::cmsg_space!(nix::sys::time::TimeSpec);
    let msg = match recvmsg::<SockaddrIn>(
        socket.as_raw_fd(),
        &mut iov,
        Some(&mut space),
        MsgFlags::MSG_DONTWAIT,
    ) {
        Ok(m) => m,
        Err(nix::errno::Errno::EAGAIN) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut at = SystemTime::now();
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmTimestampns(t) = c {
                let since = Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32);
                at = SystemTime::UNIX_EPOCH + since;
            }
        }
    }
    let Some(from) = msg.address else {
        return Ok(None);
    };
    Ok(Some((msg.bytes, SocketAddr::V4(from.into()), at)))
}
