//! Memory per unit for `toll spawn`: the figure a point gets from its trials'
//! memory growths, or why it gets none, and the legend of the KB/unit column.
//!
//! Allocators keep what earlier units freed and hand it to the next ones, so
//! a resident set can stop growing after the first trial: goroutines once
//! showed 0.00 KB each. The workers count what their runtime has in use where
//! it can tell (spec/wire.md, `mem_how`); this module refuses a figure when
//! the trials show that something else moved it.

use super::config::UnitSeries;
use std::collections::BTreeMap;

/// Trials whose memory growths are further apart than this factor give no
/// memory figure (see [`per_unit`]).
pub const SPREAD: f64 = 2.0;

/// Memory per unit, kB: the median of the trials' memory figures (`mem_kb`)
/// over N, or why there is none. A trial that did not grow, or trials more
/// than [`SPREAD`]× apart, show reuse of what earlier trials freed (or a JIT
/// still shrinking the frames a parked unit keeps) more than the units' cost.
pub fn per_unit(mem_kb: &[f64], n: u64) -> Result<f64, String> {
    let per = |kb: f64| kb / n as f64;
    let lo = mem_kb.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = mem_kb.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo <= 0.0 {
        return Err(format!(
            "a trial's memory grew by {lo} kB (memory that earlier trials freed, reused)"
        ));
    }
    if hi > SPREAD * lo {
        return Err(format!(
            "the trials' memory grew by {:.2} to {:.2} KB per unit, more than {SPREAD}× apart \
             (memory that earlier trials freed, reused, or a runtime still warming up)",
            per(lo),
            per(hi)
        ));
    }
    Ok(per(toll_measure::quantile::median(mem_kb)))
}

/// What a `mem_how` of spec/wire.md measures.
fn method(how: &str) -> &str {
    match how {
        "rss" => "growth of the worker's resident set",
        "system" => "growth of the machine's used memory",
        "go-heap" => "growth of Go's heap objects and goroutine stacks (runtime/metrics)",
        "jvm-heap" => "growth of the Java heap in use after a full collection",
        "v8-heap" => "growth of V8's heap in use after a full collection",
        "erlang-process-info" => "the units' own memory as Erlang counts it (process_info)",
        "squeak-heap" => "growth of Squeak's object memory in use after a full collection",
        other => other,
    }
}

/// The legend of a spawn's KB/unit column: each way memory was measured,
/// with the series measured so, and what a missing figure means.
pub fn legend(series: &[UnitSeries]) -> String {
    let mut by_method: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut unmeasured = false;
    for s in series {
        let figures = s.points.iter().filter_map(|p| p.result.as_ref().ok());
        for f in figures.clone() {
            unmeasured |= f.mem_note.is_some();
        }
        if let Some(how) = figures.filter_map(|f| f.mem_how.as_deref()).next() {
            by_method.entry(how).or_default().push(s.target.label());
        }
    }
    if by_method.is_empty() {
        return String::new();
    }
    let mut out = String::from("KB/unit: memory per unit, the median of the trials:\n");
    for (how, labels) in by_method {
        out.push_str(&format!(
            "  {how}: {} — {}\n",
            method(how),
            labels.join(", ")
        ));
    }
    if unmeasured {
        out.push_str(&format!(
            "  –: not measured: a trial did not grow, or the trials were more than {SPREAD}× apart (the warnings say which)\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_per_unit_is_given_only_when_every_trial_grew_alike() {
        assert_eq!(per_unit(&[8140.0, 8040.0, 7952.0], 1000), Ok(8.04));
        assert_eq!(per_unit(&[2500.0], 1000), Ok(2.5));
        // Go's goroutines by their resident set, before the fix: 0.02 KB each.
        let reused = per_unit(&[238_928.0, 1884.0, 932.0], 100_000).unwrap_err();
        assert!(
            reused.contains("0.01 to 2.39 KB per unit, more than 2× apart"),
            "{reused}"
        );
        let none = per_unit(&[204.0, 36.0, -88.0], 1000).unwrap_err();
        assert!(none.contains("grew by -88 kB"), "{none}");
        assert!(per_unit(&[0.0, 0.0], 1000).is_err());
    }
}
