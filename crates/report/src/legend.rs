//! Legend lines that several families' tables share.

use toll_measure::run_to_run::{RunToRun, FLOOR};
use toll_measure::SeriesFit;

/// One line saying what the tables' CIs hold: this run's rounds, plus the
/// run-to-run term (`toll_measure::run_to_run`), and where that came from.
/// Empty when no fit carries the term (runs stored before it existed).
pub fn run_to_run<'a>(fits: impl IntoIterator<Item = &'a SeriesFit>) -> String {
    let terms: Vec<&RunToRun> = fits
        .into_iter()
        .filter_map(|f| f.run_to_run.as_ref())
        .collect();
    let Some(most) = terms.iter().map(|r| r.earlier_runs).max() else {
        return String::new();
    };
    let first = terms.iter().any(|r| r.earlier_runs == 0);
    let floor = format!("a {:.0}% floor", FLOOR * 100.0);
    // The machine's share, when the series measured here first drew on it.
    let machine = terms
        .iter()
        .filter(|r| r.earlier_runs == 0)
        .find_map(|r| r.machine)
        .map(|m| {
            format!(
                "how far this machine moved between runs of {} other series ({})",
                m.series,
                m.words()
            )
        });
    let from = match (most, first, machine) {
        (0, _, None) => format!("{floor} (no earlier runs of these series on this machine yet)"),
        (0, _, Some(m)) => format!("{m} (no earlier runs of these series yet)"),
        (k, false, _) => format!("up to {k} earlier runs of each series on this machine"),
        (k, true, None) => {
            format!(
                "up to {k} earlier runs on this machine, {floor} for series measured here first"
            )
        }
        (k, true, Some(m)) => {
            format!(
                "up to {k} earlier runs on this machine, and for series measured here first {m}"
            )
        }
    };
    format!(
        "* CIs marked *: where this machine's figure lies across runs (its mean), not only this run's: this run's rounds plus run-to-run variation, learnt from {from}, never from this run; `toll show` has this run's own\n"
    )
}
