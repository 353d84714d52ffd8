//! `toll agent`, the far end's side: answers `hello` with what this host is
//! (its name, its addresses, the ssh client that reached it), and on
//! `worker` prepares that runtime's worker here and becomes it (exec), so
//! the harness goes on talking to the worker over the same stdin/stdout;
//! on `rpc-server` it becomes that runtime's RPC server (spec/rpc.md) the
//! same way. `stop`, or the end of its input, ends the op under way (an
//! http load) and then the agent: it never outlives its coordinator.

use crate::control;
use crate::runtime::Runtime;
use serde_json::{json, Value};
use std::io::{self, Write};
use std::net::IpAddr;
use std::os::unix::process::CommandExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;

/// The agent protocol's version, in its `hello`.
pub const AGENT_VERSION: u64 = 1;

fn answer(out: &mut impl Write, v: &Value) -> io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}

/// Serve until `exit`, end of input or a `worker` (which replaces this process).
pub fn run() -> i32 {
    run_with(&[], &mut |_, _, _| Value::Null)
}

/// The same, with more ops: a command whose op is in `ops` is answered by
/// `handle(op, command, stop)` (one line, as every answer), and `hello`
/// lists them. How another family (rpc, http) has the agent do its work on
/// the far host without a second protocol.
///
/// `stop` is raised the moment the coordinator can no longer be heard: a
/// `stop` line, the end of input (the coordinator, or the ssh between,
/// went away, even by SIGKILL) or a read error. Input is read by a thread
/// of its own the whole time, so a long op (an http load) sees it at once
/// rather than after its answer; the agent exits once the op under way
/// has answered.
pub fn run_with(
    ops: &[&str],
    handle: &mut dyn FnMut(&str, &Value, &Arc<AtomicBool>) -> Value,
) -> i32 {
    let stop = Arc::new(AtomicBool::new(false));
    let input = Input::start(stop.clone());
    let mut out = io::stdout().lock();
    loop {
        let line = match input.lines.recv() {
            Ok(Ok(line)) => line,
            Ok(Err(_)) => return 1,
            Err(_) => return 0,
        };
        let reply = match control::parse_command(&line) {
            None => continue,
            Some(Err(e)) => json!({"ok": false, "error": e}),
            Some(Ok((op, cmd))) => match op.as_str() {
                "hello" => {
                    let mut h = hello();
                    if let Some(list) = h["ops"].as_array_mut() {
                        list.extend(ops.iter().map(|o| json!(o)));
                    }
                    h
                }
                "worker" => match worker(&cmd, &mut out) {
                    // Only a failed exec returns.
                    Ok(never) => match never {},
                    Err(e) => {
                        input.resume();
                        json!({"ok": false, "error": e})
                    }
                },
                "rpc-server" => match rpc_server(&cmd, &mut out) {
                    Ok(never) => match never {},
                    Err(e) => {
                        input.resume();
                        json!({"ok": false, "error": e})
                    }
                },
                "exit" => return 0,
                op if ops.contains(&op) => handle(op, &cmd, &stop),
                op => {
                    let known = ["hello", "worker", "rpc-server", "stop", "exit"]
                        .iter()
                        .chain(ops)
                        .copied();
                    let known: Vec<&str> = known.collect();
                    json!({"ok": false, "error": format!("unknown op `{op}`: the agent knows {}", known.join(", "))})
                }
            },
        };
        if answer(&mut out, &reply).is_err() {
            return 1;
        }
    }
}

/// The agent's input, read by a thread of its own: each command line
/// handed over, a `stop` (never handed over) or the end raising the flag.
struct Input {
    lines: Receiver<io::Result<String>>,
    /// After a `worker` or `rpc-server` the reader waits on this: the
    /// process is about to become the worker, whose input that is.
    resume: SyncSender<()>,
}

impl Input {
    fn start(stop: Arc<AtomicBool>) -> Input {
        let (tx, lines) = mpsc::channel();
        let (resume, resumed) = mpsc::sync_channel::<()>(1);
        std::thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut line = String::new();
            loop {
                match control::read_line(&mut stdin, &mut line) {
                    Ok(true) => {}
                    Ok(false) => {
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                    Err(e) => {
                        stop.store(true, Ordering::SeqCst);
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
                let op = match control::parse_command(&line) {
                    Some(Ok((op, _))) => op,
                    _ => String::new(),
                };
                if op == "stop" {
                    stop.store(true, Ordering::SeqCst);
                    continue;
                }
                if tx.send(Ok(line.clone())).is_err() {
                    return;
                }
                if matches!(op.as_str(), "worker" | "rpc-server") && resumed.recv().is_err() {
                    return;
                }
            }
        });
        Input { lines, resume }
    }

    /// The worker did not start: read on.
    fn resume(&self) {
        let _ = self.resume.try_send(());
    }
}

fn hello() -> Value {
    // ssh sets SSH_CONNECTION to "client_ip client_port server_ip server_port":
    // the client's address is the harness's as this host sees it.
    let ssh = std::env::var("SSH_CONNECTION").unwrap_or_default();
    let ssh: Vec<&str> = ssh.split_whitespace().collect();
    let ssh_at = |i: usize| ssh.get(i).and_then(|a| a.parse::<IpAddr>().ok());
    let (ssh_client, ssh_server) = (ssh_at(0), ssh_at(2));
    json!({
        "ok": true, "runtime": "agent", "agent": AGENT_VERSION, "wire": 1,
        "version": concat!("toll ", env!("CARGO_PKG_VERSION")),
        "pid": std::process::id(),
        "host": nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_default(),
        "ssh_client": ssh_client.map(|a| a.to_string()),
        "ssh_server": ssh_server.map(|a| a.to_string()),
        "addrs": addresses().iter().map(ToString::to_string).collect::<Vec<_>>(),
        "ops": ["hello", "worker", "rpc-server", "stop", "exit"],
        "runtimes": Runtime::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
    })
}

/// This host's addresses other than loopback, IPv4 first.
fn addresses() -> Vec<IpAddr> {
    let mut addrs: Vec<IpAddr> = nix::ifaddrs::getifaddrs()
        .map(|all| {
            all.filter_map(|i| {
                let a = i.address?;
                a.as_sockaddr_in()
                    .map(|s| IpAddr::V4(s.ip()))
                    .or_else(|| a.as_sockaddr_in6().map(|s| IpAddr::V6(s.ip())))
            })
            .filter(|a| !a.is_loopback() && !a.is_unspecified())
            .filter(|a| !matches!(a, IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80))
            .collect()
        })
        .unwrap_or_default();
    addrs.sort_by_key(|a| a.is_ipv6());
    addrs.dedup();
    addrs
}

/// Prepare `runtime`'s worker (building it on first use, as `toll transfer`
/// does here), say so, and exec it.
fn worker(cmd: &Value, out: &mut impl Write) -> Result<std::convert::Infallible, String> {
    let name = cmd
        .get("runtime")
        .and_then(Value::as_str)
        .ok_or("`worker` needs a `runtime`")?;
    let runtime: Runtime = name.parse()?;
    let launch = runtime
        .prepare_noting(&mut |m| eprintln!("toll agent: {m}"))
        .map_err(|e| e.to_string())?;
    let ok = json!({"ok": true, "event": "worker", "runtime": runtime.name(),
                    "toolchain": [launch.toolchain.0, launch.toolchain.1]});
    answer(out, &ok).map_err(|e| e.to_string())?;
    let e = launch.command().exec();
    // The harness was told the worker is coming: say why it is not on stderr,
    // and exit, which the harness reports with this line.
    eprintln!(
        "toll agent: cannot start the {runtime} worker {}: {e}",
        launch.program.display()
    );
    std::process::exit(1);
}

/// Prepare `runtime`'s RPC server (Rust: this toll's `rpc-server`; Go's
/// built on first use), say so, and exec it.
fn rpc_server(cmd: &Value, out: &mut impl Write) -> Result<std::convert::Infallible, String> {
    let name = cmd
        .get("runtime")
        .and_then(Value::as_str)
        .ok_or("`rpc-server` needs a `runtime`")?;
    let launch = crate::rpc_server::launch_rpc_server(name, &mut |m| eprintln!("toll agent: {m}"))
        .map_err(|e| e.to_string())?;
    answer(
        out,
        &json!({"ok": true, "event": "rpc-server", "runtime": name}),
    )
    .map_err(|e| e.to_string())?;
    let e = launch.command().exec();
    eprintln!(
        "toll agent: cannot start the {name} rpc server {}: {e}",
        launch.program.display()
    );
    std::process::exit(1);
}
