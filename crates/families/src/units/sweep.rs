//! One (runtime, unit) series' sweep over N: the worker started (and
//! restarted after a point that killed it), each point's trials, the checks
//! on each answer, and the larger Ns a limit or a ceiling rules out.

use super::config::*;
use super::target::Target;
use crate::history::{self, Comparable};
use crate::observer::Observer;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toll_measure::env::OthersBusy;
use toll_measure::fit::{cost_knee, fit_series};
use toll_measure::rounds;
use toll_measure::{Sample, Summary};
use toll_peers::{Ceiling, Launch, Peer, PeerError, Runtime};
use toll_store::{Point, PointStatus, Store};

/// One series' sweep over N, with the worker it talks to (restarted after a
/// point that killed it).
pub(super) struct Sweep<'a> {
    pub(super) cfg: &'a UnitsConfig,
    pub(super) store: &'a Store,
    pub(super) observer: &'a mut dyn Observer,
    pub(super) stop: &'a AtomicBool,
    pub(super) target: Target,
    pub(super) launch: Launch,
    pub(super) peer: Option<Peer>,
    /// The machine's CPU model: earlier runs on another CPU are not history.
    pub(super) cpu_model: &'a str,
}

/// One N while the rounds go on: its trials so far, and why it stopped
/// taking more, if it has.
#[derive(Debug, Clone, Default)]
struct PointState {
    samples: Vec<Sample>,
    /// The machine's used memory after each trial, kB (spawn).
    mems: Vec<f64>,
    mem_how: Option<String>,
    /// Time spent on its trials, against the point's ceiling.
    spent: Duration,
    /// Why it failed, and whether larger N would fail the same way.
    failure: Option<(String, bool)>,
    /// Another trial would likely cross the time ceiling.
    full: bool,
}

impl PointState {
    /// Takes no more trials.
    fn closed(&self) -> bool {
        self.failure.is_some() || self.full
    }
}

/// The smaller N whose failure means N `i` would fail the same way.
fn blocked_by(ns: &[u64], states: &[PointState], i: usize) -> Option<u64> {
    ns.iter()
        .zip(states)
        .filter(|(&n, s)| n < ns[i] && matches!(s.failure, Some((_, true))))
        .map(|(&n, _)| n)
        .min()
}

/// Why a point with no trials has none.
fn failure_reason(ns: &[u64], states: &[PointState], i: usize) -> String {
    match (&states[i].failure, blocked_by(ns, states, i)) {
        (Some((reason, _)), _) => reason.clone(),
        (None, Some(n)) => format!("not tried: N = {n} already failed"),
        (None, None) => "not measured: the run was interrupted".to_string(),
    }
}

/// What a spawn point stores beside its timings: the memory readings, and
/// the memory per unit or why it is not given (crates/report/schema.json).
fn extra(figures: &Figures, state: &PointState) -> Option<Value> {
    if state.mems.is_empty() {
        return None;
    }
    let mut extra = json!({"mem_kb": state.mems, "mem_how": state.mem_how});
    match (figures.mem_kb_per_unit, &figures.mem_note) {
        (Some(per), _) => extra["mem_kb_per_unit"] = per.into(),
        (None, Some(why)) => extra["mem_note"] = why.as_str().into(),
        (None, None) => {}
    }
    Some(extra)
}

impl Sweep<'_> {
    /// Every N of the series, measured in interleaved rounds: each round
    /// takes one trial of every N still measuring (the first round
    /// ascending, so a limit is met having measured every smaller N; later
    /// rounds shuffled, seeded), so slow drift of the machine spreads over
    /// every point instead of tilting the line. Every point is stored after
    /// each round.
    pub(super) fn series(&mut self, run_id: i64) -> Result<UnitSeries, UnitsError> {
        let label = self.target.label();
        let version = self
            .peer()
            .map(|p| p.hello.version.clone())
            .unwrap_or_default();
        let (op, m) = match self.cfg.op {
            UnitOp::Spawn => ("spawn", None),
            UnitOp::Ring { m } => ("ring", Some(m)),
        };
        let attrs = json!({
            "runtime": self.target.runtime.name(), "unit": self.target.unit,
            "class": self.target.class().name(), "runtime_version": version,
            "op": op, "m": m, "per": self.cfg.op.per(),
        });
        let series_id = self.store.add_series(run_id, &label, &attrs)?;
        self.observer.series_started(&label, self.cfg.ns.len());
        self.warm_up();
        let mut ours: Vec<u32> = self.peer.iter().map(Peer::pid).collect();
        let others = OthersBusy::start(&ours);
        let ns = &self.cfg.ns;
        let mut states: Vec<PointState> = vec![PointState::default(); ns.len()];
        let mut ids: Vec<Option<i64>> = vec![None; ns.len()];
        let seed = (run_id as u64) << 16 ^ series_id as u64;
        let mut rounds_taken = 0;
        for round in 0..self.cfg.trials as usize {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            for i in rounds::order(ns.len(), round, seed) {
                if self.stop.load(Ordering::Relaxed) {
                    break;
                }
                if states[i].closed() || blocked_by(ns, &states, i).is_some() {
                    continue;
                }
                self.trial(ns[i], &mut states[i]);
                self.observer.trial_done(&label, ns[i]);
                if let Some((reason, _)) = &states[i].failure {
                    self.observer
                        .warning(&format!("{label} at N = {}: {reason}", ns[i]));
                }
            }
            rounds_taken = round + 1;
            self.save(series_id, &mut ids, &states)?;
            self.observer.round_done(&label, rounds_taken);
        }
        self.save(series_id, &mut ids, &states)?;
        ours.extend(self.peer.iter().map(Peer::pid));
        let (others_busy, busiest) = others.share(&ours);
        let mut attrs = attrs;
        attrs["rounds"] = json!(rounds_taken);
        attrs["others_busy"] = json!(others_busy);
        if let Some(b) = &busiest {
            attrs["busiest"] = json!(b);
        }
        self.store.set_series_attrs(series_id, &attrs)?;
        let mut points: Vec<UnitPoint> = Vec::new();
        for (i, &n) in ns.iter().enumerate() {
            let result = match self.figures(n, &states[i]) {
                Some(figures) => {
                    if let Some(why) = &figures.mem_note {
                        self.observer.warning(&format!(
                            "{label} at N = {n}: memory per unit not measured: {why}"
                        ));
                    }
                    self.observer.point_done(&label, n, &figures.per_op);
                    Ok(figures)
                }
                None => Err(failure_reason(ns, &states, i)),
            };
            points.push(UnitPoint { n, result });
        }
        if let Some(peer) = self.peer.take() {
            peer.close();
        }
        let input = self.fit_input(&points);
        let mut fit = fit_series(&input);
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: self.cfg.op.family(),
                label: &label,
                run_id,
                cpu_model: self.cpu_model,
                config: &[("ns", json!(self.cfg.ns)), ("op", json!(self.cfg.op))],
                attrs: &[],
            };
            history::conclude(self.store, &which, series_id, f, &input, Some(others_busy))?;
        }
        let per_unit: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| Some((p.n as f64, p.result.as_ref().ok()?.per_op.median)))
            .collect();
        let knee = cost_knee(&per_unit, KNEE_FACTOR);
        Ok(UnitSeries {
            target: self.target,
            points,
            fit,
            knee,
            others_busy,
            busiest,
        })
    }

    /// Store every point as it stands, replacing what the last round stored.
    fn save(
        &self,
        series_id: i64,
        ids: &mut [Option<i64>],
        states: &[PointState],
    ) -> Result<(), UnitsError> {
        let ns = &self.cfg.ns;
        let points: Vec<Point> = ns
            .iter()
            .enumerate()
            .map(|(i, &n)| match self.figures(n, &states[i]) {
                Some(figures) => Point {
                    n,
                    status: PointStatus::Ok,
                    error: None,
                    summary: Some(figures.per_op.clone()),
                    samples: states[i].samples.clone(),
                    extra: extra(&figures, &states[i]),
                },
                None => Point {
                    n,
                    status: PointStatus::Failed,
                    error: Some(failure_reason(ns, states, i)),
                    summary: None,
                    samples: vec![],
                    extra: None,
                },
            })
            .collect();
        let mut batch: Vec<(Option<i64>, &Point)> =
            ids.iter().copied().zip(points.iter()).collect();
        self.store.save_points(series_id, &mut batch)?;
        for (id, (new, _)) in ids.iter_mut().zip(batch) {
            *id = new;
        }
        Ok(())
    }

    /// The worker, started if it is not running; None if it cannot start.
    fn peer(&mut self) -> Option<&mut Peer> {
        if self.peer.is_none() {
            self.peer = Peer::start(self.target.runtime, self.launch.clone()).ok();
        }
        self.peer.as_mut()
    }

    /// One untimed small run, so a JIT has compiled the code before the first
    /// point (E5 needed 5–6 runs before a Java server settled).
    fn warm_up(&mut self) {
        let n = self
            .cfg
            .ns
            .iter()
            .copied()
            .min()
            .unwrap_or(2)
            .clamp(2, 1000);
        let cmd = self.command(n, Some(10));
        let ceiling = self.cfg.ceiling;
        if let Some(peer) = self.peer() {
            if peer.units(&cmd, ceiling).is_err() {
                self.peer = None;
            }
        }
    }

    fn command(&self, n: u64, max_rounds: Option<u64>) -> Value {
        match self.cfg.op {
            UnitOp::Spawn => json!({"op": "spawn", "unit": self.target.unit, "n": n}),
            UnitOp::Ring { m } => {
                let m = max_rounds.map_or(m, |r| m.min(r));
                json!({"op": "ring", "unit": self.target.unit, "n": n, "m": m})
            }
        }
    }

    /// One trial of N, within what is left of the point's time ceiling; a
    /// failure closes the point (its trials so far are kept).
    fn trial(&mut self, n: u64, state: &mut PointState) {
        let cmd = self.command(n, None);
        let ceiling = self.cfg.ceiling;
        let last = state
            .samples
            .last()
            .map(|s: &Sample| Duration::from_nanos(s.total_ns))
            .unwrap_or_default();
        // No trial that would likely cross the ceiling.
        if !state.samples.is_empty() && state.spent + last + last / 4 > ceiling.time {
            state.full = true;
            return;
        }
        let budget = Ceiling {
            time: ceiling.time.saturating_sub(state.spent),
            mem_kb: ceiling.mem_kb,
        };
        let Some(peer) = self.peer() else {
            state.failure = Some((
                format!("the {} worker did not start", self.target.runtime),
                true,
            ));
            return;
        };
        let started = Instant::now();
        let answer = peer.units(&cmd, budget);
        state.spent += started.elapsed();
        let answer = match answer {
            Ok(a) => a,
            // Stopped mid-point: the point keeps the trials it completed.
            Err(PeerError::Abandoned { .. }) => {
                self.peer = None;
                return;
            }
            Err(e) => {
                state.failure = Some(self.failed(e, &ceiling));
                return;
            }
        };
        match check(self.cfg.op, self.target.runtime, &answer, n) {
            Ok(sample) => state.samples.push(sample),
            Err(reason) => {
                self.peer = None;
                state.failure = Some((reason, false));
                return;
            }
        }
        if let Some(kb) = answer.get("mem_kb").and_then(Value::as_i64) {
            state.mems.push(kb as f64);
            state.mem_how = answer
                .get("mem_how")
                .and_then(Value::as_str)
                .map(String::from);
        }
    }

    /// A point's figures from its trials (None when it has none).
    fn figures(&self, n: u64, state: &PointState) -> Option<Figures> {
        if state.samples.is_empty() {
            return None;
        }
        let per_op: Vec<f64> = state.samples.iter().map(Sample::per_op_ns).collect();
        let totals: Vec<f64> = state.samples.iter().map(|s| s.total_ns as f64).collect();
        let (mem_kb_per_unit, mem_note) = match state.mems.is_empty() {
            true => (None, None),
            false => match super::memory::per_unit(&state.mems, n) {
                Ok(per) => (Some(per), None),
                Err(why) => (None, Some(why)),
            },
        };
        Some(Figures {
            per_op: Summary::of(&per_op),
            total: Summary::of(&totals),
            trials_ns: totals,
            mem_kb_per_unit,
            mem_how: state.mem_how.clone(),
            mem_note,
        })
    }

    /// A failed command: why, and whether larger N would fail the same way;
    /// the worker is restarted if it died.
    fn failed(&mut self, e: PeerError, ceiling: &Ceiling) -> (String, bool) {
        match e {
            PeerError::Refused { detail, limit, .. } => (detail, limit),
            PeerError::Ceiling { what, .. } => {
                self.peer = None;
                let reason = if what.starts_with("memory") {
                    format!(
                        "stopped at the memory ceiling of {} MiB: raise it with --max-mem",
                        ceiling.mem_kb / 1024
                    )
                } else {
                    format!(
                        "stopped at the time ceiling of {} s: raise it with --max-time",
                        ceiling.time.as_secs_f64()
                    )
                };
                (reason, true)
            }
            other => {
                self.peer = None;
                (other.to_string(), false)
            }
        }
    }

    /// (N, t) for the fit, every trial: the whole spawn, or one round of the ring.
    fn fit_input(&self, points: &[UnitPoint]) -> Vec<(f64, Vec<f64>)> {
        let per_round = match self.cfg.op {
            UnitOp::Spawn => 1.0,
            UnitOp::Ring { m } => m as f64,
        };
        points
            .iter()
            .filter_map(|p| {
                let f = p.result.as_ref().ok()?;
                Some((
                    p.n as f64,
                    f.trials_ns.iter().map(|t| t / per_round).collect(),
                ))
            })
            .collect()
    }
}

/// A command's answer as a sample: for `spawn`, the units the worker says its
/// units counted as ready (`made`), which must be the N asked for; for `ring`,
/// the token's hops, which must be N·M.
fn check(op: UnitOp, runtime: Runtime, answer: &Value, n: u64) -> Result<Sample, String> {
    let ns = answer
        .get("ns")
        .and_then(Value::as_u64)
        .filter(|&ns| ns > 0)
        .ok_or_else(|| format!("the {runtime} worker gave no time"))?;
    let iters = match op {
        UnitOp::Spawn => match answer.get("made").and_then(Value::as_u64) {
            Some(made) if made == n => made,
            Some(made) => {
                return Err(format!(
                    "the {runtime} worker made {made} of the {n} units asked for"
                ))
            }
            None => {
                return Err(format!(
                    "the {runtime} worker did not say how many units it made (`made`, spec/wire.md)"
                ))
            }
        },
        UnitOp::Ring { m } => {
            let hops = answer.get("hops").and_then(Value::as_u64).unwrap_or(0);
            if hops != n * m {
                return Err(format!(
                    "the {runtime} worker's token made {hops} hops, not N·M = {}",
                    n * m
                ));
            }
            hops
        }
    };
    Ok(Sample {
        iters,
        total_ns: ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spawn_counts_the_units_the_worker_made_and_refuses_fewer() {
        let ok = json!({"ok": true, "n": 1000, "made": 1000, "ns": 5000});
        let s = check(UnitOp::Spawn, Runtime::Go, &ok, 1000).unwrap();
        assert_eq!((s.iters, s.total_ns), (1000, 5000));
        let short = json!({"ok": true, "n": 1000, "made": 10, "ns": 5000});
        assert_eq!(
            check(UnitOp::Spawn, Runtime::Go, &short, 1000).unwrap_err(),
            "the go worker made 10 of the 1000 units asked for"
        );
        let silent = json!({"ok": true, "n": 1000, "ns": 5000});
        let e = check(UnitOp::Spawn, Runtime::Java, &silent, 1000).unwrap_err();
        assert!(
            e.contains("java worker did not say how many units it made"),
            "{e}"
        );
        let timeless = json!({"ok": true, "n": 1000, "made": 1000});
        assert!(check(UnitOp::Spawn, Runtime::C, &timeless, 1000).is_err());
    }

    #[test]
    fn a_ring_checks_the_hops() {
        let op = UnitOp::Ring { m: 10 };
        let ok = json!({"ok": true, "hops": 200, "ns": 99});
        assert_eq!(check(op, Runtime::Rust, &ok, 20).unwrap().iters, 200);
        let lost = json!({"ok": true, "hops": 199, "ns": 99});
        assert_eq!(
            check(op, Runtime::Rust, &lost, 20).unwrap_err(),
            "the rust worker's token made 199 hops, not N·M = 200"
        );
    }
}
