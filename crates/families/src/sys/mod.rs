//! `toll sys`: the crossings under every other one, measured by toll itself
//! (no worker): a null system call beside a vDSO call, a minor page fault
//! per page (and mmap + munmap), a signal to this thread and to another
//! process, a thread or process woken (futex, pipe) on one core and across
//! two, a cache line handed between every ordered pair of cores, the time
//! per load by working set (a pointer chase, whose steps are the caches),
//! and memcpy by size. Each crossing is one or more series; every point is
//! the engine's rounds, stored as it goes; faults and copy are fitted
//! t(n) = α + β·n (β per page, per byte).

mod caches;
mod config;
mod pairs;
mod probes;
mod sweep;

pub use caches::{sizes as chase_sizes, Cache, Level};
pub use config::*;
pub use pairs::{allowed_cpus, Wake};

use crate::observer::Observer;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::{Engine, Fingerprint};
use toll_store::{NewRun, RunStatus, Store};

#[derive(Debug)]
pub struct SysOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub series: Vec<SysSeries>,
}

/// Measure every planned series into a new run.
pub fn run(
    cfg: &SysConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<SysOutcome, SysError> {
    let env = Fingerprint::capture(Vec::new());
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let engine = Engine::new(cfg.engine.clone());
    let planned = plan(cfg);
    let run_id = store.begin_run(&NewRun {
        family: "sys".into(),
        config: json!({
            "only": cfg.only.iter().map(|c| c.name()).collect::<Vec<_>>(),
            "engine": cfg.engine, "pages": cfg.pages, "copy_sizes": cfg.copy_sizes,
            "memory_top": cfg.memory_top, "memory_sizes": cfg.memory_sizes, "cpus": cfg.cpus,
            "caches": caches::reported(),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let mut sweep = sweep::Sweep {
        cfg,
        engine: &engine,
        store,
        observer,
        stop,
        cpu_model: &cpu_model,
    };
    let mut series = Vec::new();
    for p in &planned {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        series.push(sweep.series(run_id, p)?);
    }
    let interrupted = stop.load(Ordering::Relaxed);
    let points = series.iter().flat_map(|s| &s.points);
    let measured = points.clone().any(|p| p.result.is_ok());
    let failed: Vec<String> = series
        .iter()
        .flat_map(|s| {
            s.points.iter().filter_map(move |p| {
                let why = p.result.as_ref().err()?;
                (!why.starts_with("a handoff needs two CPUs"))
                    .then(|| format!("{} at n = {}: {why}", s.label, p.n))
            })
        })
        .collect();
    let status = match (measured, interrupted, failed.is_empty()) {
        (false, _, _) => RunStatus::Failed,
        (true, true, _) | (true, false, false) => RunStatus::Partial,
        (true, false, true) => RunStatus::Complete,
    };
    let error = if interrupted {
        Some("interrupted by the user".to_string())
    } else {
        crate::ffi::points_failed(&failed)
    };
    store.finish_run(run_id, status, &summary_line(&series), error.as_deref())?;
    Ok(SysOutcome {
        run_id,
        status,
        series,
    })
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(series: &[SysSeries]) -> String {
    let figure = |label: &str| {
        series
            .iter()
            .find(|s| s.label == label)
            .and_then(|s| s.points.first()?.result.as_ref().ok().map(|r| r.median))
    };
    let mut parts = vec![format!("{} series", series.len())];
    if let Some(ns) = figure("syscall/getppid") {
        parts.push(format!("syscall {ns:.0} ns"));
    }
    if let Some(ns) = figure("wake/futex-thread/cross-core") {
        parts.push(format!("cross-core wake {:.1} µs", ns / 1e3));
    }
    parts.join("; ")
}
