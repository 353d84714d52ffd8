//! A running RPC server: the child process of one runtime, driven over its
//! stdin/stdout by spec/rpc.md's control plane (hello, serve, stats, exit)
//! through the peers crate's [`RpcServer`]. Every server, whatever its
//! language and wherever it runs ([`Place`]), is started through
//! [`start_server`], so toll times them all the same way.

use super::config::{ServerRuntime, Stack};
use super::place::Place;
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::Command;
use toll_peers::{PeerError, RpcServer};

/// Why a server could not be started or driven.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot start the {runtime} rpc server ({why})")]
    Spawn { runtime: ServerRuntime, why: String },
    #[error(transparent)]
    Peer(#[from] PeerError),
}

/// A started server; stopped (exit, then its process group killed) when dropped.
pub struct ServerHandle {
    pub runtime: ServerRuntime,
    /// What it said to `hello`.
    pub version: String,
    pub stacks: Vec<String>,
    /// Its own process id (on the far host for `--remote`).
    pub pid: u32,
    /// Where it listens: loopback, the link's far end, or the far host's address.
    pub listen: IpAddr,
    server: RpcServer,
}

/// The server's counters (`stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub calls: u64,
    pub cpu_ns: u64,
}

/// Start a server of `runtime` at `place` and read its `hello`. A local
/// child inherits toll's environment (the tests' `TOLL_RPC_SERVER_FAULT`).
pub fn start_server(runtime: ServerRuntime, place: &Place) -> Result<ServerHandle, ServerError> {
    let name = runtime.to_string();
    let local = |prefix: &[String]| -> Result<RpcServer, ServerError> {
        // Found (and Go's built, cached) by crates/peers's registry; a
        // missing toolchain names its install. Rust's is toll's own.
        let launch = toll_peers::launch_rpc_server(&name, &mut |m: &str| eprintln!("note: {m}"))
            .map_err(|e| ServerError::Spawn {
                runtime,
                why: e.to_string(),
            })?;
        let cmd = match prefix.split_first() {
            None => launch.command(),
            Some((first, rest)) => {
                // The link's launcher (`ip netns exec …`) passes the environment on.
                let mut c = Command::new(first);
                c.args(rest)
                    .arg(&launch.program)
                    .args(&launch.args)
                    .envs(launch.env.iter().map(|(k, v)| (k, v)));
                c
            }
        };
        Ok(RpcServer::from_command(cmd)?)
    };
    let (server, listen) = match place {
        Place::Here => (local(&[])?, IpAddr::from([127, 0, 0, 1])),
        Place::Link(link) => (local(&link.launcher())?, link.far_ip()),
        Place::Remote { launcher } => {
            let (server, agent) = RpcServer::from_agent(launcher, &name)?;
            let Some(addr) = agent.address() else {
                return Err(ServerError::Spawn {
                    runtime,
                    why: format!(
                        "the far host {} lists no address this machine can route to ({:?})",
                        agent.host, agent.addrs
                    ),
                });
            };
            (server, addr)
        }
    };
    let hello = server.hello().clone();
    Ok(ServerHandle {
        runtime,
        version: hello.version,
        stacks: hello.stacks,
        pid: hello.pid,
        listen,
        server,
    })
}

impl ServerHandle {
    /// Serve `stack` on a free port of [`ServerHandle::listen`]; the port.
    pub fn serve_tcp(&mut self, stack: &str) -> Result<u16, ServerError> {
        let host = self.listen.to_string();
        if stack != "broker" {
            return Ok(self.server.serve(stack, &host, 0)?);
        }
        // The broker is toll's own, not one of the stacks a hello lists.
        let a = self
            .server
            .request(&json!({"op": "serve", "stack": stack, "host": host, "port": 0}))?;
        match a.get("port").and_then(serde_json::Value::as_u64) {
            Some(p) if p > 0 && p <= u64::from(u16::MAX) => Ok(p as u16),
            _ => Err(ServerError::Spawn {
                runtime: self.runtime,
                why: format!("it answered `serve` for the broker without a port: {a}"),
            }),
        }
    }

    /// Serve `raw` on a unix socket at `path`.
    pub fn serve_unix(&mut self, path: &Path) -> Result<(), ServerError> {
        self.server
            .request(&json!({"op": "serve", "stack": Stack::Raw.name(), "unix": path}))?;
        Ok(())
    }

    /// Tell the broker (toll's own) about a server of `stack` at `addr`
    /// (the address as the client reaches it).
    pub fn register(&mut self, stack: Stack, addr: SocketAddr) -> Result<(), ServerError> {
        self.server
            .request(&json!({"op": "register", "stack": stack.name(), "addr": addr.to_string()}))?;
        Ok(())
    }

    pub fn stats(&mut self) -> Result<Stats, ServerError> {
        let s = self.server.stats()?;
        Ok(Stats {
            calls: s.calls,
            cpu_ns: s.cpu_ns,
        })
    }
}
