//! `toll replicate E1…E5|all`: run each seed experiment's design (in
//! toll_families::replicate), then print its table — the original figure,
//! this machine's with its 95% CI, the ratio — and the seed's lessons as
//! this machine's figures judge them.

use super::db;
use crate::args::ReplicateArgs;
use crate::usage::usage;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::replicate::findings::num;
use toll_families::replicate::{self, Ctx, Preset, Report};
use toll_families::Observer;
use toll_measure::Summary;
use toll_report::table::Table;

/// A spinner naming the series being measured; notes and warnings above it.
struct Spinner(ProgressBar);

impl Spinner {
    fn new() -> Spinner {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        Spinner(bar)
    }
}

impl Observer for Spinner {
    fn series_started(&mut self, label: &str, _points: usize) {
        self.0.set_message(label.to_string());
    }
    fn point_done(&mut self, label: &str, n: u64, _summary: &Summary) {
        self.0.set_message(format!("{label} n={n}"));
    }
    fn warning(&mut self, message: &str) {
        self.0.suspend(|| eprintln!("warning: {message}"));
    }
    fn note(&mut self, message: &str) {
        self.0.suspend(|| eprintln!("note: {message}"));
    }
}

pub fn run(a: ReplicateArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let experiments =
        replicate::parse_experiments(&a.experiments).map_err(|e| usage(e.to_string()))?;
    let preset = match (a.quick, a.test_preset) {
        (_, true) => Preset::Test,
        (true, false) => Preset::Quick,
        (false, false) => Preset::Full,
    };
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        for e in &experiments {
            println!(
                "would replicate {} ({}) with the {} preset",
                e.name(),
                e.title(),
                preset.name()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db_path)?;
    let stop = super::http::stop_flag();
    let scratch = std::env::temp_dir().join(format!("toll-replicate-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let mut spinner = Spinner::new();
    let mut reports = Vec::new();
    for &e in &experiments {
        spinner
            .0
            .set_message(format!("{}: {}", e.name(), e.title()));
        let mut ctx = Ctx {
            store: &store,
            observer: &mut spinner,
            stop: &stop,
            preset,
            scratch: scratch.clone(),
        };
        let report = replicate::run(e, &mut ctx);
        let report = match report {
            Ok(r) => r,
            Err(err) => {
                let _ = std::fs::remove_dir_all(&scratch);
                return Err(err.into());
            }
        };
        if !a.json {
            spinner.0.suspend(|| {
                let mut out = std::io::stdout().lock();
                let _ = write!(out, "{}", render(&report));
                let _ = out.flush();
            });
        }
        reports.push(report);
    }
    spinner.0.finish_and_clear();
    let _ = std::fs::remove_dir_all(&scratch);
    if a.json {
        let mut out = std::io::stdout().lock();
        let runs: Vec<serde_json::Value> = reports
            .iter()
            .filter_map(|r| r.run_id)
            .map(|id| store.load_run(id).map(|run| run.config))
            .collect::<Result<_, _>>()?;
        serde_json::to_writer_pretty(&mut out, &runs)?;
        writeln!(out)?;
    }
    let stopped = stop.load(std::sync::atomic::Ordering::Relaxed);
    let failed: Vec<&Report> = reports.iter().filter(|r| !r.errors.is_empty()).collect();
    if stopped {
        eprintln!("interrupted: what was measured is stored, the tables as partial");
        return Ok(ExitCode::from(130));
    }
    if !failed.is_empty() {
        let names: Vec<String> = failed
            .iter()
            .map(|r| {
                format!(
                    "{} (run {})",
                    r.experiment.name(),
                    r.run_id.unwrap_or_default()
                )
            })
            .collect();
        anyhow::bail!(
            "a family failed in {}: the rest was measured and stored, those tables as partial (their errors are under each table)",
            names.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One experiment's table, findings and where it is stored.
pub fn render(r: &Report) -> String {
    let mut s = format!(
        "{} — {}\n{}\n\n",
        r.experiment.name(),
        r.experiment.title(),
        r.design
    );
    let mut t = Table::new(&[
        "subject",
        "figure",
        "original",
        "this machine",
        "95% CI",
        "ratio",
        "ratio 95% CI",
    ]);
    for row in &r.rows {
        let unit = |v: f64| format!("{} {}", num(v), row.unit);
        let original = match &row.original {
            Ok(o) if o.text.is_empty() => unit(o.value),
            Ok(o) => o.text.to_string(),
            Err(why) => format!("– ({why})"),
        };
        let (mine, ci) = match &row.measured {
            Ok(f) => (unit(f.value), format!("[{}, {}]", num(f.lo), num(f.hi))),
            Err(why) => (format!("– ({why})"), "–".into()),
        };
        let (ratio, ratio_ci) = match row.ratio() {
            Ok(q) => (
                format!("{}×", num(q.value)),
                format!("[{}, {}]", num(q.lo), num(q.hi)),
            ),
            Err(_) => ("–".into(), "–".into()),
        };
        t.row(vec![
            row.subject.clone(),
            row.figure.clone(),
            original,
            mine,
            ci,
            ratio,
            ratio_ci,
        ]);
    }
    s.push_str(&t.render());
    s.push_str("ratio = this machine ÷ original; originals from ");
    s.push_str(replicate::originals::SOURCE);
    s.push_str("\n\nfindings:\n");
    for f in &r.findings {
        s.push_str(&format!("  {}\n", f.text));
    }
    for e in &r.errors {
        s.push_str(&format!("error: {e}\n"));
    }
    if let Some(id) = r.run_id {
        let runs: Vec<String> = r.runs.iter().map(i64::to_string).collect();
        s.push_str(&format!(
            "stored as run {id}{} — `toll show {id}`; the family runs ({}) carry \"replicate\": \"{}\"\n\n",
            if r.partial { " (partial)" } else { "" },
            if runs.is_empty() { "none".into() } else { runs.join(", ") },
            r.experiment.name()
        ));
    }
    s
}
