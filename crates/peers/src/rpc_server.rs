//! The RPC servers of spec/rpc.md: how toll finds, builds and starts each
//! runtime's server ([`launch_rpc_server`]), and [`RpcServer`], a running one
//! driven over its control plane (`hello`, `serve`, `stats`, `exit`).
//!
//! [`RpcServer`] does not care how its process was started: from a
//! [`Launch`] here, `toll rpc-server` (the Rust one), or a launcher such as
//! `ssh HOST toll agent` ([`RpcServer::from_command`]). Its stdout is read on
//! a thread of its own, so every answer has a deadline: a server that hangs
//! is killed, never waited for.

use crate::agent::AgentHello;
use crate::control::{self, Answer};
use crate::error::PeerError;
use crate::group::Group;
use crate::runtime::{Launch, Runtime, GRPCIO_PIN, RPC_SERVER_NAMES};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// spec/rpc.md's version, which toll speaks.
pub const RPC_VERSION: u64 = 1;
/// Every stack of spec/rpc.md, from the floor up.
pub const STACKS: [&str; 4] = ["raw", "http1", "h2", "grpc"];
/// How long a server may take to answer a control command (a far server's
/// first `hello` comes after ssh has connected).
const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);
/// Lines of the server's stderr kept to explain a crash.
const STDERR_LINES: usize = 20;

/// Find the toolchain of `runtime` (`rust`, `go` or `python`) and build its
/// RPC server if needed (Go: `go build`, cached), telling `note` before a
/// build that takes a while. The Rust server is toll's own `toll rpc-server`.
pub fn launch_rpc_server(runtime: &str, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let no_server = || PeerError::NoRpcServer {
        runtime: runtime.into(),
        valid: RPC_SERVER_NAMES,
    };
    let rt: Runtime = runtime.parse().map_err(|_| no_server())?;
    rt.prepare_rpc_server(note)
}

/// The stacks `runtime`'s RPC server serves on this machine, known without
/// building or starting it (for `toll doctor`): none for a runtime without
/// a server, and Python's `grpc` only when its python imports grpcio.
pub fn rpc_stacks(runtime: Runtime) -> Vec<&'static str> {
    match runtime {
        Runtime::Rust | Runtime::Go => STACKS.to_vec(),
        Runtime::Python => {
            let grpcio = runtime.detect().is_ok_and(|py| {
                Command::new(py.program)
                    .args(["-c", "import grpc"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            });
            let mut stacks = vec!["raw", "http1"];
            if grpcio {
                stacks.push("grpc");
            }
            stacks
        }
        _ => vec![],
    }
}

/// The command that gives the Python RPC server its grpc stack.
pub fn grpcio_install() -> String {
    format!("python3 -m pip install {GRPCIO_PIN}")
}

/// What a server said in answer to `hello`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcHello {
    pub runtime: String,
    /// Its runtime's and libraries' versions, as it words them.
    pub version: String,
    /// The stacks it can serve on this machine.
    pub stacks: Vec<String>,
    pub pid: u32,
}

impl RpcHello {
    /// Read an answer to `hello`; it must speak rpc [`RPC_VERSION`].
    pub fn from_answer(h: &Value) -> Result<RpcHello, String> {
        match h.get("rpc").and_then(Value::as_u64) {
            Some(RPC_VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "it speaks rpc {v}; this toll speaks rpc {RPC_VERSION}"
                ))
            }
            None => return Err("its hello lacks `rpc`: it is not an rpc server".into()),
        }
        let string = |k: &str| h.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let stacks = h
            .get("stacks")
            .and_then(Value::as_array)
            .ok_or("its hello lacks `stacks`")?
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect();
        Ok(RpcHello {
            runtime: string("runtime"),
            version: string("version"),
            stacks,
            pid: h.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32,
        })
    }
}

/// A server's counters (spec/rpc.md, `stats`): take one before and one after
/// a trial, and [`RpcStats::since`] gives the trial's calls and CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RpcStats {
    /// Calls answered since the server started, every stack together.
    pub calls: u64,
    /// The server process's user + system CPU time so far.
    pub cpu_ns: u64,
}

impl RpcStats {
    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: RpcStats) -> RpcStats {
        RpcStats {
            calls: self.calls.saturating_sub(earlier.calls),
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
        }
    }
}

/// A running RPC server: its process (in a process group of its own that
/// dies with toll, killed on drop) and its control plane.
pub struct RpcServer {
    child: Group,
    stdin: ChildStdin,
    lines: Receiver<io::Result<Option<String>>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Who it is in messages: `go rpc server`, …
    label: &'static str,
    timeout: Duration,
    hello: RpcHello,
}

impl RpcServer {
    /// Start a prepared server (from [`launch_rpc_server`]) and say hello.
    pub fn start(launch: &Launch) -> Result<RpcServer, PeerError> {
        RpcServer::from_command(launch.command())
    }

    /// Start the server `cmd` runs (any launcher: its stdin and stdout are
    /// the control plane) and say hello.
    pub fn from_command(cmd: Command) -> Result<RpcServer, PeerError> {
        let mut server = RpcServer::spawn(cmd)?;
        server.greet()?;
        Ok(server)
    }

    /// Start `launcher` (a shell command line that ends by running `toll
    /// agent` on a far host), check that an agent answers, and have it
    /// become `runtime`'s RPC server there (spec/wire.md, `rpc-server`).
    /// Returns the server and what the agent said of its host.
    pub fn from_agent(launcher: &str, runtime: &str) -> Result<(RpcServer, AgentHello), PeerError> {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", launcher]);
        let far = |e| crate::agent::far_error(launcher, e);
        let mut server = RpcServer::spawn(cmd).map_err(far)?;
        server.label = "far end";
        let h = server
            .command(&json!({"op": "hello"}), "hello")
            .map_err(far)?;
        let Some(agent) = AgentHello::from_answer(&h) else {
            return Err(PeerError::Remote {
                launcher: launcher.into(),
                detail: format!(
                    "answered as {} rather than as `toll agent`: end the launcher with `toll agent`",
                    h.get("runtime").and_then(Value::as_str).unwrap_or("something else")
                ),
            });
        };
        server
            .command(
                &json!({"op": "rpc-server", "runtime": runtime}),
                "rpc-server",
            )
            .map_err(far)?;
        server.greet().map_err(far)?;
        Ok((server, agent))
    }

    /// Start `cmd` with its control plane piped (no `hello` yet).
    fn spawn(mut cmd: Command) -> Result<RpcServer, PeerError> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let program = cmd.get_program().to_string_lossy().into_owned();
        let (child, io) = Group::spawn(cmd)
            .map_err(|e| PeerError::io(format!("starting the rpc server {program}"), e))?;
        let stdin = io.stdin.expect("piped stdin");
        let stdout = io.stdout.expect("piped stdout");
        let stderr = io.stderr.expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            let mut line = String::new();
            loop {
                let read = control::read_line(&mut out, &mut line);
                let last = !matches!(read, Ok(true));
                let sent = tx.send(read.map(|more| more.then(|| line.clone())));
                if last || sent.is_err() {
                    return;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = tail.lock().expect("stderr tail");
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(RpcServer {
            child,
            stdin,
            lines,
            stderr_tail,
            label: "rpc server",
            timeout: CONTROL_TIMEOUT,
            hello: RpcHello {
                runtime: String::new(),
                version: String::new(),
                stacks: vec![],
                pid: 0,
            },
        })
    }

    /// Say hello and read what the server is.
    fn greet(&mut self) -> Result<(), PeerError> {
        let h = self.command(&json!({"op": "hello"}), "hello")?;
        // Not `protocol()`: a program that answered and exited is still the wrong program.
        self.hello = RpcHello::from_answer(&h).map_err(|detail| PeerError::Protocol {
            peer: "rpc server",
            detail,
        })?;
        self.label = match self.hello.runtime.as_str() {
            "rust" => "rust rpc server",
            "go" => "go rpc server",
            "python" => "python rpc server",
            _ => "rpc server",
        };
        Ok(())
    }

    /// Any other command of spec/rpc.md (`serve` on a unix socket, the
    /// broker's `register`): its answer, `ok` checked.
    pub fn request(&mut self, cmd: &Value) -> Result<Value, PeerError> {
        let op = cmd
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        self.command(cmd, &op)
    }

    /// What the server said it is and serves.
    pub fn hello(&self) -> &RpcHello {
        &self.hello
    }

    /// The server process's id (the launcher's, when started through one).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How long each control command may take from now on (default 30 s).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Serve `stack` on `host:port` (port 0: any free one); the port it got.
    /// A stack the server does not serve here is refused before asking, with
    /// the fix (what to install, or which server has it).
    pub fn serve(&mut self, stack: &str, host: &str, port: u16) -> Result<u16, PeerError> {
        if !self.hello.stacks.iter().any(|s| s == stack) {
            return Err(PeerError::StackUnsupported {
                server: self.hello.runtime.clone(),
                stack: stack.into(),
                detail: missing_stack(&self.hello, stack),
            });
        }
        let cmd = json!({"op": "serve", "stack": stack, "host": host, "port": port});
        let a = self.command(&cmd, "serve")?;
        match a.get("port").and_then(Value::as_u64) {
            Some(p) if p > 0 && p <= u16::MAX as u64 && (port == 0 || p == port as u64) => {
                Ok(p as u16)
            }
            _ => Err(self.protocol(format!("answered `serve` without a valid port: {a}"))),
        }
    }

    /// The server's calls and CPU time so far.
    pub fn stats(&mut self) -> Result<RpcStats, PeerError> {
        let a = self.command(&json!({"op": "stats"}), "stats")?;
        let field = |k: &str| a.get(k).and_then(Value::as_u64);
        match (field("calls"), field("cpu_ns")) {
            (Some(calls), Some(cpu_ns)) => Ok(RpcStats { calls, cpu_ns }),
            _ => Err(self.protocol(format!(
                "answered `stats` without `calls` and `cpu_ns`: {a}"
            ))),
        }
    }

    /// Ask the server to exit and reap it (killed if it takes over 2 s).
    pub fn close(mut self) {
        let _ = self.stdin.write_all(b"{\"op\":\"exit\"}\n");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if self.child.try_wait().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Send one command and read its one-line answer; `{"ok":false}` becomes
    /// an error, and so does no answer within the timeout (the server is
    /// then killed).
    fn command(&mut self, cmd: &Value, op: &str) -> Result<Value, PeerError> {
        let sent = writeln!(self.stdin, "{cmd}").and_then(|_| self.stdin.flush());
        if sent.is_err() {
            return Err(self.protocol(format!("could not send `{op}`")));
        }
        let line = match self.lines.recv_timeout(self.timeout) {
            Ok(Ok(Some(line))) => line,
            Ok(Err(e)) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(self.protocol(format!("answered `{op}` with {e}")))
            }
            Ok(Ok(None)) | Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                return Err(self.protocol(format!("closed its stdout instead of answering `{op}`")))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.child.kill();
                return Err(PeerError::TimedOut {
                    peer: self.label,
                    what: format!("`{op}`"),
                    secs: self.timeout.as_secs(),
                });
            }
        };
        match control::parse_answer(&line) {
            Answer::Ok(v) => Ok(v),
            Answer::NotJson(shown) => Err(self.protocol(format!(
                "answered `{op}` with a line that is not JSON: {shown:?}"
            ))),
            Answer::Refused { detail, .. } => Err(PeerError::Refused {
                peer: self.label,
                op: op.into(),
                detail,
                limit: false,
            }),
        }
    }

    /// A protocol error, or, when the server has died, the error that says
    /// how (its status and the last line of its stderr).
    fn protocol(&mut self, detail: impl Into<String>) -> PeerError {
        let mut status = self.child.try_wait();
        if status.is_none() {
            // Give a dying server a moment to be reaped, so its exit is reported as such.
            std::thread::sleep(Duration::from_millis(50));
            status = self.child.try_wait();
        }
        let Some(status) = status else {
            return PeerError::Protocol {
                peer: self.label,
                detail: detail.into(),
            };
        };
        std::thread::sleep(Duration::from_millis(20)); // let the stderr thread catch up
        let tail = self.stderr_tail.lock().expect("stderr tail");
        let stderr = tail
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!(": {}", l.trim()))
            .unwrap_or_default();
        PeerError::Exited {
            peer: self.label,
            status: status.to_string(),
            stderr,
        }
    }
}

/// Why a server does not serve `stack`, and the fix.
fn missing_stack(hello: &RpcHello, stack: &str) -> String {
    let serves = format!("it serves {}", hello.stacks.join(", "));
    match (hello.runtime.as_str(), stack) {
        (_, s) if !STACKS.contains(&s) => {
            format!(
                "there is no such stack: the stacks are {}",
                STACKS.join(", ")
            )
        }
        ("python", "grpc") => format!(
            "grpcio is not installed for this python: install it with `{}`",
            grpcio_install()
        ),
        ("python", "h2") => format!(
            "Python's standard library has no HTTP/2 server ({serves}): use the go or rust server"
        ),
        _ => serves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_must_speak_rpc_1_and_list_its_stacks() {
        let h = json!({"ok":true,"runtime":"go","version":"go1.26 grpc-go 1.84.0","rpc":1,"pid":7,
                       "stacks":["raw","http1","h2","grpc"]});
        let hello = RpcHello::from_answer(&h).unwrap();
        assert_eq!(hello.runtime, "go");
        assert_eq!(hello.stacks, STACKS);
        assert_eq!(hello.pid, 7);
        let v2 = json!({"ok":true,"rpc":2,"stacks":[]});
        assert!(RpcHello::from_answer(&v2).unwrap_err().contains("rpc 2"));
        let worker = json!({"ok":true,"wire":1,"transports":["pipe"]});
        assert!(RpcHello::from_answer(&worker)
            .unwrap_err()
            .contains("not an rpc server"));
    }

    #[test]
    fn a_missing_stack_names_its_fix() {
        let py = RpcHello {
            runtime: "python".into(),
            version: String::new(),
            stacks: vec!["raw".into(), "http1".into()],
            pid: 1,
        };
        assert!(missing_stack(&py, "grpc").contains("pip install grpcio=="));
        assert!(missing_stack(&py, "h2").contains("go or rust"));
        assert!(missing_stack(&py, "smtp").contains("raw, http1, h2, grpc"));
    }

    #[test]
    fn stats_since_is_the_difference() {
        let a = RpcStats {
            calls: 10,
            cpu_ns: 1_000,
        };
        let b = RpcStats {
            calls: 1610,
            cpu_ns: 9_000,
        };
        assert_eq!(
            b.since(a),
            RpcStats {
                calls: 1600,
                cpu_ns: 8_000
            }
        );
    }

    #[test]
    fn only_rust_go_and_python_have_a_server() {
        let e = launch_rpc_server("erlang", &mut |_| {}).err().unwrap();
        assert_eq!(
            e.to_string(),
            "there is no rpc server for `erlang`: the rpc servers are rust, go, python"
        );
        assert!(launch_rpc_server("cobol", &mut |_| {}).is_err());
    }
}
