//! `toll transfer` (E1): what it costs to send n int32 items to a peer process
//! over each kind of link, fitted as t(n) = α + β·n.

use crate::far::Far;
use crate::link::{self};
use crate::observer::Observer;
use crate::placement::{Pin, Placement};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};

mod sweep;
use sweep::Sweep;
use toll_measure::{Engine, Fingerprint};
use toll_peers::{Launch, Runtime, Transport};
use toll_store::{NewRun, RunStatus, Store};

mod config;
pub mod report;
pub use config::{
    SeriesResult, TransferConfig, TransferError, TransferOutcome, DEFAULT_SIZES, E1_SIZES,
    ITEM_BYTES,
};

/// The (peer, transport) pairs a config asks for, checked against what each peer speaks.
pub fn plan(cfg: &TransferConfig) -> Result<Vec<(Runtime, Transport)>, TransferError> {
    let mut pairs = Vec::new();
    if cfg.far.is_some() {
        if let Some(t) = cfg
            .transports
            .iter()
            .flatten()
            .find(|t| **t != Transport::Tcp)
        {
            return Err(TransferError::FarTransport(*t));
        }
    }
    let tcp_only = [Transport::Tcp];
    let transports = match (&cfg.far, &cfg.transports) {
        (Some(_), _) => Some(&tcp_only[..]),
        (None, t) => t.as_deref(),
    };
    for &peer in &cfg.peers {
        match transports {
            None => pairs.extend(peer.transports().iter().map(|&t| (peer, t))),
            Some(ts) => {
                for &t in ts {
                    if !peer.transports().contains(&t) {
                        let supported: Vec<_> =
                            peer.transports().iter().map(|t| t.name()).collect();
                        return Err(TransferError::Unsupported {
                            peer,
                            transport: t,
                            supported: supported.join(", "),
                        });
                    }
                    pairs.push((peer, t));
                }
            }
        }
    }
    if cfg.spin {
        if cfg.pin == Pin::Same {
            return Err(TransferError::SpinOnOneCore);
        }
        if !pairs.iter().any(|(_, t)| *t == Transport::Shm) {
            return Err(TransferError::SpinWithoutShm);
        }
    }
    Ok(pairs)
}

/// Run a transfer sweep, storing everything as it goes. Setup errors (a
/// missing toolchain, a bad placement) come back as `Err` before any run is
/// stored; a failure mid-run comes back in the outcome, with the run partial.
pub fn run(
    cfg: &TransferConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<TransferOutcome, TransferError> {
    let pairs = plan(cfg)?;
    let placement = Placement::choose(cfg.pin)?;
    let mut launches = Vec::new();
    for &peer in &cfg.peers {
        let launch = match &cfg.far {
            // The agent prepares the worker over there.
            Some(far) => Launch {
                program: "toll agent".into(),
                args: vec![],
                toolchain: (
                    format!("{peer} peer via toll agent"),
                    far.describe().to_string(),
                ),
                env: Vec::new(),
            },
            None => peer.prepare_noting(&mut |m| observer.note(m))?,
        };
        launches.push((peer, launch));
    }
    // Built before the run is stored: a link that cannot be built stores nothing.
    let link = match &cfg.far {
        Some(Far::Link(spec)) => Some(std::sync::Arc::new(link::build(spec)?)),
        _ => None,
    };
    let toolchains = launches.iter().map(|(_, l)| l.toolchain.clone()).collect();
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let engine = Engine::new(cfg.engine.clone());
    let run_id = store.begin_run(&NewRun {
        family: "transfer".into(),
        config: json!({
            "sizes": cfg.sizes, "peers": cfg.peers.iter().map(|p| p.name()).collect::<Vec<_>>(),
            "transports": pairs.iter().map(|(p, t)| format!("{p}/{t}")).collect::<Vec<_>>(),
            "pin": cfg.pin, "spin": cfg.spin, "engine": cfg.engine,
            "placement": placement, "clock": engine.clock,
            "item_bytes": ITEM_BYTES, "item_value": toll_peers::frame::ITEM_VALUE,
            "far": cfg.far.as_ref().map(Far::describe),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let scratch =
        toll_peers::scratch::path(&format!("transfer-{run_id}")).map_err(TransferError::Scratch)?;
    std::fs::create_dir_all(&scratch).map_err(TransferError::Scratch)?;

    let mut sweep = Sweep {
        cfg,
        store,
        run_id,
        engine: &engine,
        placement,
        scratch: &scratch,
        observer,
        stop,
        results: vec![],
        cpu_model: &cpu_model,
        link: link.clone(),
    };
    // A peer that dies (or cannot start) ends its own series only: they
    // are stored partial with the reason, and the other peers go on. Any
    // other failure (the store, the placement, a link) ends the run.
    let mut peer_errors: Vec<TransferError> = Vec::new();
    let mut result = Ok(());
    let peers = launches.len();
    for (i, (runtime, launch)) in launches.into_iter().enumerate() {
        let transports: Vec<Transport> = pairs
            .iter()
            .filter(|(r, _)| *r == runtime)
            .map(|(_, t)| *t)
            .collect();
        match sweep.peer(runtime, launch, &transports) {
            Ok(()) => {}
            Err(e @ TransferError::Peer(_)) => {
                if i + 1 < peers && sweep.keep_going() {
                    sweep
                        .observer
                        .warning(&format!("{e}; the other peers go on"));
                }
                peer_errors.push(e);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let peer_failures: Vec<String> = peer_errors.iter().map(ToString::to_string).collect();
    if result.is_ok() && !peer_errors.is_empty() {
        result = Err(peer_errors.remove(0));
    }
    let series = std::mem::take(&mut sweep.results);
    let _ = std::fs::remove_dir_all(&scratch);
    drop(link);

    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series.iter().any(|s| !s.points.is_empty());
    // A size that failed leaves its series short: the run is not complete.
    let failures: Vec<&str> = series.iter().filter_map(|s| s.failure.as_deref()).collect();
    let status = match (&result, interrupted) {
        (_, _) if !measured => RunStatus::Failed,
        (Err(_), _) | (Ok(()), true) => RunStatus::Partial,
        (Ok(()), false) if !failures.is_empty() => RunStatus::Partial,
        (Ok(()), false) => RunStatus::Complete,
    };
    let error_text = match &result {
        Err(_) if !peer_failures.is_empty() => Some(peer_failures.join("; ")),
        Err(e) => Some(e.to_string()),
        Ok(()) if interrupted => Some("interrupted by the user".to_string()),
        Ok(()) if !failures.is_empty() => Some(failures.join("; ")),
        Ok(()) => None,
    };
    store.finish_run(
        run_id,
        status,
        &summary_line(&series),
        error_text.as_deref(),
    )?;
    Ok(TransferOutcome {
        run_id,
        status,
        placement,
        series,
        error: result.err(),
    })
}

/// The links `toll ffi --vs-link` measured for one run: each peer's series
/// (one point, no items), and why a peer measured nothing.
#[derive(Debug, Default)]
pub struct SmallestTrips {
    pub series: Vec<SeriesResult>,
    pub failed: Vec<(Runtime, String)>,
}

/// Each of `peers`' round trip of the smallest message (no items) over
/// every transport it speaks, toll and the peer pinned to one core, with
/// this family's sweep, stored as series of another family's run `run_id`
/// (`toll ffi --vs-link`, which sets it beside a call inside one process).
/// A peer that fails ends its own series only, as in [`run`].
#[allow(clippy::too_many_arguments)]
pub fn smallest_round_trips(
    peers: Vec<(Runtime, Launch)>,
    engine_cfg: &toll_measure::EngineConfig,
    store: &Store,
    run_id: i64,
    cpu_model: &str,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<SmallestTrips, TransferError> {
    let cfg = TransferConfig {
        sizes: vec![0],
        peers: peers.iter().map(|(r, _)| *r).collect(),
        transports: None,
        pin: Pin::Same,
        spin: false,
        engine: engine_cfg.clone(),
        ci_target: None,
        max_time: std::time::Duration::ZERO,
        far: None,
    };
    let pairs = plan(&cfg)?;
    let placement = Placement::choose(Pin::Same)?;
    let engine = Engine::new(cfg.engine.clone());
    let scratch =
        toll_peers::scratch::path(&format!("vs-link-{run_id}")).map_err(TransferError::Scratch)?;
    std::fs::create_dir_all(&scratch).map_err(TransferError::Scratch)?;
    let mut sweep = Sweep {
        cfg: &cfg,
        store,
        run_id,
        engine: &engine,
        placement,
        scratch: &scratch,
        observer,
        stop,
        results: vec![],
        cpu_model,
        link: None,
    };
    let mut failed = Vec::new();
    let mut result = Ok(());
    for (runtime, launch) in peers {
        let transports: Vec<Transport> = pairs
            .iter()
            .filter(|(r, _)| *r == runtime)
            .map(|(_, t)| *t)
            .collect();
        match sweep.peer(runtime, launch, &transports) {
            Ok(()) => {}
            Err(e @ TransferError::Peer(_)) => failed.push((runtime, e.to_string())),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let series = std::mem::take(&mut sweep.results);
    let _ = std::fs::remove_dir_all(&scratch);
    result.map(|()| SmallestTrips { series, failed })
}

/// The one-line summary `toll runs` shows: the lowest α and β among the
/// series' stored decisions that can be told from 0.
pub fn summary_line(series: &[SeriesResult]) -> String {
    let decided: Vec<_> = series
        .iter()
        .filter_map(|s| Some((s, s.fit.as_ref()?.decision.as_ref()?)))
        .collect();
    if decided.is_empty() {
        return format!("{} series, no fit", series.len());
    }
    let lowest = |f: fn(&toll_measure::decision::Decision) -> Option<f64>| {
        decided
            .iter()
            .filter_map(|(s, d)| Some((s.label.as_str(), f(d)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let mut out = format!("{} series", series.len());
    if let Some((label, a)) = lowest(|d| d.alpha.shown()) {
        out.push_str(&format!("; lowest α {label} {:.1} µs", a / 1e3));
    }
    if let Some((label, b)) = lowest(|d| d.beta.shown()) {
        out.push_str(&format!("; lowest β {label} {b:.3} ns/item"));
    }
    out
}
