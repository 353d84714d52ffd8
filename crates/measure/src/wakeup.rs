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

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::time::Instant;

/// Round trips of a one-byte pipe ping-pong between two threads, ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WakeUp {
    /// Both threads pinned to one core.
    pub same_core_ns: f64,
    /// The threads pinned to two cores; None on a one-core machine.
    pub cross_core_ns: Option<f64>,
}

/// Round trips per batch, and batches per placement.
const BATCH: usize = 200;
const BATCHES: usize = 7;

/// Measure both placements; None when the CPUs cannot be pinned or pipes
/// cannot be made (the fingerprint then says nothing rather than guess).
pub fn probe() -> Option<WakeUp> {
    let allowed = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let cpus: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| allowed.is_set(c).unwrap_or(false))
        .take(2)
        .collect();
    let first = *cpus.first()?;
    let same = ping_pong(first, first)?;
    let cross = cpus.get(1).and_then(|&second| ping_pong(first, second));
    Some(WakeUp {
        same_core_ns: same,
        cross_core_ns: cross,
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
}
