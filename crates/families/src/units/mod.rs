//! `toll spawn` and `toll ring` (E2): what it costs a runtime to have N units
//! that wait, and to pass one message round a ring of N units; one series per
//! (runtime, unit kind), one point per N, every trial stored.
//!
//! A point that fails (the runtime refused to make more units, crashed, or
//! was stopped at the time or memory ceiling) is stored as failed with its
//! reason, and the run goes on; a limit or a ceiling also marks the larger Ns
//! of that series as not tried, since they would only fail the same way.

use crate::observer::Observer;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::duration_ns::ns;
use toll_measure::Fingerprint;
use toll_peers::{Launch, Runtime};
use toll_store::{NewRun, RunStatus, Store};

mod config;
pub mod memory;
pub mod report;
mod sweep;
mod target;

pub use config::*;
use sweep::Sweep;
pub use target::{select, Target, UnknownUnit};

/// Run a spawn or ring sweep, storing everything as it goes. A missing
/// toolchain comes back as `Err` before any run is stored.
pub fn run(
    cfg: &UnitsConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<UnitsOutcome, UnitsError> {
    let mut launches: BTreeMap<Runtime, Launch> = BTreeMap::new();
    for t in &cfg.targets {
        if let std::collections::btree_map::Entry::Vacant(e) = launches.entry(t.runtime) {
            e.insert(t.runtime.prepare_noting(&mut |m| observer.note(m))?);
        }
    }
    let toolchains = launches.values().map(|l| l.toolchain.clone()).collect();
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let run_id = store.begin_run(&NewRun {
        family: cfg.op.family().into(),
        config: json!({
            "op": cfg.op, "ns": cfg.ns, "trials": cfg.trials,
            "targets": cfg.targets.iter().map(Target::label).collect::<Vec<_>>(),
            "max_time_ns": ns(cfg.ceiling.time), "max_mem_mib": cfg.ceiling.mem_kb / 1024,
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let mut series = Vec::new();
    let mut error = None;
    for target in &cfg.targets {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let launch = launches[&target.runtime].clone();
        let mut sweep = Sweep {
            cfg,
            store,
            observer: &mut *observer,
            stop,
            target: *target,
            launch,
            peer: None,
            cpu_model: &cpu_model,
        };
        match sweep.series(run_id) {
            Ok(s) => series.push(s),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.result.is_ok()));
    let status = match (&error, interrupted) {
        (Some(_), _) if !measured => RunStatus::Failed,
        (Some(_), _) | (None, true) => RunStatus::Partial,
        (None, false) => RunStatus::Complete,
    };
    let error_text = match &error {
        Some(e) => Some(e.to_string()),
        None if interrupted => Some("interrupted by the user".to_string()),
        None => None,
    };
    store.finish_run(
        run_id,
        status,
        &summary_line(cfg.op, &series),
        error_text.as_deref(),
    )?;
    Ok(UnitsOutcome {
        run_id,
        status,
        series,
        error,
    })
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(op: UnitOp, series: &[UnitSeries]) -> String {
    let best = series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .filter_map(move |p| Some((s, p.n, p.result.as_ref().ok()?.per_op.median)))
        })
        .min_by(|a, b| a.2.total_cmp(&b.2));
    match best {
        None => format!("{} series, nothing measured", series.len()),
        Some((s, n, ns)) => format!(
            "{} series; cheapest {} {:.0} ns per {} at N = {n}",
            series.len(),
            s.target.label(),
            ns,
            op.per()
        ),
    }
}
