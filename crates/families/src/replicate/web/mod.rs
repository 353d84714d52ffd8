//! E5's servers, each started by toll on a loopback port with a generated
//! configuration in a directory of toll's, serving E5's two files (a
//! 92-byte hello.html, a 1 MiB file): nginx (nginx.rs), Apache httpd with
//! each MPM and E5's configurations (apache.rs), Tomcat (tomcat.rs).
//!
//! A server runs in a process group of its own: Ctrl-C reaches toll, not
//! the server, so a load under way ends cleanly, and stopping it (drop)
//! ends every process it forked (Apache's children). Should toll be killed
//! outright, its master gets SIGTERM and stops its own workers (see
//! `toll_peers::group`). A server is ready
//! when it answers hello.html with the page toll wrote, which carries a
//! nonce: a port that another server took first is caught, not measured.

pub mod apache;
pub mod nginx;
pub mod tomcat;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toll_peers::Group;

/// E5's small page: 92 bytes.
pub const SMALL: (&str, usize) = ("hello.html", 92);
/// E5's large file: 1 MiB.
pub const LARGE: (&str, usize) = ("big.bin", 1 << 20);

/// How many times a server is started on another port when the one picked
/// was taken before it could bind.
const PORT_TRIES: usize = 3;

/// Where each server listens: the ports the system hands out, or from a
/// first port the user gave (`toll replicate --port`), one after another.
pub struct Ports {
    first: Option<u16>,
    taken: u16,
}

impl Ports {
    pub fn new(first: Option<u16>) -> Ports {
        Ports { first, taken: 0 }
    }

    /// Whether the user chose the ports (then one in use is an error, not
    /// a reason to pick another).
    fn chosen(&self) -> bool {
        self.first.is_some()
    }

    /// The next port to listen on.
    fn next(&mut self) -> Result<u16, String> {
        match self.first {
            Some(first) => {
                let port = first.checked_add(self.taken).ok_or_else(|| {
                    format!(
                        "--port {first} leaves no room for every server: give a lower first port"
                    )
                })?;
                self.taken += 1;
                if TcpListener::bind(("127.0.0.1", port)).is_err() {
                    return Err(in_use(port));
                }
                Ok(port)
            }
            None => TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .map_err(|e| format!("no free loopback port: {e}")),
        }
    }
}

/// The error for a port the user chose that is in use.
pub fn in_use(port: u16) -> String {
    format!(
        "port {port} on 127.0.0.1 is in use: give another first port with --port, or leave --port out and toll picks free ones"
    )
}

/// Check, before anything runs, that `count` ports from `first` are free.
pub fn check_ports(first: u16, count: usize) -> Result<(), String> {
    for k in 0..count as u32 {
        let port = u16::try_from(first as u32 + k).map_err(|_| {
            format!("--port {first}: {count} servers need ports up to {}, past 65535: give a lower first port", first as u32 + count as u32 - 1)
        })?;
        if TcpListener::bind(("127.0.0.1", port)).is_err() {
            return Err(in_use(port));
        }
    }
    Ok(())
}

/// What a server needs to start: its program and arguments, set up in
/// `dir` by the kind's module for a port.
pub struct Launch {
    pub command: Command,
    /// Where it says why it stopped (the last line is quoted).
    pub log: PathBuf,
    /// How long it may take to answer.
    pub ready_within: Duration,
}

/// A running server, stopped (its whole process group) and its directory
/// removed when dropped.
pub struct Server {
    child: Group,
    dir: PathBuf,
    pub addr: SocketAddr,
    /// The server's name and version, as it says them.
    pub version: String,
}

impl Server {
    /// `http://127.0.0.1:PORT/FILE`.
    pub fn url(&self, file: &str) -> String {
        format!("http://{}/{file}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first: Apache's parent stops its children; then make sure.
        self.child.stop(Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh directory `parent/name` holding `www/` with E5's two files; the
/// small page carries a nonce, returned, that tells toll's server apart.
pub fn site(parent: &Path, name: &str) -> Result<(PathBuf, Vec<u8>), String> {
    let dir = parent.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let www = dir.join("www");
    std::fs::create_dir_all(&www).map_err(|e| format!("cannot make {}: {e}", www.display()))?;
    let nonce = format!(
        "toll {} {} {}\n",
        name,
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let mut page = nonce.into_bytes();
    page.truncate(SMALL.1 - 1);
    page.resize(SMALL.1 - 1, b'x');
    page.push(b'\n');
    std::fs::write(www.join(SMALL.0), &page)
        .map_err(|e| format!("cannot write {}: {e}", SMALL.0))?;
    std::fs::write(www.join(LARGE.0), vec![b'x'; LARGE.1])
        .map_err(|e| format!("cannot write {}: {e}", LARGE.0))?;
    Ok((dir, page))
}

/// Start a server: `setup(dir, port)` writes its configuration and says
/// how to launch it. A port taken before the server bound it is retried on
/// another (unless the user chose the ports); every failure is one line.
pub fn start(
    what: &str,
    version: String,
    parent: &Path,
    ports: &mut Ports,
    setup: &dyn Fn(&Path, SocketAddr) -> Result<Launch, String>,
) -> Result<Server, String> {
    let name = what.replace([' ', '/', ','], "-");
    let mut last = String::new();
    for _ in 0..PORT_TRIES {
        let (dir, page) = site(parent, &name)?;
        let addr = SocketAddr::from(([127, 0, 0, 1], ports.next()?));
        let launch = setup(&dir, addr)?;
        match launch_and_wait(what, launch, dir, addr, &page, version.clone()) {
            Ok(server) => return Ok(server),
            Err(Failure::PortTaken) if !ports.chosen() => {
                last = format!("{what}: port {} was taken", addr.port());
            }
            Err(Failure::PortTaken) => return Err(in_use(addr.port())),
            Err(Failure::Other(why)) => return Err(why),
        }
    }
    Err(format!(
        "{last} {PORT_TRIES} times: free some loopback ports, or give a first port with --port"
    ))
}

enum Failure {
    PortTaken,
    Other(String),
}

fn launch_and_wait(
    what: &str,
    mut launch: Launch,
    dir: PathBuf,
    addr: SocketAddr,
    page: &[u8],
    version: String,
) -> Result<Server, Failure> {
    launch.command.current_dir(&dir).stdin(Stdio::null());
    let (child, _) = Group::spawn(launch.command)
        .map_err(|e| Failure::Other(format!("cannot start {what}: {e}")))?;
    let server = Server {
        child,
        dir,
        addr,
        version,
    };
    let deadline = Instant::now() + launch.ready_within;
    let last_line = |log: &Path| {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("nothing in its log")
            .trim()
            .to_string()
    };
    loop {
        if let Some(status) = server.child.try_wait() {
            let line = last_line(&launch.log);
            if says_port_taken(&line) {
                return Err(Failure::PortTaken);
            }
            return Err(Failure::Other(format!("{what} exited ({status}): {line}")));
        }
        match fetch(addr, SMALL.0) {
            Some(body) if body == page => return Ok(server),
            // Another server answers on this port.
            Some(_) => return Err(Failure::PortTaken),
            None => {}
        }
        if says_port_taken(&last_line(&launch.log)) {
            return Err(Failure::PortTaken);
        }
        if Instant::now() > deadline {
            return Err(Failure::Other(format!(
                "{what} did not answer on {addr} within {} s: {}",
                launch.ready_within.as_secs(),
                last_line(&launch.log)
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn says_port_taken(line: &str) -> bool {
    line.contains("Address already in use") || line.contains("could not bind")
}

/// The body of `GET /file` over HTTP/1.0, or None while nothing answers.
fn fetch(addr: SocketAddr, file: &str) -> Option<Vec<u8>> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET /{file} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut all = Vec::new();
    s.read_to_end(&mut all).ok()?;
    let at = all.windows(4).position(|w| w == b"\r\n\r\n")?;
    // Something answered: its body if it is a 200, else nothing of ours.
    let ok = all.starts_with(b"HTTP/1.1 200") || all.starts_with(b"HTTP/1.0 200");
    Some(if ok { all[at + 4..].to_vec() } else { vec![] })
}

/// The first non-empty line of a command's output (a version line).
pub fn first_line(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = [out.stdout, out.stderr].concat();
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_92_bytes_and_differs_between_sites() {
        let tmp = std::env::temp_dir().join(format!("toll-web-test-{}", std::process::id()));
        let (_, a) = site(&tmp, "a").unwrap();
        let (_, b) = site(&tmp, "b").unwrap();
        assert_eq!(a.len(), SMALL.1);
        assert_ne!(a, b);
        let big = std::fs::metadata(tmp.join("a/www").join(LARGE.0)).unwrap();
        assert_eq!(big.len(), LARGE.1 as u64);
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn a_chosen_port_in_use_is_named_with_the_flag() {
        let held = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = held.local_addr().unwrap().port();
        let e = check_ports(port, 1).unwrap_err();
        assert!(e.contains(&port.to_string()) && e.contains("--port"), "{e}");
        let mut ports = Ports::new(Some(port));
        assert_eq!(ports.next().unwrap_err(), in_use(port));
        assert!(check_ports(65535, 2).unwrap_err().contains("65535"));
    }

    #[test]
    fn free_ports_come_from_the_system() {
        let mut ports = Ports::new(None);
        assert!(ports.next().unwrap() > 0);
        assert!(!ports.chosen());
    }
}
