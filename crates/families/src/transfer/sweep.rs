//! One `toll transfer` run's sweep: each series' peer started (here, on a
//! far host or across a link), its points probed in interleaved rounds
//! until their CIs settle or the time runs out, and every sample saved as
//! it comes in.

use super::config::{SeriesResult, TransferConfig, TransferError, ITEM_BYTES};
use crate::far::Far;
use crate::history::{self, Comparable};
use crate::link::Link;
use crate::observer::Observer;
use crate::placement::{last_cpu, Pin, Placement};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::env::OthersBusy;
use toll_measure::rounds::{self, Stop, Verdict};
use toll_measure::{fit::fit_series, Engine, Sample, Summary};
use toll_peers::{Agent, Launch, Peer, PeerError, Runtime, TcpRoute, Transport};
use toll_store::{Point, PointStatus, Store};

/// Words as one shell command line (the agent's launcher is run by `sh -c`).
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One run's sweep: everything a series needs, so each level is one method.
pub(super) struct Sweep<'a> {
    pub(super) cfg: &'a TransferConfig,
    pub(super) store: &'a Store,
    pub(super) run_id: i64,
    pub(super) engine: &'a Engine,
    pub(super) placement: Placement,
    pub(super) scratch: &'a Path,
    pub(super) observer: &'a mut dyn Observer,
    pub(super) stop: &'a AtomicBool,
    pub(super) results: Vec<SeriesResult>,
    /// The machine's CPU model: earlier runs on another CPU are not history.
    pub(super) cpu_model: &'a str,
    /// The link built for `--link`, whose far end runs the peers.
    pub(super) link: Option<std::sync::Arc<Link>>,
}

impl Sweep<'_> {
    pub(super) fn keep_going(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Start one peer and measure it over each of `transports`, their
    /// rounds interleaved (a round of each series in turn, each on fresh
    /// channels), so a spell of a busy machine lands on a few rounds of
    /// every series rather than on all the rounds of one, and the state a
    /// channel starts in is drawn anew each round.
    pub(super) fn peer(
        &mut self,
        runtime: Runtime,
        launch: Launch,
        transports: &[Transport],
    ) -> Result<(), TransferError> {
        if !self.keep_going() {
            return Ok(());
        }
        let mut peer = match &self.cfg.far {
            None => self
                .placement
                .spawn_on_peer_cpu(|| Peer::start(runtime, launch))??,
            Some(far) => self.far_peer(far, runtime)?,
        };
        let mut running = Vec::new();
        for &transport in transports {
            running.push(self.begin(&peer, transport)?);
        }
        let peer_pid = peer.pid();
        let others = OthersBusy::start(&[peer_pid]);
        let mut failed: Option<TransferError> = None;
        'rounds: while running.iter().any(|r| !r.done) {
            for r in running.iter_mut().filter(|r| !r.done) {
                if !self.keep_going() {
                    break 'rounds;
                }
                if let Err(e) = self.round(&mut peer, r) {
                    failed = Some(e);
                    break 'rounds;
                }
            }
        }
        let (others_busy, busiest) = others.share(&[peer_pid]);
        let last_cpu_peer = (self.placement.pin == Pin::None).then(|| last_cpu(peer_pid));
        for r in running {
            self.conclude(r, others_busy, &busiest, last_cpu_peer)?;
        }
        if let Some(e) = failed {
            return Err(e);
        }
        peer.close();
        Ok(())
    }

    /// Start `runtime`'s worker at the far end through `toll agent` there.
    fn far_peer(&mut self, far: &Far, runtime: Runtime) -> Result<Peer, TransferError> {
        let (launcher, addr) = match (far, &self.link) {
            (Far::Agent { launcher, addr }, _) => (launcher.clone(), *addr),
            (Far::Link(_), Some(link)) => {
                let toll = std::env::current_exe()
                    .map_err(|e| PeerError::io("finding toll's own path", e))?;
                let mut words = link.launcher();
                words.push(toll.display().to_string());
                words.push("agent".into());
                (shell_words(&words), None)
            }
            (Far::Link(_), None) => unreachable!("the link is built before the sweep"),
        };
        self.observer
            .note(&format!("starting toll agent: {launcher}"));
        let agent = self
            .placement
            .spawn_on_peer_cpu(|| Agent::launch(&launcher))??;
        let route = match &self.link {
            // The far end connects to the near namespace, whose relay
            // (the link's delay) forwards to the harness on loopback.
            Some(link) => {
                let link = link.clone();
                TcpRoute {
                    bind: std::net::Ipv4Addr::LOCALHOST.into(),
                    advertise: std::sync::Arc::new(move |at| link.to_near(at)),
                }
            }
            None => agent.route(addr)?,
        };
        Ok(agent.start_worker(runtime, route)?)
    }

    /// A series begins: stored, with nothing measured yet.
    fn begin(&mut self, peer: &Peer, transport: Transport) -> Result<Running, TransferError> {
        let runtime = peer.runtime();
        let label = format!("{runtime}/{transport}");
        let p = self.placement;
        let spin = self.cfg.spin && transport == Transport::Shm;
        let mut attrs = json!({
            "peer": runtime.name(), "transport": transport.name(),
            "peer_version": peer.hello.version, "unit": "items", "item_bytes": ITEM_BYTES,
            "pin": p.pin, "harness_cpu": p.harness_cpu, "peer_cpu": p.peer_cpu,
            "spin": spin,
        });
        if let Some(far) = &self.cfg.far {
            attrs["far"] = far.describe();
        }
        let series_id = self.store.add_series(self.run_id, &label, &attrs)?;
        self.observer.series_started(&label, self.cfg.sizes.len());
        let k = self.cfg.sizes.len();
        Ok(Running {
            runtime,
            transport,
            label,
            series_id,
            attrs,
            spin,
            iters: vec![None; k],
            samples: vec![Vec::new(); k],
            ids: vec![None; k],
            seed: (self.run_id as u64) << 16 ^ series_id as u64,
            spent: std::time::Duration::ZERO,
            rounds: 0,
            missed: Vec::new(),
            done: false,
            failed_at: None,
            error: None,
        })
    }

    /// One round of a series over a fresh session: every size once, in
    /// this round's order ([`rounds`]); round 0 calibrates each size first.
    /// Stores the points after it and asks the stopping rule whether the
    /// series is done. A failure stores what was measured (the size that
    /// failed as failed) and ends the series.
    fn round(&mut self, peer: &mut Peer, r: &mut Running) -> Result<(), TransferError> {
        let started = std::time::Instant::now();
        let outcome = self.sizes_once(peer, r);
        r.spent += started.elapsed();
        if let Err(e) = outcome {
            r.done = true;
            r.error = Some(e.to_string());
            return Err(e);
        }
        if !self.keep_going() {
            r.done = true;
            return Ok(());
        }
        r.rounds += 1;
        self.save(r.series_id, &mut r.ids, &r.samples, None, None)?;
        self.observer.round_done(&r.label, r.rounds);
        let stop_rule = Stop {
            min_rounds: self.cfg.engine.trials as usize,
            ci_target: self.cfg.ci_target,
            max_time: self.cfg.max_time,
        };
        let so_far: Vec<Summary> = r.samples.iter().map(|s| Summary::of(&per_op(s))).collect();
        match stop_rule.after(r.rounds, r.spent, &so_far) {
            Verdict::More => {}
            Verdict::Done => r.done = true,
            Verdict::OutOfTime(missed) => {
                r.missed = missed.into_iter().map(|i| self.cfg.sizes[i]).collect();
                r.done = true;
            }
        }
        Ok(())
    }

    /// Every size of `r` once over a session of its own; a stop request
    /// leaves the round short (its samples are kept).
    fn sizes_once(&mut self, peer: &mut Peer, r: &mut Running) -> Result<(), TransferError> {
        let sizes = &self.cfg.sizes;
        let mut session = peer.transfer(r.transport, self.scratch, self.cfg.spin)?;
        // After round 0 (whose calibration warms each size up), one untimed
        // batch at the largest size warms the fresh channel: TCP's window
        // and buffers grow to it before a trial counts.
        let largest = (0..sizes.len()).max_by_key(|&i| sizes[i]);
        if let Some(k) = largest.and_then(|i| r.iters[i].map(|k| (i, k))) {
            session.set_items(sizes[k.0] as u32);
            if let Err(e) = session.round_trips(k.1) {
                r.failed_at = Some(k.0);
                return Err(e.into());
            }
        }
        let mut last_save = std::time::Instant::now();
        for i in rounds::order(sizes.len(), r.rounds, r.seed) {
            if !self.keep_going() {
                break;
            }
            session.set_items(sizes[i] as u32);
            let keep_going = || !self.stop.load(Ordering::Relaxed);
            let result = match r.iters[i] {
                // Round 0: warm the size up and size its batches first.
                None => match self
                    .engine
                    .calibrate(&mut |n| session.round_trips(n), &keep_going)
                {
                    Ok(Some(k)) => {
                        r.iters[i] = Some(k);
                        self.engine.trial(&mut |n| session.round_trips(n), k)
                    }
                    Ok(None) => break,
                    Err(e) => Err(e),
                },
                // One untimed round trip settles the new size (and the
                // fresh channel), then the trial.
                Some(k) => session
                    .round_trips(1)
                    .and_then(|_| self.engine.trial(&mut |n| session.round_trips(n), k)),
            };
            match result {
                Ok(sample) => {
                    r.samples[i].push(sample);
                    self.observer.trial_done(&r.label, sizes[i]);
                    // A kill loses at most this much measuring.
                    if last_save.elapsed() >= SAVE_EVERY {
                        self.save(r.series_id, &mut r.ids, &r.samples, None, None)?;
                        last_save = std::time::Instant::now();
                    }
                }
                Err(e) => {
                    r.failed_at = Some(i);
                    return Err(e.into());
                }
            }
        }
        session.finish()?;
        Ok(())
    }

    /// A series is over: its points summarised, fitted (the fit is stored
    /// even when the series stopped early) and kept for the table.
    fn conclude(
        &mut self,
        mut r: Running,
        others_busy: f64,
        busiest: &Option<(String, f64)>,
        last_cpu_peer: Option<Option<usize>>,
    ) -> Result<(), TransferError> {
        // What it measured, the size that failed (if one did) as failed.
        let error = r.error.take();
        let failure = r.failed_at.map(|i| {
            format!(
                "{} at n = {}: {}",
                r.label,
                self.cfg.sizes[i],
                error.as_deref().unwrap_or("failed")
            )
        });
        self.save(r.series_id, &mut r.ids, &r.samples, r.failed_at, error)?;
        let Running {
            label,
            mut attrs,
            series_id,
            spin,
            ..
        } = r;
        let mut points: Vec<(u64, Summary)> = Vec::new();
        let mut fit_input: Vec<(f64, Vec<f64>)> = Vec::new();
        for (i, &n) in self.cfg.sizes.iter().enumerate() {
            if Some(i) == r.failed_at || r.samples[i].is_empty() {
                continue;
            }
            let values = per_op(&r.samples[i]);
            let summary = Summary::of(&values);
            self.observer.point_done(&label, n, &summary);
            fit_input.push((n as f64, values));
            points.push((n, summary));
        }
        if let Some(peer_cpu) = last_cpu_peer {
            // Unpinned: record where the scheduler last ran each end.
            attrs["observed_last_cpu"] = json!({"harness_cpu": last_cpu(0), "peer_cpu": peer_cpu});
        }
        attrs["rounds"] = json!(r.rounds);
        attrs["others_busy"] = json!(others_busy);
        if let Some(b) = busiest {
            attrs["busiest"] = json!(b);
        }
        self.store.set_series_attrs(series_id, &attrs)?;
        let p = self.placement;
        let mut fit = fit_series(&fit_input);
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: "transfer",
                label: &label,
                run_id: self.run_id,
                cpu_model: self.cpu_model,
                config: &[("sizes", json!(self.cfg.sizes))],
                // A far peer's history is its own; a local one's has no "far".
                attrs: &match &self.cfg.far {
                    None => vec![("pin", json!(p.pin)), ("spin", json!(spin))],
                    Some(far) => vec![
                        ("pin", json!(p.pin)),
                        ("spin", json!(spin)),
                        ("far", far.describe()),
                    ],
                },
            };
            history::conclude(
                self.store,
                &which,
                series_id,
                f,
                &fit_input,
                Some(others_busy),
            )?;
        }
        self.results.push(SeriesResult {
            label,
            peer: r.runtime,
            transport: r.transport,
            points,
            fit,
            rounds: r.rounds,
            missed: r.missed,
            others_busy,
            busiest: busiest.clone(),
            failure,
        });
        Ok(())
    }
}

/// A series between its rounds: what it has measured so far.
struct Running {
    runtime: Runtime,
    transport: Transport,
    label: String,
    series_id: i64,
    attrs: serde_json::Value,
    spin: bool,
    /// Each size's batch length, once calibrated.
    iters: Vec<Option<u64>>,
    /// Each size's trials, one a round.
    samples: Vec<Vec<Sample>>,
    /// Stored point ids, so each save replaces the last.
    ids: Vec<Option<i64>>,
    /// Seeds the rounds' order.
    seed: u64,
    /// Time its own rounds took (the others' do not count against
    /// `--max-time`).
    spent: std::time::Duration,
    rounds: usize,
    /// Sizes whose CI missed the `--ci` target when time ran out.
    missed: Vec<u64>,
    done: bool,
    failed_at: Option<usize>,
    error: Option<String>,
}

impl Sweep<'_> {
    /// Store every size measured so far (the one at `failed_at` as failed,
    /// with `error`), replacing what the last round stored.
    fn save(
        &self,
        series_id: i64,
        ids: &mut [Option<i64>],
        samples: &[Vec<Sample>],
        failed_at: Option<usize>,
        error: Option<String>,
    ) -> Result<(), TransferError> {
        let points: Vec<(usize, Point)> = self
            .cfg
            .sizes
            .iter()
            .enumerate()
            .filter(|(i, _)| !samples[*i].is_empty() || Some(*i) == failed_at)
            .map(|(i, &n)| {
                let failed = Some(i) == failed_at;
                let point = Point {
                    n,
                    status: if failed {
                        PointStatus::Failed
                    } else {
                        PointStatus::Ok
                    },
                    error: if failed { error.clone() } else { None },
                    summary: (!failed).then(|| Summary::of(&per_op(&samples[i]))),
                    samples: samples[i].clone(),
                    extra: None,
                };
                (i, point)
            })
            .collect();
        let mut entries: Vec<(Option<i64>, &Point)> =
            points.iter().map(|(i, p)| (ids[*i], p)).collect();
        self.store.save_points(series_id, &mut entries)?;
        for ((i, _), (id, _)) in points.iter().zip(&entries) {
            ids[*i] = *id;
        }
        Ok(())
    }
}

/// How often a series' points are saved while its rounds go on (and after
/// every round): a crash or a kill loses at most this much measuring.
const SAVE_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

fn per_op(samples: &[Sample]) -> Vec<f64> {
    samples.iter().map(|s| s.per_op_ns()).collect()
}
