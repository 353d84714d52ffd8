//! `toll exec CMD…`: parse → options → plan → run → compare → export, as
//! hyperfine's main reads. The measuring lives in toll_families::exec; this
//! validates the flags, shows progress, prints the report, writes the
//! exports and the plot, and compares with a stored baseline.

use super::db;
use crate::args::{ExecArgs, MOST_RUNS};
use crate::usage::usage;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::exec::{self, stats, ExecConfig, ExecError, Parameter, RunCount};
use toll_families::Observer;
use toll_measure::decision::MIN_SIZES;
use toll_report::exec::ExecReport;
use toll_store::{RunStatus, Store};

fn family_error(e: ExecError) -> anyhow::Error {
    match e {
        ExecError::Usage(m) | ExecError::BadParameter(m) => usage(m),
        ExecError::NotFound { .. } => usage(e.to_string()),
        other => other.into(),
    }
}

fn config(a: &ExecArgs) -> anyhow::Result<ExecConfig> {
    let min = a.min_runs;
    let runs = match (a.runs, a.max_runs) {
        (Some(r), None) => RunCount::Exact(r),
        (Some(_), Some(_)) => {
            return Err(usage(
                "--runs fixes the count, so --max-runs has no say: give one of them",
            ))
        }
        (None, max) => {
            let max = max.unwrap_or(MOST_RUNS as usize);
            if max < min {
                return Err(usage(format!(
                    "--max-runs {max} is below --min-runs {min}: raise --max-runs"
                )));
            }
            RunCount::Auto { min, max }
        }
    };
    let mut params = Vec::new();
    for pair in a.parameter_list.chunks(2) {
        params.push(Parameter::list(&pair[0], &pair[1]).map_err(family_error)?);
    }
    if let [name, lo, hi] = a.parameter_scan.as_slice() {
        params.push(Parameter::scan(name, lo, hi, a.step.as_deref()).map_err(family_error)?);
    }
    if let Some(p) = &a.input {
        if !p.is_file() {
            return Err(usage(format!(
                "--input {}: no such file: give a file for the commands to read",
                p.display()
            )));
        }
    }
    if let Some(cpu) = a.pin {
        exec::check_pin(cpu).map_err(family_error)?;
    }
    if a.command_names.len() > a.commands.len() {
        return Err(usage(format!(
            "{} --command-name for {} commands: give at most one name per command",
            a.command_names.len(),
            a.commands.len()
        )));
    }
    if a.shell.trim().is_empty() {
        return Err(usage(
            "--shell is empty: give a shell such as sh or bash, or -N for none",
        ));
    }
    Ok(ExecConfig {
        commands: a.commands.clone(),
        names: (0..a.commands.len())
            .map(|i| a.command_names.get(i).cloned())
            .collect(),
        params,
        shell: (!a.no_shell).then(|| a.shell.clone()),
        warmup: a.warmup,
        runs,
        ci_target: a.ci,
        max_time: a.max_time,
        prepare: a.prepare.clone(),
        setup: a.setup.clone(),
        cleanup: a.cleanup.clone(),
        ignore_failure: a.ignore_failure,
        input: a.input.clone(),
        output: a.output.clone(),
        pin: a.pin,
        order: a.order,
        launch: a.launch,
    })
}

/// A spinner with the round count (hidden when stderr is not a terminal).
struct Bar(ProgressBar);

impl Observer for Bar {
    fn round_done(&mut self, _label: &str, round: usize) {
        self.0.set_message(format!("round {round} done"));
        self.0.tick();
    }
    fn warning(&mut self, message: &str) {
        self.0.suspend(|| crate::tell!("warning: {message}"));
    }
    fn note(&mut self, message: &str) {
        self.0.set_message(message.to_string());
    }
}

/// `toll exec`.
pub fn run(a: ExecArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&a)?;
    let (benches, _) = exec::plan(&cfg).map_err(family_error)?;
    if cfg.shell.is_none() {
        exec::check_programs(&benches).map_err(family_error)?;
    }
    if let Some(b) = &a.baseline {
        db::check_run_ref(Some(b))?;
    }
    if a.plot.is_some() {
        check_plot(&benches, &a.scale.plot_scale)?;
    }
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        crate::say!(
            "would time {} command{} ({}){}",
            benches.len(),
            if benches.len() == 1 { "" } else { "s" },
            benches
                .iter()
                .map(|b| b.command.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            match &cfg.shell {
                Some(sh) => format!(" through {sh}, its start-up subtracted"),
                None => " without a shell".into(),
            }
        );
        crate::say!("{}", length(&cfg, benches.len()));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(runs) = a.runs {
        super::few_rounds_note("--runs", runs);
    }
    let store = db::open(db_path)?;
    let baseline = a
        .baseline
        .as_deref()
        .map(|b| load_baseline(&store, b))
        .transpose()?;
    crate::stop::install();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("valid"),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut observer = Bar(bar);
    let outcome = exec::run(&cfg, &store, &mut observer, &crate::stop::STOP);
    observer.0.finish_and_clear();
    let mut outcome = outcome.map_err(family_error)?;
    // A command that cannot start measured nothing: keep no run of it (it
    // would only fill `toll runs` and the board), and say why.
    let measured = outcome.runs.iter().any(|r| !r.is_empty());
    if !measured
        && matches!(
            outcome.error,
            Some(ExecError::NotFound { .. } | ExecError::Spawn { .. })
        )
    {
        store.remove_run(outcome.run_id)?;
        let e = outcome.error.take().expect("matched above");
        return Err(family_error(e).context("nothing was measured or stored"));
    }
    let mut report = stats::report(&outcome, cfg.shell.as_deref());
    if let Some((id, base)) = &baseline {
        report.baseline = Some(*id);
        compare_baseline(&mut report, &outcome, base);
    }
    if let Some(why) = &outcome.counters_missing {
        let _ = why; // printed in the report's first lines
    }
    if outcome.ended == exec::Ended::OutOfTime {
        report.notes.push(format!(
            "--max-time ran out before every CI met --ci ({} rounds): raise --max-time, or accept a wider --ci",
            outcome.rounds
        ));
    }
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        write!(out, "{}", toll_report::exec::render(&report)).and_then(|_| {
            writeln!(
                out,
                "\n{}",
                db::stored_line(&store, outcome.run_id, outcome.status)
            )
        })
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if !report.benches.is_empty() {
        exports(&a, &report, &outcome)?;
    }
    if let Some(path) = &a.plot {
        plot(path, &a.scale.plot_scale, &run, &outcome)?;
    }
    let runs: usize = outcome.runs.iter().map(Vec::len).sum();
    match outcome.error {
        Some(e) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} with {runs} runs (`toll show {}`)",
            outcome.run_id,
            outcome.status.as_str(),
            outcome.run_id
        )),
        None if outcome.status == RunStatus::Partial => {
            crate::tell!(
                "interrupted: run {} stored as partial with {runs} runs",
                outcome.run_id
            );
            Ok(crate::stop::exit_code())
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The wall times of every benchmark of a stored exec run, by label.
type Baseline = Vec<(String, Vec<f64>)>;

fn load_baseline(store: &Store, text: &str) -> anyhow::Result<(i64, Baseline)> {
    let id = db::run_id(store, Some(text))?;
    let run = store.load_run(id).map_err(|e| usage(e.to_string()))?;
    if run.family != "exec" {
        return Err(usage(format!(
            "--baseline {id} is a `toll {}` run: give a `toll exec` run from `toll runs`",
            run.family
        )));
    }
    let mut out = Vec::new();
    for s in &run.series {
        for p in &s.points {
            let label = p
                .extra
                .as_ref()
                .and_then(|e| e.get("label"))
                .and_then(|l| l.as_str())
                .unwrap_or(&s.label)
                .to_string();
            out.push((label, p.samples.iter().map(|s| s.total_ns as f64).collect()));
        }
    }
    Ok((id, out))
}

fn compare_baseline(report: &mut ExecReport, o: &exec::ExecOutcome, base: &Baseline) {
    let mut matched = 0;
    for f in &mut report.benches {
        let Some((_, before)) = base.iter().find(|(l, _)| *l == f.label) else {
            continue;
        };
        let i = o.benches.iter().position(|b| b.label == f.label);
        if let Some(i) = i {
            f.vs_baseline = stats::compare(before, &exec::wall(&o.runs[i]), false);
            matched += 1;
        }
    }
    if matched == 0 {
        report.notes.push(format!(
            "baseline run {} has none of these commands: nothing to compare",
            report.baseline.unwrap_or(0)
        ));
    }
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

fn exports(a: &ExecArgs, report: &ExecReport, o: &exec::ExecOutcome) -> anyhow::Result<()> {
    let measured: Vec<usize> = (0..o.benches.len())
        .filter(|&i| !o.runs[i].is_empty())
        .collect();
    if let Some(p) = &a.export_json {
        let times: Vec<Vec<f64>> = measured.iter().map(|&i| exec::wall(&o.runs[i])).collect();
        let codes: Vec<Vec<i32>> = measured
            .iter()
            .map(|&i| o.runs[i].iter().map(|r| r.exit_code).collect())
            .collect();
        let v = toll_report::exec::hyperfine_json(report, &times, &codes);
        write_file(p, &(serde_json::to_string_pretty(&v)? + "\n"))?;
    }
    if let Some(p) = &a.export_csv {
        write_file(p, &toll_report::exec::hyperfine_csv(report))?;
    }
    if let Some(p) = &a.export_markdown {
        write_file(p, &toll_report::exec::hyperfine_markdown(report))?;
    }
    Ok(())
}

/// `--plot` before anything is measured: a line needs a numeric parameter
/// with at least [`MIN_SIZES`] values, and the scale must be one there is.
fn check_plot(benches: &[exec::Bench], scale: &str) -> anyhow::Result<()> {
    scale.parse::<toll_report::plot::Scale>().map_err(usage)?;
    let most = benches
        .iter()
        .map(|b| {
            let mut ns: Vec<u64> = benches
                .iter()
                .filter(|o| o.series == b.series)
                .filter_map(|o| o.n)
                .collect();
            ns.sort_unstable();
            ns.dedup();
            ns.len()
        })
        .max()
        .unwrap_or(0);
    if most < MIN_SIZES {
        return Err(usage(format!(
            "--plot draws t(n) over a numeric parameter of at least {MIN_SIZES} values: add -L n 1000,10000,100000 (whole numbers) and {{n}} to the command"
        )));
    }
    Ok(())
}

fn plot(
    path: &Path,
    scale: &str,
    run: &toll_store::Run,
    o: &exec::ExecOutcome,
) -> anyhow::Result<()> {
    if o.series.iter().all(|s| s.fit.is_none()) {
        return Err(usage(
            "--plot draws t(n) over a numeric parameter: add -L n 1000,10000,100000 (whole numbers) and {n} to the command",
        ));
    }
    let parameter = run
        .series
        .first()
        .and_then(|s| s.attrs.get("parameter"))
        .and_then(|p| p.as_str())
        .unwrap_or("n")
        .to_string();
    let chart = toll_report::plot::Chart::for_run(run).titled(format!(
        "toll exec — run {}: t({parameter}) = α + β·{parameter}",
        run.id
    ));
    super::plot::draw(path, chart, scale)?;
    Ok(())
}

/// What `--dry-run` can say of a run's length before any command has run:
/// hyperfine's rule gives a floor when the run count is automatic; the
/// commands' own time is the rest, and `--max-time` the bound.
fn length(cfg: &ExecConfig, commands: usize) -> String {
    let bound = crate::values::about(cfg.max_time);
    match cfg.runs {
        RunCount::Auto { min, max } => format!(
            "it would take at least {} (each command timed for {} or {min} runs, whichever is longer, at most {max} runs, after {} warm-up runs); a run stops at --max-time, {bound}",
            crate::values::about(exec::MIN_BENCH_TIME * commands as u32),
            crate::values::about(exec::MIN_BENCH_TIME),
            cfg.warmup
        ),
        RunCount::Exact(n) => format!(
            "its length is {n} runs of each command after {} warm-up runs, at the commands' own pace; a run stops at --max-time, {bound}",
            cfg.warmup
        ),
    }
}
