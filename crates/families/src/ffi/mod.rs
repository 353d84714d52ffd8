//! `toll ffi`: what a call from one language into C costs inside one
//! process, for each (runtime, binding, way of passing): the null call's
//! time is α, the bytes passed in (and, with `--touch all`, summed on the
//! C side) give β; with `--callback`, C calls the language back n times a
//! call and β is one upcall. One series per (runtime, binding, way), one
//! point per size, every batch stored. A way a binding does not offer is a
//! series that says why.
//!
//! A runtime this machine lacks, or a binding whose part is missing (cffi
//! not installed, no Python headers for the extension module), is stored
//! as a series whose points fail with what to install, so every series
//! says either its fit or why it has none.

use crate::observer::Observer;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::{Engine, Fingerprint};
use toll_peers::{FfiLaunch, Pass, Peer, PeerError, Runtime};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

mod config;
pub mod report;
mod sweep;
mod vs_link;

pub use config::*;
use sweep::Sweep;

/// A runtime's worker for `ffi`, or why there is none here.
type Prepared = Result<FfiLaunch, String>;

/// Run a `toll ffi` sweep, storing everything as it goes. A missing C
/// compiler comes back as `Err` before any run is stored.
pub fn run(
    cfg: &FfiConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<FfiOutcome, FfiError> {
    // Every binding calls the shared C side: no compiler, no run.
    Runtime::C.detect()?;
    let mut prepared: BTreeMap<Runtime, Prepared> = BTreeMap::new();
    for t in &cfg.targets {
        if prepared.contains_key(&t.runtime) {
            continue;
        }
        let p = match t.runtime.prepare_ffi(&mut |m| observer.note(m)) {
            Ok(l) => Ok(l),
            Err(PeerError::MissingToolchain { tool, install, .. }) => {
                Err(format!("no {tool} on this machine (install: `{install}`)"))
            }
            Err(e) => return Err(e.into()),
        };
        prepared.insert(t.runtime, p);
    }
    let mut toolchains: Vec<(String, String)> = Vec::new();
    for l in prepared.values().flatten() {
        for tc in [&l.launch.toolchain, &l.cc] {
            if !toolchains.contains(tc) {
                toolchains.push(tc.clone());
            }
        }
    }
    // The Rust bindings are toll's own code: the compiler that built it.
    if prepared.contains_key(&Runtime::Rust) && !toll_store::RUSTC_VERSION.is_empty() {
        toolchains.push(("rustc".into(), toll_store::RUSTC_VERSION.into()));
    }
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let engine = Engine::new(cfg.engine.clone());
    let run_id = store.begin_run(&NewRun {
        family: "ffi".into(),
        config: json!({
            "sizes": cfg.sizes, "engine": cfg.engine, "vs_link": cfg.vs_link,
            "touch": cfg.touch.name(),
            "targets": cfg.targets.iter().map(FfiTarget::label).collect::<Vec<_>>(),
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
        match one(
            cfg,
            &engine,
            store,
            observer,
            stop,
            *target,
            &prepared[&target.runtime],
            run_id,
            &cpu_model,
        ) {
            Ok(s) => series.push(s),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let mut vs_link = Vec::new();
    if cfg.vs_link && error.is_none() && !stop.load(Ordering::Relaxed) {
        match vs_link::measure(
            cfg, store, observer, stop, run_id, &cpu_model, &series, &prepared,
        ) {
            Ok(rows) => vs_link = rows,
            Err(e) => error = Some(e),
        }
    }
    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.result.is_ok()));
    // A point that failed (a worker that died, a call refused) leaves the
    // run partial, and failed when nothing was measured: never "complete".
    // A binding this machine lacks is a row saying what to install, not a
    // failure of the run.
    let failed: Vec<String> = series
        .iter()
        .filter(|s| s.unavailable.is_none())
        .flat_map(|s| {
            s.points.iter().filter_map(move |p| {
                let why = p.result.as_ref().err()?;
                Some(format!("{} at n = {}: {why}", s.target.label(), p.n))
            })
        })
        .collect();
    let status = match (&error, interrupted) {
        _ if !measured && (error.is_some() || !failed.is_empty()) => RunStatus::Failed,
        (Some(_), _) | (None, true) => RunStatus::Partial,
        (None, false) if !failed.is_empty() => RunStatus::Partial,
        (None, false) => RunStatus::Complete,
    };
    let error_text = match &error {
        Some(e) => Some(e.to_string()),
        None if interrupted => Some("interrupted by the user".to_string()),
        None => points_failed(&failed),
    };
    store.finish_run(
        run_id,
        status,
        &summary_line(&series),
        error_text.as_deref(),
    )?;
    Ok(FfiOutcome {
        run_id,
        status,
        series,
        vs_link,
        error,
    })
}

/// One series: measured, or stored as unavailable with what to install.
#[allow(clippy::too_many_arguments)]
fn one(
    cfg: &FfiConfig,
    engine: &Engine,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    target: FfiTarget,
    prepared: &Prepared,
    run_id: i64,
    cpu_model: &str,
) -> Result<FfiSeries, FfiError> {
    let label = target.label();
    let how = target.how();
    let mut attrs = json!({
        "runtime": target.runtime.name(), "binding": target.binding.name,
        "pass": target.pass.name(), "touch": cfg.touch.name(),
        "how": how.as_deref().unwrap_or(target.binding.how), "per": "call",
        "unit": if target.pass == Pass::Callback { "upcalls" } else { "bytes" },
    });
    let started = match (prepared, how) {
        (_, Err(why)) if target.pass == Pass::Callback => {
            Err(format!("{} does not call back: {why}", target.binding.name))
        }
        (_, Err(why)) => Err(format!(
            "{} does not pass `{}`: {why}",
            target.binding.name, target.pass
        )),
        (Err(why), _) => Err(format!("not available here: {why}")),
        (Ok(l), _) => match Peer::start(target.runtime, l.launch.clone()) {
            Err(e) => Err(format!(
                "not available here: the {} worker did not start: {e}",
                target.runtime
            )),
            Ok(peer) if peer.hello.bindings.iter().any(|b| b == target.binding.name) => Ok(peer),
            Ok(peer) => {
                let why = l
                    .unbuilt
                    .iter()
                    .find(|(b, _)| *b == target.binding.name)
                    .map(|(_, why)| why.clone())
                    .unwrap_or_else(|| format!("the {} worker cannot load it", target.runtime));
                peer.close();
                Err(match target.binding.install {
                    "" => format!("not available here: {why}"),
                    install => format!("not available here: {why} (install: `{install}`)"),
                })
            }
        },
    };
    match started {
        Ok(peer) => {
            attrs["runtime_version"] = json!(peer.hello.version);
            let series_id = store.add_series(run_id, &label, &attrs)?;
            let sweep = Sweep {
                cfg,
                engine,
                store,
                observer,
                stop,
                target,
                peer,
                cpu_model,
            };
            sweep.series(run_id, series_id, attrs)
        }
        Err(why) => {
            observer.warning(&format!("{label}: {why}"));
            attrs["unavailable"] = json!(why);
            let series_id = store.add_series(run_id, &label, &attrs)?;
            let points: Vec<Point> = cfg
                .sizes
                .iter()
                .map(|&n| Point {
                    n,
                    status: PointStatus::Failed,
                    error: Some(why.clone()),
                    summary: None,
                    samples: vec![],
                    extra: None,
                })
                .collect();
            let mut batch: Vec<(Option<i64>, &Point)> = points.iter().map(|p| (None, p)).collect();
            store.save_points(series_id, &mut batch)?;
            Ok(FfiSeries {
                target,
                points: cfg
                    .sizes
                    .iter()
                    .map(|&n| FfiPoint {
                        n,
                        result: Err(why.clone()),
                    })
                    .collect(),
                fit: None,
                unavailable: Some(why),
                others_busy: 0.0,
            })
        }
    }
}

/// "N point(s) failed: the first's reason" (None when none did).
pub fn points_failed(failed: &[String]) -> Option<String> {
    let first = failed.first()?;
    Some(match failed.len() {
        1 => format!("1 point failed: {first}"),
        k => format!("{k} points failed; the first: {first}"),
    })
}

/// The one-line summary `toll runs` shows: the cheapest crossing measured.
pub fn summary_line(series: &[FfiSeries]) -> String {
    let null = series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .filter(|p| p.n == 0)
                .filter_map(move |p| Some((s, p.result.as_ref().ok()?.median)))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let missing = series.iter().filter(|s| s.unavailable.is_some()).count();
    let tail = match missing {
        0 => String::new(),
        k => format!(" ({k} not available here)"),
    };
    match null {
        None => format!("{} series, no call at n = 0 measured{tail}", series.len()),
        Some((s, ns)) => format!(
            "{} series{tail}; cheapest call at n = 0 {} {ns:.1} ns",
            series.len(),
            s.target.label()
        ),
    }
}
