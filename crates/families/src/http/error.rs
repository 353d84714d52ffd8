//! Why a `toll http` run could not start or stopped.

use toll_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("bad URL `{url}`: {why}")]
    BadUrl { url: String, why: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("cannot resolve host `{host}`: {why}; check the name, or use an IP address")]
    Resolve { host: String, why: String },
    #[error("cannot connect to {addr}: {why}; is the server running and listening there?")]
    Connect { addr: String, why: String },
    #[error("{0}")]
    Tls(String),
    #[error("{addr} does not speak HTTP/2 without TLS (h2c with prior knowledge): {why}; drop --http2, or give an https:// URL")]
    NoH2c { addr: String, why: String },
    #[error("{0}")]
    Io(String),
    /// Load agents that could not start, died, or were too few.
    #[error("{0}")]
    Agents(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}
