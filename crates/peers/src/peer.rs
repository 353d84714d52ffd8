//! A running worker: its process, its control plane, and a watchdog that
//! stops it when it hangs.

use crate::runtime::{Launch, Runtime};
use crate::transport::{self, Alive, PipePair, Transport};
use crate::{PeerError, Session};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    pub pid: u32,
}

/// Kills the worker when a deadline passes, so a hung worker cannot hang toll.
struct Watchdog {
    /// Milliseconds since `epoch` after which the worker is killed; 0 = disarmed.
    deadline_ms: Arc<AtomicU64>,
    fired: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    epoch: Instant,
}

impl Watchdog {
    fn start(pid: u32) -> Watchdog {
        let w = Watchdog {
            deadline_ms: Arc::new(AtomicU64::new(0)),
            fired: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(AtomicBool::new(false)),
            epoch: Instant::now(),
        };
        let (deadline, fired, stop, epoch) = (
            w.deadline_ms.clone(),
            w.fired.clone(),
            w.stop.clone(),
            w.epoch,
        );
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                let d = deadline.load(Ordering::Relaxed);
                if d != 0 && epoch.elapsed().as_millis() as u64 > d {
                    fired.store(true, Ordering::Relaxed);
                    let pid = nix::unistd::Pid::from_raw(pid as i32);
                    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                    return;
                }
            }
        });
        w
    }

    fn arm(&self, timeout: Duration) {
        let at = (self.epoch.elapsed() + timeout).as_millis() as u64;
        self.deadline_ms.store(at.max(1), Ordering::Relaxed);
    }

    fn disarm(&self) {
        self.deadline_ms.store(0, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A started worker process.
pub struct Peer {
    runtime: Runtime,
    child: Child,
    pipes: PipePair,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    watchdog: Watchdog,
    /// What the worker said it is.
    pub hello: Hello,
    /// How the worker was started (for the fingerprint).
    pub launch: Launch,
}

/// Whether process `pid` still runs (a zombie counts as gone).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(s) => s
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
            .unwrap_or(false),
        Err(_) => false,
    }
}

impl Peer {
    /// Start the worker of `runtime` (in its own process group, so a Ctrl-C
    /// reaches toll, which then ends the run cleanly) and say hello.
    pub fn start(runtime: Runtime, launch: Launch) -> Result<Peer, PeerError> {
        use std::os::unix::process::CommandExt;
        let mut pipes =
            PipePair::new().map_err(|e| PeerError::io("making the worker's pipes", e))?;
        let mut cmd = Command::new(&launch.program);
        cmd.args(&launch.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        pipes.attach(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| {
            PeerError::io(
                format!("starting the {runtime} worker {}", launch.program.display()),
                e,
            )
        })?;
        pipes.release_child_ends();
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let stderr = child.stderr.take().expect("piped stderr");
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
        let watchdog = Watchdog::start(child.id());
        let mut peer = Peer {
            runtime,
            child,
            pipes,
            stdin,
            stdout,
            stderr_tail,
            watchdog,
            hello: Hello {
                runtime: String::new(),
                version: String::new(),
                transports: vec![],
                pid: 0,
            },
            launch,
        };
        let h = peer.command(&json!({"op": "hello"}), "hello")?;
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
        peer.hello = Hello {
            runtime: h
                .get("runtime")
                .and_then(Value::as_str)
                .unwrap_or("")
                .into(),
            version: h
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or("")
                .into(),
            transports: strings("transports"),
            pid: h.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32,
        };
        if h.get("wire").and_then(Value::as_u64) != Some(1) {
            return Err(peer.protocol("its hello does not say wire 1"));
        }
        Ok(peer)
    }

    /// The runtime of this peer.
    pub fn runtime(&self) -> Runtime {
        self.runtime
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn protocol(&mut self, detail: impl Into<String>) -> PeerError {
        if let Some(e) = self.exit_error() {
            return e;
        }
        PeerError::Protocol {
            peer: self.runtime.name(),
            detail: detail.into(),
        }
    }

    /// If the worker has died (or was stopped by the watchdog), the error that says so.
    pub(crate) fn exit_error(&mut self) -> Option<PeerError> {
        let peer = self.runtime.name();
        if self.watchdog.fired.load(Ordering::Relaxed) {
            let _ = self.child.wait();
            return Some(PeerError::TimedOut {
                peer,
                what: "it stopped answering".into(),
                secs: 0,
            });
        }
        let status = match self.child.try_wait() {
            Ok(Some(s)) => s,
            _ => {
                // Give a dying worker a moment to be reaped, so its exit is reported as such.
                std::thread::sleep(Duration::from_millis(50));
                match self.child.try_wait() {
                    Ok(Some(s)) => s,
                    _ => return None,
                }
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
    pub(crate) fn read_answer(&mut self, op: &str) -> Result<Value, PeerError> {
        self.watchdog.arm(CONTROL_TIMEOUT);
        let mut line = String::new();
        let read = self.stdout.read_line(&mut line);
        self.watchdog.disarm();
        match read {
            Ok(0) | Err(_) => {
                return Err(self.exit_error().unwrap_or_else(|| PeerError::Protocol {
                    peer: self.runtime.name(),
                    detail: format!("closed its stdout instead of answering `{op}`"),
                }))
            }
            Ok(_) => {}
        }
        let v: Value = serde_json::from_str(line.trim()).map_err(|_| {
            let shown: String = line.trim().chars().take(80).collect();
            self.protocol(format!(
                "answered `{op}` with a line that is not JSON: {shown:?}"
            ))
        })?;
        if v.get("ok").and_then(Value::as_bool) != Some(true) {
            let detail = v
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("no reason given");
            return Err(PeerError::Refused {
                peer: self.runtime.name(),
                op: op.into(),
                detail: detail.into(),
            });
        }
        Ok(v)
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
        let (pending, cmd) = transport::listen(transport, scratch, spin, &self.pipes)
            .map_err(|e| PeerError::io(format!("setting up the {transport} endpoint"), e))?;
        self.send(&cmd, "transfer")?;
        let pid = self.child.id();
        let alive: Alive = Arc::new(move || process_alive(pid));
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

    pub(crate) fn arm(&self, timeout: Duration) {
        self.watchdog.arm(timeout);
    }

    pub(crate) fn disarm(&self) {
        self.watchdog.disarm();
    }

    /// Ask the worker to exit and reap it.
    pub fn close(mut self) {
        let _ = self.stdin.write_all(b"{\"op\":\"exit\"}\n");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
