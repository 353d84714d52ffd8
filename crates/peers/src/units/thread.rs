//! OS threads (std::thread): spawn behind a gate; a ring over std::sync::mpsc.

use super::{rss_kb, Limit, Spawned};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, RwLock};
use std::thread;
use std::time::{Duration, Instant};

/// Make `n` threads that each count themselves ready and wait on a gate (a
/// write-locked RwLock that the spawner drops).
pub fn spawn(n: u64) -> Result<Spawned, Limit> {
    let gate = Arc::new(RwLock::new(()));
    let closed = gate.write().expect("fresh lock");
    let ready = Arc::new(AtomicU64::new(0));
    let spawner = thread::current();
    let m0 = rss_kb();
    let t0 = Instant::now();
    let mut handles = Vec::with_capacity(n as usize);
    let mut failure = None;
    for _ in 0..n {
        let (gate, ready, spawner) = (gate.clone(), ready.clone(), spawner.clone());
        let made = thread::Builder::new().spawn(move || {
            if ready.fetch_add(1, Ordering::AcqRel) + 1 == n {
                spawner.unpark();
            }
            drop(gate.read());
        });
        match made {
            Ok(h) => handles.push(h),
            Err(e) => {
                failure = Some(e.to_string());
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
    let mut failure = None;
    for (rx, tx) in rxs.into_iter().zip(txs) {
        let done = done_tx.clone();
        let made = thread::Builder::new().spawn(move || {
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
        });
        match made {
            Ok(h) => handles.push(h),
            Err(e) => {
                failure = Some(e.to_string());
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
}
