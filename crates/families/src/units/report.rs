//! What `toll spawn`'s and `toll ring`'s table shows, taken from a run's
//! config and outcome: the report crate renders it (`toll_report::units`),
//! and cannot name this family's types, so the view carries plain values.

use super::config::{UnitOp, UnitPoint, UnitSeries, UnitsConfig, UnitsOutcome};
use super::memory;
use toll_report::units::{self as view_of, Op, UnitsFigures, UnitsView};

/// The table's view of a finished run.
pub fn view(cfg: &UnitsConfig, outcome: &UnitsOutcome) -> UnitsView {
    UnitsView {
        op: match cfg.op {
            UnitOp::Spawn => Op::Spawn,
            UnitOp::Ring { m } => Op::Ring { m },
        },
        ns: cfg.ns.clone(),
        trials: cfg.trials,
        ceiling_s: cfg.ceiling.time.as_secs_f64(),
        ceiling_mib: cfg.ceiling.mem_kb / 1024,
        series: outcome.series.iter().map(series).collect(),
        memory_legend: memory::legend(&outcome.series),
        stopped: outcome.status == toll_store::RunStatus::Partial && outcome.error.is_none(),
    }
}

fn series(s: &UnitSeries) -> view_of::UnitsSeries {
    view_of::UnitsSeries {
        label: s.target.label(),
        runtime: s.target.runtime.to_string(),
        unit: s.target.unit.to_string(),
        class: s.target.class().name().to_string(),
        points: s.points.iter().map(point).collect(),
        fit: s.fit.clone(),
        knee: s.knee,
        others_busy: s.others_busy,
        busiest: s.busiest.as_ref().map(|(name, _)| name.clone()),
    }
}

fn point(p: &UnitPoint) -> view_of::UnitsPoint {
    view_of::UnitsPoint {
        n: p.n,
        result: p
            .result
            .as_ref()
            .map_err(Clone::clone)
            .map(|f| UnitsFigures {
                per_op: f.per_op.clone(),
                total: f.total.clone(),
                mem_kb_per_unit: f.mem_kb_per_unit,
            }),
    }
}
