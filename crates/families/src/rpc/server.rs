//! `toll rpc-server`: the Rust server of spec/rpc.md, a child process that
//! reads its control plane on stdin and serves the four stacks (and the
//! broker) with tokio, hyper and tonic, on the address toll names (loopback,
//! or the far end's own across a link or on a far host).
//!
//! One current-thread tokio runtime on its own thread serves http1, h2,
//! grpc and the broker: a null call's server side then costs what the
//! stack costs, with no hand-off between worker threads; `raw`, the floor,
//! is served on blocking sockets, a thread per connection (see
//! [`listen`]). The process's CPU time (`stats`) is the stacks' alone. The control plane is plain blocking I/O on the
//! main thread, so a busy runtime never delays an answer to toll.

use super::listen::{self, Counters, Fault};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;

/// The protocol version of spec/rpc.md this server speaks.
pub const RPC_VERSION: u32 = 1;

/// The stacks this server serves.
pub const STACKS: [&str; 4] = ["raw", "http1", "h2", "grpc"];

/// Run the server until `exit` or the end of stdin; the process's exit code.
pub fn run() -> i32 {
    let fault = std::env::var("TOLL_RPC_SERVER_FAULT")
        .ok()
        .and_then(|f| Fault::parse(&f));
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toll rpc-server: cannot start tokio: {e}");
            return 1;
        }
    };
    let handle = rt.handle().clone();
    std::thread::spawn(move || rt.block_on(std::future::pending::<()>()));
    let counters = Arc::new(Counters::new(fault));
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Err(e) => {
                json!({"ok": false, "error": format!("not JSON ({e}): send one JSON object per line")})
            }
            Ok(cmd) => match cmd.get("op").and_then(Value::as_str) {
                Some("exit") => return 0,
                Some("hello") => json!({
                    "ok": true, "runtime": "rust",
                    "version": format!("rust toll {} tokio hyper tonic", env!("CARGO_PKG_VERSION")),
                    "rpc": RPC_VERSION, "pid": std::process::id(), "stacks": STACKS,
                    "broker": true, "unix": true,
                }),
                Some("stats") => json!({
                    "ok": true, "calls": counters.calls(), "cpu_ns": cpu_ns(),
                }),
                Some("serve") => serve(&cmd, &handle, &counters),
                Some("register") => register(&cmd, &counters),
                Some(op) => {
                    json!({"ok": false, "error": format!("unknown op `{op}`: this server knows hello, serve, register, stats, exit")})
                }
                None => json!({"ok": false, "error": "no \"op\": send {\"op\":\"hello\"} first"}),
            },
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    0
}

/// `serve`: bind now (so a bad address is answered at once), serve from the runtime.
fn serve(cmd: &Value, rt: &tokio::runtime::Handle, counters: &Arc<Counters>) -> Value {
    let stack = cmd.get("stack").and_then(Value::as_str).unwrap_or("");
    if !STACKS.contains(&stack) && stack != "broker" {
        return json!({"ok": false, "error": format!("unknown stack `{stack}`: this server serves {} and broker", STACKS.join(", "))});
    }
    let _enter = rt.enter();
    if let Some(path) = cmd.get("unix").and_then(Value::as_str) {
        if stack != "raw" {
            return json!({"ok": false, "error": format!("{stack} over a unix socket: only raw is served on one")});
        }
        let _ = std::fs::remove_file(path);
        return match std::os::unix::net::UnixListener::bind(path) {
            Ok(l) => {
                let c = counters.clone();
                std::thread::spawn(move || listen::raw_unix(l, c));
                json!({"ok": true, "event": "listening", "stack": stack, "unix": path})
            }
            Err(e) => json!({"ok": false, "error": format!("cannot listen on {path}: {e}")}),
        };
    }
    let host = cmd
        .get("host")
        .and_then(Value::as_str)
        .unwrap_or("127.0.0.1");
    let port = cmd.get("port").and_then(Value::as_u64).unwrap_or(0);
    let ip: IpAddr = match host.parse() {
        Ok(ip) => ip,
        Err(_) => {
            return json!({"ok": false, "error": format!("host `{host}` is not an IP address: give 127.0.0.1")})
        }
    };
    let Ok(port) = u16::try_from(port) else {
        return json!({"ok": false, "error": format!("port {port} is past 65535")});
    };
    let std_listener = match TcpListener::bind(SocketAddr::new(ip, port)) {
        Ok(l) => l,
        Err(e) => {
            return json!({"ok": false, "error": format!("cannot listen on {host}:{port}: {e}")})
        }
    };
    let port = std_listener.local_addr().map(|a| a.port()).unwrap_or(0);
    if stack == "raw" {
        let c = counters.clone();
        std::thread::spawn(move || listen::raw_tcp(std_listener, c));
        return json!({"ok": true, "event": "listening", "stack": stack, "port": port});
    }
    let listener = match std_listener
        .set_nonblocking(true)
        .and_then(|_| tokio::net::TcpListener::from_std(std_listener))
    {
        Ok(l) => l,
        Err(e) => {
            return json!({"ok": false, "error": format!("cannot listen on {host}:{port}: {e}")})
        }
    };
    let c = counters.clone();
    match stack {
        "http1" => rt.spawn(listen::http1(listener, c)),
        "h2" => rt.spawn(listen::h2(listener, c)),
        "grpc" => rt.spawn(listen::grpc(listener, c)),
        _ => rt.spawn(listen::broker(listener, c)),
    };
    json!({"ok": true, "event": "listening", "stack": stack, "port": port})
}

/// `register` (toll's broker only): one more server of a stack.
fn register(cmd: &Value, counters: &Counters) -> Value {
    let stack = cmd.get("stack").and_then(Value::as_str);
    let addr = cmd.get("addr").and_then(Value::as_str);
    match (stack, addr) {
        (Some(s), Some(a)) => {
            counters.register(s, a);
            json!({"ok": true})
        }
        _ => json!({"ok": false, "error": "register needs \"stack\" and \"addr\" (host:port)"}),
    }
}

/// This process's user + system CPU time, ns (getrusage RUSAGE_SELF).
pub fn cpu_ns() -> u64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let ru = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr());
        ru.assume_init()
    };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}
