//! Peer errors: each one line that names the problem and the fix.

use std::io;

/// What went wrong starting or talking to a peer.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    #[error("the {peer} peer needs {tool}, which was not found: install it with `{install}`")]
    MissingToolchain {
        peer: &'static str,
        tool: String,
        install: &'static str,
    },
    #[error("building the {peer} worker failed: {detail}")]
    BuildFailed { peer: &'static str, detail: String },
    #[error("the {peer} peer does not support the {transport} transport: it supports {supported}")]
    Unsupported {
        peer: &'static str,
        transport: String,
        supported: String,
    },
    #[error("peer {peer} exited unexpectedly ({status}){stderr}")]
    Exited {
        peer: &'static str,
        status: String,
        stderr: String,
    },
    #[error("peer {peer} broke the protocol: {detail}")]
    Protocol { peer: &'static str, detail: String },
    #[error("peer {peer} did not answer within {secs} s ({what}): it was stopped")]
    TimedOut {
        peer: &'static str,
        what: String,
        secs: u64,
    },
    #[error("peer {peer} was stopped at the {what} for one point")]
    Ceiling { peer: &'static str, what: String },
    /// toll was asked to stop, and the point under way was abandoned.
    #[error("peer {peer}'s point was abandoned: toll was asked to stop")]
    Abandoned { peer: &'static str },
    #[error("peer {peer} refused `{op}`: {detail}")]
    Refused {
        peer: &'static str,
        op: String,
        detail: String,
        /// The runtime hit a limit making units (spec/wire.md, `spawn`).
        limit: bool,
    },
    /// `toll agent` on the far host could not be started or reached.
    #[error("the far end `{launcher}` {detail}")]
    Remote { launcher: String, detail: String },
    #[error("there is no rpc server for `{runtime}`: the rpc servers are {valid}")]
    NoRpcServer {
        runtime: String,
        valid: &'static str,
    },
    #[error("the {server} rpc server cannot serve the `{stack}` stack: {detail}")]
    StackUnsupported {
        server: String,
        stack: String,
        /// Why, and the fix (what to install, or which server can).
        detail: String,
    },
    /// The I/O error's text is in the message, so it is not also a
    /// `source` (which `{:#}` would print a second time).
    #[error("{context}: {cause}")]
    Io { context: String, cause: io::Error },
}

impl PeerError {
    /// An I/O error with what toll was doing.
    pub fn io(context: impl Into<String>, source: io::Error) -> PeerError {
        PeerError::Io {
            context: context.into(),
            cause: source,
        }
    }
}
