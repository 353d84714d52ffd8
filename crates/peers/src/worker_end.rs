//! What a transfer session needs of the worker across it: the watchdog
//! around a batch of round trips, and the control plane that explains a
//! failure and reads the closing `done`. [`Peer`](crate::Peer) implements
//! it and [`Session`](crate::Session) holds one, so the session never names
//! the peer that opens it.

use crate::error::PeerError;
use serde_json::Value;
use std::time::Duration;

/// The worker's end of a transfer session, as the session drives it.
pub(crate) trait WorkerEnd: Send {
    /// Stop the worker unless `disarm` comes within `timeout`.
    fn arm(&self, timeout: Duration);
    /// Cancel the last `arm`.
    fn disarm(&self);
    /// If the worker has died (or was stopped by the watchdog), the error that says so.
    fn exit_error(&mut self) -> Option<PeerError>;
    /// The worker broke the protocol as `detail` says, unless its exit explains why.
    fn protocol(&mut self, detail: String) -> PeerError;
    /// Read one answer line of the control plane; `{"ok":false}` becomes an error.
    fn read_answer(&mut self, op: &str) -> Result<Value, PeerError>;
}
