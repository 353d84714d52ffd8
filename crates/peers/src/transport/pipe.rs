//! Pipes: a pair of anonymous pipes, made when the worker is started and
//! inherited by it as file descriptors 3 (requests in) and 4 (replies out).
//! (Named FIFOs would cost ~0.5 µs more per round trip: the kernel's file
//! notifications and timestamps apply to them, not to anonymous pipes.)

use super::channel::{Channel, End};
use nix::fcntl::OFlag;
use serde_json::{json, Value};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::process::Command;

/// Where a worker finds its pipes.
pub const WORKER_READ_FD: RawFd = 3;
pub const WORKER_WRITE_FD: RawFd = 4;

/// The harness's ends of a worker's pipes (and, until the worker is
/// started, the worker's ends).
pub struct PipePair {
    to_peer: File,
    from_peer: File,
    child_read: Option<OwnedFd>,
    child_write: Option<OwnedFd>,
    /// The descriptors the worker knows its ends by.
    child_fds: (RawFd, RawFd),
}

impl PipePair {
    /// Two pipes, close-on-exec, so no other child inherits them.
    pub fn new() -> io::Result<PipePair> {
        let (child_read, to_peer) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        let (from_peer, child_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        let child_fds = (child_read.as_raw_fd(), child_write.as_raw_fd());
        Ok(PipePair {
            to_peer: to_peer.into(),
            from_peer: from_peer.into(),
            child_read: Some(child_read),
            child_write: Some(child_write),
            child_fds,
        })
    }

    /// Hand the worker's ends to `cmd` as fds 3 and 4.
    pub fn attach(&mut self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        let (r, w) = self.child_fds;
        // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2).
        // Both ends are first copied above fd 10, so neither is clobbered by the
        // other's dup2, and dup2 leaves the copies at 3 and 4 without close-on-exec.
        unsafe {
            cmd.pre_exec(move || {
                use nix::libc;
                let r2 = libc::fcntl(r, libc::F_DUPFD_CLOEXEC, 10);
                let w2 = libc::fcntl(w, libc::F_DUPFD_CLOEXEC, 10);
                if r2 < 0
                    || w2 < 0
                    || libc::dup2(r2, WORKER_READ_FD) < 0
                    || libc::dup2(w2, WORKER_WRITE_FD) < 0
                {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self.child_fds = (WORKER_READ_FD, WORKER_WRITE_FD);
    }

    /// Close the worker's ends here once it has them, so that its death is
    /// seen as end of file and a broken pipe.
    pub fn release_child_ends(&mut self) {
        self.child_read = None;
        self.child_write = None;
    }

    pub(super) fn listen(&self) -> io::Result<(Channel, Value)> {
        let cmd = json!({
            "op": "transfer", "transport": "pipe",
            "read_fd": self.child_fds.0, "write_fd": self.child_fds.1,
        });
        let channel = Channel::stream(
            self.from_peer.try_clone()?,
            self.to_peer.try_clone()?,
            End::Harness,
        );
        Ok((channel, cmd))
    }
}

/// The worker's side: its inherited pipes, duplicated so that closing the
/// channel leaves them open for the next transfer.
pub(super) fn connect(read_fd: RawFd, write_fd: RawFd) -> io::Result<Channel> {
    let dup = |fd: RawFd| -> io::Result<File> {
        // SAFETY: the harness gave us this descriptor; we only duplicate it.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        Ok(File::from(borrowed.try_clone_to_owned()?))
    };
    Ok(Channel::stream(dup(read_fd)?, dup(write_fd)?, End::Worker))
}
