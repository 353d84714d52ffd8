//! Tomcat (Debian's `tomcat10`), E5's Coyote on a server JVM: its
//! HTTP/1.1 connector (NIO) with Debian's settings (connectionTimeout
//! 20000, the default 200 threads), the default servlet serving E5's two
//! files from a ROOT web application, Debian's `web.xml`; run on the
//! newest JDK toll finds (21 or newer), with Debian's JAVA_OPTS
//! (`-Djava.awt.headless=true`). No access log, as every server here.

use super::{first_line, Launch, Ports, Server};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use toll_peers::Runtime;

/// The command that installs it.
pub const INSTALL: &str = "apt-get install tomcat10";

/// Where Debian installs Tomcat (CATALINA_HOME).
const HOME: &str = "/usr/share/tomcat10";

/// `$TOLL_TOMCAT_HOME`, else Debian's, when it holds Tomcat's bootstrap.
fn home() -> Result<PathBuf, String> {
    let home = PathBuf::from(std::env::var("TOLL_TOMCAT_HOME").unwrap_or_else(|_| HOME.into()));
    if home.join("bin/bootstrap.jar").is_file() {
        Ok(home)
    } else {
        Err(format!(
            "tomcat10 not installed ({} has no bin/bootstrap.jar): {INSTALL}",
            home.display()
        ))
    }
}

/// The first of `names` that exists: Debian keeps Tomcat's default
/// configuration in `$HOME/etc` and /etc/tomcat10, Apache's own layout in
/// `$HOME/conf`.
fn default_conf(home: &Path, name: &str) -> Option<PathBuf> {
    [
        home.join("etc").join(name),
        Path::new("/etc/tomcat10").join(name),
        home.join("conf").join(name),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Start Tomcat under `parent`, or say why not.
pub fn start(parent: &Path, ports: &mut Ports) -> Result<Server, String> {
    let home = home()?;
    let java = Runtime::Java
        .detect()
        .map_err(|e| format!("Tomcat needs Java: {e}"))?
        .program;
    let web_xml = default_conf(&home, "web.xml").ok_or_else(|| {
        format!(
            "Tomcat's default web.xml is missing under {}: {INSTALL}",
            home.display()
        )
    })?;
    let lib = home.join("lib");
    let classpath = format!(
        "{}:{}",
        lib.join("catalina.jar").display(),
        lib.join("tomcat-util.jar").display()
    );
    // "Server version: Apache Tomcat/10.1.60 (Debian)"
    let version = first_line(
        &java,
        &["-cp", &classpath, "org.apache.catalina.util.ServerInfo"],
    )
    .map(|l| l.trim_start_matches("Server version:").trim().to_string())
    .unwrap_or_else(|| "Apache Tomcat".into());
    super::start("tomcat", version, parent, ports, &|dir, addr| {
        let conf = dir.join("conf");
        let root = dir.join("webapps/ROOT");
        let temp = dir.join("temp");
        for d in [&conf, &root, &temp, &dir.join("logs")] {
            std::fs::create_dir_all(d).map_err(|e| format!("cannot make {}: {e}", d.display()))?;
        }
        for f in std::fs::read_dir(dir.join("www")).map_err(|e| e.to_string())? {
            let f = f.map_err(|e| e.to_string())?.path();
            let name = f.file_name().unwrap_or_default();
            std::fs::copy(&f, root.join(name))
                .map_err(|e| format!("cannot copy {}: {e}", f.display()))?;
        }
        std::fs::copy(&web_xml, conf.join("web.xml"))
            .map_err(|e| format!("cannot copy {}: {e}", web_xml.display()))?;
        if let Some(p) = default_conf(&home, "catalina.properties") {
            let _ = std::fs::copy(p, conf.join("catalina.properties"));
        }
        std::fs::write(conf.join("server.xml"), server_xml(addr))
            .map_err(|e| format!("cannot write server.xml: {e}"))?;
        let log = dir.join("tomcat.log");
        let out = std::fs::File::create(&log)
            .map_err(|e| format!("cannot make {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let bin = home.join("bin");
        let mut command = Command::new(&java);
        command
            .arg("-Djava.awt.headless=true")
            .arg(format!("-Dcatalina.home={}", home.display()))
            .arg(format!("-Dcatalina.base={}", dir.display()))
            .arg(format!("-Djava.io.tmpdir={}", temp.display()))
            .arg("-cp")
            .arg(format!(
                "{}:{}",
                bin.join("bootstrap.jar").display(),
                bin.join("tomcat-juli.jar").display()
            ))
            .arg("org.apache.catalina.startup.Bootstrap")
            .arg("start")
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        Ok(Launch {
            command,
            log,
            ready_within: Duration::from_secs(60),
        })
    })
}

/// Debian's server.xml reduced to what serves files: no shutdown port, one
/// HTTP/1.1 connector on `addr` with Debian's timeout, one host; no
/// realm, no access log.
fn server_xml(addr: SocketAddr) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="{port}" address="{ip}" protocol="HTTP/1.1" connectionTimeout="20000"/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/>
    </Engine>
  </Service>
</Server>
"#,
        port = addr.port(),
        ip = addr.ip()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connector_listens_on_loopback_only_and_nothing_else_does() {
        let x = server_xml("127.0.0.1:18081".parse().unwrap());
        assert!(x.contains(r#"port="18081" address="127.0.0.1""#));
        assert!(x.contains(r#"<Server port="-1""#));
        assert_eq!(x.matches("<Connector").count(), 1);
        assert!(!x.contains("AccessLogValve"));
    }
}
