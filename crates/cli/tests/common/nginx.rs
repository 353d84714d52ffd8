//! nginx started by a test on loopback: E5's files (a 92-byte hello.html and
//! a 1 MiB big.bin), a `/teapot` that answers 418, and as many servers as
//! the test asks for, each on a free port with its own `listen` parameters
//! (e.g. "", "http2", "ssl http2"). TLS servers use a self-signed
//! certificate made with openssl. Killed when dropped. [`start_in`] runs it
//! elsewhere: on another address, through a command such as `ip netns exec`.
//! A `listens` entry starting [`UNIX`] (e.g. "unix", "unix http2") listens
//! on a unix socket in the scratch directory instead of a port
//! ([`Nginx::socket`]). Every server logs the
//! requests under `/logged/` (Host header and path, a line each) to
//! `logged.log` ([`Nginx::logged`]), answering `logged PATH`.

use super::Scratch;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Nginx {
    child: Child,
    /// One port per server asked for, in order (0 for the unix socket's).
    pub ports: Vec<u16>,
    dir: PathBuf,
}

/// A `listens` entry: this server listens on [`Nginx::socket`].
pub const UNIX: &str = "unix";

impl Nginx {
    /// The port of the first server.
    pub fn port(&self) -> u16 {
        self.ports[0]
    }

    /// The unix socket of the server started with [`UNIX`].
    pub fn socket(&self) -> PathBuf {
        self.dir.join("nginx.sock")
    }

    /// The requests logged under `/logged/` so far, as (Host, path).
    pub fn logged(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(self.dir.join("logged.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(h, p)| (h.to_string(), p.to_string()))
            .collect()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    toll_peers::runtime::find_in_path("nginx")
        .or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|p| p.is_file()))
        .expect("nginx not found: scripts/setup installs it (apt-get install nginx-light)")
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A self-signed certificate and key for localhost in `dir`.
fn certificate(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let o = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl not found: scripts/setup installs it (apt-get install openssl)");
    assert!(
        o.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (cert, key)
}

/// Where nginx runs: the address it listens on (reachable from the test)
/// and the command it is started through (e.g. `ip netns exec NS`).
pub struct Place<'a> {
    pub host: &'a str,
    pub wrap: &'a [&'a str],
}

/// On loopback, started directly.
pub const LOOPBACK: Place<'static> = Place {
    host: "127.0.0.1",
    wrap: &[],
};

/// nginx with one worker and one server per entry of `listens`.
pub fn start(s: &Scratch, listens: &[&str]) -> Nginx {
    start_in(s, listens, &LOOPBACK)
}

/// [`start`], at `place`.
pub fn start_in(s: &Scratch, listens: &[&str], place: &Place) -> Nginx {
    let root = s.0.join("www");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("hello.html"), [b'x'; 92]).unwrap();
    std::fs::write(root.join("big.bin"), vec![7u8; 1 << 20]).unwrap();
    let tls = if listens.iter().any(|l| l.contains("ssl")) {
        let (cert, key) = certificate(&s.0);
        format!(
            "ssl_certificate {}; ssl_certificate_key {};",
            cert.display(),
            key.display()
        )
    } else {
        String::new()
    };
    // A free port can be handed to another test's server between the pick
    // and nginx's bind: nginx then exits (after its bind retries) while the
    // other server answers. nginx writes its pid file only once every port
    // is bound, so the pid file is the sign it is ours; else new ports.
    for _ in 0..3 {
        if let Some(n) = try_start(s, &root, listens, &tls, place) {
            return n;
        }
    }
    panic!(
        "nginx could not bind free ports three times: see {}/error.log",
        s.0.display()
    );
}

/// Start nginx on fresh free ports; None when it exited without binding them.
fn try_start(
    s: &Scratch,
    root: &std::path::Path,
    listens: &[&str],
    tls: &str,
    place: &Place,
) -> Option<Nginx> {
    let pid_file = s.0.join("nginx.pid");
    let _ = std::fs::remove_file(&pid_file);
    let socket = s.0.join("nginx.sock");
    let _ = std::fs::remove_file(&socket);
    let ports: Vec<u16> = listens
        .iter()
        .map(|l| if l.starts_with(UNIX) { 0 } else { free_port() })
        .collect();
    let servers: String = listens
        .iter()
        .zip(&ports)
        .map(|(l, port)| {
            let listen = if let Some(rest) = l.strip_prefix(UNIX) {
                format!("unix:{}{rest}", socket.display())
            } else {
                format!("{}:{port} {l}", place.host)
            };
            format!(
                "server {{ listen {listen}; root {root}; {tls}\n\
                   location = /teapot {{ return 418 'short and stout'; }}\n\
                   location /logged/ {{ access_log {d}/logged.log logged; return 200 'logged $uri'; }}\n\
                   location = /counted {{ access_log {d}/counted.log; return 200 'counted'; }} }}\n",
                root = root.display(),
                d = s.0.display(),
            )
        })
        .collect();
    let conf = s.0.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            "daemon off; master_process off; worker_processes 1; pid {d}/nginx.pid;\n\
             error_log {d}/error.log;\n\
             events {{ worker_connections 1024; }}\n\
             http {{ access_log off; client_body_temp_path {d}; proxy_temp_path {d};\n\
               fastcgi_temp_path {d}; uwsgi_temp_path {d}; scgi_temp_path {d};\n\
               keepalive_requests 100000; log_format logged '$host $uri';\n{servers} }}\n",
            d = s.0.display(),
        ),
    )
    .unwrap();
    let mut cmd = match place.wrap.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(binary());
            c
        }
        None => Command::new(binary()),
    };
    let child = cmd
        .arg("-c")
        .arg(&conf)
        .arg("-p")
        .arg(&s.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nginx");
    let mut nginx = Nginx {
        child,
        ports,
        dir: s.0.clone(),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pid_file.exists() {
        if let Ok(Some(_)) = nginx.child.try_wait() {
            return None;
        }
        assert!(Instant::now() < deadline, "nginx wrote no pid file in 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ports = nginx.ports.clone();
    let unix = listens.iter().any(|l| l.starts_with(UNIX));
    while unix && std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx did not listen on {socket:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for port in ports.iter().filter(|p| **p != 0) {
        while TcpStream::connect((place.host, *port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Some(nginx)
}
