//! tokio tasks on a multi-threaded runtime: spawn behind a gate; a ring over
//! tokio::sync::mpsc channels.

use super::mem::rss_kb;
use super::outcome::{Limit, Spawned};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, Notify, RwLock};

fn runtime() -> Result<tokio::runtime::Runtime, Limit> {
    tokio::runtime::Builder::new_multi_thread()
        .build()
        .map_err(|e| Limit {
            created: 0,
            reason: format!("cannot start the tokio runtime: {e}"),
        })
}

/// Make `n` tasks that each count themselves ready and wait on a gate (a
/// write-locked RwLock that the spawner drops).
pub fn spawn(n: u64) -> Result<Spawned, Limit> {
    let rt = runtime()?;
    let result = rt.block_on(async move {
        let gate = Arc::new(RwLock::new(()));
        let closed = gate.clone().write_owned().await;
        let ready = Arc::new(AtomicU64::new(0));
        let all_ready = Arc::new(Notify::new());
        let m0 = rss_kb();
        let t0 = Instant::now();
        let mut tasks = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let (gate, ready, all_ready) = (gate.clone(), ready.clone(), all_ready.clone());
            tasks.push(tokio::spawn(async move {
                if ready.fetch_add(1, Ordering::AcqRel) + 1 == n {
                    all_ready.notify_one();
                }
                drop(gate.read().await);
            }));
        }
        all_ready.notified().await;
        let elapsed = t0.elapsed();
        let mem_kb = rss_kb() - m0;
        let made = ready.load(Ordering::Acquire);
        drop(closed);
        for t in tasks {
            let _ = t.await;
        }
        Spawned {
            elapsed,
            mem_kb,
            made,
        }
    });
    Ok(result)
}

/// `n` tasks in a ring of mpsc channels; the token goes round `m` times.
pub fn ring(n: u64, m: u64) -> Result<(Duration, u64), Limit> {
    let rt = runtime()?;
    let result = rt.block_on(async move {
        let last = n * m;
        let (done_tx, done_rx) = oneshot::channel::<u64>();
        let mut done_tx = Some(done_tx);
        // Channel i is unit i's inbox; unit i sends to inbox i+1 (mod n).
        let (mut txs, rxs): (Vec<_>, Vec<_>) = (0..n).map(|_| mpsc::channel::<u64>(1)).unzip();
        txs.rotate_left(1);
        let inject = txs[txs.len() - 1].clone();
        let mut tasks = Vec::with_capacity(n as usize);
        for (i, (mut rx, tx)) in rxs.into_iter().zip(txs).enumerate() {
            // Only the last unit can finish the ring; it alone holds the done channel.
            let done = if i as u64 + 1 == n {
                done_tx.take()
            } else {
                None
            };
            tasks.push(tokio::spawn(async move {
                let mut done = done;
                for _ in 0..m {
                    let Some(v) = rx.recv().await else { return };
                    let v = v + 1;
                    if v == last {
                        if let Some(d) = done.take() {
                            let _ = d.send(v);
                        }
                        return;
                    }
                    if tx.send(v).await.is_err() {
                        return;
                    }
                }
            }));
        }
        let t0 = Instant::now();
        let _ = inject.send(0).await;
        let hops = done_rx.await.unwrap_or(0);
        let elapsed = t0.elapsed();
        drop(inject);
        for t in tasks {
            let _ = t.await;
        }
        (elapsed, hops)
    });
    Ok(result)
}

#[cfg(test)]
mod tests {
    #[test]
    fn spawns_and_rings() {
        let s = super::spawn(500).ok().expect("500 tasks");
        assert!(s.elapsed.as_nanos() > 0);
        assert_eq!(s.made, 500);
        let (t, hops) = super::ring(9, 13).ok().expect("ring");
        assert_eq!(hops, 117);
        assert!(t.as_nanos() > 0);
    }
}
