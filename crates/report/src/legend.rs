//! Legend lines that several families' tables share.

use toll_measure::run_to_run::FLOOR;
use toll_measure::SeriesFit;

/// One line saying what the tables' CIs hold: this run's rounds, plus the
/// run-to-run term (`toll_measure::run_to_run`), and where that came from.
/// Empty when no fit carries the term (runs stored before it existed).
pub fn run_to_run<'a>(fits: impl IntoIterator<Item = &'a SeriesFit>) -> String {
    let terms: Vec<usize> = fits
        .into_iter()
        .filter_map(|f| f.run_to_run.as_ref().map(|r| r.earlier_runs))
        .collect();
    let Some(&most) = terms.iter().max() else {
        return String::new();
    };
    let first = terms.contains(&0);
    let floor = format!("a {:.0}% floor", FLOOR * 100.0);
    let from = match (most, first) {
        (0, _) => format!("{floor} (no earlier runs of these series on this machine yet)"),
        (k, false) => format!("up to {k} earlier runs of each series on this machine"),
        (k, true) => {
            format!(
                "up to {k} earlier runs on this machine, {floor} for series measured here first"
            )
        }
    };
    format!(
        "CIs: this run's rounds plus run-to-run variation, learnt from {from}; `toll show` has this run's own\n"
    )
}
