//! `toll compare A B` of two sweeps (`toll http --sweep`): the knee of B
//! over the knee of A, with the interval of that ratio from the two
//! capacities' own intervals.
//!
//! Each sweep's capacity lies in its interval at its level or more; the
//! ratio of the two lies between B's low end over A's high end and B's
//! high end over A's low end whenever both do, which by Bonferroni's
//! inequality happens with probability at least 1 − (1 − level A) −
//! (1 − level B): two 75% intervals give a ratio's interval of 50% or more,
//! and the report says so. More passes (`--repeats`) raise it: 5 passes'
//! min–max is 93.75%, two of them 87.5%.

use crate::http_sweep::{Knee, SweepReport};
use crate::table::sig3;
use serde::Serialize;

/// The two knees and their ratio.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KneeComparison {
    pub a: Knee,
    pub b: Knee,
    /// B's knee over A's (the highest rates kept up); None where either
    /// sweep kept up no step.
    pub ratio: Option<f64>,
    /// The ratio's interval; an end is None where a capacity's interval is
    /// open (below the first step or above the last).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The interval's level, at least.
    pub level: f64,
    /// higher, lower, or within: whether the interval excludes 1.
    pub verdict: String,
}

/// The comparison of sweep `b` against sweep `a`; None where either has
/// no knee (no step measured).
pub fn compare(a: &SweepReport, b: &SweepReport) -> Option<KneeComparison> {
    let (ka, kb) = (a.knee.clone()?, b.knee.clone()?);
    let div = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) if y > 0.0 => Some(x / y),
        _ => None,
    };
    let ratio = div(kb.rate, ka.rate);
    // B's low end over A's high end: with A open above, the ratio could be
    // as low as 0; with B open below, too.
    let lo = div(kb.lo, ka.hi);
    let hi = div(kb.hi, ka.lo);
    let verdict = if lo.is_some_and(|l| l > 1.0) {
        "higher"
    } else if hi.is_some_and(|h| h < 1.0) {
        "lower"
    } else {
        "within the intervals"
    };
    Some(KneeComparison {
        level: (1.0 - (1.0 - ka.level) - (1.0 - kb.level)).max(0.0),
        a: ka,
        b: kb,
        ratio,
        lo,
        hi,
        verdict: verdict.into(),
    })
}

/// The comparison in a few lines, each knee as its sweep printed it.
pub fn render(c: &KneeComparison, a: &SweepReport, b: &SweepReport) -> String {
    let end =
        |v: Option<f64>, open: &str| v.map_or_else(|| open.to_string(), |v| format!("{v:.3}"));
    let ratio = c.ratio.map_or("–".to_string(), |r| format!("{r:.3}×"));
    format!(
        "A: {}\n   {}\nB: {}\n   {}\nknee B / A: {ratio} [{}, {}] (≥{:.0}% interval, from the two capacities' intervals): {}\n",
        a.url,
        crate::http_sweep::knee_line(a),
        b.url,
        crate::http_sweep::knee_line(b),
        end(c.lo, "0"),
        end(c.hi, "∞"),
        (c.level * 100.0 + 1e-9).floor(),
        c.verdict
    ) + &format!(
        "(the intervals are as fine as the steps: {} and {} steps from {} and {} req/s)\n",
        a.rates.len(),
        b.rates.len(),
        a.rates.first().map_or("–".into(), |v| sig3(*v)),
        b.rates.first().map_or("–".into(), |v| sig3(*v)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(rate: f64, lo: f64, hi: f64) -> SweepReport {
        SweepReport {
            url: "http://h/".into(),
            rates: vec![100.0, 200.0],
            knee: Some(Knee {
                rate: Some(rate),
                lo: Some(lo),
                hi: Some(hi),
                level: 0.75,
                passes: 3,
            }),
            ..SweepReport::default()
        }
    }

    #[test]
    fn the_ratio_spans_the_two_intervals_at_the_bonferroni_level() {
        let (a, b) = (sweep(100.0, 100.0, 150.0), sweep(300.0, 300.0, 450.0));
        let c = compare(&a, &b).unwrap();
        assert_eq!(c.ratio, Some(3.0));
        assert_eq!((c.lo, c.hi), (Some(2.0), Some(4.5)));
        assert!((c.level - 0.5).abs() < 1e-12);
        assert_eq!(c.verdict, "higher");
        let same = compare(&a, &a).unwrap();
        assert_eq!(same.verdict, "within the intervals");
        let text = render(&c, &a, &b);
        assert!(
            text.contains("knee B / A: 3.000× [2.000, 4.500] (≥50% interval"),
            "{text}"
        );
        let lower = compare(&b, &a).unwrap();
        assert_eq!(lower.verdict, "lower");
    }
}
