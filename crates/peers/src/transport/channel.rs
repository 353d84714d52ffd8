//! What every transport hands back: an open data channel's two directions,
//! the check that the other end is still there, and the short wait a
//! listener repeats until the worker connects.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::time::Instant;

/// The two directions of an open data channel. The reading side is a
/// [`BufRead`], so a worker can sum items where they lie: in its read buffer,
/// or, over shared memory, in the ring itself with no copy out.
pub struct Channel {
    pub reader: Box<dyn BufRead + Send>,
    pub writer: Box<dyn Write + Send>,
}

/// Which end of a stream channel buffers how much.
#[derive(Debug, Clone, Copy)]
pub(super) enum End {
    /// The harness reads one 24-byte reply at a time: a buffer no larger
    /// makes each read go straight to the descriptor, as unbuffered.
    Harness,
    /// The worker reads whole frames: a header and a small payload arrive
    /// in one read, a large payload in few.
    Worker,
}

impl Channel {
    /// A channel over a byte stream's two directions (pipes, sockets).
    pub(super) fn stream(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        end: End,
    ) -> Channel {
        let capacity = match end {
            End::Harness => crate::frame::REPLY_LEN,
            End::Worker => 256 * 1024,
        };
        Channel {
            reader: Box::new(BufReader::with_capacity(capacity, reader)),
            writer: Box::new(writer),
        }
    }
}

/// Whether the other end is still there (checked while waiting, never per frame).
pub type Alive = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// Sleep a little while polling for a connection, failing past the deadline
/// or when the worker is gone.
pub(super) fn wait_step(deadline: Instant, alive: &Alive, what: &str) -> io::Result<()> {
    if !alive() {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            format!("the worker exited before {what}"),
        ));
    }
    if Instant::now() > deadline {
        return Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("timed out waiting for the worker to {what}"),
        ));
    }
    std::thread::sleep(std::time::Duration::from_micros(500));
    Ok(())
}
