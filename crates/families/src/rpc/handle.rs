//! A running RPC server: the child process of one runtime, driven over its
//! stdin/stdout by spec/rpc.md's control plane (hello, serve, stats, exit).
//! Every server, whatever its language, is started through
//! [`start_server`], so toll times them all the same way.

use super::{ServerRuntime, Stack};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// How long a server may take to answer a control command.
const ANSWER: Duration = Duration::from_secs(10);

/// Why a server could not be started or driven.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot start the {runtime} rpc server ({why})")]
    Spawn { runtime: ServerRuntime, why: String },
    #[error("the {runtime} rpc server {what}")]
    Control {
        runtime: ServerRuntime,
        what: String,
    },
}

/// A started server; stopped (exit, then killed) when dropped.
pub struct ServerHandle {
    pub runtime: ServerRuntime,
    /// What it said to `hello`.
    pub version: String,
    pub stacks: Vec<String>,
    pub pid: u32,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// The server's counters (`stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub calls: u64,
    pub cpu_ns: u64,
}

/// Start a server of `runtime` and read its `hello`. The child inherits
/// toll's environment (the tests' `TOLL_RPC_SERVER_FAULT`).
pub fn start_server(runtime: ServerRuntime) -> Result<ServerHandle, ServerError> {
    let mut cmd = match runtime {
        ServerRuntime::Rust => {
            let exe = std::env::current_exe().map_err(|e| ServerError::Spawn {
                runtime,
                why: format!("where is toll? {e}"),
            })?;
            let mut c = Command::new(exe);
            c.arg("rpc-server");
            c
        }
        // Go's and Python's servers: found (and Go's built, cached) by
        // crates/peers's registry; a missing toolchain names its install.
        ServerRuntime::Go | ServerRuntime::Python => {
            let launch = toll_peers::launch_rpc_server(&runtime.to_string(), &mut |m: &str| {
                eprintln!("note: {m}")
            })
            .map_err(|e| ServerError::Spawn {
                runtime,
                why: e.to_string(),
            })?;
            let mut c = Command::new(&launch.program);
            c.args(&launch.args);
            c
        }
    };
    spawn(runtime, &mut cmd)
}

fn spawn(runtime: ServerRuntime, cmd: &mut Command) -> Result<ServerHandle, ServerError> {
    use std::os::unix::process::CommandExt;
    // Its own process group: Ctrl-C stops toll after the current trial, not
    // the server under it (which exits when toll closes its stdin).
    let mut child = cmd
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| ServerError::Spawn {
            runtime,
            why: e.to_string(),
        })?;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut h = ServerHandle {
        runtime,
        version: String::new(),
        stacks: vec![],
        pid: child.id(),
        child,
        stdin,
        lines,
    };
    let hello = h.command(json!({"op": "hello"}))?;
    if hello.get("rpc").and_then(Value::as_u64) != Some(1) {
        return Err(h.fail(format!(
            "speaks rpc protocol {}, not 1: rebuild it with this toll",
            hello.get("rpc").unwrap_or(&Value::Null)
        )));
    }
    h.version = hello
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    h.stacks = hello
        .get("stacks")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(h)
}

impl ServerHandle {
    fn fail(&self, what: String) -> ServerError {
        ServerError::Control {
            runtime: self.runtime,
            what,
        }
    }

    /// One command, one answer (`ok` checked).
    fn command(&mut self, cmd: Value) -> Result<Value, ServerError> {
        if writeln!(self.stdin, "{cmd}")
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            let why = self.gone();
            return Err(self.fail(why));
        }
        let line = match self.lines.recv_timeout(ANSWER) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(self.fail(format!(
                    "did not answer `{}` within {}s: it is stuck",
                    cmd["op"].as_str().unwrap_or("?"),
                    ANSWER.as_secs()
                )))
            }
            Err(_) => {
                let why = self.gone();
                return Err(self.fail(why));
            }
        };
        let v: Value = serde_json::from_str(&line)
            .map_err(|_| self.fail(format!("answered `{line}`, not JSON")))?;
        if v.get("ok").and_then(Value::as_bool) != Some(true) {
            let why = v
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("no reason");
            return Err(self.fail(format!("refused: {why}")));
        }
        Ok(v)
    }

    fn gone(&mut self) -> String {
        match self.child.try_wait() {
            Ok(Some(st)) => format!("exited ({st}) mid-run"),
            _ => "closed its control plane mid-run".into(),
        }
    }

    /// Serve `stack` on a free loopback port.
    pub fn serve_tcp(&mut self, stack: &str) -> Result<SocketAddr, ServerError> {
        let v =
            self.command(json!({"op": "serve", "stack": stack, "host": "127.0.0.1", "port": 0}))?;
        let port = v.get("port").and_then(Value::as_u64).unwrap_or(0);
        Ok(SocketAddr::from(([127, 0, 0, 1], port as u16)))
    }

    /// Serve `raw` on a unix socket at `path`.
    pub fn serve_unix(&mut self, path: &Path) -> Result<(), ServerError> {
        self.command(json!({"op": "serve", "stack": Stack::Raw.name(), "unix": path}))?;
        Ok(())
    }

    /// Tell the broker (toll's own) about a server of `stack`.
    pub fn register(&mut self, stack: Stack, addr: SocketAddr) -> Result<(), ServerError> {
        self.command(json!({"op": "register", "stack": stack.name(), "addr": addr.to_string()}))?;
        Ok(())
    }

    pub fn stats(&mut self) -> Result<Stats, ServerError> {
        let v = self.command(json!({"op": "stats"}))?;
        let get = |k| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        Ok(Stats {
            calls: get("calls"),
            cpu_ns: get("cpu_ns"),
        })
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"op": "exit"}));
        let _ = self.stdin.flush();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
