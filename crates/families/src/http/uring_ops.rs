//! What the io_uring loop (`uring_loop`) asks of the kernel: whether it
//! can (`refusal`), the ring, each request's linked operations and the
//! receive they end with, and the tags that name a completion's
//! connection and operation.

use io_uring::{opcode, squeue, types, IoUring};
use nix::libc;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// Why this kernel will not run the io_uring loop, or None when it will
/// (asked once per process).
pub fn refusal() -> Option<String> {
    static WHY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    WHY.get_or_init(|| {
        if let Some(why) = std::env::var_os("TOLL_IO_URING_REFUSED") {
            return Some(why.to_string_lossy().into_owned());
        }
        probe().err().map(|e| e.to_string())
    })
    .clone()
}

/// Make a ring as the loop does and run one socket, stamp request and
/// close through it.
fn probe() -> io::Result<()> {
    let mut ring = ring(8)?;
    let mut p = io_uring::Probe::new();
    ring.submitter().register_probe(&mut p)?;
    for (op, name) in [
        (opcode::Socket::CODE, "socket"),
        (opcode::SetSockOpt::CODE, "uring_cmd"),
        (opcode::Connect::CODE, "connect"),
        (opcode::Send::CODE, "send"),
        (opcode::RecvMsg::CODE, "recvmsg"),
        (opcode::Close::CODE, "close"),
        (opcode::AsyncCancel2::CODE, "async_cancel"),
    ] {
        if !p.is_supported(op) {
            return Err(io::Error::other(format!("no io_uring {name} here")));
        }
    }
    ring.submitter().register_files_sparse(1)?;
    let on: libc::c_int = 1;
    let chain = [
        socket_op(libc::AF_INET, 0)
            .flags(squeue::Flags::IO_LINK)
            .user_data(0),
        opcode::SetSockOpt::new(
            types::Fixed(0),
            libc::SOL_SOCKET as u32,
            libc::SO_TIMESTAMPNS as u32,
            (&on as *const libc::c_int).cast(),
            4,
        )
        .build()
        .flags(squeue::Flags::IO_LINK)
        .user_data(1),
        opcode::Close::new(types::Fixed(0)).build().user_data(2),
    ];
    for e in chain {
        // SAFETY: `on` outlives the wait for its completion below.
        unsafe { ring.submission().push(&e) }.map_err(io::Error::other)?;
    }
    ring.submit_and_wait(3)?;
    for c in ring.completion() {
        if c.result() < 0 {
            let e = io::Error::from_raw_os_error(-c.result());
            let op = ["socket", "socket options", "close"][c.user_data().min(2) as usize];
            return Err(io::Error::other(format!("io_uring {op}: {e}")));
        }
    }
    Ok(())
}

pub(super) fn ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_cqsize(entries * 2)
        .build(entries)
}

fn socket_op(domain: i32, slot: u32) -> squeue::Entry {
    let slot = types::DestinationSlot::try_from_slot_target(slot).expect("a slot below 2^32-2");
    // A direct descriptor has no close-on-exec (the kernel refuses the flag).
    opcode::Socket::new(domain, libc::SOCK_STREAM, 0)
        .file_index(Some(slot))
        .build()
}

// What a completion is for: its connection in the high bits.
pub(super) const CLOSE: u8 = 1;
pub(super) const SOCKET: u8 = 2;
pub(super) const OPTION: u8 = 3;
pub(super) const CONNECT: u8 = 4;
pub(super) const SEND: u8 = 5;
pub(super) const RECV: u8 = 6;
pub(super) const CANCEL: u8 = 7;

pub(super) fn tag(k: usize, op: u8) -> u64 {
    (k as u64) << 8 | u64::from(op)
}

/// Each connection's receive buffer: 8 MiB over the connections, between
/// 16 and 256 KiB.
pub(super) fn buf_len(connections: usize) -> usize {
    ((8 << 20) / connections.max(1)).clamp(16 << 10, 256 << 10)
}

/// A request this long or shorter leaves in one segment (as in `event_loop`).
const ONE_SEGMENT: usize = 536;
pub(super) const TIMEOUT_SCAN: Duration = Duration::from_millis(5);
/// How long the loop waits for its cancelled operations at the end.
pub(super) const DRAIN: Duration = Duration::from_secs(1);

/// What a receive reads into: kept in place while the kernel holds it.
pub(super) struct Recv {
    msg: libc::msghdr,
    iov: libc::iovec,
    control: [u64; 16],
    pub(super) buf: Box<[u8]>,
    /// The socket's SO_RCVLOWAT as last asked (1 on a new socket), and the
    /// value the kernel reads when it is changed.
    lowat: libc::c_int,
    asked: libc::c_int,
}

impl Recv {
    pub(super) fn new(len: usize) -> Box<Recv> {
        Box::new(Recv {
            // SAFETY: msghdr is plain data; zero is empty.
            msg: unsafe { std::mem::zeroed() },
            iov: libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0,
            },
            control: [0; 16],
            buf: vec![0u8; len].into_boxed_slice(),
            lowat: 1,
            asked: 1,
        })
    }

    /// A new socket: its SO_RCVLOWAT is the kernel's 1.
    pub(super) fn new_socket(&mut self) {
        self.lowat = 1;
    }

    /// The arrival stamp the last receive brought, if any.
    pub(super) fn stamp(&self) -> Option<libc::timespec> {
        // SAFETY: msg points at `control`, zeroed before the receive and
        // holding what the kernel wrote since.
        unsafe { crate::http::stamp::stamp_of(&self.msg) }
    }

    /// A receive into the buffer on connection `k`'s socket, its control
    /// messages zeroed first (so the stamp read after is this read's);
    /// before it, linked, SO_RCVLOWAT set to `lowat` when that changes it:
    /// while a long body streams in, the receive completes once per
    /// `lowat` bytes rather than once per segment (`lowat::wake_after`).
    pub(super) fn ops(&mut self, k: usize, lowat: usize) -> Vec<squeue::Entry> {
        let mut ops = Vec::with_capacity(2);
        let lowat = lowat.min(libc::c_int::MAX as usize) as libc::c_int;
        if lowat != self.lowat {
            self.lowat = lowat;
            self.asked = lowat;
            let e = opcode::SetSockOpt::new(
                types::Fixed(k as u32),
                libc::SOL_SOCKET as u32,
                libc::SO_RCVLOWAT as u32,
                (&self.asked as *const libc::c_int).cast(),
                4,
            );
            let quiet = squeue::Flags::IO_LINK | squeue::Flags::SKIP_SUCCESS;
            ops.push(e.build().flags(quiet).user_data(tag(k, OPTION)));
        }
        self.iov = libc::iovec {
            iov_base: self.buf.as_mut_ptr().cast(),
            iov_len: self.buf.len(),
        };
        self.control = [0; 16];
        self.msg.msg_iov = &mut self.iov;
        self.msg.msg_iovlen = 1;
        self.msg.msg_control = self.control.as_mut_ptr().cast();
        self.msg.msg_controllen = std::mem::size_of_val(&self.control) as _;
        let e = opcode::RecvMsg::new(types::Fixed(k as u32), &mut self.msg);
        ops.push(e.build().user_data(tag(k, RECV)));
        ops
    }
}

/// A completion as the loop saw it.
pub(super) struct Done {
    pub(super) data: u64,
    pub(super) res: i32,
    pub(super) seen: std::time::Instant,
    pub(super) real: libc::timespec,
}

static ON: libc::c_int = 1;

/// A new connection in slot `k`, linked: close the old socket (when
/// `open`), make the new one, ask for arrival stamps (when `stamps`) and
/// TCP_NODELAY (for a request longer than one segment), connect. Only the
/// connect's completion comes when all goes well.
pub(super) fn connect(
    k: usize,
    open: bool,
    domain: i32,
    addr: &(libc::sockaddr_storage, libc::socklen_t),
    stamps: bool,
    request_len: usize,
) -> Vec<squeue::Entry> {
    let slot = types::Fixed(k as u32);
    let quiet = squeue::Flags::IO_LINK | squeue::Flags::SKIP_SUCCESS;
    let mut ops = Vec::new();
    if open {
        ops.push(
            opcode::Close::new(slot)
                .build()
                .flags(quiet)
                .user_data(tag(k, CLOSE)),
        );
    }
    ops.push(
        socket_op(domain, k as u32)
            .flags(quiet)
            .user_data(tag(k, SOCKET)),
    );
    let option = |level: i32, name: i32| {
        opcode::SetSockOpt::new(
            slot,
            level as u32,
            name as u32,
            (&ON as *const libc::c_int).cast(),
            4,
        )
        .build()
        .flags(quiet)
        .user_data(tag(k, OPTION))
    };
    if stamps {
        ops.push(option(libc::SOL_SOCKET, libc::SO_TIMESTAMPNS));
    }
    if request_len > ONE_SEGMENT {
        ops.push(option(libc::IPPROTO_TCP, libc::TCP_NODELAY));
    }
    let e = opcode::Connect::new(
        slot,
        (&addr.0 as *const libc::sockaddr_storage).cast(),
        addr.1,
    );
    ops.push(
        e.build()
            .flags(squeue::Flags::IO_LINK)
            .user_data(tag(k, CONNECT)),
    );
    ops
}

/// The request, linked to the receive that follows it.
pub(super) fn send(k: usize, request: &[u8]) -> squeue::Entry {
    opcode::Send::new(
        types::Fixed(k as u32),
        request.as_ptr(),
        request.len() as u32,
    )
    .flags(libc::MSG_WAITALL | libc::MSG_NOSIGNAL)
    .build()
    .flags(squeue::Flags::IO_LINK)
    .user_data(tag(k, SEND))
}

pub(super) fn sockaddr(addr: SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain data; zero is empty.
    let mut s: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from(*a.ip()).to_be(),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in.
            unsafe { std::ptr::write((&mut s as *mut libc::sockaddr_storage).cast(), sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: a.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in6.
            unsafe { std::ptr::write((&mut s as *mut libc::sockaddr_storage).cast(), sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (s, len as libc::socklen_t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_connection_reads_into_its_share_of_8_mib_within_bounds() {
        assert_eq!(buf_len(1), 256 << 10);
        assert_eq!(buf_len(128), 64 << 10);
        assert_eq!(buf_len(10_000), 16 << 10);
    }

    #[test]
    fn a_completion_names_its_connection_and_operation() {
        let t = tag(70_000, RECV);
        assert_eq!(((t >> 8) as usize, t as u8), (70_000, RECV));
    }

    #[test]
    fn addresses_are_written_as_the_kernel_reads_them() {
        let (s, len) = sockaddr("127.0.0.1:8080".parse().unwrap());
        assert_eq!(len as usize, std::mem::size_of::<libc::sockaddr_in>());
        // SAFETY: written as a sockaddr_in above.
        let sin = unsafe { *(&s as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
        assert_eq!(sin.sin_family as i32, libc::AF_INET);
        assert_eq!(u16::from_be(sin.sin_port), 8080);
        assert_eq!(u32::from_be(sin.sin_addr.s_addr), 0x7f00_0001);
        let (s, len) = sockaddr("[::1]:443".parse().unwrap());
        assert_eq!(len as usize, std::mem::size_of::<libc::sockaddr_in6>());
        // SAFETY: written as a sockaddr_in6 above.
        let sin6 = unsafe { *(&s as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>() };
        assert_eq!(u16::from_be(sin6.sin6_port), 443);
        assert_eq!(sin6.sin6_addr.s6_addr[15], 1);
    }
}
