//! The real proxies of `toll rpc --path haproxy|nginx` (E3's question: what
//! does a hop in the middle add?), started by toll on loopback in front of
//! one RPC server, each with a config generated for the stack it carries.
//!
//! Each runs as the current user in the foreground, with every path it
//! writes (pid, logs, nginx's temp files) inside a temporary directory of
//! its own (under toll's, `toll_peers::scratch`), removed when the
//! [`Proxy`] is dropped; in a process group of its own that dies with
//! toll (`toll_peers::group`), as every server toll starts. Both get one worker
//! (haproxy `nbthread 1`, nginx one process with `master_process off`), so
//! neither is measured with more CPUs than the other. Limits that would
//! end a long trial are lifted: nginx's `keepalive_requests` (1000 by
//! default, after which it closes even an HTTP/2 connection) and its body
//! size limit (1 MiB, a `--sizes` sweep goes past it).
//!
//! | stack | haproxy | nginx |
//! |---|---|---|
//! | raw | `mode tcp` | stream module, `proxy_pass` |
//! | http1 | `mode http`, keep-alive both sides | `proxy_pass`, keepalive upstream |
//! | h2 | `mode http`, `proto h2` both sides | `listen … http2`, `grpc_pass` (its only HTTP/2 upstream) |
//! | grpc | `mode http`, `proto h2` both sides | `listen … http2`, `grpc_pass` |

use std::fmt::{self, Write as _};
use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use toll_peers::Group;

/// How long a proxy may take to accept connections after it starts.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// Where Debian puts nginx's dynamic stream module (libnginx-mod-stream).
const NGINX_STREAM_MODULE: &str = "/usr/lib/nginx/modules/ngx_stream_module.so";

/// A proxy toll can put between client and server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyKind {
    Haproxy,
    Nginx,
}

impl ProxyKind {
    pub const ALL: [ProxyKind; 2] = [ProxyKind::Haproxy, ProxyKind::Nginx];

    /// The name on the command line (`--path haproxy`).
    pub fn name(self) -> &'static str {
        match self {
            ProxyKind::Haproxy => "haproxy",
            ProxyKind::Nginx => "nginx",
        }
    }

    /// The command that installs it.
    pub fn install_hint(self) -> &'static str {
        match self {
            ProxyKind::Haproxy => "apt-get install haproxy",
            ProxyKind::Nginx => "apt-get install nginx",
        }
    }

    /// The stacks it can carry (spec/rpc.md); nginx's raw needs its stream
    /// module, checked when it starts.
    pub fn stacks(self) -> &'static [&'static str] {
        &["raw", "http1", "h2", "grpc"]
    }

    /// The stacks it can carry on this machine now: nginx's raw only with
    /// its stream module installed.
    pub fn available_stacks(self) -> Vec<&'static str> {
        self.stacks()
            .iter()
            .copied()
            .filter(|s| !(self == ProxyKind::Nginx && *s == "raw") || nginx_has_stream())
            .collect()
    }

    /// What it says of its version, found or not.
    pub fn version(self) -> Result<String, ProxyError> {
        let program = self.find()?;
        let out = Command::new(&program)
            .arg("-v")
            .output()
            .map_err(io_error(format!("running {} -v", program.display())))?;
        // nginx says it on stderr, haproxy on stdout.
        let text = [out.stdout, out.stderr].concat();
        let text = String::from_utf8_lossy(&text);
        let line = text.lines().next().unwrap_or("");
        // haproxy's line goes on with a date and its web address.
        let line = line.split(" - ").next().unwrap_or(line).trim().to_string();
        Ok(line)
    }

    /// Its executable: `$TOLL_HAPROXY` / `$TOLL_NGINX`, else on PATH or in /usr/sbin.
    pub fn find(self) -> Result<PathBuf, ProxyError> {
        let (var, name) = match self {
            ProxyKind::Haproxy => ("TOLL_HAPROXY", "haproxy"),
            ProxyKind::Nginx => ("TOLL_NGINX", "nginx"),
        };
        self.locate(&std::env::var(var).unwrap_or_else(|_| name.into()))
    }

    /// `wanted` on PATH (or as given, with a slash), else in /usr/sbin,
    /// which a user's PATH may lack.
    fn locate(self, wanted: &str) -> Result<PathBuf, ProxyError> {
        toll_peers::runtime::find_in_path(wanted)
            .or_else(|| {
                let sbin = Path::new("/usr/sbin").join(wanted);
                (!wanted.contains('/') && sbin.is_file()).then_some(sbin)
            })
            .ok_or(ProxyError::Missing {
                proxy: self.name(),
                install: self.install_hint(),
            })
    }
}

impl fmt::Display for ProxyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProxyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProxyKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown proxy `{s}`: the proxies are haproxy, nginx"))
    }
}

/// Why a proxy could not be started; each names the fix.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("`{proxy}` was not found: install it with `{install}`")]
    Missing {
        proxy: &'static str,
        install: &'static str,
    },
    #[error("{proxy} cannot carry the `{stack}` stack: {detail}")]
    Unsupported {
        proxy: &'static str,
        stack: String,
        detail: String,
    },
    #[error("{proxy} did not start: {detail}")]
    Failed { proxy: &'static str, detail: String },
    #[error("{context}: {cause}")]
    Io {
        context: String,
        cause: std::io::Error,
    },
}

fn io_error(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> ProxyError {
    let context = context.into();
    move |cause| ProxyError::Io { context, cause }
}

/// A running proxy: stopped, and its directory removed, on drop.
#[derive(Debug)]
pub struct Proxy {
    kind: ProxyKind,
    stack: String,
    child: Group,
    dir: PathBuf,
    addr: SocketAddr,
}

impl Proxy {
    /// Where clients connect: 127.0.0.1 and the port it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn kind(&self) -> ProxyKind {
        self.kind
    }

    pub fn stack(&self) -> &str {
        &self.stack
    }

    /// The proxy's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The generated config, for a report or a bug.
    pub fn config(&self) -> String {
        std::fs::read_to_string(self.dir.join(config_name(self.kind))).unwrap_or_default()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.child.kill();
        self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Start `kind` on 127.0.0.1 (a free port) carrying `stack` to `upstream`,
/// and wait until it accepts connections.
pub fn start(kind: ProxyKind, stack: &str, upstream: SocketAddr) -> Result<Proxy, ProxyError> {
    if !kind.stacks().contains(&stack) {
        return Err(ProxyError::Unsupported {
            proxy: kind.name(),
            stack: stack.into(),
            detail: format!("it carries {}", kind.stacks().join(", ")),
        });
    }
    if kind == ProxyKind::Nginx && stack == "raw" && !nginx_has_stream() {
        return Err(ProxyError::Unsupported {
            proxy: "nginx",
            stack: stack.into(),
            detail: format!(
                "raw TCP needs nginx's stream module: install it with `{NGINX_STREAM_INSTALL}`"
            ),
        });
    }
    let program = kind.find()?;
    let dir = temp_dir(kind)?;
    let port = free_port()?;
    let listen = SocketAddr::from(([127, 0, 0, 1], port));
    let config = match kind {
        ProxyKind::Haproxy => haproxy_config(stack, listen, upstream),
        ProxyKind::Nginx => nginx_config(stack, listen, upstream, &dir),
    };
    let path = dir.join(config_name(kind));
    let started = std::fs::write(&path, config)
        .map_err(io_error(format!("writing {}", path.display())))
        .and_then(|_| spawn(kind, &program, &dir, &path));
    let child = match started {
        Ok(child) => child,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    let mut proxy = Proxy {
        kind,
        stack: stack.into(),
        child,
        dir,
        addr: listen,
    };
    wait_accepting(&mut proxy)?;
    Ok(proxy)
}

/// The install command of nginx's stream module (raw TCP through nginx).
pub const NGINX_STREAM_INSTALL: &str = "apt-get install libnginx-mod-stream";

fn nginx_has_stream() -> bool {
    Path::new(NGINX_STREAM_MODULE).is_file()
}

fn config_name(kind: ProxyKind) -> &'static str {
    match kind {
        ProxyKind::Haproxy => "haproxy.cfg",
        ProxyKind::Nginx => "nginx.conf",
    }
}

/// A fresh private directory in toll's temporary directory.
fn temp_dir(kind: ProxyKind) -> Result<PathBuf, ProxyError> {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let name = format!("{}-{}", kind.name(), SEQ.fetch_add(1, Ordering::Relaxed));
    let dir =
        toll_peers::scratch::path(&name).map_err(io_error("making toll's temporary directory"))?;
    std::fs::create_dir(&dir).map_err(io_error(format!("creating {}", dir.display())))?;
    Ok(dir)
}

/// A loopback port nobody listens on now (the proxy binds it a moment later).
fn free_port() -> Result<u16, ProxyError> {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(io_error("finding a free loopback port"))
}

fn haproxy_config(stack: &str, listen: SocketAddr, upstream: SocketAddr) -> String {
    let (mode, proto) = match stack {
        "raw" => ("tcp", ""),
        "http1" => ("http", ""),
        _ => ("http", " proto h2"), // h2 and grpc: HTTP/2 with prior knowledge on both sides
    };
    let mut c = String::new();
    let _ = write!(
        c,
        "global\n\
         \x20   nbthread 1\n\
         \x20   maxconn 4096\n\
         defaults\n\
         \x20   mode {mode}\n\
         \x20   timeout connect 5s\n\
         \x20   timeout client 5m\n\
         \x20   timeout server 5m\n"
    );
    if mode == "http" {
        // Keep-alive on both sides and reuse of the server's connections.
        c.push_str("    option http-keep-alive\n    http-reuse always\n");
    }
    let _ = write!(
        c,
        "frontend toll_in\n\
         \x20   bind {listen}{proto}\n\
         \x20   default_backend toll_out\n\
         backend toll_out\n\
         \x20   server upstream {upstream}{proto}\n"
    );
    c
}

fn nginx_config(stack: &str, listen: SocketAddr, upstream: SocketAddr, dir: &Path) -> String {
    let d = dir.display();
    let mut c = String::new();
    if stack == "raw" {
        let _ = writeln!(c, "load_module {NGINX_STREAM_MODULE};");
    }
    let _ = write!(
        c,
        "daemon off;\n\
         master_process off;\n\
         worker_processes 1;\n\
         pid {d}/nginx.pid;\n\
         error_log {d}/error.log warn;\n\
         events {{ worker_connections 4096; }}\n"
    );
    if stack == "raw" {
        let _ = write!(
            c,
            "stream {{\n\
             \x20   upstream toll_up {{ server {upstream}; }}\n\
             \x20   server {{ listen {listen}; proxy_pass toll_up; }}\n\
             }}\n"
        );
        return c;
    }
    let (listen_opts, pass) = match stack {
        "http1" => (
            "",
            "proxy_pass http://toll_up;\n\
             \x20           proxy_http_version 1.1;\n\
             \x20           proxy_set_header Connection \"\";\n\
             \x20           proxy_request_buffering off;\n\
             \x20           proxy_buffering off;",
        ),
        // nginx speaks HTTP/2 to an upstream only through its grpc module,
        // which passes any HTTP/2 request, so h2 goes the way grpc does.
        _ => (" http2", "grpc_pass grpc://toll_up;"),
    };
    let _ = write!(
        c,
        "http {{\n\
         \x20   access_log off;\n\
         \x20   client_body_temp_path {d}/body;\n\
         \x20   proxy_temp_path {d}/proxy;\n\
         \x20   fastcgi_temp_path {d}/fastcgi;\n\
         \x20   uwsgi_temp_path {d}/uwsgi;\n\
         \x20   scgi_temp_path {d}/scgi;\n\
         \x20   client_max_body_size 0;\n\
         \x20   keepalive_requests 100000000;\n\
         \x20   keepalive_timeout 300s;\n\
         \x20   upstream toll_up {{\n\
         \x20       server {upstream};\n\
         \x20       keepalive 256;\n\
         \x20       keepalive_requests 100000000;\n\
         \x20       keepalive_timeout 300s;\n\
         \x20   }}\n\
         \x20   server {{\n\
         \x20       listen {listen}{listen_opts};\n\
         \x20       location / {{\n\
         \x20           {pass}\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n"
    );
    c
}

fn spawn(kind: ProxyKind, program: &Path, dir: &Path, config: &Path) -> Result<Group, ProxyError> {
    let mut cmd = Command::new(program);
    match kind {
        // -db: stay in the foreground; -W would fork a master.
        ProxyKind::Haproxy => cmd.arg("-db").arg("-f").arg(config),
        // -e: the error log before the config is read (else /var/log/nginx).
        ProxyKind::Nginx => cmd
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(config)
            .arg("-e")
            .arg(dir.join("error.log")),
    };
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            std::fs::File::create(dir.join("stderr.log"))
                .map_err(io_error("creating the proxy's log"))?,
        );
    Group::spawn(cmd)
        .map(|(group, _)| group)
        .map_err(io_error(format!("starting {}", program.display())))
}

/// Wait until the proxy accepts a connection, or say why it never will.
fn wait_accepting(proxy: &mut Proxy) -> Result<(), ProxyError> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Some(status) = proxy.child.try_wait() {
            return Err(ProxyError::Failed {
                proxy: proxy.kind.name(),
                detail: format!("it exited ({status}){}", last_words(&proxy.dir)),
            });
        }
        if TcpStream::connect_timeout(&proxy.addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(ProxyError::Failed {
                proxy: proxy.kind.name(),
                detail: format!(
                    "it did not accept on {} within {} s{}",
                    proxy.addr,
                    START_TIMEOUT.as_secs(),
                    last_words(&proxy.dir)
                ),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The last error-looking line the proxy wrote, as `: line`.
fn last_words(dir: &Path) -> String {
    let mut text = String::new();
    for log in ["stderr.log", "error.log"] {
        if let Ok(mut f) = std::fs::File::open(dir.join(log)) {
            let _ = f.read_to_string(&mut text);
        }
    }
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| l.contains("ALERT") || l.contains("emerg") || l.contains("error"))
        .or_else(|| text.lines().rev().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| format!(": {l}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn haproxy_speaks_tcp_for_raw_and_h2_on_both_sides_for_grpc() {
        let raw = haproxy_config("raw", addr("127.0.0.1:1"), addr("127.0.0.1:2"));
        assert!(raw.contains("mode tcp") && raw.contains("server upstream 127.0.0.1:2\n"));
        let grpc = haproxy_config("grpc", addr("127.0.0.1:1"), addr("127.0.0.1:2"));
        assert!(grpc.contains("mode http"));
        assert!(
            grpc.contains("bind 127.0.0.1:1 proto h2") && grpc.contains("127.0.0.1:2 proto h2")
        );
        let http1 = haproxy_config("http1", addr("127.0.0.1:1"), addr("127.0.0.1:2"));
        assert!(!http1.contains("proto h2") && http1.contains("http-keep-alive"));
    }

    #[test]
    fn nginx_keeps_every_path_in_its_directory() {
        let dir = Path::new("/tmp/toll-nginx-x");
        for stack in ["raw", "http1", "h2", "grpc"] {
            let c = nginx_config(stack, addr("127.0.0.1:1"), addr("127.0.0.1:2"), dir);
            for line in c
                .lines()
                .filter(|l| l.contains("_path") || l.contains("log "))
            {
                assert!(
                    line.contains("/tmp/toll-nginx-x/") || line.contains("off"),
                    "{line}"
                );
            }
            assert_eq!(c.contains("stream {"), stack == "raw", "{stack}");
            assert_eq!(
                c.contains("grpc_pass"),
                stack == "h2" || stack == "grpc",
                "{stack}"
            );
        }
    }

    #[test]
    fn an_unknown_stack_or_proxy_is_refused_by_name() {
        let e = start(ProxyKind::Haproxy, "smtp", addr("127.0.0.1:9")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "haproxy cannot carry the `smtp` stack: it carries raw, http1, h2, grpc"
        );
        assert!("squid"
            .parse::<ProxyKind>()
            .unwrap_err()
            .contains("haproxy, nginx"));
    }

    #[test]
    fn a_missing_proxy_names_its_install_command() {
        let e = ProxyKind::Nginx.locate("/nonexistent/nginx").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`nginx` was not found: install it with `apt-get install nginx`"
        );
    }
}
