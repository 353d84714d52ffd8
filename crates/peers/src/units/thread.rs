//! OS threads (std::thread): spawn behind a gate; a ring over std::sync::mpsc.
//!
//! A thread the kernel refuses (EAGAIN at `kernel.pid_max`, say) comes back
//! from `Builder::spawn` as an error. One limit does not: each thread takes
//! memory mappings (its stack and the signal stack std gives it, each with a
//! guard page), and once the process has `vm.max_map_count` of them std
//! cannot map the new thread's signal stack and aborts the whole process from
//! inside that thread ("failed to initiate panic"). So the worker counts the
//! mappings left before it starts and stops, as at any limit, where the next
//! thread would not fit.

use super::mem::rss_kb;
use super::outcome::{Limit, Spawned};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, RwLock};
use std::thread;
use std::time::{Duration, Instant};

/// Mappings one more thread takes: its stack, its signal stack, and a guard
/// page below each (measured: with `vm.max_map_count` = 65530 the worker
/// aborted between 16,350 and 16,380 threads).
const MAPS_PER_THREAD: u64 = 4;

/// Mappings kept free for what else the process maps meanwhile (malloc arenas
/// of new threads, a growing vector).
const MAPS_SPARE: u64 = 256;

/// How many threads fit under `vm.max_map_count`: (threads, the limit), or
/// None when /proc cannot tell.
fn room_for_threads() -> Option<(u64, u64)> {
    let max: u64 = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let used = std::fs::read_to_string("/proc/self/maps")
        .ok()?
        .lines()
        .count() as u64;
    Some((max.saturating_sub(used + MAPS_SPARE) / MAPS_PER_THREAD, max))
}

/// Spawn `f` on a new thread unless `made` threads already fill `room`.
fn start<F: FnOnce() + Send + 'static>(
    f: F,
    made: usize,
    room: Option<(u64, u64)>,
) -> Result<thread::JoinHandle<()>, String> {
    if let Some((fit, max)) = room {
        if made as u64 >= fit {
            return Err(format!(
                "no memory mapping left for another thread (vm.max_map_count is {max}; each \
                 thread takes {MAPS_PER_THREAD}, and past the limit Rust's std aborts the process)"
            ));
        }
    }
    thread::Builder::new().spawn(f).map_err(refused)
}

/// Why the kernel refused a thread, with the limits that usually mean it (as
/// the C worker says it).
fn refused(e: std::io::Error) -> String {
    if e.kind() != std::io::ErrorKind::WouldBlock {
        return e.to_string();
    }
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let limits = read("/proc/self/limits");
    let nproc = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max processes"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("?");
    format!(
        "{e} (kernel.pid_max is {}, kernel.threads-max {}, ulimit -u {nproc})",
        read("/proc/sys/kernel/pid_max").trim(),
        read("/proc/sys/kernel/threads-max").trim()
    )
}

/// Make `n` threads that each count themselves ready and wait on a gate (a
/// write-locked RwLock that the spawner drops).
pub fn spawn(n: u64) -> Result<Spawned, Limit> {
    let gate = Arc::new(RwLock::new(()));
    let closed = gate.write().expect("fresh lock");
    let ready = Arc::new(AtomicU64::new(0));
    let spawner = thread::current();
    let room = room_for_threads();
    let m0 = rss_kb();
    let t0 = Instant::now();
    let mut handles = Vec::with_capacity(n as usize);
    let mut failure = None;
    for _ in 0..n {
        let (gate, ready, spawner) = (gate.clone(), ready.clone(), spawner.clone());
        let unit = move || {
            if ready.fetch_add(1, Ordering::AcqRel) + 1 == n {
                spawner.unpark();
            }
            drop(gate.read());
        };
        match start(unit, handles.len(), room) {
            Ok(h) => handles.push(h),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if failure.is_none() {
        while ready.load(Ordering::Acquire) < n {
            thread::park();
        }
    }
    let elapsed = t0.elapsed();
    let mem_kb = rss_kb() - m0;
    let made = ready.load(Ordering::Acquire);
    drop(closed);
    let created = handles.len() as u64;
    for h in handles {
        let _ = h.join();
    }
    match failure {
        Some(reason) => Err(Limit { created, reason }),
        None => Ok(Spawned {
            elapsed,
            mem_kb,
            made,
        }),
    }
}

/// `n` threads in a ring of mpsc channels; the token goes round `m` times.
pub fn ring(n: u64, m: u64) -> Result<(Duration, u64), Limit> {
    let last = n * m;
    let (done_tx, done_rx) = mpsc::channel::<u64>();
    // Channel i is unit i's inbox; unit i sends to inbox i+1 (mod n).
    let (mut txs, rxs): (Vec<_>, Vec<_>) = (0..n).map(|_| mpsc::channel::<u64>()).unzip();
    txs.rotate_left(1);
    let inject = txs[txs.len() - 1].clone();
    let mut handles = Vec::with_capacity(n as usize);
    let room = room_for_threads();
    let mut failure = None;
    for (rx, tx) in rxs.into_iter().zip(txs) {
        let done = done_tx.clone();
        let unit = move || {
            for _ in 0..m {
                let Ok(v) = rx.recv() else { return };
                let v = v + 1;
                if v == last {
                    let _ = done.send(v);
                    return;
                }
                if tx.send(v).is_err() {
                    return;
                }
            }
        };
        match start(unit, handles.len(), room) {
            Ok(h) => handles.push(h),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    drop(done_tx);
    if let Some(reason) = failure {
        // Dropping the injector closes unit 0's inbox; the units made end in turn.
        drop(inject);
        let created = handles.len() as u64;
        for h in handles {
            let _ = h.join();
        }
        return Err(Limit { created, reason });
    }
    let t0 = Instant::now();
    let _ = inject.send(0);
    let hops = done_rx.recv().unwrap_or(0);
    let elapsed = t0.elapsed();
    drop(inject);
    for h in handles {
        let _ = h.join();
    }
    Ok((elapsed, hops))
}

#[cfg(test)]
mod tests {
    #[test]
    fn spawns_and_rings() {
        let s = super::spawn(50).ok().expect("50 threads");
        assert!(s.elapsed.as_nanos() > 0);
        assert_eq!(s.made, 50);
        let (t, hops) = super::ring(7, 11).ok().expect("ring");
        assert_eq!(hops, 77);
        assert!(t.as_nanos() > 0);
    }

    #[test]
    fn counts_the_memory_mappings_left_for_threads() {
        let (fit, max) = super::room_for_threads().expect("Linux /proc");
        assert!(
            max > 0 && fit < max / super::MAPS_PER_THREAD,
            "{fit} of {max}"
        );
        let refused = super::start(|| {}, fit as usize, Some((fit, max))).unwrap_err();
        assert!(
            refused.contains(&format!("vm.max_map_count is {max}")),
            "{refused}"
        );
        let ok = super::start(|| {}, 0, Some((1, max))).expect("room for one");
        ok.join().unwrap();
    }
}
