//! The far end across machines: `toll agent`, started by a command the user
//! gives (`ssh HOST toll agent`, or any launcher such as `ip netns exec NS
//! toll agent`) and driven over that command's stdin/stdout with the control
//! protocol of spec/wire.md ("The agent"). No port to open, no token: the
//! launcher's own channel carries the control plane, and the measured traffic
//! crosses the network between the hosts.
//!
//! [`Agent`] is the harness's handle: [`Agent::launch`] starts the launcher
//! and checks that a toll agent answers, [`Agent::request`] sends any
//! command, and [`Agent::start_worker`] has the agent become a runtime's
//! worker there, returned as a [`Peer`] whose TCP transfers connect back
//! over a [`TcpRoute`].

pub mod serve;

use crate::error::PeerError;
use crate::peer::{Ceiling, Peer, TcpRoute};
use crate::runtime::{Launch, Runtime};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

/// What a `toll agent` says of its host.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentHello {
    /// `toll <version>` on the far host.
    pub version: String,
    pub host: String,
    pub pid: u32,
    /// The harness's address as the far host saw it arrive over ssh.
    pub ssh_client: Option<IpAddr>,
    /// The far host's address that ssh reached.
    pub ssh_server: Option<IpAddr>,
    /// The far host's addresses other than loopback.
    pub addrs: Vec<IpAddr>,
}

impl AgentHello {
    /// Read an agent's answer to `hello`; None when it is not an agent's.
    pub fn from_answer(h: &Value) -> Option<AgentHello> {
        if h.get("runtime").and_then(Value::as_str) != Some("agent") {
            return None;
        }
        let ip = |v: &Value| v.as_str().and_then(|s| s.parse::<IpAddr>().ok());
        Some(AgentHello {
            version: h
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or("")
                .into(),
            host: h.get("host").and_then(Value::as_str).unwrap_or("").into(),
            pid: h.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32,
            ssh_client: h.get("ssh_client").and_then(ip),
            ssh_server: h.get("ssh_server").and_then(ip),
            addrs: h
                .get("addrs")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(ip).collect())
                .unwrap_or_default(),
        })
    }
}

impl AgentHello {
    /// The far host's address for this machine to connect to: the one ssh
    /// reached, else the first of its addresses this machine has a route to.
    pub fn address(&self) -> Option<IpAddr> {
        self.ssh_server.or_else(|| {
            self.addrs.iter().copied().find(|far| {
                let any: IpAddr = match far {
                    IpAddr::V4(_) => [0, 0, 0, 0].into(),
                    IpAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
                };
                // Connecting a UDP socket sends nothing: it only finds a route.
                UdpSocket::bind((any, 0)).is_ok_and(|s| s.connect((*far, 9)).is_ok())
            })
        })
    }
}

/// A running `toll agent` on the far host.
pub struct Agent {
    peer: Peer,
    launcher: String,
    /// What it said of its host.
    pub hello: AgentHello,
}

/// A line to a running agent, kept beside the thread that waits on its
/// answer: [`Stopper::stop`] ends its op under way (an http load), which
/// then answers with what it did.
pub struct Stopper(std::fs::File);

impl Stopper {
    /// Send `stop`. An agent that cannot be written to is gone already.
    pub fn stop(&mut self) -> bool {
        use std::io::Write;
        writeln!(self.0, "{}", json!({"op": "stop"})).is_ok()
    }
}

/// The launcher `--remote HOST` means: ssh that never prompts (a password
/// prompt would hang a run that owns the terminal's stdin).
pub fn ssh_launcher(host: &str) -> String {
    format!("ssh -o BatchMode=yes {host} toll agent")
}

impl Agent {
    /// Run `launcher` (a shell command line that ends up running `toll
    /// agent` on the far host) and check that an agent answers.
    pub fn launch(launcher: &str) -> Result<Agent, PeerError> {
        let launch = Launch {
            program: "sh".into(),
            args: vec!["-c".into(), launcher.into()],
            toolchain: ("agent".into(), launcher.into()),
            env: Vec::new(),
        };
        let far = |e: PeerError| far_error(launcher, e);
        let mut peer = Peer::start(Runtime::Rust, launch).map_err(far)?;
        let h = peer.request(&json!({"op": "hello"})).map_err(far)?;
        let Some(hello) = AgentHello::from_answer(&h) else {
            return Err(PeerError::Remote {
                launcher: launcher.into(),
                detail: format!(
                    "answered as {} rather than as `toll agent`: end the launcher with `toll agent`",
                    h.get("runtime").and_then(Value::as_str).unwrap_or("something else")
                ),
            });
        };
        Ok(Agent {
            peer,
            launcher: launcher.into(),
            hello,
        })
    }

    /// The launcher it was started with.
    pub fn launcher(&self) -> &str {
        &self.launcher
    }

    /// Send one command (spec/wire.md) and read its answer.
    pub fn request(&mut self, cmd: &Value) -> Result<Value, PeerError> {
        let launcher = self.launcher.clone();
        self.peer.request(cmd).map_err(|e| far_error(&launcher, e))
    }

    /// Send one command whose answer may take up to `time` (a load the
    /// agent runs): past it, the agent is taken as stalled and killed.
    pub fn request_within(&mut self, cmd: &Value, time: Duration) -> Result<Value, PeerError> {
        let launcher = self.launcher.clone();
        let ceiling = Ceiling { time, mem_kb: 0 };
        self.peer
            .units(cmd, ceiling)
            .map_err(|e| far_error(&launcher, e))
    }

    /// Send one command whose answer follows event lines named `event`,
    /// each handed to `on_event`; past `stall` without a line, the agent is
    /// taken as stalled and killed.
    pub fn request_streaming(
        &mut self,
        cmd: &Value,
        event: &str,
        stall: Duration,
        on_event: &mut dyn FnMut(Value),
    ) -> Result<Value, PeerError> {
        let launcher = self.launcher.clone();
        self.peer
            .streaming(cmd, event, stall, on_event)
            .map_err(|e| far_error(&launcher, e))
    }

    /// How a worker on the far host reaches this machine: listen on `addr`
    /// when given; else on the address ssh came from; else on this machine's
    /// address on the route to one of the far host's addresses.
    pub fn route(&self, addr: Option<IpAddr>) -> Result<TcpRoute, PeerError> {
        let ours = addr.or(self.hello.ssh_client).or_else(|| {
            self.hello.addrs.iter().find_map(|far| {
                let any: IpAddr = match far {
                    IpAddr::V4(_) => [0, 0, 0, 0].into(),
                    IpAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
                };
                let s = UdpSocket::bind((any, 0)).ok()?;
                // Connecting a UDP socket sends nothing: it only picks the route.
                s.connect((*far, 9)).ok()?;
                Some(s.local_addr().ok()?.ip()).filter(|ip| !ip.is_unspecified())
            })
        });
        let Some(ip) = ours else {
            return Err(PeerError::Remote {
                launcher: self.launcher.clone(),
                detail: format!(
                    "has no address this machine can route to (it has {:?}): name this machine's address as the far host sees it with --remote-addr",
                    self.hello.addrs
                ),
            });
        };
        Ok(TcpRoute {
            bind: ip,
            advertise: Arc::new(|at: SocketAddr| Ok(at)),
        })
    }

    /// Have the agent prepare `runtime`'s worker on the far host and become
    /// it; its TCP transfers connect back over `route`.
    pub fn start_worker(mut self, runtime: Runtime, route: TcpRoute) -> Result<Peer, PeerError> {
        self.request(&json!({"op": "worker", "runtime": runtime.name()}))?;
        let launcher = self.launcher.clone();
        self.peer
            .become_worker(runtime, route)
            .map_err(|e| far_error(&launcher, e))?;
        Ok(self.peer)
    }

    /// The launcher's process id on this machine.
    pub fn pid(&self) -> u32 {
        self.peer.pid()
    }

    /// What stops the agent's op under way from another thread.
    pub fn stopper(&self) -> Result<Stopper, PeerError> {
        self.peer
            .input()
            .map(Stopper)
            .map_err(|e| PeerError::io("keeping a line to the agent", e))
    }

    /// Ask the agent to exit, and reap the launcher.
    pub fn close(self) {
        self.peer.close();
    }
}

/// An error of the launcher or the agent, as one line naming the fix.
pub(crate) fn far_error(launcher: &str, e: PeerError) -> PeerError {
    let detail = match e {
        PeerError::Exited { status, stderr, .. } => {
            let said = format!("{status}{stderr}");
            if said.contains("127") || said.contains("not found") {
                format!("could not start ({said}): install toll on the far host and put it on its PATH (cargo install --path crates/cli), or name it in full with --remote-cmd '… /path/to/toll agent'")
            } else if launcher.starts_with("ssh") && said.contains("255") {
                format!("could not connect ({said}): check that `ssh HOST true` works without a password prompt (toll runs ssh with BatchMode)")
            } else if said.contains("unrecognized subcommand") {
                format!("is a toll without `agent` ({said}): install this version of toll on the far host")
            } else {
                format!("exited ({said})")
            }
        }
        PeerError::TimedOut { secs, .. } => {
            format!("did not answer within {secs} s: check that it runs `toll agent` and nothing that waits for input")
        }
        PeerError::Protocol { detail, .. } => {
            format!("did not answer as `toll agent`: it {detail}")
        }
        PeerError::Refused { op, detail, .. } => format!("refused `{op}`: {detail}"),
        PeerError::Ceiling { what, .. } => {
            format!("stalled: no answer by its {what}, so it was stopped")
        }
        other => return other,
    };
    PeerError::Remote {
        launcher: launcher.into(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_hello_names_its_host_and_addresses() {
        let h = json!({"ok": true, "runtime": "agent", "agent": 1, "wire": 1, "version": "toll 0.1.0",
                       "pid": 7, "host": "b", "ssh_client": "10.0.0.5", "addrs": ["10.0.0.9", "x"]});
        let a = AgentHello::from_answer(&h).unwrap();
        assert_eq!(a.ssh_client, Some("10.0.0.5".parse().unwrap()));
        assert_eq!(a.addrs, vec!["10.0.0.9".parse::<IpAddr>().unwrap()]);
        assert_eq!(AgentHello::from_answer(&json!({"runtime": "rust"})), None);
    }

    #[test]
    fn a_missing_toll_or_ssh_failure_names_the_fix() {
        let exited = |status: &str, stderr: &str| PeerError::Exited {
            peer: "rust",
            status: status.into(),
            stderr: stderr.into(),
        };
        let e = far_error(
            "ssh b toll agent",
            exited(
                "exit status: 127",
                ": bash: line 1: toll: command not found",
            ),
        );
        let text = e.to_string();
        assert!(text.contains("install toll on the far host"), "{text}");
        assert!(!text.contains('\n'));
        let e = far_error(
            "ssh -o BatchMode=yes b toll agent",
            exited("exit status: 255", ": Permission denied"),
        );
        assert!(e.to_string().contains("without a password prompt"), "{e}");
    }
}
