//! `toll http compare`'s report: each server's figures over the measured
//! rounds, then each server's request rate as a ratio to the first server's,
//! with its CI (at the level its rounds earn, said where below 95%) and a
//! verdict.

use crate::http::ms;
use crate::table::Table;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// A median with its order-statistic confidence interval and that
/// interval's exact level (5 rounds: 93.75%; 6 or more: ≥ 95%).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's level; runs stored before it was kept read as 95%.
    #[serde(default = "level_95")]
    pub level: f64,
}

fn level_95() -> f64 {
    0.95
}

/// An interval as printed: `[lo, hi]`, its level after it where below 95%.
fn interval(e: &Estimate, f: impl Fn(f64) -> String) -> String {
    let level = if e.level < 0.95 - 1e-9 {
        format!(" {:.1}%", (e.level * 1000.0).floor() / 10.0)
    } else {
        String::new()
    };
    format!("[{}, {}]{level}", f(e.lo), f(e.hi))
}

impl Estimate {
    /// Half the CI's width as a share of the median (infinite when the
    /// median is not positive, so such an estimate is never "narrow").
    pub fn half_width(&self) -> f64 {
        if self.median > 0.0 && self.lo.is_finite() && self.hi.is_finite() {
            (self.hi - self.lo) / 2.0 / self.median
        } else {
            f64::INFINITY
        }
    }
}

/// How a server's request rate compares with the first server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The ratio's whole CI is above 1.
    Faster,
    /// The ratio's whole CI is below 1.
    Slower,
    /// The CI contains 1.
    WithinNoise,
}

impl Verdict {
    /// The verdict on a rate ratio: decided only when its CI excludes 1.
    pub fn of(ratio: &Estimate) -> Verdict {
        if ratio.lo > 1.0 {
            Verdict::Faster
        } else if ratio.hi < 1.0 {
            Verdict::Slower
        } else {
            Verdict::WithinNoise
        }
    }

    /// The word the report prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
        }
    }
}

/// A server's request rate over the first server's, paired round by round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RatioFigures {
    pub estimate: Estimate,
    /// Round pairs (one round of each server) the ratio is the median of.
    pub pairs: usize,
    /// The CI's half-width is within the target.
    pub narrow: bool,
    pub verdict: Verdict,
}

/// One server's figures over its measured rounds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerFigures {
    /// A, B, C… in the order the URLs were given.
    pub label: String,
    pub url: String,
    /// Warm-up rounds run, and whether the rate settled within them.
    pub warmup_rounds: usize,
    pub stable: bool,
    /// Measured rounds.
    pub rounds: usize,
    /// Requests per second: median over the rounds, with its CI.
    pub rate: Option<Estimate>,
    /// Median over the rounds of each round's 50th and 99th percentile, ms.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Summed over the measured rounds.
    pub complete: u64,
    pub failed: u64,
    pub non_2xx: u64,
    /// Against the first server; None for the first one, or without pairs.
    pub ratio: Option<RatioFigures>,
}

/// Why the comparison stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Every ratio's CI was within the target.
    Narrow,
    /// --max-rounds rounds of each server were measured first.
    MaxRounds,
    /// --max-time would have passed before another round.
    MaxTime,
    /// Ctrl-C.
    Interrupted,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompareReport {
    pub round_ns: u64,
    pub concurrency: u64,
    pub keep_alive: bool,
    pub threads: usize,
    /// The warm-up rule: the last `warmup_window` rates within
    /// `warmup_tolerance` of their median, within `warmup_max` rounds.
    pub warmup_window: usize,
    pub warmup_tolerance: f64,
    pub warmup_max: usize,
    /// Target half-width of each ratio's CI, as a share of the ratio.
    pub ci_target: f64,
    /// Measured rounds of every server (complete A B … cycles).
    pub rounds: usize,
    pub stop: StopReason,
    pub servers: Vec<ServerFigures>,
}

fn pct(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        "–".into()
    }
}

fn rate(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Why it stopped, in words.
pub fn stop_text(r: &CompareReport) -> String {
    let ci = pct(r.ci_target);
    match r.stop {
        StopReason::Narrow => format!("every ratio's 95% CI within ±{ci}"),
        StopReason::MaxRounds => {
            format!("--max-rounds reached before every ratio's CI was within ±{ci}")
        }
        StopReason::MaxTime => {
            format!("--max-time reached before every ratio's CI was within ±{ci}")
        }
        StopReason::Interrupted => "interrupted (Ctrl-C)".into(),
    }
}

/// The report: header, one row per server, one ratio row per server after
/// the first.
pub fn render(r: &CompareReport) -> String {
    let mut o = String::new();
    let w = &mut o;
    let names: Vec<&str> = r.servers.iter().map(|s| s.label.as_str()).collect();
    let reversed: Vec<&str> = names.iter().rev().copied().collect();
    let _ = writeln!(
        w,
        "Servers:                {} (alternating rounds: {}, then {}, …)",
        r.servers.len(),
        names.join(" "),
        reversed.join(" ")
    );
    let _ = writeln!(
        w,
        "Round length:           {:.3} seconds",
        r.round_ns as f64 / 1e9
    );
    let _ = writeln!(
        w,
        "Concurrency Level:      {}{}",
        r.concurrency,
        if r.keep_alive { " (keep-alive)" } else { "" }
    );
    let _ = writeln!(w, "Event loops (threads):  {}", r.threads);
    let warm: Vec<String> = r
        .servers
        .iter()
        .map(|s| {
            let unsettled = if s.stable { "" } else { " (not stable)" };
            format!("{} {}{unsettled}", s.label, s.warmup_rounds)
        })
        .collect();
    let _ = writeln!(w, "Warm-up rounds:         {}", warm.join(", "));
    let _ = writeln!(
        w,
        "                        (stable: the last {} rates within {} of their median; at most {})",
        r.warmup_window,
        pct(r.warmup_tolerance),
        r.warmup_max
    );
    let _ = writeln!(w, "Measured rounds:        {} of each server", r.rounds);
    let _ = writeln!(w, "Stopped:                {}", stop_text(r));
    let _ = writeln!(w);
    let mut t = Table::new(&[
        "server", "url", "req/s", "CI", "p50 ms", "p99 ms", "failed", "non-2xx",
    ]);
    for s in &r.servers {
        let (median, ci) = match &s.rate {
            Some(e) => (rate(e.median), interval(e, rate)),
            None => ("–".into(), "–".into()),
        };
        t.row(vec![
            s.label.clone(),
            s.url.clone(),
            median,
            ci,
            ms(s.p50_ms),
            ms(s.p99_ms),
            s.failed.to_string(),
            s.non_2xx.to_string(),
        ]);
    }
    w.push_str(&t.render());
    if r.servers.len() > 1 {
        let _ = writeln!(w);
        let base = r.servers.first().map_or("A", |s| s.label.as_str());
        let mut t = Table::new(&["req/s ratio", "median", "CI", "±", "pairs", "verdict"]);
        for s in r.servers.iter().skip(1) {
            let name = format!("{} / {base}", s.label);
            match &s.ratio {
                Some(x) => t.row(vec![
                    name,
                    format!("{:.4}", x.estimate.median),
                    interval(&x.estimate, |v| format!("{v:.4}")),
                    pct(x.estimate.half_width()),
                    x.pairs.to_string(),
                    x.verdict.as_str().into(),
                ]),
                None => t.row(vec![name, "–".into(), "–".into(), "–".into(), "0".into()]),
            }
        }
        w.push_str(&t.render());
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(label: &str, rate: f64, ratio: Option<(f64, f64, f64)>) -> ServerFigures {
        ServerFigures {
            label: label.into(),
            url: format!("http://127.0.0.1/{label}"),
            warmup_rounds: 3,
            stable: label == "A",
            rounds: 5,
            rate: Some(Estimate {
                median: rate,
                lo: rate * 0.99,
                hi: rate * 1.01,
                level: 0.9375,
            }),
            p50_ms: 0.25,
            p99_ms: 1.5,
            complete: 1000,
            failed: 0,
            non_2xx: 0,
            ratio: ratio.map(|(median, lo, hi)| {
                let estimate = Estimate {
                    median,
                    lo,
                    hi,
                    level: 0.9375,
                };
                RatioFigures {
                    estimate,
                    pairs: 5,
                    narrow: estimate.half_width() <= 0.02,
                    verdict: Verdict::of(&estimate),
                }
            }),
        }
    }

    #[test]
    fn verdict_needs_the_ci_to_exclude_one() {
        let e = |lo, hi| Estimate {
            median: (lo + hi) / 2.0,
            lo,
            hi,
            level: 0.95,
        };
        assert_eq!(Verdict::of(&e(1.01, 1.2)), Verdict::Faster);
        assert_eq!(Verdict::of(&e(0.5, 0.99)), Verdict::Slower);
        assert_eq!(Verdict::of(&e(0.98, 1.03)), Verdict::WithinNoise);
        assert!((e(0.98, 1.02).half_width() - 0.02).abs() < 1e-12);
        assert!(Estimate::default().half_width().is_infinite());
    }

    #[test]
    fn renders_every_server_and_each_ratio() {
        let r = CompareReport {
            round_ns: 2_000_000_000,
            concurrency: 4,
            keep_alive: true,
            threads: 2,
            warmup_window: 3,
            warmup_tolerance: 0.05,
            warmup_max: 8,
            ci_target: 0.02,
            rounds: 5,
            stop: StopReason::MaxRounds,
            servers: vec![
                server("A", 20000.0, None),
                server("B", 900.0, Some((0.045, 0.044, 0.046))),
                server("C", 20500.0, Some((1.01, 0.97, 1.05))),
            ],
        };
        let text = render(&r);
        for want in [
            "alternating rounds: A B C, then C B A, …",
            "Warm-up rounds:         A 3, B 3 (not stable), C 3 (not stable)",
            "within 5.0% of their median; at most 8",
            "--max-rounds reached",
            "http://127.0.0.1/B",
            "20000",
            "B / A",
            "[0.0440, 0.0460]",
            "slower",
            "within noise",
        ] {
            assert!(text.contains(want), "{want} missing:\n{text}");
        }
    }
}
