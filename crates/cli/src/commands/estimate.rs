//! `--dry-run`'s estimate of a run's length where the cost of a point is the
//! work itself (spawn, ring, file, rpc): what the same series took at the
//! same n in this store's earlier runs on this machine, scaled to the trials
//! asked for. toll cannot know how long 100,000 goroutines or a gRPC call
//! take here before it has measured them once; without such a run it says
//! so, and names the ceiling that bounds each point, rather than guess.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;
use toll_store::{Run, RunStatus};

/// One series a run would measure: its stored label, its n, its trials.
pub struct Wanted {
    pub label: String,
    pub ns: Vec<u64>,
    pub trials: u32,
}

/// The newest runs of a family read for an estimate: enough to find every
/// series of a usual run, few enough that a dry run stays instant.
const RUNS_READ: usize = 20;

/// The estimate line: measured time from earlier runs, or why there is none.
/// `ceiling` says what bounds a point when nothing is known.
pub fn line(db: Option<&Path>, family: &str, wanted: &[Wanted], ceiling: &str) -> String {
    let runs = earlier_runs(db, family).unwrap_or_default();
    let mut total = Duration::ZERO;
    let mut from = BTreeSet::new();
    let mut unknown = Vec::new();
    for w in wanted {
        match series_time(&runs, w) {
            Some((t, run)) => {
                total += t;
                from.insert(run);
            }
            None => unknown.push(w.label.as_str()),
        }
    }
    let runs_text = from
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    match (from.is_empty(), unknown.is_empty()) {
        (true, _) => format!(
            "no estimate of its length: no earlier {family} run here has these series at these n (the first run measures them); {ceiling}"
        ),
        (false, true) => format!(
            "it would take about {} of measuring (these series' time at these n in run{} {runs_text} here, scaled to the trials asked), plus start-up",
            crate::values::about(total),
            if from.len() == 1 { "" } else { "s" },
        ),
        (false, false) => format!(
            "it would take about {} of measuring for {} of {} series (from run{} {runs_text} here), plus start-up and the {} never measured here at these n ({}); {ceiling}",
            crate::values::about(total),
            wanted.len() - unknown.len(),
            wanted.len(),
            if from.len() == 1 { "" } else { "s" },
            unknown.len(),
            unknown.join(", "),
        ),
    }
}

/// The family's newest runs measured on this machine, newest first; none
/// when there is no store yet (a dry run never creates one).
fn earlier_runs(db: Option<&Path>, family: &str) -> Option<Vec<Run>> {
    let store = match super::db::open_existing(db).ok()? {
        super::db::Found::Store(s) => s,
        super::db::Found::Nothing(_) => return None,
    };
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_default();
    let rows = store.list_runs().ok()?;
    let runs = rows
        .iter()
        .filter(|r| r.family == family && r.host == host)
        .filter(|r| matches!(r.status, RunStatus::Complete | RunStatus::Partial))
        .take(RUNS_READ)
        .filter_map(|r| store.load_run(r.id).ok())
        .collect();
    Some(runs)
}

/// The time the newest stored series with this label took at every wanted
/// n (the mean of its trials, times the trials wanted), and its run.
fn series_time(runs: &[Run], w: &Wanted) -> Option<(Duration, i64)> {
    runs.iter().find_map(|run| {
        let s = run.series.iter().find(|s| s.label == w.label)?;
        let mut ns_total = 0.0;
        for n in &w.ns {
            let p = s
                .points
                .iter()
                .find(|p| p.n == *n && !p.samples.is_empty())?;
            let mean =
                p.samples.iter().map(|x| x.total_ns as f64).sum::<f64>() / p.samples.len() as f64;
            ns_total += mean * f64::from(w.trials);
        }
        Some((Duration::from_nanos(ns_total as u64), run.id))
    })
}
