//! Why a `toll rpc` run could not start or stopped.

use super::call::CallError;
use super::config::ServerRuntime;
use super::handle::ServerError;
use toll_store::StoreError;

/// Why a run could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{stack} to {target}: {cause}")]
    Call {
        stack: String,
        target: String,
        cause: CallError,
    },
    #[error("the {runtime} rpc server does not serve {stack} here (it serves {has}): drop {stack} from --stack")]
    Unsupported {
        runtime: ServerRuntime,
        stack: String,
        has: String,
    },
    #[error(transparent)]
    Proxy(#[from] crate::rpc::proxy::ProxyError),
    #[error("cannot start tokio: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Link(#[from] crate::link::LinkError),
    #[error("reaching the server across the link: {0}")]
    Relay(std::io::Error),
    #[error("making toll's temporary directory: {0}")]
    Scratch(std::io::Error),
    #[error("raw over a unix socket stays on this machine: drop --via unix, or --link/--remote")]
    FarUnix,
}
