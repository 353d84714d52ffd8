//! `toll http --sweep FROM..TO`: the open-loop load stepped up in offered
//! rate, pass after pass, until two steps in a row do not keep up; each
//! step is one constant-rate load (`--rate`'s scheduler and its corrected
//! latencies). `knee` reads the knee and the latency break off the steps;
//! `stored` keeps the sweep as one run whose points are the steps.
//!
//! The driver takes the step as a closure, so its order and its stopping
//! rule are tested without a server; the load of a step is a closure too
//! ([`Loader`]), so a sweep runs from this machine or through load agents
//! (`agents`: each step one `--rate` load from them, their histograms
//! merged exactly) by the same driver, knee and store.

pub mod agents;
pub mod knee;
mod stored;

pub use stored::{store_sweep, StepLoad};

use super::config::{HttpConfig, LoadOutcome};
use super::error::HttpError;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toll_report::http_sweep::{Percentiles, StepRun, SweepReport};

/// Share of the offered rate a step must achieve to keep up.
pub const KEEP_UP: f64 = 0.99;
/// Share of requests that may fail in a step that keeps up.
pub const MOST_ERRORS: f64 = 0.01;
/// Steps in a row that do not keep up before the sweep stops.
pub const FAILS_TO_STOP: usize = 2;

/// The SLO on p99: a multiple of the first step's p99 in pass 1, or fixed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Slo {
    Times(f64),
    Fixed(Duration),
}

/// The least SLO a multiple (`--slo 5x`) gives, ms: 5× a p99 of a few
/// hundred microseconds is within a busy machine's scheduling noise (a
/// blip of a few milliseconds failed a step that nginx kept up, on two
/// vCPUs), so it fails steps the server kept up. A time given is kept.
pub const SLO_FLOOR_MS: f64 = 10.0;

/// What to sweep: the offered rates (ascending), each step's length and
/// the passes over them.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    pub rates: Vec<f64>,
    pub step: Duration,
    pub repeats: usize,
    pub slo: Slo,
}

/// `steps` rates from `from` to `to`, a constant factor apart.
pub fn geometric(from: f64, to: f64, steps: usize) -> Vec<f64> {
    if steps < 2 {
        return vec![from];
    }
    let f = (to / from).powf(1.0 / (steps - 1) as f64);
    (0..steps)
        .map(|i| {
            if i + 1 == steps {
                to
            } else {
                from * f.powi(i as i32)
            }
        })
        .collect()
}

/// One step's load from this machine.
pub fn here(
    stop: &Arc<AtomicBool>,
) -> impl FnMut(&HttpConfig) -> Result<LoadOutcome, HttpError> + '_ {
    move |step| super::load(step, stop, &mut |_, _| {})
}

/// What a sweep did: every step run, the SLO it was judged by and why it
/// stopped.
#[derive(Debug, Clone, Default)]
pub struct Swept {
    pub runs: Vec<StepRun>,
    pub slo_ms: f64,
    pub slo_rule: String,
    pub stopped: String,
    pub interrupted: bool,
    /// A step whose load broke (a load agent lost): why; the steps before
    /// it are kept and the sweep is partial.
    pub broken: Option<String>,
}

/// One step's load, as [`super::load`] runs it from this machine or
/// [`agents::loader`] through load agents.
pub type Loader<'a> = dyn FnMut(&HttpConfig) -> Result<LoadOutcome, HttpError> + 'a;

/// Whether a step kept up under `slo_ms`; None when it did, else why not.
pub fn judge(run: &StepRun, slo_ms: f64) -> Option<String> {
    let answered = run.requests + run.errors;
    if run.achieved < KEEP_UP * run.offered {
        Some(format!(
            "achieved {:.1} < 99% of {:.1}",
            run.achieved, run.offered
        ))
    } else if run.corrected.p99 > slo_ms {
        Some(format!(
            "p99 {:.3} ms > SLO {:.3} ms",
            run.corrected.p99, slo_ms
        ))
    } else if answered > 0 && run.errors as f64 > MOST_ERRORS * answered as f64 {
        Some(format!("{} errors of {answered}", run.errors))
    } else {
        None
    }
}

/// How long to let a server drain after `run` did not keep up: the
/// requests it had queued were answered within about its uncorrected
/// p99.9, and none is waited on past a step's length.
pub fn rest_after(run: &StepRun, step: Duration) -> Duration {
    if run.failed.is_none() {
        return Duration::ZERO;
    }
    Duration::from_secs_f64((run.uncorrected.p999 / 1e3).max(0.0)).min(step)
}

/// Run the sweep: pass 1 steps up from the lowest rate until
/// [`FAILS_TO_STOP`] steps in a row do not keep up (or the last step);
/// each later pass steps up again to where pass 1 stopped, or stops
/// itself as pass 1 did. `step(pass, index, rate, rest)` loads one step
/// after resting that long (a step that did not keep up left a queue in
/// the server: [`rest_after`]). Every loop is bounded: at most `repeats ×
/// rates` steps of `plan.step` each. A step that fails with
/// [`HttpError::Agents`] (a load agent lost) ends the sweep there, with
/// the steps before it kept (`broken`); before any step, it is the error.
pub fn sweep(
    plan: &SweepPlan,
    stop: &AtomicBool,
    step: &mut dyn FnMut(usize, usize, f64, Duration) -> Result<StepRun, HttpError>,
    judged: &mut dyn FnMut(&StepRun),
) -> Result<Swept, HttpError> {
    let mut out = Swept::default();
    let mut top = plan.rates.len() - 1;
    let mut rest = Duration::ZERO;
    let mut why_top = format!("every step up to {:.1} req/s ran", plan.rates[top]);
    'passes: for pass in 1..=plan.repeats {
        let mut fails = 0;
        for (i, &rate) in plan.rates.iter().enumerate().take(top + 1) {
            if stop.load(Ordering::Relaxed) {
                out.interrupted = true;
                out.stopped = "interrupted".into();
                break 'passes;
            }
            let mut run = match step(pass, i, rate, rest) {
                Ok(run) => run,
                Err(HttpError::Agents(why)) if !out.runs.is_empty() => {
                    out.broken = Some(format!(
                        "pass {pass} step {} ({rate:.1} req/s) broke: {why}",
                        i + 1
                    ));
                    break 'passes;
                }
                Err(e) => return Err(e),
            };
            if pass == 1 && i == 0 {
                if run.requests == 0 {
                    return Err(HttpError::Io(format!(
                        "the lowest step ({rate:.1} req/s) got no answer: check the server, or start the sweep lower"
                    )));
                }
                (out.slo_ms, out.slo_rule) = match plan.slo {
                    // A multiple of a sub-millisecond p99 is within a busy
                    // machine's scheduling noise: never below the floor.
                    Slo::Times(m) if m * run.corrected.p99 < SLO_FLOOR_MS => (
                        SLO_FLOOR_MS,
                        format!(
                            "{SLO_FLOOR_MS} ms, the floor: {m}× the first step's p99 in pass 1, {:.3} ms, is less",
                            run.corrected.p99
                        ),
                    ),
                    Slo::Times(m) => (
                        m * run.corrected.p99,
                        format!(
                            "{m}× the first step's p99 in pass 1, {:.3} ms",
                            run.corrected.p99
                        ),
                    ),
                    Slo::Fixed(d) => (d.as_secs_f64() * 1e3, "--slo".into()),
                };
            }
            run.failed = judge(&run, out.slo_ms);
            fails = if run.failed.is_some() { fails + 1 } else { 0 };
            rest = rest_after(&run, plan.step);
            judged(&run);
            out.runs.push(run);
            if fails >= FAILS_TO_STOP {
                if pass == 1 {
                    top = i;
                    why_top = format!(
                        "{FAILS_TO_STOP} steps in a row did not keep up in pass 1 ({:.1} and {:.1} req/s), so no pass went higher",
                        plan.rates[i - 1],
                        rate
                    );
                }
                break;
            }
        }
    }
    if let Some(why) = &out.broken {
        out.stopped = why.clone();
    } else if !out.interrupted {
        out.stopped = why_top;
    }
    Ok(out)
}

/// One step's record from its load `cfg` ([`step_config`]) at `offered`
/// requests per second.
pub fn step_run(
    pass: usize,
    step: usize,
    offered: f64,
    cfg: &HttpConfig,
    out: &LoadOutcome,
) -> StepRun {
    let s = &out.stats;
    let pct = |h: &Histogram<u64>| {
        let at = |q: f64| {
            if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64 / 1e6
            }
        };
        Percentiles {
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p999: at(0.999),
        }
    };
    let corrected = pct(&s.total);
    let uncorrected = s.uncorrected.as_ref().map(pct).unwrap_or(corrected);
    let non_2xx: u64 = s.non_2xx.values().sum();
    // The server answered from its first answer (the pipeline filling is
    // no shortfall: the shortest wait) to its last, or to the step's
    // bound; never over less than the schedule. A wait that varies by
    // more than 1% of a step blurs this: lengthen the step.
    let secs = out.elapsed.as_secs_f64();
    let waits = s.uncorrected.as_ref().unwrap_or(&s.total);
    let first = if waits.is_empty() {
        0.0
    } else {
        waits.min() as f64 / 1e9
    };
    let span = (secs - first).max(schedule(cfg).as_secs_f64()).max(1e-9);
    let good = s.complete.saturating_sub(non_2xx);
    StepRun {
        pass,
        step,
        offered,
        achieved: good as f64 / span,
        requests: good,
        errors: s.failed() + non_2xx,
        corrected,
        uncorrected,
        send_lag_p99: s
            .lag
            .as_ref()
            .filter(|h| !h.is_empty())
            .map_or(0.0, |h| h.value_at_quantile(0.99) as f64 / 1e6),
        failed: None,
    }
}

/// How much longer than its schedule a step may run while the server
/// works through what it was sent.
pub const STEP_BOUND: u32 = 2;

/// The load of one step: `cfg` at `rate`, about `length` of its schedule
/// in requests — a whole number for every connection, so each sends
/// its share and the last request's slot ends the schedule — ended at
/// [`STEP_BOUND`] times `length` (a server that fell behind leaves the
/// rest in flight, and they are not counted).
pub fn step_config(cfg: &HttpConfig, rate: f64, length: Duration) -> HttpConfig {
    let c = cfg.concurrency.max(1) as u64;
    let each = ((rate * length.as_secs_f64() / c as f64).round() as u64).max(1);
    let mut s = cfg.clone();
    s.rate = Some(rate);
    s.requests = Some(each * c);
    s.time_limit = Some(length.max(schedule(&s)) * STEP_BOUND);
    s.coalesce = Duration::ZERO;
    s
}

/// A step's schedule: its requests at its rate.
pub fn schedule(step: &HttpConfig) -> Duration {
    match (step.requests, step.rate) {
        (Some(n), Some(r)) => Duration::from_secs_f64(n as f64 / r),
        _ => Duration::ZERO,
    }
}

/// Load the sweep against `cfg`'s server (see [`sweep`]), each step by
/// `load`; `on_step` hears of each step once judged. The report with its
/// knee and break, and every step's load.
pub fn run(
    cfg: &HttpConfig,
    plan: &SweepPlan,
    stop: &Arc<AtomicBool>,
    on_step: &mut dyn FnMut(&StepRun),
    load: &mut Loader,
) -> Result<(SweepReport, Vec<StepLoad>), HttpError> {
    // The lowest step once, not measured: the first measured step sets
    // the SLO, and a cold server (or one still draining an earlier load)
    // would set it high.
    let warm = load(&step_config(cfg, plan.rates[0], plan.step))?;
    let mut loads: Vec<StepLoad> = Vec::new();
    let mut load_s = 0.0;
    let swept = sweep(
        plan,
        stop,
        &mut |pass, i, rate, rest| {
            let until = std::time::Instant::now() + rest;
            while !stop.load(Ordering::Relaxed) {
                match until.checked_duration_since(std::time::Instant::now()) {
                    Some(left) => std::thread::sleep(left.min(Duration::from_millis(50))),
                    None => break,
                }
            }
            let step = step_config(cfg, rate, plan.step);
            let out = load(&step)?;
            load_s += out.elapsed.as_secs_f64();
            let run = step_run(pass, i, rate, &step, &out);
            let rep = super::report(cfg, &out);
            loads.push(StepLoad {
                run: run.clone(),
                buckets: out
                    .stats
                    .total
                    .iter_recorded()
                    .map(|v| [v.value_iterated_to(), v.count_at_value()])
                    .collect(),
                intervals: out.intervals.clone(),
                latency_end: super::latency_end(&rep),
            });
            Ok(run)
        },
        on_step,
    )?;
    // The records as judged (the driver fills in `failed`).
    for (l, r) in loads.iter_mut().zip(&swept.runs) {
        l.run = r.clone();
    }
    let mut rep = report(cfg, plan, swept, load_s);
    rep.warmup_requests = Some(warm.stats.complete);
    Ok((rep, loads))
}

/// The sweep's report from what it ran.
pub fn report(cfg: &HttpConfig, plan: &SweepPlan, swept: Swept, load_s: f64) -> SweepReport {
    let steps = knee::figures(&plan.rates, &swept.runs);
    SweepReport {
        url: cfg.target.shown(),
        concurrency: cfg.concurrency,
        rates: plan.rates.clone(),
        step_ns: plan.step.as_nanos() as u64,
        repeats: plan.repeats,
        slo_ms: swept.slo_ms,
        slo_rule: swept.slo_rule,
        knee: knee::knee(&plan.rates, &swept.runs),
        latency_break: knee::latency_break(&steps),
        steps,
        runs: swept.runs,
        stopped: swept.stopped,
        partial: swept.interrupted || swept.broken.is_some(),
        load_s,
        warmup_requests: None,
        agents: 0,
    }
}

#[cfg(test)]
mod tests;
