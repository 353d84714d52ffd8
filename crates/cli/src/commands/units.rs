//! `toll spawn` and `toll ring`: validate the arguments, run the sweep, print
//! the cost per unit or per hop at each N and the fitted model.

use super::{db, runtimes};
use crate::args::{RingArgs, SpawnArgs, UnitArgs};
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::sizes::parse_counts;
use toll_families::units::select;
use toll_families::units::{self, UnitOp, UnitsConfig};
use toll_peers::Ceiling;
use toll_store::RunStatus;

/// E2's own sizes (`-n e2`): the defaults are smaller, so a default run
/// takes about a minute.
const E2_SPAWN_NS: &str = "1000,10000,100000,300000";
const E2_RING_NS: &str = "100,1000,10000";
const E2_ROUNDS: &str = "1000";

/// The longest --max-time accepted, in seconds.
const MAX_TIME_CEILING: f64 = 86_400.0;

/// `toll spawn`.
pub fn spawn(args: SpawnArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let n_text = if args.n.trim().eq_ignore_ascii_case("e2") {
        E2_SPAWN_NS
    } else {
        args.n.as_str()
    };
    let ns = counts(n_text, "--n", 1, &args.common)?;
    let cfg = config(UnitOp::Spawn, ns, &args.common)?;
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args.common, db)
}

/// `toll ring`.
pub fn ring(args: RingArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let e2 = args.n.trim().eq_ignore_ascii_case("e2");
    let n_text = if e2 { E2_RING_NS } else { args.n.as_str() };
    let ns = counts(n_text, "--n", 2, &args.common)?;
    let m_text = args
        .m
        .as_deref()
        .unwrap_or(if e2 { E2_ROUNDS } else { "100" });
    let m = parse_counts(m_text, "--m", 1).map_err(usage)?;
    let [m] = m[..] else {
        return Err(usage("--m takes one number of rounds"));
    };
    if m > args.max_rounds {
        return Err(usage(format!(
            "--m {m} is above the ceiling of {} rounds: raise it with --max-rounds",
            args.max_rounds
        )));
    }
    let cfg = config(UnitOp::Ring { m }, ns, &args.common)?;
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args.common, db)
}

fn counts(text: &str, flag: &str, min: u64, common: &UnitArgs) -> anyhow::Result<Vec<u64>> {
    if text.trim().eq_ignore_ascii_case("e1") {
        return Err(usage(format!(
            "{flag} e1: `e1` is a preset of `toll transfer --sizes`; spawn and ring take `{flag} e2`, E2's own sizes"
        )));
    }
    let ns = parse_counts(text, flag, min).map_err(usage)?;
    let top = ns[ns.len() - 1];
    if top > common.max_units {
        return Err(usage(format!(
            "{flag} {top} is above the ceiling of {} units: raise it with --max-units",
            common.max_units
        )));
    }
    Ok(ns)
}

fn config(op: UnitOp, ns: Vec<u64>, a: &UnitArgs) -> anyhow::Result<UnitsConfig> {
    if a.trials == 0 {
        return Err(usage("--trials must be at least 1"));
    }
    let max_time = a
        .max_time
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0 && *t <= MAX_TIME_CEILING)
        .ok_or_else(|| {
            usage(format!(
                "--max-time {} is out of range: give seconds above 0 and at most {MAX_TIME_CEILING} (a day)",
                a.max_time
            ))
        })?;
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
            time: Duration::from_secs_f64(max_time),
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
        super::plot::draw(path, chart, &a.plot_scale)?;
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
