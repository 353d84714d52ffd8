//! One (runtime, binding, way) series: each size warmed up and given its
//! batch size by the engine (the worker makes that many calls and times
//! them with its own monotonic clock), then every size timed once a round
//! in interleaved rounds, each answer's sum or receipt checked against the
//! pattern's (a callback's count against its n).

use super::config::*;
use crate::history::{self, Comparable};
use crate::observer::Observer;
use crate::points::{reason, stored, summary};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toll_measure::env::OthersBusy;
use toll_measure::fit::fit_series;
use toll_measure::{rounds, Engine, Sample};
use toll_peers::ffi::{answer_key, expected};
use toll_peers::{Pass, Peer, PeerError, Touch};
use toll_store::{Point, Store};

/// One series' sweep over the sizes, with the worker it talks to.
pub(super) struct Sweep<'a> {
    pub(super) cfg: &'a FfiConfig,
    pub(super) engine: &'a Engine,
    pub(super) store: &'a Store,
    pub(super) observer: &'a mut dyn Observer,
    pub(super) stop: &'a AtomicBool,
    pub(super) target: FfiTarget,
    pub(super) peer: Peer,
    /// The machine's CPU model: earlier runs on another CPU are not history.
    pub(super) cpu_model: &'a str,
}

/// The seed of a size's buffer: its own, so no two sizes share a prefix by chance.
fn seed(n: u64) -> u64 {
    n.wrapping_mul(0x9e37_79b9).wrapping_add(17) % 256
}

/// `reps` calls of `n` bytes; the worker's time, or why the point fails.
fn batch(
    peer: &mut Peer,
    target: &FfiTarget,
    touch: Touch,
    ceiling: toll_peers::Ceiling,
    n: u64,
    reps: u64,
) -> Result<Duration, String> {
    let cmd = json!({
        "op": "ffi", "binding": target.binding.name, "pass": target.pass.name(),
        "touch": touch.name(), "n": n, "reps": reps, "seed": seed(n),
    });
    let answer = peer.units(&cmd, ceiling).map_err(|e| match e {
        PeerError::Refused { detail, .. } => detail,
        other => other.to_string(),
    })?;
    check(&answer, target, touch, n)?;
    // No time, no figure: the point fails rather than take a zero.
    let ns = answer
        .get("ns")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{} gave no time `ns` (spec/wire.md, `ffi`)", target.label()))?;
    Ok(Duration::from_nanos(ns))
}

/// An answer's sum (`--touch all`) or receipt must be the pattern's (0 at
/// n = 0): the proof that the C side got the bytes it was passed; a
/// callback's count must be n: the proof that every upcall arrived.
fn check(answer: &Value, target: &FfiTarget, touch: Touch, n: u64) -> Result<(), String> {
    let want = expected(target.pass, touch, n, seed(n));
    let key = answer_key(target.pass, touch);
    match answer.get(key).and_then(Value::as_u64) {
        Some(got) if got == want => Ok(()),
        Some(got) if target.pass == Pass::Callback => Err(format!(
            "{} counted {got} upcalls for {n}: not every callback arrived",
            target.label()
        )),
        Some(got) => Err(format!(
            "{} returned the {key} {got} for {n} bytes, not {want}: the bytes did not all arrive",
            target.label()
        )),
        None => Err(format!(
            "{} gave no {key} (spec/wire.md, `ffi`)",
            target.label()
        )),
    }
}

impl Sweep<'_> {
    /// Every size of the series, calibrated, then timed in rounds; stored
    /// after each round, fitted and concluded at the end.
    pub(super) fn series(
        mut self,
        run_id: i64,
        series_id: i64,
        attrs: Value,
    ) -> Result<FfiSeries, FfiError> {
        let label = self.target.label();
        let sizes = &self.cfg.sizes;
        self.observer.series_started(&label, sizes.len());
        let others = OthersBusy::start(&[self.peer.pid()]);
        let (target, touch, ceiling) = (self.target, self.cfg.touch, self.cfg.ceiling);
        let mut iters: Vec<Option<u64>> = vec![None; sizes.len()];
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); sizes.len()];
        let mut failures: Vec<Option<String>> = vec![None; sizes.len()];
        let keep_going = || !self.stop.load(Ordering::Relaxed);
        for (i, &n) in sizes.iter().enumerate() {
            let peer = &mut self.peer;
            match self.engine.calibrate(
                &mut |reps| batch(peer, &target, touch, ceiling, n, reps),
                &keep_going,
            ) {
                Ok(k) => iters[i] = k,
                Err(why) => failures[i] = Some(why),
            }
        }
        let seed = (run_id as u64) << 16 ^ series_id as u64;
        let mut ids: Vec<Option<i64>> = vec![None; sizes.len()];
        let mut taken = 0;
        for round in 0..self.cfg.engine.trials as usize {
            if !keep_going() {
                break;
            }
            for i in rounds::order(sizes.len(), round, seed) {
                let (Some(k), None) = (iters[i], &failures[i]) else {
                    continue;
                };
                if !keep_going() {
                    break;
                }
                let peer = &mut self.peer;
                match self.engine.trial(
                    &mut |reps| batch(peer, &target, touch, ceiling, sizes[i], reps),
                    k,
                ) {
                    Ok(s) => samples[i].push(s),
                    Err(why) => {
                        self.observer
                            .warning(&format!("{label} at n = {}: {why}", sizes[i]));
                        failures[i] = Some(why);
                    }
                }
                self.observer.trial_done(&label, sizes[i]);
            }
            taken = round + 1;
            self.save(series_id, &mut ids, &samples, &failures)?;
            self.observer.round_done(&label, taken);
        }
        self.save(series_id, &mut ids, &samples, &failures)?;
        let (others_busy, _) = others.share(&[self.peer.pid()]);
        let mut attrs = attrs;
        attrs["rounds"] = json!(taken);
        attrs["others_busy"] = json!(others_busy);
        self.store.set_series_attrs(series_id, &attrs)?;
        let points: Vec<FfiPoint> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| FfiPoint {
                n,
                result: summary(&samples[i]).ok_or_else(|| reason(&failures[i])),
            })
            .collect();
        for p in &points {
            if let Ok(s) = &p.result {
                self.observer.point_done(&label, p.n, s);
            }
        }
        self.peer.close();
        let input: Vec<(f64, Vec<f64>)> = sizes
            .iter()
            .zip(&samples)
            .filter(|(_, s)| !s.is_empty())
            .map(|(&n, s)| (n as f64, s.iter().map(Sample::per_op_ns).collect()))
            .collect();
        let mut fit = fit_series(&input);
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: "ffi",
                label: &label,
                run_id,
                cpu_model: self.cpu_model,
                config: &[("sizes", json!(self.cfg.sizes))],
                // β means another thing when the C side reads every byte.
                attrs: &[("touch", json!(self.cfg.touch.name()))],
            };
            history::conclude(self.store, &which, series_id, f, &input, Some(others_busy))?;
        }
        Ok(FfiSeries {
            target: self.target,
            points,
            fit,
            unavailable: None,
            others_busy,
        })
    }

    /// Store every point as it stands, replacing what the last round stored.
    fn save(
        &self,
        series_id: i64,
        ids: &mut [Option<i64>],
        samples: &[Vec<Sample>],
        failures: &[Option<String>],
    ) -> Result<(), FfiError> {
        let points: Vec<Point> = self
            .cfg
            .sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| stored(n, &samples[i], &failures[i], None))
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

#[cfg(test)]
mod tests {
    use super::*;
    use toll_peers::Runtime;

    #[test]
    fn a_wrong_sum_or_receipt_fails_the_point() {
        let t = FfiTarget {
            runtime: Runtime::C,
            binding: Runtime::C.binding("dlopen").unwrap(),
            pass: toll_peers::Pass::Pinned,
        };
        let all = Touch::All;
        let right = toll_peers::ffi::pattern_sum(1000, seed(1000));
        assert!(check(&json!({"ok": true, "sum": right, "ns": 5}), &t, all, 1000).is_ok());
        let e = check(
            &json!({"ok": true, "sum": right - 1, "ns": 5}),
            &t,
            all,
            1000,
        )
        .unwrap_err();
        assert!(e.starts_with("c/dlopen returned the sum"), "{e}");
        assert!(check(&json!({"ok": true, "ns": 5}), &t, all, 1000).is_err());
        assert!(check(&json!({"ok": true, "sum": 0, "ns": 5}), &t, all, 0).is_ok());
        let r = Touch::Receipt;
        let want = toll_peers::ffi::way_receipt(t.pass, 1000, seed(1000));
        assert!(check(&json!({"receipt": want}), &t, r, 1000).is_ok());
        let e = check(&json!({"receipt": want ^ 1}), &t, r, 1000).unwrap_err();
        assert!(e.starts_with("c/dlopen returned the receipt"), "{e}");
        assert!(check(&json!({"sum": right}), &t, r, 1000).is_err());
        let cb = FfiTarget {
            pass: Pass::Callback,
            ..t
        };
        assert!(check(&json!({"count": 1000}), &cb, r, 1000).is_ok());
        let e = check(&json!({"count": 999}), &cb, r, 1000).unwrap_err();
        assert_eq!(
            e,
            "c/dlopen/callback counted 999 upcalls for 1000: not every callback arrived"
        );
        assert!(check(&json!({"receipt": 1000}), &cb, r, 1000).is_err());
    }
}
