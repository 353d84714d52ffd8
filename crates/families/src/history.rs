//! Earlier runs of a series on this machine: what the between-run term of
//! its intervals learns from (see `toll_measure::run_to_run`); and
//! [`conclude`], the one way every family stores a fit: widened by that
//! term, then decided (`toll_measure::decision`) and stored with its
//! decision, which every view renders.

use serde_json::Value;
use std::collections::BTreeMap;
use toll_measure::decision::{self, Context};
use toll_measure::run_to_run::{self, Estimate, Figure, MachineShare};
use toll_measure::{SeriesFit, Summary};
use toll_store::{EarlierFigure, EarlierFit, Store, StoreError};

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

/// Earlier series of the family looked at for the machine's share, newest
/// first, whatever their label.
pub const FAMILY_ROWS: usize = 400;

impl Comparable<'_> {
    fn admits(&self, e: &EarlierFit) -> bool {
        self.config.iter().all(|(k, v)| e.config.get(*k) == Some(v))
            && self.attrs.iter().all(|(k, v)| e.attrs.get(*k) == Some(v))
    }

    /// Which series an earlier fit belongs to: its label and the values of
    /// the keys that make runs comparable.
    fn series_of(&self, e: &EarlierFit) -> String {
        let mut key = e.label.clone();
        for (k, _) in self.config {
            key.push_str(&format!(
                "\u{0}{}",
                e.config.get(*k).unwrap_or(&Value::Null)
            ));
        }
        for (k, _) in self.attrs {
            key.push_str(&format!("\u{0}{}", e.attrs.get(*k).unwrap_or(&Value::Null)));
        }
        key
    }
}

/// Widen `fit`'s intervals by the series' run-to-run variation: learnt from
/// the comparable earlier runs in `store` and from how far this machine
/// moved between runs of the family's other series, or the floor when
/// there are none (or the store cannot say: history is advice, never a
/// reason to fail).
pub fn widen(store: &Store, which: &Comparable, fit: &mut SeriesFit) {
    let fits: Vec<EarlierFit> = store
        .earlier_fits(
            which.family,
            Some(which.label),
            which.cpu_model,
            which.run_id,
            EARLIER_RUNS * 5,
        )
        .unwrap_or_default()
        .into_iter()
        .filter(|e| which.admits(e))
        .take(EARLIER_RUNS)
        .collect();
    let earlier: Vec<Estimate> = fits.iter().map(|e| Estimate::of(&e.fit)).collect();
    run_to_run::widen(fit, &earlier, machine_share(store, which));
    if let Some(r) = fit.run_to_run.as_mut() {
        r.elsewhere = fits.iter().filter(|e| e.elsewhere.is_some()).count();
    }
}

/// A one-point series' figure (the median over its rounds, `summary`)
/// widened by its run-to-run term: learnt from the series' figures in
/// comparable earlier runs here and the machine's share, as a fitted α
/// is (see `toll_measure::figure`). None where the rounds give no
/// interval. The caller stores it in the series' attributes (`figure`).
pub fn figure(store: &Store, which: &Comparable, summary: &Summary) -> Option<Figure> {
    let earlier: Vec<EarlierFigure> = store
        .earlier_figures(
            which.family,
            which.label,
            which.cpu_model,
            which.run_id,
            EARLIER_RUNS * 5,
        )
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            which
                .config
                .iter()
                .all(|(k, v)| e.config.get(*k) == Some(v))
                && which.attrs.iter().all(|(k, v)| e.attrs.get(*k) == Some(v))
        })
        .take(EARLIER_RUNS)
        .collect();
    let runs: Vec<_> = earlier.iter().map(|e| e.figure.earlier()).collect();
    let mut f = toll_measure::figure::widen(summary, &runs, machine_share(store, which))?;
    f.elsewhere = earlier.iter().filter(|e| e.elsewhere.is_some()).count();
    Some(f)
}

/// Conclude a fitted series: widen it by its run-to-run term, decide its
/// model, verdict and figures from `input` (the fit's own trials per size)
/// and the share of the CPUs others used, and store it with that decision.
pub fn conclude(
    store: &Store,
    which: &Comparable,
    series_id: i64,
    fit: &mut SeriesFit,
    input: &[(f64, Vec<f64>)],
    others_busy: Option<f64>,
) -> Result<(), StoreError> {
    widen(store, which, fit);
    let ctx = Context {
        per_unit: matches!(which.family, "spawn" | "ring"),
        others_busy,
        points: input.iter().map(|(n, v)| (*n, Summary::of(v))).collect(),
    };
    decision::decide(fit, &ctx);
    store.set_fit(series_id, fit)
}

/// How far this machine moves between runs, from the family's other series
/// here (each its newest [`EARLIER_RUNS`] runs).
fn machine_share(store: &Store, which: &Comparable) -> Option<MachineShare> {
    let rows = store
        .earlier_fits(
            which.family,
            None,
            which.cpu_model,
            which.run_id,
            FAMILY_ROWS,
        )
        .ok()?;
    let mut groups: BTreeMap<String, Vec<Estimate>> = BTreeMap::new();
    for e in rows
        .iter()
        .filter(|e| !(e.label == which.label && which.admits(e)))
    {
        let g = groups.entry(which.series_of(e)).or_default();
        if g.len() < EARLIER_RUNS {
            g.push(Estimate::of(&e.fit));
        }
    }
    run_to_run::machine_share(&groups.into_values().collect::<Vec<_>>())
}
