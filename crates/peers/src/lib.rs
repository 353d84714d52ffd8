//! toll's peers: the wire protocol of spec/wire.md, the transports, the
//! built-in Rust worker and the registry of runtimes whose workers toll
//! builds and starts.

pub mod agent;
pub mod control;
mod error;
pub mod frame;
mod peer;
pub mod rpc_server;
pub mod runtime;
pub mod serve;
mod session;
pub mod transport;
pub mod units;
pub mod worker;

pub use agent::{Agent, AgentHello};
pub use error::PeerError;
pub use peer::{process_alive, Ceiling, Hello, Peer, TcpRoute};
pub use rpc_server::{launch_rpc_server, rpc_stacks, RpcHello, RpcServer, RpcStats};
pub use runtime::{Launch, Runtime, UnitClass};
pub use session::Session;
pub use transport::Transport;
