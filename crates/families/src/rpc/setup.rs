//! A run's servers and the way to each: start the runtime's server at its
//! place (here, across a link, on a far host), serve each series' stack
//! once, put toll's broker or a proxy on the path, and give each series the
//! [`Plan`] its client follows.

use super::call::Target;
use super::client::Plan;
use super::config::{PathKind, ProxyKind, RpcConfig, ServerRuntime, Stack, Via};
use super::error::RpcError;
use super::handle::{start_server, ServerHandle};
use super::place::Place;
use std::net::SocketAddr;

/// A path that goes through a proxy: the one place the proxy module is
/// called. Returns the address to call and what keeps the proxy running.
pub fn via_proxy(
    kind: ProxyKind,
    stack: Stack,
    upstream: SocketAddr,
) -> Result<(SocketAddr, Box<dyn std::any::Any>), RpcError> {
    let kind = match kind {
        ProxyKind::Haproxy => crate::rpc::proxy::ProxyKind::Haproxy,
        ProxyKind::Nginx => crate::rpc::proxy::ProxyKind::Nginx,
    };
    let p = crate::rpc::proxy::start(kind, stack.name(), upstream)?;
    Ok((p.addr(), Box::new(p)))
}

/// The servers of a run and where each series calls.
pub(super) struct Setup {
    pub(super) server: Option<ServerHandle>,
    pub(super) plans: Vec<Plan>,
    /// The proxies, kept running until the run ends.
    _guards: Vec<Box<dyn std::any::Any>>,
    unix: Option<std::path::PathBuf>,
    /// Where the servers are; dropped last (a link outlives its servers).
    pub(super) place: Place,
}

impl Drop for Setup {
    fn drop(&mut self) {
        if let Some(p) = &self.unix {
            let _ = std::fs::remove_file(p);
        }
    }
}

pub(super) fn setup(cfg: &RpcConfig) -> Result<Setup, RpcError> {
    let mut guards: Vec<Box<dyn std::any::Any>> = vec![];
    let plan = |stack, target, broker, in_flight| Plan {
        stack,
        target,
        broker,
        connections: cfg.connections,
        in_flight,
        timeout: cfg.timeout,
    };
    if let Some(addr) = cfg.external {
        let plans = cfg
            .series
            .iter()
            .map(|s| plan(s.stack, Target::Tcp(addr), None, s.mode.in_flight()))
            .collect();
        return Ok(Setup {
            server: None,
            plans,
            _guards: guards,
            unix: None,
            place: Place::Here,
        });
    }
    let place = Place::build(cfg.far.as_ref())?;
    if !matches!(place, Place::Here) && cfg.series.iter().any(|s| s.via == Via::Unix) {
        return Err(RpcError::FarUnix);
    }
    let mut server = start_server(cfg.runtime, &place)?;
    // The broker and raw over a unix socket are toll's own: a Go or Python
    // run gets them from a Rust server beside its own.
    let mut aux: Option<ServerHandle> = None;
    let mut tcp: Vec<(Stack, SocketAddr)> = vec![];
    let mut unix = None;
    let mut broker = None;
    let mut plans = vec![];
    for s in &cfg.series {
        if !server.stacks.iter().any(|k| k == s.stack.name()) {
            return Err(RpcError::Unsupported {
                runtime: cfg.runtime,
                stack: s.stack.name().into(),
                has: server.stacks.join(", "),
            });
        }
        let target = match s.via {
            Via::Unix if cfg.runtime != ServerRuntime::Rust => {
                return Err(RpcError::Unsupported {
                    runtime: cfg.runtime,
                    stack: "raw over a unix socket (--via unix)".into(),
                    has: server.stacks.join(", "),
                });
            }
            Via::Unix => {
                if unix.is_none() {
                    let p = toll_peers::scratch::path(&format!("rpc-{}.sock", server.pid))
                        .map_err(RpcError::Scratch)?;
                    server.serve_unix(&p)?;
                    unix = Some(p);
                }
                Target::Unix(unix.clone().expect("just set"))
            }
            Via::Tcp => {
                let addr = match tcp.iter().find(|(k, _)| *k == s.stack) {
                    Some((_, a)) => *a,
                    None => {
                        let port = server.serve_tcp(s.stack.name())?;
                        let a = place.reach(server.listen, port).map_err(RpcError::Relay)?;
                        tcp.push((s.stack, a));
                        a
                    }
                };
                Target::Tcp(addr)
            }
        };
        let p = match (s.path, &target) {
            (PathKind::Direct, _) => plan(s.stack, target, None, s.mode.in_flight()),
            (PathKind::Broker(lookup), Target::Tcp(addr)) => {
                let keeper = if cfg.runtime == ServerRuntime::Rust {
                    &mut server
                } else {
                    if aux.is_none() {
                        aux = Some(start_server(ServerRuntime::Rust, &place)?);
                    }
                    aux.as_mut().expect("just set")
                };
                let b = match broker {
                    Some(b) => b,
                    None => {
                        let port = keeper.serve_tcp("broker")?;
                        let b = place.reach(keeper.listen, port).map_err(RpcError::Relay)?;
                        broker = Some(b);
                        b
                    }
                };
                keeper.register(s.stack, *addr)?;
                plan(s.stack, target, Some((b, lookup)), s.mode.in_flight())
            }
            (PathKind::Proxy(kind), Target::Tcp(addr)) => {
                let (front, guard) = via_proxy(kind, s.stack, *addr)?;
                guards.push(guard);
                plan(s.stack, Target::Tcp(front), None, s.mode.in_flight())
            }
            // The CLI allows unix for direct raw only.
            (_, Target::Unix(_)) => plan(s.stack, target, None, s.mode.in_flight()),
        };
        plans.push(p);
    }
    if let Some(a) = aux {
        guards.push(Box::new(a));
    }
    Ok(Setup {
        server: Some(server),
        plans,
        _guards: guards,
        unix,
        place,
    })
}
