//! Earlier runs of a series on this machine: what the between-run term of
//! its intervals learns from (see `toll_measure::run_to_run`).

use serde_json::Value;
use toll_measure::run_to_run::{self, Estimate};
use toll_measure::SeriesFit;
use toll_store::{EarlierFit, Store};

/// Earlier runs looked at, newest first: enough to estimate a variance,
/// recent enough to be this machine as it is now.
pub const EARLIER_RUNS: usize = 20;

/// Which earlier runs of a series measured the same thing.
pub struct Comparable<'a> {
    /// The family, as stored.
    pub family: &'a str,
    /// The series' label.
    pub label: &'a str,
    /// This run: only runs before it count.
    pub run_id: i64,
    /// The machine's CPU model, from the fingerprint.
    pub cpu_model: &'a str,
    /// Config keys that must be equal (sizes, …).
    pub config: &'a [(&'a str, Value)],
    /// Series attributes that must be equal (placement, …).
    pub attrs: &'a [(&'a str, Value)],
}

impl Comparable<'_> {
    fn admits(&self, e: &EarlierFit) -> bool {
        self.config.iter().all(|(k, v)| e.config.get(*k) == Some(v))
            && self.attrs.iter().all(|(k, v)| e.attrs.get(*k) == Some(v))
    }
}

/// Widen `fit`'s intervals by the series' run-to-run variation: learnt from
/// the comparable earlier runs in `store`, or the floor when there are none
/// (or the store cannot say: history is advice, never a reason to fail).
pub fn widen(store: &Store, which: &Comparable, fit: &mut SeriesFit) {
    let earlier: Vec<Estimate> = store
        .earlier_fits(
            which.family,
            which.label,
            which.cpu_model,
            which.run_id,
            EARLIER_RUNS * 5,
        )
        .unwrap_or_default()
        .iter()
        .filter(|e| which.admits(e))
        .take(EARLIER_RUNS)
        .map(|e| Estimate::of(&e.fit))
        .collect();
    run_to_run::widen(fit, &earlier);
}
