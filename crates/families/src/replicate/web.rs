//! E5's servers that toll can start today: nginx serving E5's two files (a
//! 92-byte hello.html, a 1 MiB file) on a free loopback port, from a
//! directory of toll's with a generated configuration. One process
//! (`master_process off`, as `toll rpc --path nginx` runs it), so killing
//! it leaves nothing behind. Apache httpd and Tomcat come with issue 19.

use crate::rpc_proxy::ProxyKind;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// E5's small page: 92 bytes.
pub const SMALL: (&str, usize) = ("hello.html", 92);
/// E5's large file: 1 MiB.
pub const LARGE: (&str, usize) = ("big.bin", 1 << 20);

/// How long nginx may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running server, stopped and its directory removed when dropped.
pub struct Server {
    child: Child,
    dir: PathBuf,
    pub addr: SocketAddr,
    /// The server's name and version, as `nginx -v` says it.
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
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Start nginx under `parent`, or say why not (with the install command).
pub fn start_nginx(parent: &Path) -> Result<Server, String> {
    let program = ProxyKind::Nginx
        .find()
        .map_err(|_| format!("nginx not installed: {}", ProxyKind::Nginx.install_hint()))?;
    let version = ProxyKind::Nginx
        .version()
        .unwrap_or_else(|_| "nginx".into());
    let dir = parent.join(format!("nginx-{}", std::process::id()));
    let www = dir.join("www");
    std::fs::create_dir_all(&www).map_err(|e| format!("cannot make {}: {e}", www.display()))?;
    for (name, len) in [SMALL, LARGE] {
        std::fs::write(www.join(name), vec![b'x'; len])
            .map_err(|e| format!("cannot write {name}: {e}"))?;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free loopback port: {e}"))?
        .port();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config(&dir, &www, addr))
        .map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
    let child = Command::new(&program)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(dir.join("error.log"))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut server = Server {
        child,
        dir,
        addr,
        version,
    };
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = server.child.try_wait() {
            let log = std::fs::read_to_string(server.dir.join("error.log")).unwrap_or_default();
            return Err(format!(
                "nginx exited ({status}): {}",
                log.lines().last().unwrap_or("no log")
            ));
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(server);
        }
        if Instant::now() > deadline {
            return Err(format!("nginx did not accept on {addr} within 10 s"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One worker, no access log (E5's servers logged; a log on a 2-vCPU
/// machine measures the disk), every temporary path inside `dir`.
fn config(dir: &Path, www: &Path, addr: SocketAddr) -> String {
    format!(
        "daemon off; master_process off; worker_processes 1; pid {d}/nginx.pid;\n\
         error_log {d}/error.log;\n\
         events {{ worker_connections 4096; }}\n\
         http {{ access_log off; sendfile on;\n\
           client_body_temp_path {d}; proxy_temp_path {d}; fastcgi_temp_path {d};\n\
           uwsgi_temp_path {d}; scgi_temp_path {d};\n\
           server {{ listen {addr}; root {w}; }}\n\
         }}\n",
        d = dir.display(),
        w = www.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_keeps_every_path_in_its_directory() {
        let c = config(
            Path::new("/tmp/x"),
            Path::new("/tmp/x/www"),
            "127.0.0.1:8080".parse().unwrap(),
        );
        assert!(c.contains("listen 127.0.0.1:8080;") && c.contains("root /tmp/x/www;"));
        for line in c
            .lines()
            .filter(|l| l.contains("_path") || l.contains("pid "))
        {
            assert!(!line.contains("/var/"), "{line}");
        }
    }
}
