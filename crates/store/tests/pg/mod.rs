//! A real PostgreSQL server for the tests, started once per test binary:
//! Debian's `postgresql` binaries (found by build.rs, `TOLL_PG_BIN`),
//! `initdb` into a temporary directory, listening on 127.0.0.1 at a free
//! port and on a unix socket in that directory, trust authentication for a
//! superuser `toll`. PostgreSQL refuses to run as root, so when the tests
//! run as root the directory is given to `nobody` and the server runs as
//! that user; otherwise it runs as the test's own user.
//!
//! The server lives until the test binary exits: an `atexit` handler stops
//! it (fast shutdown, then SIGKILL) and removes the directory, and the
//! server is started with a parent-death signal, so a test binary that is
//! killed takes it along. Each test gets a database of its own
//! ([`fresh_db`]). Used by the store's tests and, through `#[path]`, by the
//! CLI's end-to-end test; both only call it under `cfg(toll_pg)`.

#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The running server.
pub struct PgServer {
    /// The temporary directory: `data/`, the socket, `server.log`.
    pub dir: PathBuf,
    pub port: u16,
    child: Mutex<Option<Child>>,
}

static SERVER: OnceLock<Result<PgServer, String>> = OnceLock::new();
static NEXT_DB: AtomicU32 = AtomicU32::new(0);

/// The server's binaries, as build.rs found them.
fn bin(name: &str) -> PathBuf {
    // Set by build.rs with cfg(toll_pg), the only case that starts a server.
    let dir = option_env!("TOLL_PG_BIN").unwrap_or("/nonexistent/postgresql/bin");
    Path::new(dir).join(name)
}

/// (uid, gid) of `nobody`, from /etc/passwd (65534 where it is missing).
fn nobody() -> (u32, u32) {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.first() == Some(&"nobody") && f.len() > 3)
                    .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
                    .flatten()
            })
        })
        .unwrap_or((65534, 65534))
}

/// The user the server runs as: `nobody` under root, else ourselves (None).
fn server_user() -> Option<(u32, u32)> {
    // SAFETY: geteuid cannot fail and touches no memory.
    let euid = unsafe { libc::geteuid() };
    (euid == 0).then(nobody)
}

fn as_server_user(cmd: &mut Command) -> &mut Command {
    if let Some((uid, gid)) = server_user() {
        cmd.uid(uid).gid(gid);
    }
    cmd
}

/// Remove directories left by test binaries that were killed.
fn sweep_stale() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("toll-pg-")
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let gone = matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
            Err(nix::errno::Errno::ESRCH)
        );
        if gone {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl PgServer {
    fn start() -> Result<PgServer, String> {
        sweep_stale();
        let dir = std::env::temp_dir().join(format!("toll-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Some((uid, gid)) = server_user() {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| format!("chown {} to nobody: {e}", dir.display()))?;
        }
        let data = dir.join("data");
        let out = as_server_user(&mut Command::new(bin("initdb")))
            .current_dir(&dir)
            .args(["-D"])
            .arg(&data)
            .args(["-U", "toll", "--auth=trust", "-E", "UTF8", "--no-sync"])
            .args(["--locale=C", "--no-instructions"])
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let port = free_port();
        let log_path = dir.join("server.log");
        let log = std::fs::File::create(&log_path).map_err(|e| format!("server.log: {e}"))?;
        let mut cmd = Command::new(bin("postgres"));
        as_server_user(&mut cmd)
            .current_dir(&dir)
            .arg("-D")
            .arg(&data)
            .arg("-k")
            .arg(&dir)
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
            .args(["-c", "full_page_writes=off", "-c", "max_connections=200"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log);
        // If the test binary dies, the server gets a fast shutdown.
        // SAFETY: prctl is async-signal-safe; nothing is allocated.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|e| format!("postgres: {e}"))?;
        let server = PgServer {
            dir,
            port,
            child: Mutex::new(Some(child)),
        };
        server.wait_ready(&log_path)?;
        Ok(server)
    }

    fn wait_ready(&self, log: &Path) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if postgres::Client::connect(&self.url("postgres"), postgres::NoTls).is_ok() {
                return Ok(());
            }
            let exited = self
                .child
                .lock()
                .unwrap()
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if exited.is_some() || Instant::now() > deadline {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                return Err(format!("postgres did not start ({exited:?}): {text}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A URL for database `db` over TCP on loopback.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://toll@127.0.0.1:{}/{db}", self.port)
    }

    /// A URL for database `db` over the unix socket in the server's directory.
    pub fn socket_url(&self, db: &str) -> String {
        let dir = self.dir.display().to_string().replace('/', "%2F");
        format!("postgres://toll@{dir}:{}/{db}", self.port)
    }

    /// Run SQL on database `db` as the superuser.
    pub fn sql(&self, db: &str, sql: &str) {
        let mut c = postgres::Client::connect(&self.url(db), postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to {db}: {e}"));
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }

    /// Stop the server (fast shutdown; SIGKILL after 10 s) and remove its
    /// directory.
    pub fn stop(&self) {
        let Some(mut child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

extern "C" fn stop_at_exit() {
    if let Some(Ok(server)) = SERVER.get() {
        server.stop();
    }
}

/// The shared server, started on first use. The thread that starts it
/// stays alive (parked) for the rest of the run: the parent-death signal
/// follows the thread that spawned the server, and test threads end.
pub fn server() -> &'static PgServer {
    let result = SERVER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(PgServer::start());
            loop {
                std::thread::park();
            }
        });
        let started = rx
            .recv()
            .unwrap_or_else(|_| Err("the starter thread died".into()));
        if started.is_ok() {
            // SAFETY: registers a plain extern "C" function.
            unsafe {
                libc::atexit(stop_at_exit);
            }
        }
        started
    });
    match result {
        Ok(s) => s,
        Err(e) => panic!("cannot start the test PostgreSQL server: {e}"),
    }
}

/// A new, empty database of its own for one test; its URL.
pub fn fresh_db(name: &str) -> String {
    let s = server();
    let db = format!(
        "t_{}_{}",
        name.to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect::<String>(),
        NEXT_DB.fetch_add(1, Ordering::Relaxed)
    );
    s.sql(
        "postgres",
        &format!("CREATE DATABASE {db} TEMPLATE template0"),
    );
    s.url(&db)
}
