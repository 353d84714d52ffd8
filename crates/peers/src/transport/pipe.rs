//! Pipes: two FIFOs, so any runtime can open them by path.

use super::{wait_step, Alive, Channel};
use nix::errno::Errno;
use nix::fcntl::{fcntl, open, FcntlArg, OFlag};
use nix::sys::stat::Mode;
use serde_json::{json, Value};
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The harness's FIFOs: the reply end is already open.
pub struct PendingPipe {
    to_peer: PathBuf,
    from_peer: File,
}

fn clear_nonblock(f: &File) -> io::Result<()> {
    let flags = OFlag::from_bits_truncate(fcntl(f.as_fd(), FcntlArg::F_GETFL)?);
    fcntl(f.as_fd(), FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    Ok(())
}

pub(super) fn listen(scratch: &Path) -> io::Result<(PendingPipe, Value)> {
    let to_peer = scratch.join("to_peer.fifo");
    let from_peer = scratch.join("from_peer.fifo");
    for p in [&to_peer, &from_peer] {
        let _ = std::fs::remove_file(p);
        nix::unistd::mkfifo(p, Mode::S_IRUSR | Mode::S_IWUSR)?;
    }
    // Opening a FIFO's read end without O_NONBLOCK would wait for a writer.
    let rd = File::from(open(
        &from_peer,
        OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?);
    let cmd = json!({
        "op": "transfer", "transport": "pipe",
        "to_peer": to_peer, "from_peer": from_peer,
    });
    Ok((
        PendingPipe {
            to_peer,
            from_peer: rd,
        },
        cmd,
    ))
}

impl PendingPipe {
    pub(super) fn accept(self, deadline: Instant, alive: &Alive) -> io::Result<Channel> {
        // A non-blocking open of a write end fails with ENXIO until a reader exists.
        let wr = loop {
            match open(
                &self.to_peer,
                OFlag::O_WRONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
                Mode::empty(),
            ) {
                Ok(fd) => break File::from(fd),
                Err(Errno::ENXIO) => wait_step(deadline, alive, "open its pipe")?,
                Err(e) => return Err(e.into()),
            }
        };
        clear_nonblock(&wr)?;
        clear_nonblock(&self.from_peer)?;
        let _ = std::fs::remove_file(&self.to_peer);
        Ok(Channel {
            reader: Box::new(self.from_peer),
            writer: Box::new(wr),
        })
    }
}

pub(super) fn connect(to_peer: &Path, from_peer: &Path) -> io::Result<Channel> {
    // The reply end first: when the harness sees us open `to_peer`, both are open.
    let wr = std::fs::OpenOptions::new().write(true).open(from_peer)?;
    let rd = File::open(to_peer)?;
    Ok(Channel {
        reader: Box::new(rd),
        writer: Box::new(wr),
    })
}
