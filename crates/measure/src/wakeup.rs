//! The placement probe: what it costs this machine to wake a thread on the
//! same core and on another core, stored with every run's fingerprint.
//!
//! Cross-core wake-ups differ several-fold between hosts of one kind (~11 µs
//! on one VM, ~50 µs on another), and they set α for every link whose ends
//! are split across cores. Two runs from different hosts can only be read
//! side by side when each says what its host's wake-up cost: so before a
//! run, two threads ping-pong a byte over a pair of pipes, pinned to one
//! core and then to two, a few thousand round trips each (well under half a
//! second), and the median round trip of each is kept.
//!
//! A probe stands for its machine a while: a run within ten minutes of the
//! last one, on the same boot and the same CPUs, reuses it (from toll's
//! cache directory) and stores when it was measured. Back-to-back runs then
//! spend neither the probe's half second nor its CPU, which on a short load
//! would be a tenth of toll's own.

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Round trips of a one-byte pipe ping-pong between two threads, ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WakeUp {
    /// Both threads pinned to one core.
    pub same_core_ns: f64,
    /// The threads pinned to two cores; None on a one-core machine.
    pub cross_core_ns: Option<f64>,
    /// When it was measured, in seconds since the Unix epoch (absent in
    /// runs stored before probes were reused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_at: Option<u64>,
}

/// How long a probe stands for its machine (same boot, same CPUs).
pub const REUSE_FOR: Duration = Duration::from_secs(600);

/// What the cache holds: the probe and what it was measured on.
#[derive(Serialize, Deserialize)]
struct Cached {
    boot_id: String,
    cpus: Vec<usize>,
    wakeup: WakeUp,
}

/// Round trips per batch, and batches per placement.
const BATCH: usize = 200;
const BATCHES: usize = 7;

/// The probe of the last `REUSE_FOR` on this boot and these CPUs, else a
/// fresh one (kept for the next run when the cache directory is writable).
pub fn probe_reused() -> Option<WakeUp> {
    let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let path = crate::cache::cache_dir().join("wakeup.json");
    reused_from(&path, boot_id.trim(), unix_now(), probe)
}

/// The probe cached at `path` if it was measured on this boot and these
/// CPUs less than `REUSE_FOR` before `now`, else `fresh()`, cached.
fn reused_from(
    path: &PathBuf,
    boot_id: &str,
    now: u64,
    fresh: impl FnOnce() -> Option<WakeUp>,
) -> Option<WakeUp> {
    let cpus = two_cpus()?;
    if let Some(c) = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Cached>(&b).ok())
    {
        let age = c.wakeup.probed_at.and_then(|t| now.checked_sub(t));
        if c.boot_id == boot_id && c.cpus == cpus && age.is_some_and(|a| a < REUSE_FOR.as_secs()) {
            return Some(c.wakeup);
        }
    }
    let wakeup = fresh()?;
    let cached = Cached {
        boot_id: boot_id.to_string(),
        cpus,
        wakeup,
    };
    let _ = keep(path, &cached);
    Some(wakeup)
}

/// Writes the cache whole or not at all (a rename over the last one).
fn keep(path: &PathBuf, cached: &Cached) -> std::io::Result<()> {
    let dir = path.parent().ok_or(std::io::ErrorKind::NotFound)?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("wakeup.json.{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_vec(cached)?)?;
    std::fs::rename(&tmp, path)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The first two CPUs this process may run on (one on a one-CPU machine).
fn two_cpus() -> Option<Vec<usize>> {
    let allowed = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let cpus: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| allowed.is_set(c).unwrap_or(false))
        .take(2)
        .collect();
    (!cpus.is_empty()).then_some(cpus)
}

/// Measure both placements now; None when the CPUs cannot be pinned or
/// pipes cannot be made (the fingerprint then says nothing rather than
/// guess).
pub fn probe() -> Option<WakeUp> {
    let cpus = two_cpus()?;
    let first = cpus[0];
    let same = ping_pong(first, first)?;
    let cross = cpus.get(1).and_then(|&second| ping_pong(first, second));
    Some(WakeUp {
        same_core_ns: same,
        cross_core_ns: cross,
        probed_at: Some(unix_now()),
    })
}

/// A pipe's two ends as files.
fn pipe() -> Option<(std::fs::File, std::fs::File)> {
    let (r, w) = nix::unistd::pipe().ok()?;
    Some((std::fs::File::from(r), std::fs::File::from(w)))
}

fn pin(cpu: usize) -> Option<()> {
    let mut set = CpuSet::new();
    set.set(cpu).ok()?;
    sched_setaffinity(Pid::from_raw(0), &set).ok()
}

/// Median batch mean of the round trip, with this thread on `a` and an
/// echoing thread on `b`. The probing thread is a fresh one, so the
/// caller's own affinity is left as it was.
fn ping_pong(a: usize, b: usize) -> Option<f64> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let (to_echo_r, to_echo_w) = pipe()?;
                let (from_echo_r, from_echo_w) = pipe()?;
                let echo = std::thread::spawn(move || -> Option<()> {
                    pin(b)?;
                    let (mut r, mut w) = (to_echo_r, from_echo_w);
                    let mut byte = [0u8; 1];
                    // Ends when the prober closes its end.
                    while r.read_exact(&mut byte).is_ok() {
                        w.write_all(&byte).ok()?;
                    }
                    Some(())
                });
                pin(a)?;
                let (mut w, mut r) = (to_echo_w, from_echo_r);
                let mut byte = [7u8; 1];
                let mut round_trip = || -> Option<()> {
                    w.write_all(&byte).ok()?;
                    r.read_exact(&mut byte).ok()
                };
                for _ in 0..BATCH {
                    round_trip()?; // warm-up
                }
                let mut means = Vec::with_capacity(BATCHES);
                for _ in 0..BATCHES {
                    let start = Instant::now();
                    for _ in 0..BATCH {
                        round_trip()?;
                    }
                    means.push(start.elapsed().as_nanos() as f64 / BATCH as f64);
                }
                drop(w);
                let _ = echo.join();
                means.sort_unstable_by(f64::total_cmp);
                Some(means[BATCHES / 2])
            })
            .join()
            .ok()
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed_cpus() -> Vec<usize> {
        let set = sched_getaffinity(Pid::from_raw(0)).unwrap();
        (0..CpuSet::count())
            .filter(|&c| set.is_set(c).unwrap_or(false))
            .collect()
    }

    #[test]
    fn both_placements_are_timed_and_the_caller_stays_unpinned() {
        let before = allowed_cpus();
        let w = probe().expect("pipes and affinity work here");
        assert!(w.same_core_ns > 100.0 && w.same_core_ns < 1e7, "{w:?}");
        if before.len() >= 2 {
            let cross = w.cross_core_ns.expect("two cores, so a cross-core figure");
            assert!(cross > 100.0 && cross < 1e7, "{w:?}");
        } else {
            assert_eq!(w.cross_core_ns, None);
        }
        // The probe pinned its own threads, not the caller's.
        assert_eq!(allowed_cpus(), before);
    }

    #[test]
    fn a_probe_is_reused_on_its_boot_for_ten_minutes_then_measured_again() {
        let dir = std::env::temp_dir().join(format!("toll-wakeup-{}", std::process::id()));
        let path = dir.join("wakeup.json");
        let _ = std::fs::remove_dir_all(&dir);
        let at = |t: u64, ns: f64| {
            move || {
                Some(WakeUp {
                    same_core_ns: ns,
                    cross_core_ns: None,
                    probed_at: Some(t),
                })
            }
        };
        let first = reused_from(&path, "boot-a", 1000, at(1000, 1.0)).unwrap();
        assert_eq!(first.same_core_ns, 1.0);
        assert!(path.exists(), "kept for the next run");
        // Within ten minutes on the same boot: the cached probe, not a new one.
        let again = reused_from(&path, "boot-a", 1000 + 599, at(1599, 2.0)).unwrap();
        assert_eq!(again, first);
        // Ten minutes on, or another boot: measured afresh, and that is kept.
        let later = reused_from(&path, "boot-a", 1000 + 600, at(1600, 3.0)).unwrap();
        assert_eq!(later.same_core_ns, 3.0);
        let other = reused_from(&path, "boot-b", 1601, at(1601, 4.0)).unwrap();
        assert_eq!(other.same_core_ns, 4.0);
        assert_eq!(
            reused_from(&path, "boot-b", 1602, at(1602, 5.0)),
            Some(other)
        );
        // A clock set back, or a cache that is not ours: measured afresh.
        assert_eq!(
            reused_from(&path, "boot-b", 10, at(10, 6.0))
                .unwrap()
                .same_core_ns,
            6.0
        );
        std::fs::write(&path, b"not json").unwrap();
        assert_eq!(
            reused_from(&path, "boot-b", 11, at(11, 7.0))
                .unwrap()
                .same_core_ns,
            7.0
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
