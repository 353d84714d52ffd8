//! `toll http compare`: which round to run next, when a server is warm, when
//! the comparison may stop, and the figures and stored run at the end.
//!
//! The method:
//! - **Warm-up**: servers take warm-up rounds in turn (A B A B …, skipping
//!   those already warm). A server is warm when its last [`Rules::window`]
//!   rates are all within [`Rules::tolerance`] of their median (JIT servers
//!   need several rounds before their rate settles), or after
//!   [`Rules::warmup_max`] rounds, when it is measured anyway and reported
//!   as not stable.
//! - **Measuring**: cycles alternate direction, A B C then C B A (ABBA), so
//!   neither the order nor slow drift of the machine favours one side; round
//!   i of every server forms a pair with round i of the first.
//! - **Ratio**: per pair, rate(X)ᵢ / rate(A)ᵢ; the report gives the median of
//!   these ratios with its exact 95% CI from order statistics
//!   (toll_measure's [`median_ci`]).
//! - **Stopping**: the CIs are looked at after [`Rules::min_rounds`] pairs
//!   and at each doubling of that (5, 10, 20 …: a handful of looks, not one
//!   a cycle, so a CI narrow by chance rarely ends the comparison — see
//!   [`is_look`]); stop at a look where every ratio's CI half-width is
//!   within [`Rules::ci_target`] of its median; or after
//!   [`Rules::max_rounds`]; or when another cycle would pass
//!   [`Rules::max_time`]. Every loop is bounded in count and in time.
//!
//! The decisions are pure functions of the rates fed in, so the tests below
//! drive them with made-up rates.

use super::{HttpConfig, HttpError};
use serde::Serialize;
use serde_json::json;
use std::time::Duration;
use toll_measure::duration_ns::ns;
use toll_measure::median_ci::median_ci;
use toll_measure::quantile::median;
use toll_measure::{Fingerprint, Sample, Summary};
use toll_report::http::HttpReport;
use toll_report::http_compare::{
    CompareReport, Estimate, RatioFigures, ServerFigures, StopReason, Verdict,
};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

/// Everything that decides how long a comparison runs.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Length of one round (one load of one server).
    pub round: Duration,
    /// Warm-up rates that must agree before a server counts as warm.
    pub window: usize,
    /// How far (a share of their median) those rates may stray.
    pub tolerance: f64,
    /// Warm-up rounds per server at most; 0 skips the warm-up.
    pub warmup_max: usize,
    /// Measured rounds of each server before the CIs may stop the run.
    pub min_rounds: usize,
    /// Measured rounds of each server at most.
    pub max_rounds: usize,
    /// Target half-width of each ratio's 95% CI, as a share of the ratio.
    pub ci_target: f64,
    /// Bound on the whole comparison, warm-up included.
    pub max_time: Duration,
}

/// Warm-up rounds are not used in the figures; measured rounds are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Warmup,
    Measure,
}

/// One round to run: a load of `server` for [`Rules::round`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    pub server: usize,
    pub phase: Phase,
}

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Run(Round),
    Stop(StopReason),
}

/// Whether the last `window` of `rates` are all within `tolerance` (a share)
/// of their median.
pub fn stable(rates: &[f64], window: usize, tolerance: f64) -> bool {
    if window == 0 || rates.len() < window {
        return false;
    }
    let last = &rates[rates.len() - window..];
    let m = median(last);
    m.is_finite() && last.iter().all(|r| (r - m).abs() <= tolerance * m.abs())
}

/// The median of the paired ratios `other[i] / base[i]` with its
/// order-statistic CI at the level their count earns.
/// Pairs whose base rate is 0 (nothing answered) are left out; None when
/// no pair is left.
pub fn paired_ratio(base: &[f64], other: &[f64]) -> Option<(Estimate, usize)> {
    let ratios: Vec<f64> = base
        .iter()
        .zip(other)
        .filter(|(b, o)| **b > 0.0 && b.is_finite() && o.is_finite())
        .map(|(b, o)| o / b)
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let (lo, hi) = median_ci(&ratios);
    let estimate = Estimate {
        median: median(&ratios),
        lo,
        hi,
        level: toll_measure::median_ci::level(ratios.len()),
    };
    Some((estimate, ratios.len()))
}

/// The state of one comparison: the rates seen so far.
#[derive(Debug, Clone)]
pub struct Comparison {
    rules: Rules,
    warmup: Vec<Vec<f64>>,
    measured: Vec<Vec<f64>>,
    last_warmup: Option<usize>,
}

impl Comparison {
    /// A comparison of `servers` servers.
    pub fn new(servers: usize, rules: Rules) -> Comparison {
        Comparison {
            rules,
            warmup: vec![Vec::new(); servers],
            measured: vec![Vec::new(); servers],
            last_warmup: None,
        }
    }

    /// How many servers it compares.
    pub fn servers(&self) -> usize {
        self.measured.len()
    }

    /// The rules it runs by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether `server`'s warm-up rates have settled.
    pub fn is_stable(&self, server: usize) -> bool {
        stable(
            &self.warmup[server],
            self.rules.window,
            self.rules.tolerance,
        )
    }

    /// Whether `server` is done warming up (settled, or out of rounds).
    pub fn is_warm(&self, server: usize) -> bool {
        self.is_stable(server) || self.warmup[server].len() >= self.rules.warmup_max
    }

    /// `server`'s warm-up rates.
    pub fn warmup_rates(&self, server: usize) -> &[f64] {
        &self.warmup[server]
    }

    /// `server`'s measured rates, in order.
    pub fn measured_rates(&self, server: usize) -> &[f64] {
        &self.measured[server]
    }

    /// Complete measured cycles (one round of every server).
    pub fn cycles(&self) -> usize {
        self.measured.iter().map(Vec::len).min().unwrap_or(0)
    }

    /// `server`'s rate over the first server's, over the complete pairs.
    pub fn ratio(&self, server: usize) -> Option<(Estimate, usize)> {
        paired_ratio(&self.measured[0], &self.measured[server])
    }

    /// Every ratio's CI is within the target.
    pub fn all_narrow(&self) -> bool {
        (1..self.measured.len()).all(|s| {
            self.ratio(s)
                .is_some_and(|(e, _)| e.half_width() <= self.rules.ci_target)
        })
    }

    /// The next round, or why to stop, `elapsed` into the comparison.
    pub fn next(&self, elapsed: Duration) -> Next {
        let n = self.measured.len();
        let r = &self.rules;
        let start = self.last_warmup.map_or(0, |l| l + 1);
        if let Some(server) = (0..n).map(|i| (start + i) % n).find(|&s| !self.is_warm(s)) {
            if elapsed + r.round > r.max_time {
                return Next::Stop(StopReason::MaxTime);
            }
            return Next::Run(Round {
                server,
                phase: Phase::Warmup,
            });
        }
        let done = self.cycles();
        // Cycles alternate direction, A B C then C B A (ABBA), so an order
        // effect (the second server always running on a cache the first
        // warmed, say) cancels across pairs instead of biasing every one.
        let order: Vec<usize> = if done.is_multiple_of(2) {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        let server = order
            .iter()
            .copied()
            .find(|&s| self.measured[s].len() == done)
            .unwrap_or(order[0]);
        let cycle_start = self.measured.iter().all(|m| m.len() == done);
        if cycle_start {
            if is_look(done, r.min_rounds) && self.all_narrow() {
                return Next::Stop(StopReason::Narrow);
            }
            if done >= r.max_rounds {
                return Next::Stop(StopReason::MaxRounds);
            }
            // A cycle is started only when all of it fits, so every pair is whole.
            if elapsed + r.round * n as u32 > r.max_time {
                return Next::Stop(StopReason::MaxTime);
            }
        }
        Next::Run(Round {
            server,
            phase: Phase::Measure,
        })
    }

    /// The rate `round` measured.
    pub fn record(&mut self, round: Round, rate: f64) {
        match round.phase {
            Phase::Warmup => {
                self.warmup[round.server].push(rate);
                self.last_warmup = Some(round.server);
            }
            Phase::Measure => self.measured[round.server].push(rate),
        }
    }
}

/// Whether the stopping rule looks at the CIs after `done` cycles: at
/// `min_rounds`, then at every doubling of it (5, 10, 20, …). Looking after
/// every cycle and stopping at the first narrow CI would make a CI that is
/// narrow by chance end the comparison too often (optional stopping); a
/// look at each doubling keeps the looks to a handful.
pub fn is_look(done: usize, min_rounds: usize) -> bool {
    let min = min_rounds.max(1);
    done >= min && done.is_multiple_of(min) && (done / min).is_power_of_two()
}

/// One round as it ran.
#[derive(Debug, Clone, Serialize)]
pub struct RoundRecord {
    /// Position in the whole comparison (warm-up included), from 0.
    pub seq: usize,
    pub server: usize,
    pub phase: Phase,
    /// Seconds from the comparison's start to the round's.
    pub start_ns: u64,
    pub rate: f64,
    pub sample: Sample,
    pub report: HttpReport,
}

/// A, B, … Z, then #27, #28 …
pub fn label(server: usize) -> String {
    match u8::try_from(server) {
        Ok(i) if i < 26 => char::from(b'A' + i).to_string(),
        _ => format!("#{}", server + 1),
    }
}

fn percentile(r: &HttpReport, p: f64) -> f64 {
    r.percentiles
        .iter()
        .find(|x| x.0 == p)
        .map_or(f64::NAN, |x| x.1)
}

/// The report's figures from the comparison and its rounds.
pub fn figures(
    cmp: &Comparison,
    records: &[RoundRecord],
    cfgs: &[HttpConfig],
    stop: StopReason,
) -> CompareReport {
    let r = cmp.rules();
    let servers = cfgs
        .iter()
        .enumerate()
        .map(|(s, cfg)| {
            let rounds: Vec<&HttpReport> = records
                .iter()
                .filter(|x| x.server == s && x.phase == Phase::Measure)
                .map(|x| &x.report)
                .collect();
            let rates = cmp.measured_rates(s);
            let rate = (!rates.is_empty()).then(|| {
                let sum = Summary::of(rates);
                Estimate {
                    median: sum.median,
                    lo: sum.ci_low,
                    hi: sum.ci_high,
                    level: sum.ci_level.unwrap_or(0.95),
                }
            });
            let mid = |p: f64| {
                let v: Vec<f64> = rounds
                    .iter()
                    .map(|x| percentile(x, p))
                    .filter(|v| v.is_finite())
                    .collect();
                if v.is_empty() {
                    0.0
                } else {
                    median(&v)
                }
            };
            let ratio = (s > 0)
                .then(|| cmp.ratio(s))
                .flatten()
                .map(|(estimate, pairs)| RatioFigures {
                    estimate,
                    pairs,
                    narrow: estimate.half_width() <= r.ci_target,
                    verdict: Verdict::of(&estimate),
                });
            ServerFigures {
                label: label(s),
                url: cfg.target.shown(),
                warmup_rounds: cmp.warmup_rates(s).len(),
                stable: cmp.is_stable(s),
                rounds: rates.len(),
                rate,
                p50_ms: mid(50.0),
                p99_ms: mid(99.0),
                complete: rounds.iter().map(|x| x.complete_requests).sum(),
                failed: rounds.iter().map(|x| x.failed_requests).sum(),
                non_2xx: rounds
                    .iter()
                    .flat_map(|x| x.non_2xx.iter().map(|c| c.1))
                    .sum(),
                ratio,
            }
        })
        .collect();
    let first = &cfgs[0];
    CompareReport {
        round_ns: r.round.as_nanos() as u64,
        concurrency: first.concurrency as u64,
        keep_alive: first.spec.keep_alive,
        threads: first.threads.clamp(1, first.concurrency.max(1)),
        warmup_window: r.window,
        warmup_tolerance: r.tolerance,
        warmup_max: r.warmup_max,
        ci_target: r.ci_target,
        rounds: cmp.cycles(),
        stop,
        servers,
    }
}

/// Start the stored run (family `http-compare`): its config, and one series
/// per URL; returns the run and the series' ids. Done before the first round
/// so a process killed mid-way still leaves a run behind.
pub fn begin_run(
    store: &Store,
    cfgs: &[HttpConfig],
    rules: &Rules,
    agents: &[String],
) -> Result<(i64, Vec<i64>), HttpError> {
    let first = &cfgs[0];
    let mut config = json!({
            "urls": cfgs.iter().map(|c| c.target.url.clone()).collect::<Vec<_>>(),
            "unix_sockets": cfgs.iter().map(|c| c.target.unix.as_ref().map(|p| p.display().to_string())).collect::<Vec<_>>(),
            "method": first.spec.method(), "concurrency": first.concurrency,
            "keep_alive": first.spec.keep_alive, "threads": first.threads,
            "timeout_ns": ns(first.timeout), "http2": first.http2,
            "round_ns": ns(rules.round), "warmup_window": rules.window,
            "warmup_tolerance": rules.tolerance, "warmup_max": rules.warmup_max,
            "min_rounds": rules.min_rounds, "max_rounds": rules.max_rounds,
            "ci_target": rules.ci_target, "max_time_ns": ns(rules.max_time),
    });
    if !agents.is_empty() {
        config["agents"] = json!(agents);
    }
    let run_id = store.begin_run(&NewRun {
        family: "http-compare".into(),
        config,
        env: Fingerprint::capture(vec![]),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let mut series = Vec::new();
    for (s, cfg) in cfgs.iter().enumerate() {
        let name = format!("{} {} {}", label(s), cfg.spec.method(), cfg.target.shown());
        series.push(store.add_series(
            run_id,
            &name,
            &json!({"server": label(s), "url": cfg.target.url, "concurrency": cfg.concurrency,
                    "keep_alive": cfg.spec.keep_alive, "per": "request"}),
        )?);
    }
    Ok((run_id, series))
}

/// The run's status: partial when interrupted, failed when a server
/// completed no measured request.
pub fn status(report: &CompareReport) -> RunStatus {
    if report.stop == StopReason::Interrupted {
        RunStatus::Partial
    } else if report.servers.iter().any(|s| s.complete == 0) {
        RunStatus::Failed
    } else {
        RunStatus::Complete
    }
}

/// The one-line summary `toll runs` lists.
pub fn summary_line(report: &CompareReport) -> String {
    let mut parts = Vec::new();
    for s in &report.servers {
        match (&s.ratio, &s.rate) {
            (Some(x), _) => parts.push(format!(
                "{} {:.3}× [{:.3}, {:.3}] {}",
                s.label,
                x.estimate.median,
                x.estimate.lo,
                x.estimate.hi,
                x.verdict.as_str()
            )),
            (None, Some(rate)) => {
                parts.push(format!("{} {:.0} req/s", s.label, rate.median));
            }
            (None, None) => parts.push(format!("{} –", s.label)),
        }
    }
    format!("{}; {} rounds each", parts.join(", "), report.rounds)
}

/// Store every round and the figures, and finish the run. Each series gets
/// one point: its measured rounds as samples (requests, ns), and in `extra`
/// each round's report, the warm-up rates, its figures with the ratio, and
/// (on the first series) the whole comparison.
pub fn finish_run(
    store: &Store,
    run_id: i64,
    series: &[i64],
    records: &[RoundRecord],
    report: &CompareReport,
) -> Result<RunStatus, HttpError> {
    for (s, (&series_id, fig)) in series.iter().zip(&report.servers).enumerate() {
        let mine = || records.iter().filter(move |x| x.server == s);
        let measured: Vec<&RoundRecord> = mine().filter(|x| x.phase == Phase::Measure).collect();
        let warmup: Vec<_> = mine()
            .filter(|x| x.phase == Phase::Warmup)
            .map(|x| json!({"seq": x.seq, "start_ns": x.start_ns, "rate": x.rate}))
            .collect();
        let rounds: Vec<_> = measured
            .iter()
            .map(
                |x| json!({"seq": x.seq, "start_ns": x.start_ns, "rate": x.rate, "report": x.report}),
            )
            .collect();
        let per_request: Vec<f64> = measured
            .iter()
            .filter(|x| x.sample.iters > 0)
            .map(|x| x.sample.per_op_ns())
            .collect();
        let ok = fig.complete > 0;
        let mut extra = json!({
            "server": fig.label, "figures": fig, "ratio": fig.ratio,
            "warmup": warmup, "rounds": rounds,
        });
        if s == 0 {
            extra["comparison"] = json!(report);
        }
        store.add_point(
            series_id,
            &Point {
                n: fig.complete,
                status: if ok {
                    PointStatus::Ok
                } else {
                    PointStatus::Failed
                },
                error: (!ok).then(|| "no request completed in a measured round".to_string()),
                summary: (!per_request.is_empty()).then(|| Summary::of(&per_request)),
                samples: measured.iter().map(|x| x.sample).collect(),
                extra: Some(extra),
            },
        )?;
    }
    let status = status(report);
    let error = match status {
        RunStatus::Partial => Some("interrupted by the user"),
        RunStatus::Failed => Some("a server completed no measured request"),
        _ => None,
    };
    store.finish_run(run_id, status, &summary_line(report), error)?;
    Ok(status)
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
