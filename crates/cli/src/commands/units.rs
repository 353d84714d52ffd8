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
use toll_families::units::{self, UnitOp, UnitSeries, UnitsConfig, UnitsOutcome};
use toll_measure::decision::{Sign, Verdict};
use toll_peers::Ceiling;
use toll_report::table::Table;
use toll_store::RunStatus;

/// -m without -n e2 (E2's is 1000).
const ROUNDS: u64 = 100;
const E2_ROUNDS: u64 = 1000;

/// `toll spawn`.
pub fn spawn(args: SpawnArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let ns = below_ceiling(args.n.ns.clone(), &args.common)?;
    let cfg = config(UnitOp::Spawn, ns, &args.common)?;
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
        write!(out, "{}", render(&cfg, &outcome))
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

/// The results: one row per (runtime, unit, N), then the fitted models.
fn render(cfg: &UnitsConfig, outcome: &UnitsOutcome) -> String {
    let ns: Vec<String> = cfg.ns.iter().map(u64::to_string).collect();
    let mut s = match cfg.op {
        UnitOp::Spawn => format!("toll spawn: N = {}", ns.join(", ")),
        UnitOp::Ring { m } => format!("toll ring: N = {}, M = {m} rounds", ns.join(", ")),
    };
    s.push_str(&format!(
        "; {} rounds (every N once a round, shuffled); ceilings per point {} s, {} MiB\n\n",
        cfg.trials,
        cfg.ceiling.time.as_secs_f64(),
        cfg.ceiling.mem_kb / 1024
    ));
    let mut t = match cfg.op {
        UnitOp::Spawn => Table::new(&[
            "runtime", "unit", "class", "N", "µs/unit", "95% CI", "KB/unit", "total ms",
        ]),
        UnitOp::Ring { .. } => Table::new(&[
            "runtime", "unit", "class", "N", "ns/hop", "95% CI", "total ms", "95% CI",
        ]),
    };
    let mut notes = Vec::new();
    for series in &outcome.series {
        for p in &series.points {
            let mut cells = vec![
                series.target.runtime.to_string(),
                series.target.unit.to_string(),
                series.target.class().name().to_string(),
                p.n.to_string(),
            ];
            match &p.result {
                Ok(f) => match cfg.op {
                    UnitOp::Spawn => cells.extend([
                        format!("{:.3}", f.per_op.median / 1e3),
                        ci(&f.per_op, 1e3, 3),
                        f.mem_kb_per_unit
                            .map(|k| format!("{k:.2}"))
                            .unwrap_or_else(|| "–".into()),
                        format!("{:.1}", f.total.median / 1e6),
                    ]),
                    UnitOp::Ring { .. } => cells.extend([
                        format!("{:.0}", f.per_op.median),
                        ci(&f.per_op, 1.0, 0),
                        format!("{:.1}", f.total.median / 1e6),
                        ci(&f.total, 1e6, 1),
                    ]),
                },
                Err(why) => {
                    let word = if why.starts_with("not tried") {
                        "not tried"
                    } else {
                        "failed"
                    };
                    cells.extend([word.into(), "–".into(), "–".into(), "–".into()]);
                }
            }
            t.row(cells);
            if let Ok(f) = &p.result {
                if f.per_op.count < cfg.trials as usize {
                    notes.push(format!(
                        "{} at N = {}: {} of {} trials fitted in the time ceiling",
                        series.target.label(),
                        p.n,
                        f.per_op.count,
                        cfg.trials
                    ));
                }
            }
        }
        series_notes(cfg.op, series, &mut notes);
    }
    s.push_str(&t.render());
    s.push_str(&models(cfg.op, &outcome.series));
    if matches!(cfg.op, UnitOp::Spawn) {
        s.push_str(&toll_families::units::memory::legend(&outcome.series));
    }
    for n in notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// A median's 95% CI scaled by `scale`, or a dash where one trial gave no
/// spread to speak of.
fn ci(m: &toll_measure::Summary, scale: f64, digits: usize) -> String {
    if m.count < 2 {
        return "–".into();
    }
    format!(
        "[{:.*}, {:.*}]",
        digits,
        m.ci_low / scale,
        digits,
        m.ci_high / scale
    )
}

fn series_notes(op: UnitOp, series: &UnitSeries, notes: &mut Vec<String>) {
    let label = series.target.label();
    if let Some((n, reason)) = series.first_failure() {
        notes.push(format!("{label} failed at N = {n}: {reason}"));
    }
    if let Some((n, ratio)) = series.knee {
        notes.push(format!(
            "{label}: a knee: the cost per {} rises {ratio:.1}× by N = {n:.0}",
            op.per()
        ));
    }
}

/// The model t(N) = α + β·N of each series.
fn models(op: UnitOp, series: &[UnitSeries]) -> String {
    let fitted: Vec<_> = series
        .iter()
        .filter_map(|s| s.fit.as_ref().map(|f| (s, f)))
        .collect();
    if fitted.is_empty() {
        return String::new();
    }
    let (what, beta) = match op {
        UnitOp::Spawn => ("t(N) = α + β·N, the time to make N units", "β µs/unit"),
        UnitOp::Ring { .. } => ("t(N) = α + β·N, the time of one round", "β ns/hop"),
    };
    let widened = fitted
        .iter()
        .filter_map(|(_, f)| f.decision.as_ref())
        .any(|d| d.widened);
    let (a_ci, b_ci) = toll_report::decided::ci_headings(widened);
    let mut t = Table::new(&["runtime", "unit", "α µs", &a_ci, beta, &b_ci, "fit"]);
    let (scale, digits) = match op {
        UnitOp::Spawn => (1e3, 3),
        UnitOp::Ring { .. } => (1.0, 1),
    };
    let mut below_zero = Vec::new();
    let (mut noisy_rows, mut busy_rows) = (Vec::new(), Vec::new());
    let mut near_zero = false;
    for (s, f) in fitted {
        // The stored decision: its model, verdict and figures.
        let Some(d) = f.decision.as_ref() else {
            continue;
        };
        if d.verdict == Verdict::Noisy {
            noisy_rows.push(s.target.label());
        }
        if d.busy {
            busy_rows.push(format!(
                "{} ({:.0}%{})",
                s.target.label(),
                s.others_busy * 100.0,
                s.busiest
                    .as_ref()
                    .map(|(name, _)| format!(", busiest {name}"))
                    .unwrap_or_default()
            ));
        }
        match d.alpha.sign {
            Sign::BelowZero => below_zero.push(s.target.label()),
            Sign::NearZero => near_zero = true,
            Sign::Positive => {}
        }
        near_zero |= d.beta.sign != Sign::Positive;
        let (a_cell, a_ci) = toll_report::decided::cells(&d.alpha, |v| format!("{:.1}", v / 1e3));
        let (b_cell, b_ci) =
            toll_report::decided::cells(&d.beta, |v| format!("{:.*}", digits, v / scale));
        t.row(vec![
            s.target.runtime.to_string(),
            s.target.unit.to_string(),
            a_cell,
            a_ci,
            b_cell,
            b_ci,
            d.words(),
        ]);
    }
    let mut out = format!("\nmodel {what}:\n{}", t.render());
    out.push_str("fit: ok = one line fits every N within its noise; curve = it does not (α and β from the two segments of a broken line); noisy = the spread is too wide to trust (β's CI reaches 0); busy = other processes used over a quarter of the CPUs while it was measured\n");
    out.push_str(&toll_report::legend::run_to_run(
        series.iter().filter_map(|s| s.fit.as_ref()),
    ));
    if !noisy_rows.is_empty() {
        out.push_str(&format!(
            "note: noisy rows: {}: more --trials or a quieter machine would narrow them\n",
            noisy_rows.join(", ")
        ));
    }
    if !busy_rows.is_empty() {
        out.push_str(&format!(
            "note: busy rows (share of all CPUs others used): {}; let that work finish and run again\n",
            busy_rows.join(", ")
        ));
    }
    if near_zero {
        out.push_str(toll_report::decided::NEAR_ZERO_LEGEND);
        out.push('\n');
    }
    if !below_zero.is_empty() {
        out.push_str(&format!(
            "note: α below 0 for {}: the line describes the Ns measured, not the fixed cost near N = 0 (add smaller Ns to measure it)\n",
            below_zero.join(", ")
        ));
    }
    out
}
