//! A `toll http --sweep FROM..TO` run: each step's offered and achieved
//! rate and latencies (the median over the passes that ran it, with its
//! range), the rule a step passed by, the knee with its interval, and the
//! latency break the two-segment fit found.

use crate::table::{sig3, Table};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Latency percentiles of one step, in ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
}

/// One step of one pass, as it was loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRun {
    /// The pass (from 1) and the step (from 0, in offered rate's order).
    pub pass: usize,
    pub step: usize,
    /// Requests per second asked for, and answered (see `achieved`).
    pub offered: f64,
    /// Answers per second, from the first answer (less the shortest wait:
    /// the pipeline filling) to the last or the step's bound, over no less
    /// than its schedule.
    pub achieved: f64,
    /// Answers (ab's Complete requests).
    pub requests: u64,
    /// Failed requests and non-2xx answers.
    pub errors: u64,
    /// Timed from each request's slot (coordinated omission corrected).
    pub corrected: Percentiles,
    /// Timed from each request's actual send.
    pub uncorrected: Percentiles,
    /// toll's own send lag, p99 in ms.
    pub send_lag_p99: f64,
    /// Kept up: achieved ≥ 99% of offered, p99 within the SLO, errors
    /// under 1%; else why not.
    pub failed: Option<String>,
}

/// A median over the passes and the range of its values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

/// One step over the passes that ran it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepFigures {
    pub offered: f64,
    pub runs: usize,
    pub kept_up: usize,
    pub achieved: Spread,
    pub p50: Spread,
    pub p90: Spread,
    pub p99: Spread,
    pub p999: Spread,
    pub p99_uncorrected: Spread,
    pub errors: u64,
}

/// The knee: the highest offered rate kept up, and where the capacity lies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// The median over passes of the highest step kept up before the first
    /// that was not; None: the first step already failed.
    pub rate: Option<f64>,
    /// The interval of the capacity: from the low order statistic of each
    /// pass's last step kept up (None: below the first step) to the high
    /// one of its first step not kept up (None: above the last step).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The interval's level (at least; 0 for one pass, which has none).
    pub level: f64,
    pub passes: usize,
}

/// Where the two-segment fit of ln p99 on offered rate breaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyBreak {
    /// The last step of the flat segment and the first of the rising one.
    pub split: (f64, f64),
    /// Where the two lines cross, kept between them.
    pub rate: f64,
}

/// A whole sweep as stored and printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepReport {
    pub url: String,
    pub concurrency: usize,
    /// The planned steps, requests per second.
    pub rates: Vec<f64>,
    pub step_ns: u64,
    pub repeats: usize,
    /// A step keeps up only while its p99 is at most this (ms), and why.
    pub slo_ms: f64,
    pub slo_rule: String,
    pub runs: Vec<StepRun>,
    pub steps: Vec<StepFigures>,
    pub knee: Option<Knee>,
    pub latency_break: Option<LatencyBreak>,
    /// Why the sweep stopped where it did.
    pub stopped: String,
    pub partial: bool,
    /// Load time of every step together, seconds.
    pub load_s: f64,
    /// Answers to the warm-up, the lowest step once before pass 1, not
    /// measured.
    pub warmup_requests: Option<u64>,
    /// Load agents each step was sent from (0: this machine), each its
    /// share of the step's rate.
    #[serde(default)]
    pub agents: usize,
}

fn range(s: &Spread, runs: usize) -> String {
    if runs < 2 {
        sig3(s.median)
    } else {
        format!("{} ({}–{})", sig3(s.median), sig3(s.lo), sig3(s.hi))
    }
}

/// The knee in words, one line.
pub fn knee_line(r: &SweepReport) -> String {
    let Some(k) = &r.knee else {
        return "Knee: none (no step was measured)".into();
    };
    let first = r.rates.first().copied().unwrap_or_default();
    // The highest step run (a sweep stopped early ran none above it).
    let last = r
        .runs
        .iter()
        .map(|s| s.offered)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        .or(r.rates.last().copied())
        .unwrap_or_default();
    let rate = match k.rate {
        Some(v) => format!("{} req/s offered kept up", sig3(v)),
        None => format!("below the first step ({} req/s)", sig3(first)),
    };
    let interval = match (k.lo, k.hi) {
        (Some(lo), Some(hi)) => format!("capacity between {} and {} req/s", sig3(lo), sig3(hi)),
        (None, Some(hi)) => format!("capacity below {} req/s", sig3(hi)),
        (Some(lo), None) => format!(
            "capacity above {} req/s (no step up to {} failed)",
            sig3(lo),
            sig3(last)
        ),
        (None, None) => "capacity unknown".to_string(),
    };
    let level = if k.passes < 2 {
        "one pass: no level".to_string()
    } else {
        format!(
            "≥{:.0}% interval over {} passes, order statistics",
            (k.level * 100.0 + 1e-9).floor(),
            k.passes
        )
    };
    format!("Knee: {rate}; {interval} ({level})")
}

/// The report's parts as printed: the lines above the steps' table, its
/// header and rows, and the lines below it (the SLO, the knee, the break,
/// why it stopped). The terminal and the page render the same parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub above: Vec<String>,
    pub header: [&'static str; 9],
    pub rows: Vec<Vec<String>>,
    pub below: Vec<String>,
}

/// The report's [`Parts`].
pub fn parts(r: &SweepReport) -> Parts {
    let mut above = vec![format!(
        "Sweep: {} steps from {} to {} req/s, {:.3} s each, {} pass(es) low to high, -c {}{}",
        r.rates.len(),
        r.rates.first().map_or("–".into(), |v| sig3(*v)),
        r.rates.last().map_or("–".into(), |v| sig3(*v)),
        r.step_ns as f64 / 1e9,
        r.repeats,
        r.concurrency,
        match r.agents {
            0 => String::new(),
            k => format!(
                " from {k} load agent(s), each step's rate shared over them and their histograms merged exactly"
            ),
        }
    )];
    if let Some(n) = r.warmup_requests {
        above.push(format!(
            "Warm-up: the first step once before pass 1, {n} requests answered, not measured."
        ));
    }
    above.push(
        "Latencies in ms, corrected for coordinated omission; median (range) over the passes."
            .into(),
    );
    let rows = r
        .steps
        .iter()
        .map(|s| {
            vec![
                sig3(s.offered),
                range(&s.achieved, s.runs),
                range(&s.p50, s.runs),
                sig3(s.p90.median),
                range(&s.p99, s.runs),
                sig3(s.p999.median),
                sig3(s.p99_uncorrected.median),
                s.errors.to_string(),
                format!("{}/{}", s.kept_up, s.runs),
            ]
        })
        .collect();
    let latency_break = match &r.latency_break {
        Some(b) => format!(
            "Latency leaves its floor between {} and {} req/s (two-segment fit of ln p99 on offered rate, lines crossing at {}).",
            sig3(b.split.0),
            sig3(b.split.1),
            sig3(b.rate)
        ),
        None => "Latency break: not fitted (the two-segment fit needs 4 steps or more).".into(),
    };
    Parts {
        above,
        header: [
            "offered/s",
            "achieved/s",
            "p50",
            "p90",
            "p99",
            "p99.9",
            "p99 uncorr.",
            "errors",
            "kept up",
        ],
        rows,
        below: vec![
            format!(
                "A step keeps up when achieved ≥ 99% of offered, errors < 1% and p99 ≤ {} ms ({}).",
                sig3(r.slo_ms),
                r.slo_rule
            ),
            knee_line(r),
            latency_break,
            format!("Stopped: {}; load {:.1} s.", r.stopped, r.load_s),
        ],
    }
}

/// The report: settings, the steps' table, the SLO, the knee and the break.
pub fn render(r: &SweepReport) -> String {
    let p = parts(r);
    let mut o = String::new();
    for line in &p.above {
        let _ = writeln!(o, "{line}");
    }
    let mut t = Table::new(&p.header);
    for row in p.rows {
        t.row(row);
    }
    let _ = writeln!(o, "\n{}", t.render());
    for line in &p.below {
        let _ = writeln!(o, "{line}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(v: f64) -> Spread {
        Spread {
            median: v,
            lo: v * 0.9,
            hi: v * 1.1,
        }
    }

    #[test]
    fn the_report_names_the_knee_its_interval_and_its_level() {
        let steps: Vec<StepFigures> = [100.0, 158.0, 251.0, 398.0]
            .iter()
            .map(|&o| StepFigures {
                offered: o,
                runs: 3,
                kept_up: if o < 200.0 { 3 } else { 0 },
                achieved: spread(o.min(200.0)),
                p99: spread(if o < 200.0 { 40.0 } else { 300.0 }),
                ..StepFigures::default()
            })
            .collect();
        let r = SweepReport {
            url: "http://h/".into(),
            concurrency: 32,
            rates: vec![100.0, 158.0, 251.0, 398.0],
            step_ns: 1_000_000_000,
            repeats: 3,
            slo_ms: 200.0,
            slo_rule: "5× the first step's p99 in pass 1, 40.0 ms".into(),
            steps,
            knee: Some(Knee {
                rate: Some(158.0),
                lo: Some(158.0),
                hi: Some(251.0),
                level: 0.75,
                passes: 3,
            }),
            latency_break: Some(LatencyBreak {
                split: (158.0, 251.0),
                rate: 170.0,
            }),
            stopped: "two steps in a row not kept up".into(),
            ..SweepReport::default()
        };
        let text = render(&r);
        assert!(
            text.contains("Knee: 158 req/s offered kept up; capacity between 158 and 251 req/s (≥75% interval over 3 passes"),
            "{text}"
        );
        assert!(text.contains("p99 ≤ 200 ms (5×"), "{text}");
        assert!(
            text.contains("between 158 and 251 req/s (two-segment"),
            "{text}"
        );
        let none = Knee {
            rate: None,
            lo: None,
            hi: Some(100.0),
            level: 0.0,
            passes: 1,
        };
        let line = knee_line(&SweepReport {
            knee: Some(none),
            ..r
        });
        assert!(
            line.contains("below the first step (100 req/s); capacity below 100 req/s"),
            "{line}"
        );
        assert!(line.contains("one pass: no level"), "{line}");
    }
}
