//! toll's peers: the wire protocol of spec/wire.md, the transports, the
//! built-in Rust worker and the registry of runtimes whose workers toll
//! builds and starts.
//!
//! The wire protocol's frames, the worker's serving loop and its vectorised
//! sum, and the reader of the control plane's lines; the transports (pipe,
//! unix and TCP sockets, a shared-memory ring that sleeps on a futex, from
//! which a worker reads in place); the built-in Rust worker with
//! its spawn and ring units (std threads, tokio tasks); one module per
//! language under `runtime/` that finds the toolchain and builds and caches
//! the worker; a running worker with its time and memory watchdog; a timed
//! transfer; the RPC servers of spec/rpc.md (which runtimes have one, how each
//! is built, started and driven); and `agent/`, the far end across machines —
//! the harness's side, and `toll agent` itself, which becomes a worker or an
//! RPC server; `group`, a child in a process group of its own that dies
//! with toll, and `scratch`, toll's one temporary directory per process,
//! swept by the next toll. This crate depends on no other toll crate.

pub mod agent;
pub mod control;
mod error;
pub mod ffi;
pub mod frame;
pub mod group;
mod peer;
pub mod rpc_server;
pub mod runtime;
pub mod scratch;
pub mod serve;
mod session;
pub mod sum;
pub mod transport;
pub mod units;
mod watchdog;
pub mod worker;
mod worker_end;

pub use agent::{Agent, AgentHello};
pub use error::PeerError;
pub use group::process_alive;
pub use group::Group;
pub use peer::{Ceiling, Hello, Peer, TcpRoute};
pub use rpc_server::{launch_rpc_server, rpc_stacks, RpcHello, RpcServer, RpcStats};
pub use runtime::{
    binding_names, Binding, FfiLaunch, Launch, Pass, Runtime, Touch, UnitClass, Way,
};
pub use session::Session;
pub use transport::Transport;
pub use watchdog::abandon_on;
