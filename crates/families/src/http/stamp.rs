//! Kernel receive stamps for an HTTP/1.1 event loop.
//!
//! With SO_TIMESTAMPNS the kernel stamps each segment as it arrives, and a
//! read returns the stamp of the last segment it took. A response's end is
//! then when its last byte reached the socket, not when the loop got round
//! to reading it: a loop that naps (`coalesce`) or is slow to be scheduled
//! no longer adds its own delay to the latency it reports, and can take
//! more answers per wake-up (on a VM, each wake-up of an idle load
//! generator costs tens of microseconds of its CPU).
//!
//! The stamp is on the real-time clock; it becomes an `Instant` by how long
//! ago it was, read against the real-time clock at the read, and is kept
//! between the request's write and now, so a clock step cannot put an
//! answer before its request or after its reading. A read without a stamp
//! (the kernel refused, or had not yet turned stamping on: it does so from
//! a work queue when the first socket asks) is timed when it is read.

use nix::libc;
use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// Ask the kernel to stamp what arrives on this socket; false when it
/// refuses (the loop then stamps answers when it reads them).
/// `TOLL_HTTP_STAMPS_REFUSED=1` makes toll act as if it had, for tests.
pub fn enable(fd: RawFd) -> bool {
    keep_on() && set(fd)
}

/// Whether stamps may be asked for at all (`TOLL_HTTP_STAMPS_REFUSED`
/// unset); when they may, the kernel's stamping is kept on for the process.
pub fn keep_on() -> bool {
    static REFUSED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *REFUSED.get_or_init(|| std::env::var_os("TOLL_HTTP_STAMPS_REFUSED").is_some()) {
        return false;
    }
    // The kernel turns stamping on for the first socket that asks and off
    // (from a work queue, patching its code) when the last one closes:
    // without connections kept alive that would be many times a second,
    // so one socket that never closes keeps it on for the process.
    static KEPT_ON: std::sync::OnceLock<Option<std::os::fd::OwnedFd>> = std::sync::OnceLock::new();
    KEPT_ON.get_or_init(|| {
        use std::os::fd::AsRawFd;
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").ok()?;
        set(udp.as_raw_fd()).then(|| udp.into())
    });
    true
}

/// SO_TIMESTAMPNS on `fd`; false when the kernel refuses.
fn set(fd: RawFd) -> bool {
    let on: libc::c_int = 1;
    // SAFETY: a valid option value of the size given, on a socket fd.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// One read into `buf`: the bytes read and, when the kernel stamped them,
/// when the last of them arrived (real-time clock).
pub fn recv(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, Option<libc::timespec>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one SCM_TIMESTAMPNS message, aligned for cmsghdr.
    let mut control = [0u64; 8];
    // SAFETY: msghdr is plain data; zero is its empty value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: msg points at live buffers of the lengths it gives.
    let n = unsafe { libc::recvmsg(fd, &mut msg, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel wrote msg_controllen bytes of control messages.
    Ok((n as usize, unsafe { stamp_of(&msg) }))
}

/// The SCM_TIMESTAMPNS stamp among `msg`'s control messages, if any.
///
/// # Safety
/// `msg.msg_control` points at `msg.msg_controllen` readable bytes, holding
/// control messages up to the first one whose length is zero.
pub unsafe fn stamp_of(msg: &libc::msghdr) -> Option<libc::timespec> {
    let mut stamp = None;
    // SAFETY: the CMSG_* walk stays within msg_controllen (and stops at a
    // zeroed header, shorter than any message).
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(msg);
        while !c.is_null() && (*c).cmsg_len as usize >= std::mem::size_of::<libc::cmsghdr>() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                stamp = Some(std::ptr::read_unaligned(
                    libc::CMSG_DATA(c) as *const libc::timespec
                ));
            }
            c = libc::CMSG_NXTHDR(msg, c);
        }
    }
    stamp
}

/// The real-time clock now.
pub fn real_now() -> libc::timespec {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: t is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut t) };
    t
}

/// How far `earlier` is before `later`, in ns (zero when it is not).
fn ns_between(earlier: &libc::timespec, later: &libc::timespec) -> u64 {
    let e = earlier.tv_sec as i128 * 1_000_000_000 + earlier.tv_nsec as i128;
    let l = later.tv_sec as i128 * 1_000_000_000 + later.tv_nsec as i128;
    (l - e).clamp(0, u64::MAX as i128) as u64
}

/// The `Instant` of a kernel stamp, read at `now`: kept within
/// [`floor`, `now`].
pub fn arrived(stamp: &libc::timespec, now: Instant, floor: Instant) -> Instant {
    place(stamp, &real_now(), now, floor)
}

/// [`arrived`] with the real-time clock read at `now` given: `real` and
/// `now` must be read together.
pub fn place(
    stamp: &libc::timespec,
    real: &libc::timespec,
    now: Instant,
    floor: Instant,
) -> Instant {
    let ago = Duration::from_nanos(ns_between(stamp, real));
    now.checked_sub(ago).unwrap_or(floor).max(floor).min(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    fn ts(sec: i64, nsec: i64) -> libc::timespec {
        libc::timespec {
            tv_sec: sec as _,
            tv_nsec: nsec as _,
        }
    }

    #[test]
    fn a_stamp_is_placed_by_how_long_ago_it_was() {
        let now = Instant::now();
        let floor = now - Duration::from_millis(10);
        let at = place(&ts(100, 999_000_000), &ts(101, 2_000_000), now, floor);
        assert_eq!(now - at, Duration::from_millis(3));
    }

    #[test]
    fn a_stamp_never_leaves_the_request_to_reading_window() {
        let now = Instant::now();
        let floor = now - Duration::from_millis(1);
        // The clock stepped back: the stamp is "in the future".
        assert_eq!(place(&ts(200, 0), &ts(100, 0), now, floor), now);
        // The clock stepped forward: long before the request was written.
        assert_eq!(place(&ts(100, 0), &ts(200, 0), now, floor), floor);
    }

    #[test]
    fn loopback_tcp_reads_come_stamped_when_asked() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut a = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        let stamped = enable(b.as_raw_fd());
        // The kernel turns stamping on from a work queue: the first
        // segments after the first socket asks may arrive unstamped.
        std::thread::sleep(Duration::from_millis(50));
        a.write_all(b"hello").unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let mut buf = [0u8; 16];
        let (n, stamp) = recv(b.as_raw_fd(), &mut buf).unwrap();
        assert_eq!(&buf[..n], b"hello");
        if !stamped {
            assert!(stamp.is_none());
            return;
        }
        let stamp = stamp.expect("a stamped socket's read carries its stamp");
        let now = Instant::now();
        let at = arrived(&stamp, now, now - Duration::from_secs(1));
        // The bytes arrived before the 30 ms sleep, not at the read.
        assert!(now - at >= Duration::from_millis(25), "{:?}", now - at);
        // A socket that did not ask: the bytes, no stamp.
        let mut plain = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (c, _) = l.accept().unwrap();
        plain.write_all(b"x").unwrap();
        std::thread::sleep(Duration::from_millis(10));
        let (n, stamp) = recv(c.as_raw_fd(), &mut buf).unwrap();
        assert_eq!((&buf[..n], stamp.is_none()), (&b"x"[..], true));
    }
}
