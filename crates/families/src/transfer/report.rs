//! What `toll transfer`'s table shows, taken from a run's config and
//! outcome: the report crate renders it (`toll_report::transfer`), and
//! cannot name this family's types, so the view carries plain values.

use super::config::{SeriesResult, TransferConfig, TransferOutcome, ITEM_BYTES};
use crate::far::Far;
use crate::placement::Pin;
use toll_report::transfer::{FarEnd, TransferSeries, TransferView};

/// The table's view of a finished run.
pub fn view(cfg: &TransferConfig, outcome: &TransferOutcome) -> TransferView {
    TransferView {
        sizes: cfg.sizes.clone(),
        item_bytes: ITEM_BYTES,
        rounds: cfg.engine.trials,
        ci_target: cfg.ci_target,
        max_time: cfg.max_time,
        placement: outcome.placement.describe(),
        default_pin: cfg.pin == Pin::DEFAULT,
        far: cfg.far.as_ref().map(|f| match f {
            Far::Agent { launcher, .. } => FarEnd::Agent {
                launcher: launcher.clone(),
            },
            Far::Link(spec) => FarEnd::Link {
                spec: spec.to_string(),
            },
        }),
        series: outcome.series.iter().map(series).collect(),
    }
}

fn series(r: &SeriesResult) -> TransferSeries {
    TransferSeries {
        label: r.label.clone(),
        peer: r.peer.to_string(),
        transport: r.transport.to_string(),
        smallest_ns: r.points.first().map(|(_, m)| m.median),
        measured: r.points.len(),
        fit: r.fit.clone(),
        rounds: r.rounds,
        missed: r.missed.clone(),
        others_busy: r.others_busy,
        busiest: r.busiest.as_ref().map(|(name, _)| name.clone()),
    }
}
