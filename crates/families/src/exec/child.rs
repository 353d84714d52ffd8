//! One timed run of a program: spawned, waited for with `wait4` so the
//! kernel hands back its user and system time and its peak resident set,
//! killed (with its whole process group) if it runs past the deadline.
//!
//! The wall clock starts just before the spawn and stops when `wait4`
//! returns, as hyperfine's does. Waiting is one blocking `waitid` that
//! leaves the program unreaped, then `wait4` on the zombie (it returns at
//! once): toll wakes once, when the program is done, and the watchdog below
//! never signals a group whose leader was reaped. The deadline (one for the whole
//! benchmark, `--max-time`) is kept by a watchdog thread that sleeps until
//! it and then kills whatever program is running; a poll on a pidfd would
//! wake toll twice per run (at the exit notice, then again in `wait4`),
//! which on a VM whose CPU halted during a 10 ms program cost ~90 µs a
//! run. `--output pipe` drains the program's stdout in a poll beside the
//! pidfd, as it must.

use super::perf::Counters;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a program's stdout goes (hyperfine's `--output`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// /dev/null (the default).
    Null,
    /// A pipe toll reads and discards, as a program piped into another sees.
    Pipe,
    /// toll's own stdout and stderr.
    Inherit,
    /// This file, truncated before each run.
    File(PathBuf),
}

/// What one run measured.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Measured {
    pub wall_ns: f64,
    pub user_ns: f64,
    pub sys_ns: f64,
    pub max_rss_kb: u64,
    /// Exit status, or 128 + signal when killed by one.
    pub exit_code: i32,
    pub signal: Option<i32>,
    pub cycles: Option<u64>,
    pub instructions: Option<u64>,
}

/// toll's own peak resident set, KiB (VmHWM): the kernel records the
/// spawning process's image as the child's at exec, so a program's
/// maximum RSS never reads below this.
pub fn own_peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Why a run has no figures.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started: its name and why.
    Spawn(String, std::io::Error),
    /// Past the deadline: killed.
    TimedOut,
}

/// Runs programs with the same stdin, stdout and counters every time.
pub struct Runner {
    input: Option<PathBuf>,
    output: Output,
    /// The last run's stderr (O_APPEND, truncated before each run).
    stderr: Option<File>,
    counters: Option<Counters>,
    /// /dev/null, opened once: each run gets a duplicate, not a fresh open.
    null: File,
    /// The deadline's keeper, made at the first run that has one.
    watchdog: Option<Watchdog>,
    /// Each program's command, built once and spawned again each run: its
    /// descriptors (/dev/null, the stderr file) stay open in it, so a run
    /// does not duplicate and close them (hyperfine opens /dev/null inside
    /// its timed span; toll does neither between runs). Only when every
    /// run may share them: an input file is reopened at its start, and an
    /// output file truncated, every run.
    commands: Vec<(Vec<String>, Command)>,
    /// fork + exec rather than posix_spawn.
    fork_exec: bool,
}

/// Kills the running program (its process group) once the deadline has
/// passed, and any started after it, until dropped. The group is signalled
/// only under the lock the waiter takes to clear the pid, which it does
/// after the program exited and before reaping it: a group id the system
/// handed out again is never hit.
struct Watchdog {
    deadline: Instant,
    /// The running program's pid, 0 between runs.
    running: Arc<Mutex<libc::pid_t>>,
    /// The deadline has passed.
    fired: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn new(deadline: Instant) -> Watchdog {
        let running = Arc::new(Mutex::new(0));
        let fired = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, f, st) = (running.clone(), fired.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("toll-exec-deadline".into())
            .spawn(move || {
                while !st.load(Ordering::Acquire) {
                    let now = Instant::now();
                    if now < deadline {
                        std::thread::park_timeout(deadline - now);
                        continue;
                    }
                    f.store(true, Ordering::Release);
                    let pid = r.lock().unwrap_or_else(|e| e.into_inner());
                    if *pid > 0 {
                        // SAFETY: signalling the process group we made for the
                        // child, whose leader is not reaped while we hold the lock.
                        unsafe { libc::kill(-*pid, libc::SIGKILL) };
                    }
                    drop(pid);
                    // A run that starts just now is killed on the next pass.
                    std::thread::park_timeout(Duration::from_millis(5));
                }
            })
            .ok();
        Watchdog {
            deadline,
            running,
            fired,
            stop,
            thread,
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Runner {
    /// A runner; `counters` when the kernel gave them.
    pub fn new(
        input: Option<PathBuf>,
        output: Output,
        counters: Option<Counters>,
    ) -> std::io::Result<Runner> {
        let stderr = if output == Output::Inherit {
            None
        } else {
            let path =
                toll_peers::scratch::dir()?.join(format!("exec-stderr-{}", fastrand::u64(..)));
            let f = std::fs::OpenOptions::new()
                .create_new(true)
                .read(true)
                .append(true)
                .open(&path)?;
            let _ = std::fs::remove_file(&path);
            Some(f)
        };
        let null = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")?;
        Ok(Runner {
            input,
            output,
            stderr,
            counters,
            null,
            watchdog: None,
            commands: Vec::new(),
            fork_exec: false,
        })
    }

    /// Start each program by fork + exec rather than posix_spawn.
    pub fn fork_exec(mut self, yes: bool) -> Runner {
        self.fork_exec = yes;
        self
    }

    /// Whether cycles and instructions are counted.
    pub fn counts(&self) -> bool {
        self.counters.is_some()
    }

    /// Run `argv` once, killed at `deadline`.
    pub fn run(
        &mut self,
        argv: &[String],
        deadline: Option<Instant>,
    ) -> Result<Measured, RunError> {
        if let Some(d) = deadline {
            if Instant::now() >= d {
                return Err(RunError::TimedOut);
            }
            if self.watchdog.as_ref().is_none_or(|w| w.deadline != d) {
                self.watchdog = Some(Watchdog::new(d));
            }
        }
        let watch = deadline.and(self.watchdog.as_ref());
        let spawn_err = |e| RunError::Spawn(argv[0].clone(), e);
        if let Some(err) = &self.stderr {
            if err.metadata().map(|m| m.len() > 0).unwrap_or(true) {
                let _ = err.set_len(0);
            }
        }
        let shared = self.input.is_none() && !matches!(self.output, Output::File(_));
        let mut fresh;
        let cmd = match self.commands.iter().position(|(a, _)| a == argv) {
            Some(i) if shared => &mut self.commands[i].1,
            _ => {
                fresh = self.command(argv).map_err(spawn_err)?;
                if shared {
                    self.commands.push((argv.to_vec(), fresh));
                    &mut self.commands.last_mut().expect("just pushed").1
                } else {
                    &mut fresh
                }
            }
        };
        if let Some(c) = &self.counters {
            c.reset();
        }
        let start = Instant::now();
        let spawned = cmd.spawn();
        let mut child = spawned.map_err(spawn_err)?;
        let pid = child.id() as libc::pid_t;
        let running = |pid| {
            if let Some(w) = watch {
                *w.running.lock().unwrap_or_else(|e| e.into_inner()) = pid;
            }
        };
        running(pid);
        let pipe = child.stdout.take();
        let waited = wait(pid, pipe, &|| running(0));
        let wall = start.elapsed();
        drop(child); // already reaped by wait4
        if let Some(w) = watch {
            if w.fired.load(Ordering::Acquire) {
                let _ = waited;
                return Err(RunError::TimedOut);
            }
        }
        let (status, ru) = waited?;
        let (cycles, instructions) = match &self.counters {
            Some(c) => c.read(),
            None => (None, None),
        };
        let tv = |t: libc::timeval| t.tv_sec as f64 * 1e9 + t.tv_usec as f64 * 1e3;
        let (exit_code, signal) = if libc::WIFEXITED(status) {
            (libc::WEXITSTATUS(status), None)
        } else if libc::WIFSIGNALED(status) {
            (128 + libc::WTERMSIG(status), Some(libc::WTERMSIG(status)))
        } else {
            (-1, None)
        };
        Ok(Measured {
            wall_ns: wall.as_nanos() as f64,
            user_ns: tv(ru.ru_utime),
            sys_ns: tv(ru.ru_stime),
            max_rss_kb: ru.ru_maxrss.max(0) as u64,
            exit_code,
            signal,
            cycles,
            instructions,
        })
    }

    /// `argv` with this runner's stdin, stdout and stderr, in a process
    /// group of its own (the deadline kills the whole group).
    fn command(&self, argv: &[String]) -> std::io::Result<Command> {
        let mut cmd = Command::new(&argv[0]);
        // No parent-death signal here (toll_peers::group): it needs a
        // pre_exec hook, which turns std's posix_spawn (vfork) into a fork
        // of toll's whole address space inside the timed span of every run.
        // A program under measurement ends by itself or at --max-time.
        cmd.args(&argv[1..]).process_group(0);
        if self.fork_exec {
            // Any pre_exec hook makes std fork and exec instead of
            // posix_spawn: this one does nothing else.
            // SAFETY: the hook allocates nothing and touches no lock.
            unsafe {
                cmd.pre_exec(|| Ok(()));
            }
        }
        match &self.input {
            Some(p) => cmd.stdin(File::open(p)?),
            None => cmd.stdin(self.null.try_clone()?),
        };
        match &self.output {
            Output::Null => cmd.stdout(self.null.try_clone()?),
            Output::Pipe => cmd.stdout(Stdio::piped()),
            Output::Inherit => cmd.stdout(Stdio::inherit()),
            Output::File(p) => cmd.stdout(File::create(p)?),
        };
        if let Some(err) = &self.stderr {
            cmd.stderr(err.try_clone()?);
        }
        Ok(cmd)
    }

    /// The last run's stderr, its last non-blank lines joined (at most
    /// `max` characters, the end kept).
    pub fn last_stderr(&mut self, max: usize) -> String {
        let Some(f) = &mut self.stderr else {
            return String::new();
        };
        let mut text = String::new();
        let _ = f.seek(SeekFrom::Start(0));
        let _ = f.read_to_string(&mut text);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let joined = lines.join(" / ");
        let count = joined.chars().count();
        if count > max {
            let tail: String = joined.chars().skip(count - max).collect();
            format!("…{tail}")
        } else {
            joined
        }
    }
}

/// Wait for `pid`: its status and resource use. `pipe` (its stdout) is
/// drained meanwhile, in a poll beside a pidfd; without one, a single
/// blocking wait. `exited` is called once it has exited, before the reap.
fn wait(
    pid: libc::pid_t,
    mut pipe: Option<std::process::ChildStdout>,
    exited: &dyn Fn(),
) -> Result<(i32, libc::rusage), RunError> {
    if pipe.is_some() {
        // SAFETY: pidfd_open on our own child; a negative result is an error.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        // SAFETY: a fresh descriptor we own.
        let pidfd = (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw as i32) });
        let mut buf = vec![0u8; 64 * 1024];
        while let (Some(p), Some(fd)) = (&mut pipe, &pidfd) {
            let mut fds = [
                libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: p.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: two valid pollfd entries.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
            if fds[1].revents != 0 && matches!(p.read(&mut buf), Ok(0) | Err(_)) {
                pipe = None;
            } else if fds[0].revents != 0 {
                break;
            }
        }
    }
    drop(pipe);
    reap(pid, exited)
}

/// Wait for `pid` to exit (waitid, leaving it unreaped: the one wake-up),
/// call `exited`, then reap it with `wait4` for its resource use (at once:
/// it is a zombie by then).
fn reap(pid: libc::pid_t, exited: &dyn Fn()) -> Result<(i32, libc::rusage), RunError> {
    loop {
        // SAFETY: an all-zero siginfo is valid; waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waiting for our own child with a valid out-pointer.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(RunError::Spawn("waitid".into(), e));
        }
    }
    exited();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waiting for our own child with valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            return Ok((status, ru));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(RunError::Spawn("wait4".into(), e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(cmd: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), cmd.into()]
    }

    #[test]
    fn a_run_reports_its_time_status_and_stderr() {
        let mut r = Runner::new(None, Output::Null, None).unwrap();
        let m = r
            .run(&sh("sleep 0.05; echo oops >&2; exit 3"), None)
            .unwrap();
        assert!(m.wall_ns >= 50e6 && m.wall_ns < 2e9, "{m:?}");
        assert_eq!(m.exit_code, 3);
        assert!(m.max_rss_kb > 0);
        assert_eq!(r.last_stderr(100), "oops");
        let m = r.run(&sh("true"), None).unwrap();
        assert_eq!((m.exit_code, r.last_stderr(100).as_str()), (0, ""));
    }

    #[test]
    fn a_command_spawned_again_gets_fresh_stderr_pipe_and_input() {
        // The same argv reuses its command: each run still sees its own
        // stderr, a new pipe, and the input file from its start.
        let script = sh("n=$(wc -c); echo $n; echo err$n >&2; exit $((n % 7))");
        let dir = toll_peers::scratch::dir().unwrap();
        let input = dir.join(format!("exec-input-{}", fastrand::u64(..)));
        std::fs::write(&input, "hello\n").unwrap();
        for output in [Output::Null, Output::Pipe] {
            let mut r = Runner::new(None, output.clone(), None).unwrap();
            for _ in 0..3 {
                let m = r.run(&script, None).unwrap();
                assert_eq!((m.exit_code, r.last_stderr(100)), (0, "err0".into()));
            }
            let mut r = Runner::new(Some(input.clone()), output, None).unwrap();
            for _ in 0..3 {
                let m = r.run(&script, None).unwrap();
                assert_eq!((m.exit_code, r.last_stderr(100)), (6, "err6".into()));
            }
        }
        let _ = std::fs::remove_file(&input);
    }

    #[test]
    fn user_time_and_memory_are_the_programs() {
        let mut r = Runner::new(None, Output::Pipe, None).unwrap();
        // A busy loop of ~0.2 s of CPU, printing a lot into the pipe.
        let m = r
            .run(
                &sh("i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; seq 1 100000"),
                None,
            )
            .unwrap();
        assert_eq!(m.exit_code, 0);
        assert!(m.user_ns > 10e6, "{m:?}");
        assert!(m.user_ns + m.sys_ns <= m.wall_ns * 1.05 + 5e6, "{m:?}");
    }

    #[test]
    fn a_deadline_kills_the_whole_group() {
        let mut r = Runner::new(None, Output::Null, None).unwrap();
        let t = Instant::now();
        let e = r
            .run(
                &sh("sleep 5 & sleep 5"),
                Some(Instant::now() + Duration::from_millis(200)),
            )
            .unwrap_err();
        assert!(matches!(e, RunError::TimedOut));
        assert!(t.elapsed() < Duration::from_secs(2));
        let e = r.run(&["/no/such/program".into()], None).unwrap_err();
        assert!(
            matches!(e, RunError::Spawn(_, ref io) if io.kind() == std::io::ErrorKind::NotFound)
        );
    }
}
