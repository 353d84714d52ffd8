//! A running worker: its process, its control plane, and a watchdog that
//! stops it when it hangs.

use crate::control::{self, Answer};
use crate::error::PeerError;
use crate::group::Group;
use crate::runtime::{Launch, Runtime};
use crate::session::Session;
use crate::transport::{self, Alive, PipePair, Transport};
use crate::watchdog::{Watchdog, FIRED_MEMORY, FIRED_STOPPED};
use crate::worker_end::WorkerEnd;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the worker may take to answer a control command.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);
/// Lines of the worker's stderr kept to explain a crash.
const STDERR_LINES: usize = 20;

/// What a worker said in answer to `hello`.
#[derive(Debug, Clone)]
pub struct Hello {
    pub runtime: String,
    pub version: String,
    pub transports: Vec<String>,
    /// The units it can spawn and ring.
    pub units: Vec<String>,
    /// The `toll ffi` bindings it can call now.
    pub bindings: Vec<String>,
    pub pid: u32,
}

impl Hello {
    /// Read a worker's answer to `hello`; fields it lacks are left empty,
    /// but it must speak wire 1.
    pub fn from_answer(h: &Value) -> Result<Hello, &'static str> {
        let string = |k: &str| h.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let strings = |k: &str| -> Vec<String> {
            h.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        if h.get("wire").and_then(Value::as_u64) != Some(1) {
            return Err("its hello does not say wire 1");
        }
        Ok(Hello {
            runtime: string("runtime"),
            version: string("version"),
            transports: strings("transports"),
            units: strings("units"),
            bindings: strings("bindings"),
            pid: h.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32,
        })
    }
}

/// The time and memory a worker may use for one `spawn` or `ring` point.
#[derive(Debug, Clone, Copy)]
pub struct Ceiling {
    pub time: Duration,
    /// Growth of the worker's own process group's memory, in kB.
    pub mem_kb: u64,
}

/// A started worker process.
pub struct Peer {
    runtime: Runtime,
    /// The worker, leading its own group (killed with it on drop).
    child: Arc<Group>,
    pipes: PipePair,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    watchdog: Watchdog,
    /// The ceiling of the `spawn` or `ring` under way, if any.
    ceiling: Option<Ceiling>,
    /// What the worker said it is.
    pub hello: Hello,
    /// How the worker was started (for the fingerprint).
    pub launch: Launch,
    /// Where a worker on another host reaches the harness over TCP.
    tcp_route: Option<TcpRoute>,
}

/// How a worker on another host (started by `toll agent`) reaches the
/// harness's TCP listener: the harness listens on `bind`, and tells the
/// worker to connect to `advertise(listener's address)` (the same address,
/// or one that a link's relay forwards to it).
#[derive(Clone)]
pub struct TcpRoute {
    pub bind: std::net::IpAddr,
    pub advertise:
        Arc<dyn Fn(std::net::SocketAddr) -> std::io::Result<std::net::SocketAddr> + Send + Sync>,
}

impl std::fmt::Debug for TcpRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TcpRoute(bind {})", self.bind)
    }
}

impl Peer {
    /// Start the worker of `runtime` (in its own process group, so a Ctrl-C
    /// reaches toll, which then ends the run cleanly; and SIGTERMed should
    /// toll die) and say hello.
    pub fn start(runtime: Runtime, launch: Launch) -> Result<Peer, PeerError> {
        let mut pipes =
            PipePair::new().map_err(|e| PeerError::io("making the worker's pipes", e))?;
        let mut cmd = launch.command();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        pipes.attach(&mut cmd);
        let (child, io) = Group::spawn(cmd).map_err(|e| {
            PeerError::io(
                format!("starting the {runtime} worker {}", launch.program.display()),
                e,
            )
        })?;
        let child = Arc::new(child);
        pipes.release_child_ends();
        let stdin = io.stdin.expect("piped stdin");
        let stdout = BufReader::new(io.stdout.expect("piped stdout"));
        let stderr = io.stderr.expect("piped stderr");
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
        let watchdog = Watchdog::start(child.clone());
        let mut peer = Peer {
            runtime,
            child,
            pipes,
            stdin,
            stdout,
            stderr_tail,
            watchdog,
            ceiling: None,
            hello: Hello {
                runtime: String::new(),
                version: String::new(),
                transports: vec![],
                units: vec![],
                bindings: vec![],
                pid: 0,
            },
            launch,
            tcp_route: None,
        };
        peer.say_hello()?;
        Ok(peer)
    }

    /// Ask the process what it is.
    fn say_hello(&mut self) -> Result<(), PeerError> {
        let h = self.command(&json!({"op": "hello"}), "hello")?;
        match Hello::from_answer(&h) {
            Ok(hello) => self.hello = hello,
            Err(why) => return Err(self.protocol(why)),
        }
        Ok(())
    }

    /// The process (a `toll agent` that has just exec'd a worker) now is a
    /// worker of `runtime`, reached over `route`: say hello to it as one.
    pub(crate) fn become_worker(
        &mut self,
        runtime: Runtime,
        route: TcpRoute,
    ) -> Result<(), PeerError> {
        self.runtime = runtime;
        self.tcp_route = Some(route);
        self.say_hello()
    }

    /// Send a command and read its one-line answer (`{"ok":false}` is an error).
    pub fn request(&mut self, cmd: &Value) -> Result<Value, PeerError> {
        let op = cmd
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        self.command(cmd, &op)
    }

    /// The runtime of this peer.
    pub fn runtime(&self) -> Runtime {
        self.runtime
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A second handle on the worker's input, for a line sent from another
    /// thread while this one waits on an answer (a `stop` to a load agent).
    pub fn input(&self) -> std::io::Result<std::fs::File> {
        use std::os::fd::AsFd;
        Ok(self.stdin.as_fd().try_clone_to_owned()?.into())
    }

    fn protocol(&mut self, detail: impl Into<String>) -> PeerError {
        if let Some(e) = self.exit_error() {
            return e;
        }
        PeerError::Protocol {
            peer: self.runtime.name(),
            detail: detail.into(),
        }
    }

    /// If the worker has died (or was stopped by the watchdog), the error that says so.
    fn exit_error(&mut self) -> Option<PeerError> {
        let peer = self.runtime.name();
        match (self.watchdog.fired.load(Ordering::Relaxed), self.ceiling) {
            (0, _) => {}
            (FIRED_STOPPED, _) => {
                self.child.wait();
                return Some(PeerError::Abandoned { peer });
            }
            (FIRED_MEMORY, Some(c)) => {
                self.child.wait();
                return Some(PeerError::Ceiling {
                    peer,
                    what: format!("memory ceiling of {} MiB", c.mem_kb / 1024),
                });
            }
            (_, Some(c)) => {
                self.child.wait();
                return Some(PeerError::Ceiling {
                    peer,
                    what: format!("time ceiling of {} s", c.time.as_secs_f64()),
                });
            }
            (_, None) => {
                self.child.wait();
                return Some(PeerError::TimedOut {
                    peer,
                    what: "it stopped answering".into(),
                    secs: CONTROL_TIMEOUT.as_secs(),
                });
            }
        }
        let status = match self.child.try_wait() {
            Some(s) => s,
            None => {
                // Give a dying worker a moment to be reaped, so its exit is reported as such.
                std::thread::sleep(Duration::from_millis(50));
                self.child.try_wait()?
            }
        };
        std::thread::sleep(Duration::from_millis(20)); // let the stderr thread catch up
        let tail = self.stderr_tail.lock().expect("stderr tail");
        let stderr = tail
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!(": {}", l.trim()))
            .unwrap_or_default();
        Some(PeerError::Exited {
            peer,
            status: status.to_string(),
            stderr,
        })
    }

    /// Write one command line to the worker.
    fn send(&mut self, cmd: &Value, op: &str) -> Result<(), PeerError> {
        let line = format!("{cmd}\n");
        let sent = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush());
        match sent {
            Ok(()) => Ok(()),
            Err(_) => Err(self.protocol(format!("could not send `{op}`"))),
        }
    }

    /// Send a command and read its one-line answer.
    pub(crate) fn command(&mut self, cmd: &Value, op: &str) -> Result<Value, PeerError> {
        self.send(cmd, op)?;
        self.read_answer(op)
    }

    /// Read one answer line; `{"ok":false}` becomes an error.
    fn read_answer(&mut self, op: &str) -> Result<Value, PeerError> {
        match self.ceiling {
            Some(c) => {
                self.watchdog.arm(c.time);
                self.watchdog.limit_memory(c.mem_kb);
            }
            None => self.watchdog.arm(CONTROL_TIMEOUT),
        }
        let mut line = String::new();
        let read = control::read_line(&mut self.stdout, &mut line);
        self.watchdog.disarm();
        match read {
            Ok(true) => {}
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(self.protocol(format!("answered `{op}` with {e}")))
            }
            Ok(false) | Err(_) => {
                return Err(self.exit_error().unwrap_or_else(|| PeerError::Protocol {
                    peer: self.runtime.name(),
                    detail: format!("closed its stdout instead of answering `{op}`"),
                }))
            }
        }
        match control::parse_answer(&line) {
            Answer::Ok(v) => Ok(v),
            Answer::NotJson(shown) => Err(self.protocol(format!(
                "answered `{op}` with a line that is not JSON: {shown:?}"
            ))),
            Answer::Refused { detail, limit } => Err(PeerError::Refused {
                peer: self.runtime.name(),
                op: op.into(),
                detail,
                limit,
            }),
        }
    }

    /// Run one `spawn` or `ring` command (spec/wire.md) under `ceiling`: the
    /// worker's process group is killed when the point takes longer or the
    /// worker's own process group grows by more (see `Watchdog`).
    pub fn units(&mut self, cmd: &Value, ceiling: Ceiling) -> Result<Value, PeerError> {
        let op = cmd
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("units")
            .to_string();
        self.ceiling = Some(ceiling);
        let answer = self.command(cmd, &op);
        self.ceiling = None;
        answer
    }

    /// Send one command whose answer follows any number of event lines
    /// (`{"ok": true, "event": event, …}`), each handed to `on_event`. Each
    /// line must come within `stall` of the one before, or the worker is
    /// taken as stalled and killed: a long load that reports as it goes is
    /// found stalled in seconds, not at its end.
    pub fn streaming(
        &mut self,
        cmd: &Value,
        event: &str,
        stall: Duration,
        on_event: &mut dyn FnMut(Value),
    ) -> Result<Value, PeerError> {
        let op = cmd
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        self.send(cmd, &op)?;
        self.ceiling = Some(Ceiling {
            time: stall,
            mem_kb: 0,
        });
        let answer = loop {
            match self.read_answer(&op) {
                Ok(v) if v.get("event").and_then(Value::as_str) == Some(event) => on_event(v),
                other => break other,
            }
        };
        self.ceiling = None;
        answer
    }

    /// Open a transfer session over `transport`; `scratch` is a private directory.
    pub fn transfer(
        &mut self,
        transport: Transport,
        scratch: &Path,
        spin: bool,
    ) -> Result<Session<'_>, PeerError> {
        if !self.hello.transports.iter().any(|t| t == transport.name()) {
            return Err(PeerError::Unsupported {
                peer: self.runtime.name(),
                transport: transport.name().into(),
                supported: self.hello.transports.join(", "),
            });
        }
        let (pending, cmd) = match (&self.tcp_route, transport) {
            (Some(route), Transport::Tcp) => {
                let advertise = route.advertise.clone();
                transport::listen_tcp_at(route.bind)
                    .and_then(|(p, at)| Ok((p, advertise(at)?)))
                    .map(|(p, to)| {
                        let cmd = json!({"op": "transfer", "transport": "tcp",
                                         "host": to.ip().to_string(), "port": to.port()});
                        (p, cmd)
                    })
            }
            _ => transport::listen(transport, scratch, spin, &self.pipes),
        }
        .map_err(|e| PeerError::io(format!("setting up the {transport} endpoint"), e))?;
        self.send(&cmd, "transfer")?;
        let pid = self.child.id();
        let alive: Alive = Arc::new(move || crate::group::process_alive(pid));
        let channel = pending
            .accept(Instant::now() + CONTROL_TIMEOUT, &alive)
            .map_err(|e| {
                self.exit_error().unwrap_or_else(|| {
                    PeerError::io(format!("connecting the {transport} channel"), e)
                })
            })?;
        self.read_answer("transfer")?;
        Ok(Session::new(self, channel))
    }

    /// Ask the worker to exit and reap it.
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
}

/// A transfer session reaches the worker through these; each is the peer's own.
impl WorkerEnd for Peer {
    fn arm(&self, timeout: Duration) {
        self.watchdog.arm(timeout);
    }

    fn disarm(&self) {
        self.watchdog.disarm();
    }

    fn exit_error(&mut self) -> Option<PeerError> {
        Peer::exit_error(self)
    }

    fn protocol(&mut self, detail: String) -> PeerError {
        Peer::protocol(self, detail)
    }

    fn read_answer(&mut self, op: &str) -> Result<Value, PeerError> {
        Peer::read_answer(self, op)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Its group only while the worker is unreaped (see `Group`).
        self.child.kill();
        self.child.wait();
    }
}
