//! What every transport hands back: an open data channel's two directions,
//! the check that the other end is still there, and the short wait a
//! listener repeats until the worker connects.

use std::io::{self, Read, Write};
use std::time::Instant;

/// The two directions of an open data channel.
pub struct Channel {
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
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
