//! Why a link could not be built.

use std::io;

/// Why a link could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("network namespaces are not permitted here (need root or CAP_NET_ADMIN): --link loopback still works")]
    NotPermitted,
    #[error("building a link needs `{tool}`, which was not found: install iproute2 (apt-get install iproute2)")]
    MissingTool { tool: String },
    #[error("building the link failed: `{command}` said: {detail}")]
    Command { command: String, detail: String },
    #[error("{context}: {cause}")]
    Io { context: String, cause: io::Error },
}
