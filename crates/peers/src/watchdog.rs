//! The watchdog beside every worker: kills its process group at a time or
//! memory ceiling, or once toll was asked to stop and the answer under way
//! has taken a second more.

use crate::group::Group;
use nix::sys::signal::Signal;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why the watchdog stopped the worker.
pub(crate) const FIRED_TIME: u8 = 1;
pub(crate) const FIRED_MEMORY: u8 = 2;
pub(crate) const FIRED_STOPPED: u8 = 3;

/// The flag that asks every worker's answer under way to be abandoned
/// (the process's stop: a signal), and how long an answer may still take
/// once it is raised.
static ABANDON: std::sync::OnceLock<&'static AtomicBool> = std::sync::OnceLock::new();
const ABANDON_AFTER: Duration = Duration::from_secs(1);

/// Once `flag` is raised, a worker that has not answered within a second
/// is killed and its command fails with [`PeerError::Abandoned`]: a stop
/// ends a point that would take minutes within about a second, while a
/// short one still completes. Set once per process (later calls do nothing).
pub fn abandon_on(flag: &'static AtomicBool) {
    let _ = ABANDON.set(flag);
}

/// Kills the worker's process group when a deadline passes or, while a
/// memory ceiling is set, when the worker's own group grew past it, so a
/// hung or runaway worker cannot hang or exhaust the machine. The machine's
/// used memory is the cheap first look (every 20 ms); only when it grew
/// past the ceiling is the group's own resident set summed, so another
/// process's allocation is never taken for the worker's.
pub(crate) struct Watchdog {
    /// Milliseconds since `epoch` after which the worker is killed; 0 = disarmed.
    deadline_ms: Arc<AtomicU64>,
    /// Growth (kB) that kills: the machine's past `mem_base_kb`, then the group's; 0 = none.
    mem_limit_kb: Arc<AtomicU64>,
    mem_base_kb: Arc<AtomicI64>,
    /// The worker's group's resident set when the ceiling was set.
    group_base_kb: Arc<AtomicI64>,
    group: Arc<Group>,
    pub(crate) fired: Arc<AtomicU8>,
    stop: Arc<AtomicBool>,
    epoch: Instant,
}

impl Watchdog {
    pub(crate) fn start(group: Arc<Group>) -> Watchdog {
        let pid = group.id();
        let w = Watchdog {
            deadline_ms: Arc::new(AtomicU64::new(0)),
            mem_limit_kb: Arc::new(AtomicU64::new(0)),
            mem_base_kb: Arc::new(AtomicI64::new(0)),
            group_base_kb: Arc::new(AtomicI64::new(0)),
            group,
            fired: Arc::new(AtomicU8::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
            epoch: Instant::now(),
        };
        let (deadline, limit, base, group_base, fired, stop, epoch, group) = (
            w.deadline_ms.clone(),
            w.mem_limit_kb.clone(),
            w.mem_base_kb.clone(),
            w.group_base_kb.clone(),
            w.fired.clone(),
            w.stop.clone(),
            w.epoch,
            w.group.clone(),
        );
        std::thread::spawn(move || {
            // When this watchdog first saw the process's stop while an
            // answer was awaited.
            let mut stop_seen: Option<Instant> = None;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
                let d = deadline.load(Ordering::Relaxed);
                let asked = d != 0 && ABANDON.get().is_some_and(|f| f.load(Ordering::Relaxed));
                if !asked {
                    stop_seen = None;
                }
                let why = if d != 0 && epoch.elapsed().as_millis() as u64 > d {
                    FIRED_TIME
                } else if asked
                    && stop_seen.get_or_insert_with(Instant::now).elapsed() > ABANDON_AFTER
                {
                    FIRED_STOPPED
                } else {
                    let lim = limit.load(Ordering::Relaxed) as i64;
                    let grown = crate::units::system_used_kb() - base.load(Ordering::Relaxed);
                    let ours = || {
                        crate::units::group_rss_kb(pid) - group_base.load(Ordering::Relaxed) > lim
                    };
                    if lim != 0 && grown > lim && ours() {
                        FIRED_MEMORY
                    } else {
                        continue;
                    }
                };
                fired.store(why, Ordering::Relaxed);
                group.signal(Signal::SIGKILL);
                return;
            }
        });
        w
    }

    pub(crate) fn arm(&self, timeout: Duration) {
        let at = (self.epoch.elapsed() + timeout).as_millis() as u64;
        self.deadline_ms.store(at.max(1), Ordering::Relaxed);
    }

    /// Also kill when the worker's group grows by more than `kb` from now.
    pub(crate) fn limit_memory(&self, kb: u64) {
        self.mem_base_kb
            .store(crate::units::system_used_kb(), Ordering::Relaxed);
        self.group_base_kb.store(
            crate::units::group_rss_kb(self.group.id()),
            Ordering::Relaxed,
        );
        self.mem_limit_kb.store(kb, Ordering::Relaxed);
    }

    pub(crate) fn disarm(&self) {
        self.deadline_ms.store(0, Ordering::Relaxed);
        self.mem_limit_kb.store(0, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
