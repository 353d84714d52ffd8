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
use toll_families::replicate::{self, Ctx, Experiment, Preset, Report};
use toll_families::Observer;
use toll_measure::Summary;

/// A spinner naming the series being measured; notes and warnings above it.
pub(super) struct Spinner(pub(super) ProgressBar);

impl Spinner {
    pub(super) fn new() -> Spinner {
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
        self.0.suspend(|| crate::tell!("warning: {message}"));
    }
    fn note(&mut self, message: &str) {
        self.0.suspend(|| crate::tell!("note: {message}"));
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
    let port = a.port;
    // E5's servers take one port each from --port: all must be free.
    if let (Some(first), true) = (port, experiments.contains(&Experiment::E5)) {
        replicate::web::check_ports(first, replicate::e5::servers_needed(preset)).map_err(usage)?;
    }
    if let Some(page) = &a.html {
        super::report::check_writable(page, "--html")?;
    }
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        for e in &experiments {
            crate::say!(
                "would replicate {} ({}) with the {} preset",
                e.name(),
                e.title(),
                preset.name()
            );
        }
        if let Some(page) = &a.html {
            crate::say!("would write the tables as one page to {}", page.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db_path)?;
    let stop = super::http_load::stop_flag();
    let scratch = toll_peers::scratch::path("replicate")?;
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
            port,
        };
        let report = match replicate::run(e, &mut ctx) {
            Ok(r) => r,
            Err(err) => {
                spinner.0.finish_and_clear();
                let _ = std::fs::remove_dir_all(&scratch);
                // The tables stored before it still make their page.
                if let Some(page) = &a.html {
                    let _ = write_page(&store, &reports, page);
                }
                return Err(err.into());
            }
        };
        if !a.json {
            let text = render(&store, &report)?;
            spinner.0.suspend(|| {
                let mut out = crate::screen::stdout();
                let _ = write!(out, "{text}");
                let _ = out.flush();
            });
        }
        reports.push(report);
    }
    spinner.0.finish_and_clear();
    let _ = std::fs::remove_dir_all(&scratch);
    if let Some(page) = &a.html {
        write_page(&store, &reports, page)?;
    }
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
        crate::tell!("interrupted: what was measured is stored, the tables as partial");
        return Ok(crate::stop::exit_code());
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

/// This run's tables, partial ones too, as one page: exactly the
/// experiments measured now, whatever else the store holds.
fn write_page(store: &toll_store::Store, reports: &[Report], page: &Path) -> anyhow::Result<()> {
    let ids: Vec<i64> = reports.iter().filter_map(|r| r.run_id).collect();
    if ids.is_empty() {
        crate::tell!(
            "no table was stored, so no page written to {}",
            page.display()
        );
        return Ok(());
    }
    let runs = ids
        .iter()
        .map(|&id| store.load_run(id))
        .collect::<Result<Vec<_>, _>>()?;
    super::report::write_html(store, &runs, page)?;
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    crate::tell!(
        "the page to look at: {} (`toll report {} -o FILE` writes it again)",
        page.display(),
        ids.join(" ")
    );
    Ok(())
}

/// One experiment's table as stored, and where.
fn render(store: &toll_store::Store, r: &Report) -> anyhow::Result<String> {
    let Some(id) = r.run_id else {
        return Ok(String::new());
    };
    let run = store.load_run(id)?;
    let mut s = toll_report::replicate::render(&run.config);
    let runs: Vec<String> = r.runs.iter().map(i64::to_string).collect();
    s.push_str(&format!(
        "{}; the family runs ({}) carry \"replicate\": \"{}\"\n\n",
        db::stored_line(store, id, run.status),
        if runs.is_empty() {
            "none".into()
        } else {
            runs.join(", ")
        },
        r.experiment.name()
    ));
    Ok(s)
}
