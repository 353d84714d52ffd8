//! Apache httpd (Debian's `apache2`) as E5 ran it and as it was tuned:
//! one of its three MPMs (prefork, worker, event) with the directives
//! Debian ships for it (`/etc/apache2/mods-available/mpm_*.conf`), the
//! modules Debian enables (`/etc/apache2/mods-enabled`) and Debian's core
//! settings; then E5's trap (children recycled every 100 connections,
//! Debian's default in 2004) or E5's tuning (≥ 20 spare servers, 10000
//! connections per child). No access log, as every server here.

use super::{first_line, Launch, Ports, Server};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The command that installs it.
pub const INSTALL: &str = "apt-get install apache2";

/// Debian's configuration, read where it is installed.
const DEBIAN_CONF: &str = "/etc/apache2";
/// Where Debian keeps Apache's modules.
const MODULES: &str = "/usr/lib/apache2/modules";

/// An Apache multi-processing module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mpm {
    /// A process per connection.
    Prefork,
    /// Processes of threads, a thread per connection.
    Worker,
    /// Worker with idle keep-alive connections handed to a listener thread.
    Event,
}

impl Mpm {
    pub const ALL: [Mpm; 3] = [Mpm::Prefork, Mpm::Worker, Mpm::Event];

    pub fn name(self) -> &'static str {
        match self {
            Mpm::Prefork => "prefork",
            Mpm::Worker => "worker",
            Mpm::Event => "event",
        }
    }

    /// Debian's `mpm_*.conf` directives, for a machine without them.
    fn debian_defaults(self) -> &'static [&'static str] {
        match self {
            Mpm::Prefork => &[
                "StartServers 5",
                "MinSpareServers 5",
                "MaxSpareServers 10",
                "MaxRequestWorkers 150",
                "MaxConnectionsPerChild 0",
            ],
            Mpm::Worker | Mpm::Event => &[
                "StartServers 2",
                "MinSpareThreads 25",
                "MaxSpareThreads 75",
                "ThreadLimit 64",
                "ThreadsPerChild 25",
                "MaxRequestWorkers 150",
                "MaxConnectionsPerChild 0",
            ],
        }
    }
}

/// What is changed from Debian's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tuning {
    /// Debian's, as installed.
    Debian,
    /// E5's trap: `MaxConnectionsPerChild 100` (Debian's 2004 default,
    /// then called MaxRequestsPerChild).
    Recycle,
    /// E5's fix: ≥ 20 spare servers, 10000 connections per child.
    Tuned,
}

impl Tuning {
    pub fn words(self) -> &'static str {
        match self {
            Tuning::Debian => "Debian defaults",
            Tuning::Recycle => "recycled every 100 (E5's trap)",
            Tuning::Tuned => "tuned (E5's fix)",
        }
    }

    /// The directives added after Debian's.
    fn directives(self, mpm: Mpm) -> &'static [&'static str] {
        match (self, mpm) {
            (Tuning::Debian, _) => &[],
            (Tuning::Recycle, _) => &["MaxConnectionsPerChild 100"],
            (Tuning::Tuned, Mpm::Prefork) => &[
                "StartServers 20",
                "MinSpareServers 20",
                "MaxSpareServers 40",
                "MaxConnectionsPerChild 10000",
            ],
            // 25 spare threads already, Debian's default.
            (Tuning::Tuned, _) => &["MaxConnectionsPerChild 10000"],
        }
    }
}

/// One Apache to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    pub mpm: Mpm,
    pub tuning: Tuning,
}

impl Setup {
    /// `apache prefork, recycled every 100 (E5's trap)`.
    pub fn label(self) -> String {
        format!("apache {}, {}", self.mpm.name(), self.tuning.words())
    }
}

/// `$TOLL_APACHE2`, else `apache2` on PATH or in /usr/sbin.
fn program() -> Result<PathBuf, String> {
    let wanted = std::env::var("TOLL_APACHE2").unwrap_or_else(|_| "apache2".into());
    toll_peers::runtime::find_in_path(&wanted)
        .or_else(|| {
            let sbin = Path::new("/usr/sbin").join(&wanted);
            (!wanted.contains('/') && sbin.is_file()).then_some(sbin)
        })
        .ok_or_else(|| format!("apache2 not installed: {INSTALL}"))
}

/// Start Apache as `setup` says under `parent`, or say why not.
pub fn start(setup: Setup, parent: &Path, ports: &mut Ports) -> Result<Server, String> {
    let program = program()?;
    let modules = std::env::var("TOLL_APACHE2_MODULES").unwrap_or_else(|_| MODULES.into());
    let mpm_so = Path::new(&modules).join(format!("mod_mpm_{}.so", setup.mpm.name()));
    if !mpm_so.is_file() {
        return Err(format!(
            "{} not found: {INSTALL} (or set TOLL_APACHE2_MODULES to Apache's modules directory)",
            mpm_so.display()
        ));
    }
    // "Server version: Apache/2.4.71 (Debian)"
    let version = first_line(&program, &["-v"])
        .map(|l| l.trim_start_matches("Server version:").trim().to_string())
        .unwrap_or_else(|| "Apache".into());
    let debian = Path::new(DEBIAN_CONF);
    // SAFETY: geteuid cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    super::start(&setup.label(), version, parent, ports, &|dir, addr| {
        let conf = dir.join("httpd.conf");
        let text = config(setup, dir, addr, Path::new(&modules), debian, root);
        std::fs::write(&conf, text).map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
        let log = dir.join("error.log");
        let mut command = Command::new(&program);
        command
            .arg("-f")
            .arg(&conf)
            .arg("-DFOREGROUND")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        Ok(Launch {
            command,
            log,
            ready_within: Duration::from_secs(15),
        })
    })
}

/// The MPM's directives as Debian ships them, or Debian's defaults.
fn mpm_directives(mpm: Mpm, debian: &Path) -> Vec<String> {
    let path = debian.join(format!("mods-available/mpm_{}.conf", mpm.name()));
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('<'))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect(),
        Err(_) => mpm
            .debian_defaults()
            .iter()
            .map(|s| s.to_string())
            .collect(),
    }
}

/// The modules Debian enables (their `.load`, then their `.conf`), MPMs
/// aside; on a machine without Debian's layout, authz_core alone.
fn module_includes(debian: &Path, modules: &Path) -> Vec<String> {
    let enabled = debian.join("mods-enabled");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&enabled)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    names.retain(|p| {
        !p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("mpm_"))
    });
    names.sort();
    if names.is_empty() {
        return vec![format!(
            "LoadModule authz_core_module {}",
            modules.join("mod_authz_core.so").display()
        )];
    }
    let of = |ext: &str| {
        names
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .map(|p| format!("Include {}", p.display()))
            .collect::<Vec<_>>()
    };
    [of("load"), of("conf")].concat()
}

/// The whole configuration: every path Apache writes is inside `dir`.
fn config(
    setup: Setup,
    dir: &Path,
    addr: SocketAddr,
    modules: &Path,
    debian: &Path,
    root: bool,
) -> String {
    let mut c = String::new();
    let d = dir.display();
    let _ = writeln!(c, "ServerRoot {d}");
    let _ = writeln!(
        c,
        "LoadModule mpm_{m}_module {}",
        modules
            .join(format!("mod_mpm_{}.so", setup.mpm.name()))
            .display(),
        m = setup.mpm.name()
    );
    for line in module_includes(debian, modules) {
        let _ = writeln!(c, "{line}");
    }
    let _ = writeln!(c, "# Debian's mpm_{}.conf", setup.mpm.name());
    for line in mpm_directives(setup.mpm, debian) {
        let _ = writeln!(c, "{line}");
    }
    if setup.tuning != Tuning::Debian {
        let _ = writeln!(c, "# {}", setup.tuning.words());
        for line in setup.tuning.directives(setup.mpm) {
            let _ = writeln!(c, "{line}");
        }
    }
    // Debian's apache2.conf core settings.
    c.push_str("Timeout 300\nKeepAlive On\nMaxKeepAliveRequests 100\nKeepAliveTimeout 5\nHostnameLookups Off\n");
    let _ = writeln!(c, "ServerName 127.0.0.1\nListen {addr}");
    let _ = writeln!(c, "PidFile {d}/httpd.pid\nErrorLog {d}/error.log");
    let _ = writeln!(c, "DocumentRoot {d}/www");
    let _ = writeln!(c, "<Directory />\n  Require all denied\n</Directory>");
    let _ = writeln!(
        c,
        "<Directory {d}/www>\n  Require all granted\n</Directory>"
    );
    if root {
        // Debian's user; Apache will not serve as root.
        c.push_str("User www-data\nGroup www-data\n");
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(setup: Setup, debian: &Path) -> String {
        config(
            setup,
            Path::new("/tmp/x"),
            "127.0.0.1:8080".parse().unwrap(),
            Path::new(MODULES),
            debian,
            true,
        )
    }

    #[test]
    fn the_trap_and_the_fix_come_after_debians_directives() {
        let none = Path::new("/nonexistent");
        for mpm in Mpm::ALL {
            let trap = conf(
                Setup {
                    mpm,
                    tuning: Tuning::Recycle,
                },
                none,
            );
            // Apache takes the last of a repeated directive.
            let last = trap
                .lines()
                .rfind(|l| l.starts_with("MaxConnectionsPerChild"));
            assert_eq!(last, Some("MaxConnectionsPerChild 100"), "{trap}");
            assert!(trap.contains(&format!("mod_mpm_{}.so", mpm.name())));
            let fix = conf(
                Setup {
                    mpm,
                    tuning: Tuning::Tuned,
                },
                none,
            );
            let last = fix
                .lines()
                .rfind(|l| l.starts_with("MaxConnectionsPerChild"));
            assert_eq!(last, Some("MaxConnectionsPerChild 10000"));
        }
        let prefork = conf(
            Setup {
                mpm: Mpm::Prefork,
                tuning: Tuning::Tuned,
            },
            none,
        );
        assert!(prefork.contains("MinSpareServers 20"));
    }

    #[test]
    fn every_path_apache_writes_is_in_its_directory() {
        let c = conf(
            Setup {
                mpm: Mpm::Event,
                tuning: Tuning::Debian,
            },
            Path::new("/nonexistent"),
        );
        for key in ["PidFile", "ErrorLog", "DocumentRoot", "ServerRoot"] {
            let line = c.lines().find(|l| l.starts_with(key)).unwrap();
            assert!(line.contains("/tmp/x"), "{line}");
        }
        assert!(c.contains("Listen 127.0.0.1:8080"));
        assert!(!c.contains("CustomLog"));
    }

    #[test]
    fn debians_mpm_file_is_read_when_present() {
        let tmp = std::env::temp_dir().join(format!("toll-apache-test-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("mods-available")).unwrap();
        std::fs::write(
            tmp.join("mods-available/mpm_worker.conf"),
            "# comment\n<IfModule mpm_worker_module>\n\tStartServers\t\t 7\n</IfModule>\n",
        )
        .unwrap();
        assert_eq!(mpm_directives(Mpm::Worker, &tmp), vec!["StartServers 7"]);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
