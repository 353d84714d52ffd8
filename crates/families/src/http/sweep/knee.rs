//! The knee of a sweep and the break in its latency, from its steps.
//!
//! Each pass brackets its knee between the highest step it kept up and
//! the step after it, which it did not: the capacity it met lies between
//! them. Over k passes the interval runs from the low order
//! statistic of the lower ends to the high one of the upper ends, at the
//! ranks that give the median of k values its exact interval
//! ([`toll_measure::median_ci`]: min–max of 3 covers it 75% of the time);
//! since every pass's knee lies inside its own bracket, the widened
//! interval covers at least that often. The knee's figure is the median of
//! the lower ends: the highest offered rate the passes kept up.
//!
//! Apart from that rule, the two-segment fit of the engine
//! ([`toll_measure::fit::two_segments`]) runs over ln p99 (the median over
//! passes at each step) against offered rate, and says between which two
//! steps latency leaves its floor: where the hockey stick bends, found by
//! least squares rather than by eye.

use toll_measure::bootstrap::LEVEL;
use toll_measure::fit::two_segments;
use toll_measure::median_ci::{level, rank};
use toll_measure::quantile::median;
use toll_report::http_sweep::{Knee, LatencyBreak, Spread, StepFigures, StepRun};

/// Each step's figures over the passes that ran it, in `rates`' order
/// (steps no pass ran are left out).
pub fn figures(rates: &[f64], runs: &[StepRun]) -> Vec<StepFigures> {
    let mut out = Vec::new();
    for (i, &offered) in rates.iter().enumerate() {
        let mine: Vec<&StepRun> = runs.iter().filter(|r| r.step == i).collect();
        if mine.is_empty() {
            continue;
        }
        let spread = |f: &dyn Fn(&StepRun) -> f64| {
            let v: Vec<f64> = mine.iter().map(|r| f(r)).collect();
            Spread {
                median: median(&v),
                lo: v.iter().copied().fold(f64::INFINITY, f64::min),
                hi: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            }
        };
        out.push(StepFigures {
            offered,
            runs: mine.len(),
            kept_up: mine.iter().filter(|r| r.failed.is_none()).count(),
            achieved: spread(&|r| r.achieved),
            p50: spread(&|r| r.corrected.p50),
            p90: spread(&|r| r.corrected.p90),
            p99: spread(&|r| r.corrected.p99),
            p999: spread(&|r| r.corrected.p999),
            p99_uncorrected: spread(&|r| r.uncorrected.p99),
            errors: mine.iter().map(|r| r.errors).sum(),
        });
    }
    out
}

/// One pass's bracket: the highest step it kept up (None: none) and the
/// step after it, which it did not (None: it was the last that ran). A
/// step that failed below one kept up — a blip of a busy machine — does
/// not lower the knee: the knee is the highest rate kept up.
pub fn bracket(rates: &[f64], pass: &[&StepRun]) -> (Option<f64>, Option<f64>) {
    match pass.iter().rposition(|r| r.failed.is_none()) {
        Some(k) => (
            Some(rates[pass[k].step]),
            pass.get(k + 1).map(|r| rates[r.step]),
        ),
        None => (None, pass.first().map(|r| rates[r.step])),
    }
}

/// The knee over the passes (see the module); None without a step.
pub fn knee(rates: &[f64], runs: &[StepRun]) -> Option<Knee> {
    let passes = runs.iter().map(|r| r.pass).max()?;
    let mut lows = Vec::new();
    let mut highs = Vec::new();
    for p in 1..=passes {
        let mut mine: Vec<&StepRun> = runs.iter().filter(|r| r.pass == p).collect();
        if mine.is_empty() {
            continue;
        }
        mine.sort_by_key(|r| r.step);
        let (lo, hi) = bracket(rates, &mine);
        // Below the first step is 0, above the last infinite: the order
        // statistics rank them, and the ends they land on say so.
        lows.push(lo.unwrap_or(0.0));
        highs.push(hi.unwrap_or(f64::INFINITY));
    }
    let n = lows.len();
    lows.sort_by(f64::total_cmp);
    highs.sort_by(f64::total_cmp);
    let k = rank(n, LEVEL);
    let (lo, hi) = (lows[k - 1], highs[n - k]);
    let mid = median(&lows);
    Some(Knee {
        rate: (mid > 0.0).then_some(mid),
        lo: (lo > 0.0).then_some(lo),
        hi: hi.is_finite().then_some(hi),
        level: level(n),
        passes: n,
    })
}

/// The two-segment fit of ln p99 (each step's median over passes) against
/// offered rate; None under four steps or without a rising segment.
pub fn latency_break(steps: &[StepFigures]) -> Option<LatencyBreak> {
    let pts: Vec<(f64, f64)> = steps
        .iter()
        .filter(|s| s.p99.median > 0.0)
        .map(|s| (s.offered, s.p99.median.ln()))
        .collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
    let p = two_segments(&xs, &ys, &vec![1.0; xs.len()])?;
    (p.beta > p.beta_small.max(0.0)).then_some(LatencyBreak {
        split: p.split,
        rate: p.break_n,
    })
}
