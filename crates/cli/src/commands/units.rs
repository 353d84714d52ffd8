//! `toll spawn` and `toll ring`: validate the arguments, run the sweep, print
//! the cost per unit or per hop at each N and the fitted model.

use super::{db, runtimes};
use crate::args::{RingArgs, SpawnArgs, UnitArgs};
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_families::units::select;
use toll_families::units::{self, UnitOp, UnitsConfig};
use toll_peers::Ceiling;
use toll_store::RunStatus;

/// -m without -n e2 (E2's is 1000).
const ROUNDS: u64 = 100;
const E2_ROUNDS: u64 = 1000;

/// `toll spawn`.
pub fn spawn(args: SpawnArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let ns = below_ceiling(args.n.ns.clone(), &args.common)?;
    let cfg = config(UnitOp::Spawn, ns, &args.common)?;
    super::design_note(
        "--trials",
        args.common.trials as usize,
        "-n",
        Some(cfg.ns.len()),
    );
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args.common, db)
}

/// `toll ring`.
pub fn ring(args: RingArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let ns = below_ceiling(args.n.ns.clone(), &args.common)?;
    let m = args.m.unwrap_or(if args.n.e2 { E2_ROUNDS } else { ROUNDS });
    if m > args.max_rounds {
        return Err(usage(format!(
            "--m {m} is above the ceiling of {} rounds: raise it with --max-rounds",
            args.max_rounds
        )));
    }
    let cfg = config(UnitOp::Ring { m }, ns, &args.common)?;
    super::design_note(
        "--trials",
        args.common.trials as usize,
        "-n",
        Some(cfg.ns.len()),
    );
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args.common, db)
}

/// -n within --max-units: two flags, so checked here.
fn below_ceiling(ns: Vec<u64>, common: &UnitArgs) -> anyhow::Result<Vec<u64>> {
    let top = ns[ns.len() - 1];
    if top > common.max_units {
        return Err(usage(format!(
            "--n {top} is above the ceiling of {} units: raise it with --max-units",
            common.max_units
        )));
    }
    Ok(ns)
}

fn config(op: UnitOp, ns: Vec<u64>, a: &UnitArgs) -> anyhow::Result<UnitsConfig> {
    if a.trials == 0 {
        return Err(usage("--trials must be at least 1"));
    }
    let runtimes = runtimes::parse(&a.runtime, "--runtime", "runtime")?;
    let filters: Option<Vec<String>> = a.unit.as_deref().map(|u| {
        u.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    if filters.as_ref().is_some_and(Vec::is_empty) {
        return Err(usage("--unit is empty: give a comma-separated list"));
    }
    let targets = select(&runtimes, filters.as_deref()).map_err(|e| usage(e.to_string()))?;
    Ok(UnitsConfig {
        op,
        ns,
        targets,
        trials: a.trials,
        ceiling: Ceiling {
            time: a.max_time,
            mem_kb: a.max_mem * 1024,
        },
    })
}

/// `--dry-run`: the toolchains are there, and this is what would be measured.
fn dry(cfg: &UnitsConfig, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(p) = db {
        db::check_name(p)?;
    }
    for t in &cfg.targets {
        t.runtime.detect()?;
    }
    let series: Vec<String> = cfg.targets.iter().map(|t| t.label()).collect();
    let ns: Vec<String> = cfg.ns.iter().map(u64::to_string).collect();
    crate::say!(
        "would measure {} series ({}) at N = {}, {} trials each",
        series.len(),
        series.join(", "),
        ns.join(", "),
        cfg.trials
    );
    let wanted: Vec<super::estimate::Wanted> = cfg
        .targets
        .iter()
        .map(|t| super::estimate::Wanted {
            label: t.label(),
            ns: cfg.ns.clone(),
            trials: cfg.trials,
        })
        .collect();
    let ceiling = format!(
        "a point stops at its time ceiling, {} (--max-time)",
        crate::values::about(cfg.ceiling.time)
    );
    crate::say!(
        "{}",
        super::estimate::line(db, cfg.op.family(), &wanted, &ceiling)
    );
    Ok(ExitCode::SUCCESS)
}

fn measure(cfg: UnitsConfig, a: &UnitArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open(db)?;
    crate::stop::install();
    let mut progress =
        Progress::new((cfg.targets.len() * cfg.ns.len()) as u64 * u64::from(cfg.trials));
    let outcome = units::run(&cfg, &store, &mut progress, &crate::stop::STOP);
    progress.finish();
    let outcome = outcome?;
    if let Some(code) = super::stopped_before_measuring(&store, outcome.run_id)? {
        return Ok(code);
    }
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(
            out,
            "{}",
            toll_report::units::render(&units::report::view(&cfg, &outcome))
        )
        .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &a.plot {
        let chart = toll_report::plot::Chart::for_run(&run);
        super::plot::draw(path, chart, &a.scale.plot_scale)?;
    }
    match outcome.error {
        Some(e) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} (`toll show {}`)",
            outcome.run_id,
            outcome.status.as_str(),
            outcome.run_id
        )),
        None if outcome.status == RunStatus::Partial => {
            crate::tell!("interrupted: run {} stored as partial", outcome.run_id);
            Ok(crate::stop::exit_code())
        }
        None => Ok(ExitCode::SUCCESS),
    }
}
