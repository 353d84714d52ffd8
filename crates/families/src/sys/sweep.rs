//! One crossing's series: each size warmed up and given its batch by the
//! engine, then timed once a round in interleaved rounds (the memory chase
//! size by size, so only one working set is held at a time), stored after
//! each round, fitted where it has sizes to fit.

use super::caches;
use super::config::{Planned, Probe, SysConfig, SysError, SysPoint, SysSeries};
use super::pairs;
use super::probes::{self, Chase, CopyBuffers};
use crate::history::{self, Comparable};
use crate::observer::Observer;
use crate::points::{reason, stored, summary};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toll_measure::env::OthersBusy;
use toll_measure::fit::fit_series;
use toll_measure::{rounds, Engine, Sample};
use toll_store::{Point, Store};

pub(super) struct Sweep<'a> {
    pub(super) cfg: &'a SysConfig,
    pub(super) engine: &'a Engine,
    pub(super) store: &'a Store,
    pub(super) observer: &'a mut dyn Observer,
    pub(super) stop: &'a AtomicBool,
    pub(super) cpu_model: &'a str,
}

/// What a point's batches keep beside their times: the minor faults counted
/// (the touch series), to check one fault per page.
#[derive(Default, Clone)]
struct Side {
    faults: u64,
    pages: u64,
}

/// One batch of `reps` operations of `probe` at size `n`: the time the
/// batch took, as a Sample of `ops` operations (a handoff counts both ways).
fn batch(
    probe: &Probe,
    n: u64,
    reps: u64,
    copies: &mut std::collections::BTreeMap<u64, CopyBuffers>,
    side: &mut Side,
) -> Result<Duration, String> {
    match *probe {
        Probe::Syscall => Ok(probes::syscall(reps)),
        Probe::Vdso => Ok(probes::vdso(reps)),
        Probe::Touch | Probe::MapUnmap => {
            let touch = matches!(probe, Probe::Touch);
            let (took, faults) = probes::map_touch(n, reps, touch)?;
            if touch {
                side.faults += faults;
                side.pages += n * reps;
            }
            Ok(took)
        }
        Probe::SignalSelf => probes::signal_self(reps),
        Probe::Wake(kind, a, b) => pairs::wake(kind, (a, b), reps),
        Probe::Handoff(a, b) => pairs::handoff(a, b, reps),
        Probe::Copy => Ok(copies
            .entry(n)
            .or_insert_with(|| CopyBuffers::new(n as usize))
            .copy(reps, pairs::lead_in())),
        Probe::Memory | Probe::Unavailable(_) => Err("measured elsewhere".into()),
    }
}

/// Operations a batch of `reps` stands for.
fn ops(probe: &Probe, reps: u64) -> u64 {
    match probe {
        Probe::Handoff(..) => 2 * reps,
        _ => reps,
    }
}

impl Sweep<'_> {
    fn keep_going(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Measure `plan` into the run: its series id, points and fit.
    pub(super) fn series(&mut self, run_id: i64, plan: &Planned) -> Result<SysSeries, SysError> {
        let attrs = json!({"crossing": plan.crossing.name(), "per": plan.per, "probe": plan.probe.describe()});
        let series_id = self.store.add_series(run_id, &plan.label, &attrs)?;
        self.observer.series_started(&plan.label, plan.ns.len());
        let others = OthersBusy::start(&[]);
        let n = plan.ns.len();
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); n];
        let mut failures: Vec<Option<String>> = vec![None; n];
        let mut sides: Vec<Side> = vec![Side::default(); n];
        let mut ids: Vec<Option<i64>> = vec![None; n];
        let mut taken = 0;
        if let Probe::Unavailable(why) = &plan.probe {
            failures.iter_mut().for_each(|f| *f = Some(why.clone()));
        } else if matches!(plan.probe, Probe::Memory) {
            taken = self.memory(plan, series_id, &mut samples, &mut failures, &mut ids)?;
        } else {
            let mut copies = std::collections::BTreeMap::new();
            let mut iters: Vec<Option<u64>> = vec![None; n];
            for (i, &size) in plan.ns.iter().enumerate() {
                let keep = || self.keep_going();
                let probe = &plan.probe;
                let side = &mut sides[i];
                match self.engine.calibrate(
                    &mut |reps| batch(probe, size, reps, &mut copies, side),
                    &keep,
                ) {
                    Ok(k) => iters[i] = k,
                    Err(why) => failures[i] = Some(why),
                }
                sides[i] = Side::default();
            }
            let seed = (run_id as u64) << 16 ^ series_id as u64;
            for round in 0..self.cfg.engine.trials as usize {
                if !self.keep_going() {
                    break;
                }
                for i in rounds::order(n, round, seed) {
                    let (Some(k), None) = (iters[i], &failures[i]) else {
                        continue;
                    };
                    if !self.keep_going() {
                        break;
                    }
                    let side = &mut sides[i];
                    match batch(&plan.probe, plan.ns[i], k, &mut copies, side) {
                        Ok(took) => samples[i].push(Sample {
                            iters: ops(&plan.probe, k),
                            total_ns: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
                        }),
                        Err(why) => {
                            self.observer
                                .warning(&format!("{} at n = {}: {why}", plan.label, plan.ns[i]));
                            failures[i] = Some(why);
                        }
                    }
                    self.observer.trial_done(&plan.label, plan.ns[i]);
                }
                taken = round + 1;
                self.save(series_id, plan, &mut ids, &samples, &failures, &sides)?;
                self.observer.round_done(&plan.label, taken);
            }
        }
        self.save(series_id, plan, &mut ids, &samples, &failures, &sides)?;
        let (others_busy, _) = others.share(&[]);
        let points: Vec<SysPoint> = plan
            .ns
            .iter()
            .enumerate()
            .map(|(i, &size)| SysPoint {
                n: size,
                result: summary(&samples[i]).ok_or_else(|| reason(&failures[i])),
                faults_per_page: (sides[i].pages > 0)
                    .then(|| sides[i].faults as f64 / sides[i].pages as f64),
            })
            .collect();
        for p in &points {
            if let Ok(s) = &p.result {
                self.observer.point_done(&plan.label, p.n, s);
            }
        }
        let levels = matches!(plan.probe, Probe::Memory).then(|| {
            let pts: Vec<(u64, Vec<f64>)> = points
                .iter()
                .zip(&samples)
                .filter(|(p, _)| p.result.is_ok())
                .map(|(p, s)| (p.n, s.iter().map(Sample::per_op_ns).collect()))
                .collect();
            caches::levels(&pts)
        });
        let mut attrs = attrs;
        attrs["rounds"] = json!(taken);
        // A one-point figure carries its run-to-run term, as a fitted α does.
        let one = (!plan.fitted && points.len() == 1)
            .then(|| points[0].result.as_ref().ok())
            .flatten();
        let figure = one.and_then(|s| {
            let which = Comparable {
                family: "sys",
                label: &plan.label,
                run_id,
                cpu_model: self.cpu_model,
                config: &[],
                attrs: &[("probe", json!(plan.probe.describe()))],
            };
            history::figure(self.store, &which, s)
        });
        if let Some(f) = &figure {
            attrs["figure"] = json!(f);
        }
        attrs["others_busy"] = json!(others_busy);
        if let Some(l) = &levels {
            attrs["levels"] = json!(l);
            attrs["caches"] = json!(caches::reported());
        }
        self.store.set_series_attrs(series_id, &attrs)?;
        let input: Vec<(f64, Vec<f64>)> = plan
            .ns
            .iter()
            .zip(&samples)
            .filter(|(_, s)| !s.is_empty())
            .map(|(&n, s)| (n as f64, s.iter().map(Sample::per_op_ns).collect()))
            .collect();
        let mut fit = if plan.fitted {
            fit_series(&input)
        } else {
            None
        };
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: "sys",
                label: &plan.label,
                run_id,
                cpu_model: self.cpu_model,
                config: &[("ns", json!(plan.ns))],
                attrs: &[],
            };
            history::conclude(self.store, &which, series_id, f, &input, Some(others_busy))?;
        }
        Ok(SysSeries {
            label: plan.label.clone(),
            crossing: plan.crossing,
            per: plan.per,
            points,
            fit,
            levels,
            others_busy,
            figure,
        })
    }

    /// The chase, size by size: one working set built, warmed, timed
    /// `trials` times and dropped before the next. Returns the rounds taken.
    fn memory(
        &mut self,
        plan: &Planned,
        series_id: i64,
        samples: &mut [Vec<Sample>],
        failures: &mut [Option<String>],
        ids: &mut [Option<i64>],
    ) -> Result<usize, SysError> {
        let mut taken = 0;
        for (i, &bytes) in plan.ns.iter().enumerate() {
            if !self.keep_going() {
                break;
            }
            let mut chase = match Chase::new(bytes as usize, 0x9e37_79b9 ^ bytes) {
                Ok(c) => c,
                Err(why) => {
                    failures[i] = Some(why);
                    continue;
                }
            };
            let keep = || self.keep_going();
            let k = self
                .engine
                .calibrate(&mut |reps| Ok::<_, String>(chase.chase(reps)), &keep)
                .unwrap_or(None);
            let Some(k) = k else { break };
            for _ in 0..self.cfg.engine.trials {
                if !self.keep_going() {
                    break;
                }
                let took = chase.chase(k);
                samples[i].push(Sample {
                    iters: k,
                    total_ns: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
                });
                self.observer.trial_done(&plan.label, bytes);
            }
            taken = taken.max(samples[i].len());
            let sides = vec![Side::default(); plan.ns.len()];
            self.save(series_id, plan, ids, samples, failures, &sides)?;
        }
        Ok(taken)
    }

    /// Store every point as it stands, replacing what was stored before.
    fn save(
        &self,
        series_id: i64,
        plan: &Planned,
        ids: &mut [Option<i64>],
        samples: &[Vec<Sample>],
        failures: &[Option<String>],
        sides: &[Side],
    ) -> Result<(), SysError> {
        let points: Vec<Point> = plan
            .ns
            .iter()
            .enumerate()
            .map(|(i, &n)| stored_with(n, &samples[i], &failures[i], &sides[i]))
            .collect();
        let mut batch: Vec<(Option<i64>, &Point)> =
            ids.iter().copied().zip(points.iter()).collect();
        self.store.save_points(series_id, &mut batch)?;
        for (id, (new, _)) in ids.iter_mut().zip(batch) {
            *id = new;
        }
        Ok(())
    }
}

/// A point as stored, with the minor faults counted beside it (touch).
fn stored_with(n: u64, samples: &[Sample], failure: &Option<String>, side: &Side) -> Point {
    let extra: Option<Value> = (side.pages > 0).then(|| {
        json!({"minor_faults": side.faults, "pages_touched": side.pages,
               "minor_faults_per_page": side.faults as f64 / side.pages as f64})
    });
    stored(n, samples, failure, extra)
}
