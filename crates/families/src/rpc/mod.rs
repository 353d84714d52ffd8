//! `toll rpc` (E3): what a null remote call costs — per stack (raw frames
//! over a unix socket or TCP, HTTP/1.1, h2c, gRPC), per path (direct, or
//! through a broker asked per call or once), blocking or pipelined.
//!
//! toll is always the client, so every server is timed from the same side;
//! the server is a child process speaking spec/rpc.md on stdin/stdout
//! ([`handle`]), which answers every call with the bytes it received and
//! reports its CPU time, so the server's CPU per call is measured apart
//! from toll's. A trial is E3's: `calls` calls (1600), timed as a whole;
//! its figure is the mean time per call, and trials (10) give that mean a
//! CI. Trials go in rounds, every (series, size) once a round, shuffled
//! after the first, so drift spreads over every cell. Each call's own
//! latency goes into a histogram for the median and p99.

pub mod blocking;
pub mod call;
pub mod client;
mod config;
mod error;
pub mod figures;
pub mod frame;
pub mod handle;
pub mod listen;
pub mod place;
pub mod proto;
pub mod proxy;
mod reply;
pub mod report;
pub mod server;
mod setup;

use crate::history::{self, Comparable};
use crate::observer::Observer;
use client::Session;
use figures::Cell;
use serde_json::json;
use setup::Setup;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::fit::fit_series;
use toll_measure::{rounds, Fingerprint, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

pub use config::*;
pub use error::RpcError;
pub use figures::sample;

/// Run the series, storing everything as it goes. A server that cannot
/// start, a stack it lacks, or a first call that fails (a wrong stack, no
/// server) comes back as `Err` before any run is stored.
pub fn run(
    cfg: &RpcConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<RpcOutcome, RpcError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RpcError::Runtime)?;
    let mut setup = setup::setup(cfg)?;
    let mut sessions = vec![];
    for (s, p) in cfg.series.iter().zip(&setup.plans) {
        let target = p.target.to_string();
        let session = rt
            .block_on(Session::open(p.clone()))
            .map_err(|cause| RpcError::Call {
                stack: s.stack_label(),
                target: target.clone(),
                cause,
            })?;
        sessions.push(session);
    }
    let server_line = match (&setup.server, cfg.external) {
        (Some(h), _) => format!(
            "{} server (pid {}){}: {}",
            h.runtime,
            h.pid,
            setup.place.describe(),
            h.version
        ),
        (None, Some(a)) => format!("the server at {a} (started elsewhere: no server CPU)"),
        (None, None) => String::new(),
    };
    let env = Fingerprint::capture(vec![]);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let run_id = store.begin_run(&NewRun {
        family: "rpc".into(),
        config: json!({
            "runtime": cfg.runtime, "server": server_line, "external": cfg.external,
            "series": cfg.series.iter().map(|s| cfg.label(s)).collect::<Vec<_>>(),
            "connections": cfg.connections, "sizes": cfg.sizes, "calls": cfg.calls,
            "trials": cfg.trials, "warmup": cfg.warmup, "timeout_ms": cfg.timeout.as_millis() as u64,
            "seed": cfg.seed, "ladder": cfg.ladder,
            "far": cfg.far.as_ref().map(crate::far::Far::describe),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let result = measure(
        cfg,
        store,
        observer,
        stop,
        run_id,
        &rt,
        &mut setup,
        &mut sessions,
    );
    drop(sessions);
    drop(rt);
    let (series, failure) = match result {
        Ok(r) => r,
        Err(e) => {
            store.finish_run(run_id, RunStatus::Failed, "failed", Some(&e.to_string()))?;
            return Err(e);
        }
    };
    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.result.is_ok()));
    let status = match (&failure, interrupted) {
        (Some(_), _) if !measured => RunStatus::Failed,
        (Some(_), _) | (None, true) => RunStatus::Partial,
        (None, false) => RunStatus::Complete,
    };
    let error = failure.or(interrupted.then(|| "interrupted by the user".to_string()));
    store.finish_run(run_id, status, &summary_line(&series), error.as_deref())?;
    Ok(RpcOutcome {
        run_id,
        status,
        server: server_line,
        series,
        error,
    })
}

type Measured = (Vec<RpcSeries>, Option<String>);

/// The warm-up, then the rounds; the first failed call ends the rounds
/// (the run is partial with what was measured).
#[allow(clippy::too_many_arguments)]
fn measure(
    cfg: &RpcConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    run_id: i64,
    rt: &tokio::runtime::Runtime,
    setup: &mut Setup,
    sessions: &mut [Session],
) -> Result<Measured, RpcError> {
    // Other processes' share of the CPUs while the rounds run: a row
    // measured beside them is tagged busy.
    let server_pid: Vec<u32> = setup.server.iter().map(|h| h.pid).collect();
    let others = toll_measure::env::OthersBusy::start(&server_pid);
    let mut series = vec![];
    let mut ids = vec![];
    let mut cells: Vec<(usize, usize)> = vec![];
    for (i, s) in cfg.series.iter().enumerate() {
        let label = cfg.label(s);
        let mut attrs = json!({
            "runtime": cfg.external.map_or(cfg.runtime.to_string(), |_| "external".into()),
            "stack": s.stack.name(), "via": s.via, "path": s.path.name(),
            "lookup": match s.path { PathKind::Broker(l) => Some(l), _ => None },
            "mode": s.mode.name(), "in_flight": s.mode.in_flight(),
            "connections": cfg.connections, "per": "call", "unit": "bytes",
        });
        if let Some(far) = &cfg.far {
            attrs["far"] = far.describe();
        }
        ids.push(store.add_series(run_id, &label, &attrs)?);
        for j in 0..cfg.sizes.len() {
            cells.push((i, j));
        }
        series.push(RpcSeries {
            spec: *s,
            label,
            points: cfg
                .sizes
                .iter()
                .map(|&n| RpcPoint {
                    n,
                    result: Err("not measured".into()),
                })
                .collect(),
            fit: None,
        });
    }
    let mut state: Vec<Cell> = cells.iter().map(|_| Cell::default()).collect();
    let mut failure = None;
    // Warm-up: untimed calls on every series, at its first size.
    for (i, session) in sessions.iter_mut().enumerate() {
        if cfg.warmup == 0 || stop.load(Ordering::Relaxed) {
            break;
        }
        if let Err(e) = rt.block_on(session.trial(cfg.sizes[0], cfg.warmup)) {
            failure = Some(format!("{} warming up: {e}", series[i].label));
            break;
        }
    }
    'rounds: for round in 0..cfg.trials as usize {
        if failure.is_some() {
            break;
        }
        for k in rounds::order(cells.len(), round, cfg.seed) {
            if stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            let (si, pi) = cells[k];
            let n = cfg.sizes[pi];
            match one_trial(cfg, rt, setup, &mut sessions[si], n) {
                Ok(t) => {
                    state[k].add(t);
                    observer.trial_done(&series[si].label, u64::from(n));
                    observer.point_done(
                        &series[si].label,
                        u64::from(n),
                        &Summary::of(&state[k].per_call()),
                    );
                }
                Err(why) => {
                    let line = format!("{} at {n} B: {why}", series[si].label);
                    observer.warning(&line);
                    state[k].failed = Some(why);
                    failure = Some(line);
                    save(store, cfg, &ids, &cells, &mut state)?;
                    break 'rounds;
                }
            }
        }
        save(store, cfg, &ids, &cells, &mut state)?;
        observer.round_done("rpc", round + 1);
    }
    save(store, cfg, &ids, &cells, &mut state)?;
    let (others_busy, _) = others.share(&server_pid);
    for (k, &(si, pi)) in cells.iter().enumerate() {
        series[si].points[pi].result = state[k].figures();
    }
    for (s, &id) in series.iter_mut().zip(&ids) {
        let input: Vec<(f64, Vec<f64>)> = s
            .points
            .iter()
            .filter_map(|p| {
                Some((
                    f64::from(p.n),
                    p.result.as_ref().ok()?.per_call_trials.clone(),
                ))
            })
            .collect();
        if input.len() >= toll_measure::decision::MIN_SIZES {
            s.fit = fit_series(&input);
            let label = s.label.clone();
            if let Some(f) = &mut s.fit {
                let which = Comparable {
                    family: "rpc",
                    label: &label,
                    run_id,
                    cpu_model: &toll_measure::env::cpu_model(),
                    config: &[
                        ("sizes", json!(cfg.sizes)),
                        ("calls", json!(cfg.calls)),
                        (
                            "far",
                            json!(cfg.far.as_ref().map(crate::far::Far::describe)),
                        ),
                    ],
                    attrs: &[],
                };
                history::conclude(store, &which, id, f, &input, Some(others_busy))?;
            }
        }
    }
    Ok((series, failure))
}

/// One timed trial of a cell, with the server's counters read around it.
fn one_trial(
    cfg: &RpcConfig,
    rt: &tokio::runtime::Runtime,
    setup: &mut Setup,
    session: &mut Session,
    n: u32,
) -> Result<figures::TrialFigures, String> {
    let before = match setup.server.as_mut() {
        Some(h) => Some(h.stats().map_err(|e| e.to_string())?),
        None => None,
    };
    let cpu0 = server::cpu_ns();
    let t = rt.block_on(session.trial(n, cfg.calls));
    let client_cpu = server::cpu_ns().saturating_sub(cpu0);
    let t = match t {
        Ok(t) => t,
        Err(e) => {
            // A dead server says so on its control plane too.
            if let Some(h) = setup.server.as_mut() {
                if let Err(dead) = h.stats() {
                    return Err(format!("{e} ({dead})"));
                }
            }
            return Err(e.to_string());
        }
    };
    let server_cpu = match (setup.server.as_mut(), before) {
        (Some(h), Some(b)) => {
            let a = h.stats().map_err(|e| e.to_string())?;
            let answered = a.calls - b.calls;
            if answered != cfg.calls {
                return Err(format!(
                    "the server counted {answered} calls, toll made {}: it does not answer each call once",
                    cfg.calls
                ));
            }
            Some(a.cpu_ns - b.cpu_ns)
        }
        _ => None,
    };
    Ok(figures::TrialFigures {
        calls: cfg.calls,
        wall_ns: t.wall_ns,
        latencies: t.latencies,
        round_trips: t.round_trips,
        client_cpu_ns: client_cpu,
        server_cpu_ns: server_cpu,
    })
}

/// Store every cell's trials so far (replacing the last save).
fn save(
    store: &Store,
    cfg: &RpcConfig,
    ids: &[i64],
    cells: &[(usize, usize)],
    state: &mut [Cell],
) -> Result<(), StoreError> {
    for (si, &series_id) in ids.iter().enumerate() {
        let kept: Vec<usize> = (0..cells.len())
            .filter(|&k| {
                cells[k].0 == si && (!state[k].samples.is_empty() || state[k].failed.is_some())
            })
            .collect();
        let points: Vec<Point> = kept
            .iter()
            .map(|&k| {
                let c = &state[k];
                Point {
                    n: u64::from(cfg.sizes[cells[k].1]),
                    status: if c.failed.is_some() {
                        PointStatus::Failed
                    } else {
                        PointStatus::Ok
                    },
                    error: c.failed.clone(),
                    summary: (c.failed.is_none() && !c.samples.is_empty())
                        .then(|| Summary::of(&c.per_call())),
                    samples: c.samples.clone(),
                    extra: Some(c.extra()),
                }
            })
            .collect();
        let mut entries: Vec<(Option<i64>, &Point)> = kept
            .iter()
            .zip(&points)
            .map(|(&k, p)| (state[k].point_id, p))
            .collect();
        store.save_points(series_id, &mut entries)?;
        for (&k, (id, _)) in kept.iter().zip(&entries) {
            state[k].point_id = *id;
        }
    }
    Ok(())
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(series: &[RpcSeries]) -> String {
    let best = series
        .iter()
        .filter_map(|s| Some((s, s.points.first()?.result.as_ref().ok()?.mean())))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        None => format!("{} series", series.len()),
        Some((s, ns)) => format!(
            "{} series; cheapest call {} {:.1} µs",
            series.len(),
            s.label,
            ns / 1e3
        ),
    }
}
