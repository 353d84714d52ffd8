//! What `toll ffi`'s table shows, taken from a run's config and outcome:
//! the report crate renders it (`toll_report::ffi`), and cannot name this
//! family's types, so the view carries plain values.

use super::config::{FfiConfig, FfiOutcome, FfiSeries};
use toll_report::ffi::{install_of, FfiSeriesView, FfiView};

/// The table's view of a finished run.
pub fn view(cfg: &FfiConfig, outcome: &FfiOutcome) -> FfiView {
    FfiView {
        sizes: cfg.sizes.clone(),
        trials: cfg.engine.trials,
        touch: cfg.touch.name().into(),
        series: outcome.series.iter().map(series).collect(),
        vs_link: outcome.vs_link.clone(),
    }
}

fn series(s: &FfiSeries) -> FfiSeriesView {
    FfiSeriesView {
        runtime: s.target.runtime.to_string(),
        binding: s.target.binding.name.to_string(),
        pass: s.target.pass.name().to_string(),
        how: s.target.how().unwrap_or_else(|why| why.to_string()),
        null: s
            .points
            .iter()
            .find(|p| p.n == 0)
            .and_then(|p| p.result.as_ref().ok().cloned()),
        fit: s.fit.clone(),
        measured: s.points.iter().filter(|p| p.result.is_ok()).count(),
        failure: s
            .points
            .iter()
            .find_map(|p| p.result.as_ref().err().map(|e| (p.n, e.clone()))),
        unavailable: s
            .unavailable
            .as_ref()
            .map(|why| (why.clone(), install_of(why))),
    }
}
