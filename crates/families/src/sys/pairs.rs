//! The crossings that need a second party: a thread woken and answering
//! (by futex or by pipe), a process woken the same way, a signal sent to
//! another process and answered, and a cache line handed between two
//! cores. Each batch starts its second party pinned where it is asked,
//! times `reps` round trips from a thread pinned on the first CPU, and
//! ends the second party; a party that stops answering fails the batch
//! after [`GIVE_UP`] instead of hanging.

use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The CPUs this process may run on, in order.
pub fn allowed_cpus() -> Vec<usize> {
    nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))
        .map(|set| {
            (0..nix::sched::CpuSet::count())
                .filter(|&c| set.is_set(c).unwrap_or(false))
                .collect()
        })
        .unwrap_or_else(|_| vec![0])
}

/// Wake's kinds as their labels say them.
pub fn wake_words(kind: Wake) -> &'static str {
    match kind {
        Wake::FutexThread => "futex, thread",
        Wake::PipeThread => "pipe, thread",
        Wake::PipeProcess => "pipe, process",
        Wake::SignalProcess => "signal, process",
    }
}

/// A batch whose other party has not answered for this long fails.
pub const GIVE_UP: Duration = Duration::from_secs(10);

/// Pin the calling thread to `cpu`.
pub fn pin(cpu: usize) -> Result<(), String> {
    let mut set = CpuSet::new();
    set.set(cpu).map_err(|e| format!("CPU {cpu}: {e}"))?;
    sched_setaffinity(Pid::from_raw(0), &set).map_err(|e| format!("pinning to CPU {cpu}: {e}"))
}

/// How a woken party is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// A thread waiting on a futex word.
    FutexThread,
    /// A thread blocked in read(2) on a pipe.
    PipeThread,
    /// Another process blocked in read(2) on a pipe.
    PipeProcess,
    /// Another process waiting in sigwaitinfo, answering with a signal.
    SignalProcess,
}

fn futex(word: &AtomicU32, op: libc::c_int, val: u32, timeout: Option<&libc::timespec>) {
    // SAFETY: the word outlives the call; the timeout is null or valid.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            val,
            timeout.map_or(std::ptr::null(), |t| t as *const libc::timespec),
        );
    }
}

/// Wait (in the kernel) while `word` holds `val`, a second at a time.
fn wait_while(word: &AtomicU32, val: u32, started: Instant) -> Result<(), String> {
    let second = libc::timespec {
        tv_sec: 1,
        tv_nsec: 0,
    };
    while word.load(Ordering::Acquire) == val {
        futex(word, libc::FUTEX_WAIT, val, Some(&second));
        if started.elapsed() > GIVE_UP {
            return Err("the woken thread stopped answering".into());
        }
    }
    Ok(())
}

/// `reps` round trips to a party on CPU `b`, timed from CPU `a`.
pub fn wake(kind: Wake, (a, b): (usize, usize), reps: u64) -> Result<Duration, String> {
    match kind {
        Wake::FutexThread => futex_thread(a, b, reps),
        Wake::PipeThread => pipe_thread(a, b, reps),
        Wake::PipeProcess => pipe_process(a, b, reps),
        Wake::SignalProcess => signal_process(a, b, reps),
    }
}

fn futex_thread(a: usize, b: usize, reps: u64) -> Result<Duration, String> {
    // 0: the echo's turn is over; 1: the echo is asked; 2: the echo ends.
    let word = AtomicU32::new(0);
    std::thread::scope(|scope| {
        let echo = scope.spawn(|| -> Result<(), String> {
            pin(b)?;
            let started = Instant::now();
            loop {
                wait_while(&word, 0, started)?;
                if word.load(Ordering::Acquire) == 2 {
                    return Ok(());
                }
                word.store(0, Ordering::Release);
                futex(&word, libc::FUTEX_WAKE, 1, None);
            }
        });
        let timed = scope
            .spawn(|| -> Result<Duration, String> {
                pin(a)?;
                let started = Instant::now();
                let t = Instant::now();
                for _ in 0..reps {
                    word.store(1, Ordering::Release);
                    futex(&word, libc::FUTEX_WAKE, 1, None);
                    wait_while(&word, 1, started)?;
                }
                Ok(t.elapsed())
            })
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?;
        word.store(2, Ordering::Release);
        futex(&word, libc::FUTEX_WAKE, 1, None);
        echo.join()
            .map_err(|_| "the woken thread panicked".to_string())??;
        timed
    })
}

/// A pipe's (read, write) ends.
fn pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd), String> {
    nix::unistd::pipe().map_err(|e| format!("pipe: {e}"))
}

fn read1(fd: &impl std::os::fd::AsRawFd) -> bool {
    let mut b = [0u8; 1];
    // SAFETY: one byte into a local buffer.
    unsafe { libc::read(fd.as_raw_fd(), b.as_mut_ptr().cast(), 1) == 1 }
}

fn write1(fd: &impl std::os::fd::AsRawFd) -> bool {
    // SAFETY: one byte from a constant.
    unsafe { libc::write(fd.as_raw_fd(), b"x".as_ptr().cast(), 1) == 1 }
}

/// The timing side of a pipe ping-pong: `reps` writes and reads.
fn ping(
    a: usize,
    to: &std::os::fd::OwnedFd,
    from: &std::os::fd::OwnedFd,
    reps: u64,
) -> Result<Duration, String> {
    pin(a)?;
    let t = Instant::now();
    for _ in 0..reps {
        if !write1(to) || !read1(from) {
            return Err("the other end of the pipe stopped answering".into());
        }
    }
    Ok(t.elapsed())
}

fn pipe_thread(a: usize, b: usize, reps: u64) -> Result<Duration, String> {
    let (there_r, there_w) = pipe()?;
    let (back_r, back_w) = pipe()?;
    std::thread::scope(|scope| {
        let echo = scope.spawn(move || {
            if pin(b).is_err() {
                return;
            }
            while read1(&there_r) && write1(&back_w) {}
        });
        // The timing thread owns its ends: when it is done they close, and
        // the echo reads the end of its pipe.
        let timed = scope
            .spawn(move || ping(a, &there_w, &back_r, reps))
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?;
        let _ = echo.join();
        timed
    })
}

/// Fork a child pinned to `b` that runs `body` (async-signal-safe calls
/// only) and then `_exit`s; its pid.
fn child(b: usize, body: impl FnOnce()) -> Result<libc::pid_t, String> {
    let mut set = CpuSet::new();
    set.set(b).map_err(|e| format!("CPU {b}: {e}"))?;
    // SAFETY: the child calls only sched_setaffinity, read, write, kill,
    // sigwaitinfo and _exit (async-signal-safe), then exits.
    match unsafe { libc::fork() } {
        -1 => Err(format!("fork: {}", std::io::Error::last_os_error())),
        0 => {
            let _ = sched_setaffinity(Pid::from_raw(0), &set);
            body();
            unsafe { libc::_exit(0) }
        }
        pid => Ok(pid),
    }
}

fn reap(pid: libc::pid_t) {
    // SAFETY: our own child.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
}

fn pipe_process(a: usize, b: usize, reps: u64) -> Result<Duration, String> {
    let (there_r, there_w) = pipe()?;
    let (back_r, back_w) = pipe()?;
    let pid = child(b, || while read1(&there_r) && write1(&back_w) {})?;
    drop((there_r, back_w));
    let timed = std::thread::scope(|scope| {
        scope
            .spawn(|| ping(a, &there_w, &back_r, reps))
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?
    });
    reap(pid);
    timed
}

fn signal_process(a: usize, b: usize, reps: u64) -> Result<Duration, String> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || -> Result<Duration, String> {
                pin(a)?;
                // SAFETY: signal masks and sets of this thread and the child.
                unsafe {
                    let mut answer: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut answer);
                    libc::sigaddset(&mut answer, libc::SIGUSR2);
                    // SIGUSR1 blocked too before the fork, so the child is
                    // born with it blocked: one sent before it waits stays
                    // pending rather than ending it.
                    let mut both = answer;
                    libc::sigaddset(&mut both, libc::SIGUSR1);
                    libc::pthread_sigmask(libc::SIG_BLOCK, &both, std::ptr::null_mut());
                    let (me, tid) = (libc::getpid(), libc::gettid());
                    let pid = child(b, || {
                        let mut ask: libc::sigset_t = std::mem::zeroed();
                        libc::sigemptyset(&mut ask);
                        libc::sigaddset(&mut ask, libc::SIGUSR1);
                        libc::sigprocmask(libc::SIG_BLOCK, &ask, std::ptr::null_mut());
                        loop {
                            if libc::sigwaitinfo(&ask, std::ptr::null_mut()) != libc::SIGUSR1 {
                                continue;
                            }
                            // To the timing thread itself: no other thread of
                            // toll's can take it.
                            libc::syscall(libc::SYS_tgkill, me, tid, libc::SIGUSR2);
                        }
                    })?;
                    let second = libc::timespec {
                        tv_sec: 1,
                        tv_nsec: 0,
                    };
                    let started = Instant::now();
                    let t = Instant::now();
                    let mut result = Ok(());
                    'trips: for _ in 0..reps {
                        libc::kill(pid, libc::SIGUSR1);
                        while libc::sigtimedwait(&answer, std::ptr::null_mut(), &second)
                            != libc::SIGUSR2
                        {
                            if started.elapsed() > GIVE_UP {
                                result = Err("the other process stopped answering".to_string());
                                break 'trips;
                            }
                        }
                    }
                    let took = t.elapsed();
                    reap(pid);
                    result.map(|()| took)
                }
            })
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?
    })
}

/// `reps` round trips of one cache line between CPU `a` and CPU `b`: each
/// side waits (spinning) for its parity of a shared counter and moves it
/// on with a compare-and-swap, so the line crosses twice a round trip.
/// The time is of 2 × `reps` one-way handoffs.
pub fn handoff(a: usize, b: usize, reps: u64) -> Result<Duration, String> {
    #[repr(align(128))]
    struct Line(AtomicU64);
    let line = Line(AtomicU64::new(0));
    let end = 2 * reps;
    std::thread::scope(|scope| {
        let other = scope.spawn(|| -> Result<(), String> {
            pin(b)?;
            let started = Instant::now();
            let mut spins = 0u32;
            loop {
                let v = line.0.load(Ordering::Acquire);
                if v >= end {
                    return Ok(());
                }
                if v % 2 == 1 {
                    let _ = line
                        .0
                        .compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed);
                    continue;
                }
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(4096) && started.elapsed() > GIVE_UP {
                    return Err("the other core stopped answering".into());
                }
                std::hint::spin_loop();
            }
        });
        let timed = scope
            .spawn(|| -> Result<Duration, String> {
                pin(a)?;
                let started = Instant::now();
                let t = Instant::now();
                let mut spins = 0u32;
                loop {
                    let v = line.0.load(Ordering::Acquire);
                    if v >= end {
                        return Ok(t.elapsed());
                    }
                    if v.is_multiple_of(2) {
                        let _ =
                            line.0
                                .compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed);
                        continue;
                    }
                    spins = spins.wrapping_add(1);
                    if spins.is_multiple_of(4096) && started.elapsed() > GIVE_UP {
                        // Let the other side see the end too.
                        line.0.store(end, Ordering::Release);
                        return Err("the other core stopped answering".into());
                    }
                    std::hint::spin_loop();
                }
            })
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?;
        if timed.is_err() {
            line.0.store(end, Ordering::Release);
        }
        other
            .join()
            .map_err(|_| "the other core's thread panicked".to_string())??;
        timed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus() -> Vec<usize> {
        allowed_cpus()
    }

    #[test]
    fn every_kind_of_wake_round_trips() {
        let c = cpus();
        let (a, b) = (c[0], *c.get(1).unwrap_or(&c[0]));
        for kind in [
            Wake::FutexThread,
            Wake::PipeThread,
            Wake::PipeProcess,
            Wake::SignalProcess,
        ] {
            let t = wake(kind, (a, b), 50).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            assert!(t > Duration::ZERO, "{kind:?}");
        }
    }

    #[test]
    fn a_line_handed_between_cores_comes_back() {
        let c = cpus();
        if c.len() < 2 {
            return;
        }
        assert!(handoff(c[0], c[1], 1000).is_ok());
    }
}
