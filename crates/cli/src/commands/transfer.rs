//! `toll transfer`: validate the arguments, run the sweep, print the models.

use super::{db, runtimes};
use crate::args::TransferArgs;
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::transfer::{self, TransferConfig};
use toll_measure::EngineConfig;
use toll_peers::{Runtime, Transport};

/// The peers `--peer` names, less the runtimes whose worker does not
/// transfer (Squeak's): `all` leaves them out, naming one is an error.
fn peers(text: &str) -> anyhow::Result<Vec<Runtime>> {
    let peers = runtimes::parse(text, "--peer", "peer")?;
    if text.trim() != "all" {
        if let Some(r) = peers.iter().find(|r| !r.transfers()) {
            return Err(usage(format!(
                "the {r} worker does not transfer (it spawns and rings: toll spawn, toll ring --runtime {r}); pick another --peer"
            )));
        }
    }
    Ok(peers.into_iter().filter(|r| r.transfers()).collect())
}

fn config(args: &TransferArgs) -> anyhow::Result<TransferConfig> {
    let peers = peers(&args.peer)?;
    let far = super::far::parse(
        args.remote.as_deref(),
        args.remote_cmd.as_deref(),
        args.remote_addr.as_deref(),
        args.link.as_deref(),
    )?;
    Ok(TransferConfig {
        sizes: args.sizes.clone(),
        peers,
        transports: args.via.clone(),
        pin: args.pin,
        spin: args.spin,
        engine: EngineConfig {
            trials: args.trials,
            warmup: Duration::from_millis(args.warmup_ms),
            batch_time: Duration::from_millis(args.batch_ms),
            ..EngineConfig::default()
        },
        ci_target: args.ci,
        max_time: args.max_time,
        far,
    })
}

/// `toll transfer`.
pub fn run(args: TransferArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    let pairs = transfer::plan(&cfg).map_err(|e| usage(e.to_string()))?;
    super::design_note(
        "--trials",
        cfg.engine.trials as usize,
        "--sizes",
        Some(cfg.sizes.len()),
    );
    if dry_run {
        return dry(&cfg, &pairs, db);
    }
    let store = db::open(db)?;
    crate::stop::install();
    let mut progress =
        Progress::new((pairs.len() * cfg.sizes.len()) as u64 * u64::from(cfg.engine.trials));
    let outcome = transfer::run(&cfg, &store, &mut progress, &crate::stop::STOP);
    progress.finish();
    let outcome = outcome?;
    if let Some(code) = super::stopped_before_measuring(&store, outcome.run_id)? {
        return Ok(code);
    }
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(args.json);
    let printed = if args.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(
            out,
            "{}",
            toll_report::transfer::render(&transfer::report::view(&cfg, &outcome))
        )
        .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    // A reader that stopped early (`| head`) is no reason to skip the plot or the status.
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &args.plot {
        let title = format!(
            "toll transfer — run {}, {}",
            run.id,
            outcome.placement.describe()
        );
        let chart = toll_report::plot::Chart::for_run(&run).titled(title);
        super::plot::draw(path, chart, &args.scale.plot_scale)?;
    }
    // What the store holds, not what this process meant to write: a full
    // disk may have kept more (or fewer) points than the sweep finished.
    let stored = store.load_run(outcome.run_id).unwrap_or(run);
    let points: usize = stored
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|p| p.status == toll_store::PointStatus::Ok)
        .count();
    let failures: Vec<&str> = outcome
        .series
        .iter()
        .filter_map(|s| s.failure.as_deref())
        .collect();
    match outcome.error {
        Some(e) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} with {points} measured points (`toll show {}`)",
            outcome.run_id,
            stored.status.as_str(),
            outcome.run_id
        )),
        None if crate::stop::stopped() => {
            crate::tell!(
                "interrupted: run {} stored as {} with {points} measured points",
                outcome.run_id,
                stored.status.as_str()
            );
            Ok(crate::stop::exit_code())
        }
        None if !failures.is_empty() => Err(anyhow::anyhow!(
            "{} — run {} stored as {} with {points} measured points (`toll show {}`)",
            failures.join("; "),
            outcome.run_id,
            stored.status.as_str(),
            outcome.run_id
        )),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// `--dry-run`: the toolchains are there, and this is what would be measured.
fn dry(
    cfg: &TransferConfig,
    pairs: &[(toll_peers::Runtime, Transport)],
    db: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    if let Some(p) = db {
        db::check_name(p)?;
    }
    // A far peer's toolchain is the far host's business (the agent prepares it).
    if cfg.far.is_none() {
        for peer in &cfg.peers {
            peer.detect()?;
        }
    }
    let series: Vec<String> = pairs.iter().map(|(p, t)| format!("{p}/{t}")).collect();
    crate::say!(
        "would measure {} series ({}) at {} sizes ({}…{} items), {} trials each, placement {}",
        series.len(),
        series.join(", "),
        cfg.sizes.len(),
        cfg.sizes[0],
        cfg.sizes[cfg.sizes.len() - 1],
        cfg.engine.trials,
        cfg.pin
    );
    crate::say!("{}", estimate(cfg, pairs.len()));
    Ok(ExitCode::SUCCESS)
}

/// How long the run would measure: every series' sizes × rounds × batch
/// time, plus each size's warm-up; with `--ci`, up to `--max-time` a series.
/// Start-up (building workers, starting peers) comes on top.
fn estimate(cfg: &TransferConfig, series: usize) -> String {
    let e = &cfg.engine;
    let sizes = cfg.sizes.len() as u32;
    let one = (e.warmup + e.batch_time * e.trials) * sizes;
    let total = one * series as u32;
    let mut line = format!(
        "it would take about {} ({series} series × {sizes} sizes × ({} rounds × {} batches + {} warm-up)), plus start-up",
        crate::values::about(total),
        e.trials,
        crate::values::about(e.batch_time),
        crate::values::about(e.warmup),
    );
    if cfg.ci_target.is_some() && cfg.max_time > one {
        line.push_str(&format!(
            "; --ci may add rounds: up to {} in all",
            crate::values::about(cfg.max_time * series as u32)
        ));
    }
    line
}
