//! SO_RCVLOWAT for long bodies: while a long Content-Length body streams
//! in, the socket is made readable only once what is left of it (up to
//! `LOWAT_MAX`) has arrived, so the loop is woken once per `LOWAT_MAX`
//! bytes instead of once per segment.

use nix::libc;
use nix::{getsockopt_impl, setsockopt_impl, sockopt_impl};

/// A body with at least this much left raises SO_RCVLOWAT.
const LOWAT_MIN: u64 = 64 * 1024;
/// The most SO_RCVLOWAT is raised to (bytes the kernel holds per connection
/// before waking the loop).
const LOWAT_MAX: u64 = 256 * 1024;

sockopt_impl!(
    /// SO_RCVLOWAT: how many bytes make a socket readable.
    RcvLowat,
    Both,
    libc::SOL_SOCKET,
    libc::SO_RCVLOWAT,
    usize
);

/// The SO_RCVLOWAT for a response with `left` body bytes still to come
/// (None: a head, a chunked body, or one that ends when the server closes).
/// Never more than what is left, so the wake-up of the last byte is on time.
pub fn wake_after(left: Option<u64>) -> usize {
    match left {
        Some(n) if n >= LOWAT_MIN => n.min(LOWAT_MAX) as usize,
        _ => 1,
    }
}

/// Set the socket's SO_RCVLOWAT; true when it took.
pub fn set_lowat(s: &impl std::os::fd::AsFd, bytes: usize) -> bool {
    nix::sys::socket::setsockopt(s, RcvLowat, &bytes).is_ok()
}
