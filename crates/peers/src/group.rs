//! A child of toll that leads a process group of its own (a worker, an RPC
//! server, a web server, a proxy, an agent's launcher): started so that it
//! dies with toll, and signalled as a group only while its leader is known
//! not to be reaped.
//!
//! Dying with toll: a toll killed with SIGKILL cannot stop what it started,
//! so the kernel sends each leader SIGTERM when toll dies (a parent-death
//! signal), and a server's master (Apache, nginx, Tomcat) then stops its
//! own workers. Linux sends that signal when the *thread* that forked the
//! child ends, not the process; a child asked for on any thread but the
//! main one is therefore forked by one thread that lives as long as toll.
//!
//! Signalling the group: its id is the leader's pid, which the system
//! cannot hand out again while the leader is unreaped (running, or a
//! zombie). Every reap goes through [`Group`], under the lock its signals
//! take, and a pidfd held from the spawn tells when the leader exited
//! without reaping it; so the stragglers of a leader that already exited
//! (Apache's children) are still killed, and a reused id never is.

use nix::libc;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Have `cmd`'s process receive SIGTERM when toll dies. Only for a child
/// forked on the main thread or by [`spawn`] (see the module's note).
pub fn dies_with_toll(cmd: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec only async-signal-safe calls (prctl,
    // getppid); no allocation.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGTERM as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // toll died between the fork and the prctl: no signal will come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Fork `cmd` from a thread that lives as long as toll: the calling one
/// when it is the main thread, else a spawner thread of toll's own (given
/// the caller's CPU affinity, which the child inherits).
pub fn spawn(mut cmd: Command) -> io::Result<Child> {
    if on_main_thread() {
        return cmd.spawn();
    }
    type Job = (
        Command,
        Option<nix::sched::CpuSet>,
        mpsc::Sender<io::Result<Child>>,
    );
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let sender = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("toll-spawner".into())
            .spawn(move || {
                for (mut cmd, cpus, answer) in rx {
                    if let Some(set) = cpus {
                        let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set);
                    }
                    let _ = answer.send(cmd.spawn());
                }
            })
            .expect("starting toll's spawner thread");
        Mutex::new(tx)
    });
    let cpus = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok();
    let (tx, rx) = mpsc::channel();
    let sent = sender
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((cmd, cpus, tx));
    if sent.is_err() {
        return Err(io::Error::other("toll's spawner thread is gone"));
    }
    rx.recv()
        .unwrap_or_else(|_| Err(io::Error::other("toll's spawner thread is gone")))
}

fn on_main_thread() -> bool {
    nix::unistd::gettid() == nix::unistd::getpid()
}

/// The pipes of a started leader that were asked for.
pub struct Pipes {
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
}

/// A started process leading its own group; killed with its group, and
/// reaped, when dropped.
pub struct Group {
    pid: u32,
    pidfd: Option<OwnedFd>,
    /// The leader, and its status once reaped (then the group id is free).
    child: Mutex<(Child, Option<ExitStatus>)>,
}

impl Group {
    /// Start `cmd` in a group of its own that dies with toll.
    pub fn spawn(mut cmd: Command) -> io::Result<(Group, Pipes)> {
        cmd.process_group(0);
        dies_with_toll(&mut cmd);
        let mut child = spawn(cmd)?;
        let pipes = Pipes {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
        };
        let pid = child.id();
        // SAFETY: pidfd_open on our own unreaped child; a negative result is an error.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        // SAFETY: a fresh descriptor we own. Without one (a kernel before
        // 5.3), exits are found by polling, which reaps.
        let pidfd = (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw as i32) });
        let group = Group {
            pid,
            pidfd,
            child: Mutex::new((child, None)),
        };
        Ok((group, pipes))
    }

    /// The leader's pid, which is the group's id.
    pub fn id(&self) -> u32 {
        self.pid
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Child, Option<ExitStatus>)> {
        self.child.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Send `signal` to the whole group, unless its leader was reaped (then
    /// its id may name another group by now). Whether it was sent.
    pub fn signal(&self, signal: nix::sys::signal::Signal) -> bool {
        let held = self.lock();
        if held.1.is_some() || self.reaped_elsewhere() {
            return false;
        }
        let pgid = nix::unistd::Pid::from_raw(self.pid as i32);
        nix::sys::signal::killpg(pgid, signal).is_ok()
    }

    /// Whether something other than [`Group`] reaped the leader (a pidfd
    /// still names it; waitid says it is no child of ours any more).
    fn reaped_elsewhere(&self) -> bool {
        let Some(fd) = &self.pidfd else {
            return false;
        };
        // SAFETY: an all-zero siginfo is valid; waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: a valid pidfd and out-pointer; WNOWAIT leaves a zombie unreaped.
        let r = unsafe {
            libc::waitid(
                libc::P_PIDFD,
                fd.as_raw_fd() as libc::id_t,
                &mut info,
                flags,
            )
        };
        r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
    }

    /// SIGKILL the group (see [`Group::signal`]).
    pub fn kill(&self) -> bool {
        self.signal(nix::sys::signal::Signal::SIGKILL)
    }

    /// The leader's status if it has exited (reaping it: no group signal
    /// is sent after this has returned one).
    pub fn try_wait(&self) -> Option<ExitStatus> {
        let mut held = self.lock();
        if held.1.is_none() {
            held.1 = held.0.try_wait().ok().flatten();
        }
        held.1
    }

    /// Whether the leader exits within `timeout`, left unreaped (so its
    /// group may still be signalled).
    pub fn exits_within(&self, timeout: Duration) -> bool {
        let Some(fd) = &self.pidfd else {
            let deadline = Instant::now() + timeout;
            loop {
                if self.try_wait().is_some() {
                    return true;
                }
                if Instant::now() >= deadline {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        if self.lock().1.is_some() {
            return true;
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut pfd = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd; a pidfd is readable once its process exited.
            let n = unsafe { libc::poll(&mut pfd, 1, ms) };
            if n > 0 {
                return true;
            }
            let interrupted =
                n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted;
            if !interrupted || left.is_zero() {
                return n > 0;
            }
        }
    }

    /// Wait for the leader to exit, and reap it. The lock is taken only
    /// once it has exited, so a signal is never held up by the wait.
    pub fn wait(&self) -> Option<ExitStatus> {
        while !self.exits_within(Duration::from_secs(3600)) {}
        let mut held = self.lock();
        if held.1.is_none() {
            held.1 = held.0.wait().ok();
        }
        held.1
    }

    /// SIGTERM the group, give the leader `grace` to exit (a master stops
    /// its workers), then SIGKILL whatever of the group is left, and reap.
    pub fn stop(&self, grace: Duration) {
        self.signal(nix::sys::signal::Signal::SIGTERM);
        self.exits_within(grace);
        self.kill();
        self.wait();
    }
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Group({})", self.pid)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        self.wait();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(pid: u32) -> bool {
        process_alive(pid)
    }

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn a_child_outlives_the_short_thread_that_asked_for_it() {
        // Linux sends the parent-death signal when the forking thread ends:
        // a group asked for on a thread that ends at once must not die then.
        let (group, _) = std::thread::spawn(|| Group::spawn(sh("sleep 30")).unwrap())
            .join()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(alive(group.id()), "the child died with its asking thread");
        assert!(group.try_wait().is_none());
        drop(group);
    }

    #[test]
    fn the_child_leads_its_group_and_gets_sigterm_when_toll_dies() {
        let mut c = sh("exit 0");
        dies_with_toll(&mut c);
        // Runs in the child after the prctl: the kernel holds SIGTERM for it.
        // SAFETY: prctl only, between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let mut sig: libc::c_int = 0;
                let at = &mut sig as *mut libc::c_int as libc::c_ulong;
                libc::prctl(libc::PR_GET_PDEATHSIG, at, 0, 0, 0);
                match sig {
                    libc::SIGTERM => Ok(()),
                    _ => Err(io::Error::from_raw_os_error(libc::EINVAL)),
                }
            });
        }
        assert!(c.status().unwrap().success());
        let (group, _) = Group::spawn(sh("sleep 30")).unwrap();
        let pgid = nix::unistd::getpgid(Some(nix::unistd::Pid::from_raw(group.id() as i32)));
        assert_eq!(pgid.unwrap().as_raw() as u32, group.id());
    }

    #[test]
    fn stop_ends_the_whole_group_and_no_signal_follows_the_reap() {
        // A leader that forks a straggler which ignores SIGTERM.
        let (group, pipes) = {
            let mut c = sh("trap '' TERM; (trap '' TERM; sleep 30) & echo $!; wait");
            c.stdout(std::process::Stdio::piped());
            Group::spawn(c).unwrap()
        };
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(pipes.stdout.unwrap()),
            &mut line,
        )
        .unwrap();
        let straggler: u32 = line.trim().parse().unwrap();
        assert!(alive(straggler));
        let t = Instant::now();
        group.stop(Duration::from_millis(300));
        assert!(t.elapsed() < Duration::from_secs(3));
        std::thread::sleep(Duration::from_millis(100));
        assert!(!alive(straggler), "the straggler outlived its group's stop");
        assert!(group.try_wait().is_some());
        assert!(
            !group.kill(),
            "a reaped leader's group id is never signalled"
        );
    }

    #[test]
    fn a_leader_that_exited_is_seen_without_being_reaped() {
        let (group, _) = Group::spawn(sh("exit 3")).unwrap();
        assert!(group.exits_within(Duration::from_secs(5)));
        // Still a zombie, so its group id is still ours to signal.
        assert!(group.lock().1.is_none());
        assert_eq!(group.wait().and_then(|s| s.code()), Some(3));
    }
}
