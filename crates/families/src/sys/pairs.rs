//! The crossings that need a second party: a thread woken and answering
//! (by futex or by pipe), a process woken the same way, a signal sent to
//! another process and answered, and a cache line handed between two
//! cores. Each batch starts its second party pinned where it is asked,
//! times `reps` round trips from a thread pinned on the first CPU, and
//! ends the second party; a party that stops answering fails the batch
//! after [`GIVE_UP`] instead of hanging. The waits inside the timed loop
//! carry no timeout (a timed wait arms a kernel timer every time, which
//! the crossing does not need): the thread that started the batch watches
//! it instead, and wakes a stuck party to give up.

use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
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

fn futex(word: &AtomicU32, op: libc::c_int, val: u32) {
    // SAFETY: the word outlives the call; no timeout (a null pointer).
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            val,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// How often the starting thread looks at a batch's progress.
const WATCH: Duration = Duration::from_millis(100);

/// A batch watched by the thread that started it: the timing thread marks
/// its progress and says when it is done; the watcher gives the batch up
/// once the progress has not moved for [`GIVE_UP`].
struct Watch {
    progress: AtomicU64,
    gave_up: AtomicBool,
    done: AtomicBool,
    watcher: std::thread::Thread,
}

impl Watch {
    /// A watch by the calling thread.
    fn new() -> Watch {
        Watch {
            progress: AtomicU64::new(0),
            gave_up: AtomicBool::new(false),
            done: AtomicBool::new(false),
            watcher: std::thread::current(),
        }
    }

    /// Round trip `i` is over (a plain store: nothing the loop waits on).
    fn step(&self, i: u64) {
        self.progress.store(i, Ordering::Relaxed);
    }

    fn given_up(&self) -> bool {
        self.gave_up.load(Ordering::Acquire)
    }

    /// The timing thread is done: the watcher need not wait any longer.
    fn done(&self) {
        self.done.store(true, Ordering::Release);
        self.watcher.unpark();
    }

    /// Until `timed` is done: look every [`WATCH`], and once the progress
    /// has stood still for [`GIVE_UP`] give the batch up and call `nudge`
    /// (again each look), which wakes the stuck parties.
    fn wait<T>(&self, timed: &std::thread::ScopedJoinHandle<'_, T>, nudge: impl Fn()) {
        let mut last = self.progress.load(Ordering::Relaxed);
        let mut since = Instant::now();
        while !self.done.load(Ordering::Acquire) && !timed.is_finished() {
            std::thread::park_timeout(WATCH);
            let now = self.progress.load(Ordering::Relaxed);
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() > GIVE_UP {
                self.gave_up.store(true, Ordering::Release);
                nudge();
            }
        }
    }
}

/// Round trips made, untimed, before each batch's timed ones: a pair's
/// cost climbs over its first tens of milliseconds of steady ping-pong
/// (on a 2-vCPU VM a cross-core futex round trip measured 52 µs in fresh
/// bursts of 200 and 70–90 µs once a pair had run for 40 ms), and the
/// figure is the steady one, as lmbench's loops report it after their
/// warm-up. memcpy's batches are led in the same way
/// ([`super::probes::CopyBuffers::copy`]). `TOLL_SYS_LEAD_IN_MS` sets
/// another length (0: none).
pub fn lead_in() -> Duration {
    std::env::var("TOLL_SYS_LEAD_IN_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(LEAD_IN, Duration::from_millis)
}

/// The default [`lead_in`].
const LEAD_IN: Duration = Duration::from_millis(50);

/// Make round trips (`trip` says whether one went through) for
/// [`lead_in`]; false when one did not.
fn led_in(mut trip: impl FnMut() -> bool) -> bool {
    let (t, lead) = (Instant::now(), lead_in());
    while t.elapsed() < lead {
        for _ in 0..8 {
            if !trip() {
                return false;
            }
        }
    }
    true
}

/// The futex word's value once a batch is given up.
const GAVE_UP: u32 = 3;

/// Wait (in the kernel, without a timeout) while `word` holds `val`.
fn wait_while(word: &AtomicU32, val: u32) {
    while word.load(Ordering::Acquire) == val {
        futex(word, libc::FUTEX_WAIT, val);
    }
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
    // 0: the echo's turn is over; 1: the echo is asked; 2: the echo ends;
    // GAVE_UP: the batch is given up.
    let word = AtomicU32::new(0);
    let watch = Watch::new();
    std::thread::scope(|scope| {
        let echo = scope.spawn(|| -> Result<(), String> {
            pin(b)?;
            loop {
                wait_while(&word, 0);
                match word.load(Ordering::Acquire) {
                    2 | GAVE_UP => return Ok(()),
                    _ => {}
                }
                word.store(0, Ordering::Release);
                futex(&word, libc::FUTEX_WAKE, 1);
            }
        });
        let timed = scope.spawn(|| {
            let trip = || {
                word.store(1, Ordering::Release);
                futex(&word, libc::FUTEX_WAKE, 1);
                wait_while(&word, 1);
                !watch.given_up()
            };
            let timed = || -> Result<Duration, String> {
                const STOPPED: &str = "the woken thread stopped answering";
                pin(a)?;
                let mut done = 0;
                if !led_in(|| {
                    done += 1;
                    watch.step(done);
                    trip()
                }) {
                    return Err(STOPPED.into());
                }
                let t = Instant::now();
                for i in 0..reps {
                    if !trip() {
                        return Err(STOPPED.into());
                    }
                    watch.step(done + i + 1);
                }
                Ok(t.elapsed())
            };
            let r = timed();
            watch.done();
            r
        });
        watch.wait(&timed, || {
            word.store(GAVE_UP, Ordering::Release);
            futex(&word, libc::FUTEX_WAKE, i32::MAX as u32);
        });
        let timed = timed
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?;
        word.store(2, Ordering::Release);
        futex(&word, libc::FUTEX_WAKE, 1);
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
    const STOPPED: &str = "the other end of the pipe stopped answering";
    pin(a)?;
    if !led_in(|| write1(to) && read1(from)) {
        return Err(STOPPED.into());
    }
    let t = Instant::now();
    for _ in 0..reps {
        if !write1(to) || !read1(from) {
            return Err(STOPPED.into());
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
    let watch = Watch::new();
    // The timing thread's id, once it has one: where the watch sends the
    // signal that ends a stuck wait.
    let waiter = AtomicI32::new(0);
    std::thread::scope(|scope| {
        let timed = scope.spawn(|| {
            let r = signal_trips(a, b, reps, &watch, &waiter);
            watch.done();
            r
        });
        watch.wait(&timed, || {
            let tid = waiter.load(Ordering::Acquire);
            if tid != 0 {
                // SAFETY: a signal the timing thread waits for (blocked,
                // so it cannot end the process).
                unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, libc::SIGUSR2) };
            }
        });
        timed
            .join()
            .map_err(|_| "the timing thread panicked".to_string())?
    })
}

/// The timing side of [`signal_process`], on CPU `a`: the child on CPU
/// `b`, then `reps` signals there and back.
fn signal_trips(
    a: usize,
    b: usize,
    reps: u64,
    watch: &Watch,
    waiter: &AtomicI32,
) -> Result<Duration, String> {
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
        waiter.store(tid, Ordering::Release);
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
        let trip = || {
            libc::kill(pid, libc::SIGUSR1);
            while libc::sigwaitinfo(&answer, std::ptr::null_mut()) != libc::SIGUSR2 {}
            !watch.given_up()
        };
        let mut done = 0;
        let led = led_in(|| {
            done += 1;
            watch.step(done);
            trip()
        });
        let t = Instant::now();
        let mut result = Ok(());
        for i in 0..reps {
            if !led || !trip() {
                result = Err("the other process stopped answering".to_string());
                break;
            }
            watch.step(done + i + 1);
        }
        let took = t.elapsed();
        reap(pid);
        result.map(|()| took)
    }
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
