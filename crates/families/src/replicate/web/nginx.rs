//! nginx beside E5's servers (E5 did not run it): one process
//! (`master_process off`, as `toll rpc --path nginx` runs it), one worker,
//! sendfile on, every temporary path in toll's directory.

use super::{Launch, Ports, Server};
use crate::rpc::proxy::ProxyKind;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Start nginx under `parent`, or say why not (with the install command).
pub fn start(parent: &Path, ports: &mut Ports) -> Result<Server, String> {
    let program = ProxyKind::Nginx
        .find()
        .map_err(|_| format!("nginx not installed: {}", ProxyKind::Nginx.install_hint()))?;
    let version = ProxyKind::Nginx
        .version()
        .unwrap_or_else(|_| "nginx".into());
    super::start("nginx", version, parent, ports, &|dir, addr| {
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config(dir, &dir.join("www"), addr))
            .map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
        let log = dir.join("error.log");
        let mut command = Command::new(&program);
        command
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        Ok(Launch {
            command,
            log,
            ready_within: Duration::from_secs(10),
        })
    })
}

/// One worker, no access log (as every server here: a log on a 2-vCPU
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
