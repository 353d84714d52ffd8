//! `toll sys`: check the crossings, CPUs and sizes before anything is
//! measured (one line each), measure the crossings under every other one,
//! print each with its interval, the fitted ones as α + β·n, the handoff
//! matrix and the memory staircase.

use super::db;
use crate::args::SysArgs;
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::sys::{self, Crossing, SysConfig};
use toll_measure::EngineConfig;
use toll_report::plot::{Scale, SysCharts};
use toll_store::RunStatus;

/// `toll sys`.
pub fn run(args: SysArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    super::few_rounds_note("--trials", args.trials as usize);
    let planned = sys::plan(&cfg);
    if dry_run {
        if let Some(p) = db {
            db::check_name(p)?;
        }
        let labels: Vec<&str> = planned.iter().map(|p| p.label.as_str()).collect();
        crate::say!(
            "would measure {} series ({}), {} rounds each; the chase up to {} bytes",
            planned.len(),
            labels.join(", "),
            cfg.engine.trials,
            cfg.memory_top
        );
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db)?;
    crate::stop::install();
    let trials: usize = planned.iter().map(|p| p.ns.len()).sum();
    let mut progress = Progress::new(trials as u64 * u64::from(cfg.engine.trials));
    let outcome = sys::run(&cfg, &store, &mut progress, &crate::stop::STOP);
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
        write!(out, "{}", toll_report::sys::render(&run)).and_then(|_| {
            writeln!(
                out,
                "{}",
                db::stored_line(&store, outcome.run_id, outcome.status)
            )
        })
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &args.plot {
        draw(&run, path)?;
    }
    match outcome.status {
        RunStatus::Partial if crate::stop::stopped() => {
            crate::tell!("interrupted: run {} stored as partial", outcome.run_id);
            Ok(crate::stop::exit_code())
        }
        RunStatus::Complete => Ok(ExitCode::SUCCESS),
        status => {
            crate::tell!(
                "toll: {} — run {} stored as {} (`toll show {}`)",
                run.error.as_deref().unwrap_or("some points failed"),
                outcome.run_id,
                status.as_str(),
                outcome.run_id
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `--plot`: the figures as dots, the handoff matrix, the memory staircase
/// and the fitted t(n), one SVG; what the run lacks is left out.
fn draw(run: &toll_store::Run, path: &Path) -> anyhow::Result<()> {
    let charts = SysCharts::for_run(run).expect("a sys run");
    charts
        .write(path, Scale::Log)
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
    crate::tell!("plot written to {}", path.display());
    Ok(())
}

fn config(a: &SysArgs) -> anyhow::Result<SysConfig> {
    let only: Vec<Crossing> = match a.only.as_deref() {
        None => Crossing::ALL.to_vec(),
        Some(text) => {
            let words: Vec<&str> = text
                .split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .collect();
            if words.is_empty() {
                return Err(usage("--only is empty: give a comma-separated list"));
            }
            let mut v = Vec::new();
            for w in words {
                v.push(
                    w.parse::<Crossing>()
                        .map_err(|e| usage(format!("--only: {e}")))?,
                );
            }
            v.sort();
            v.dedup();
            v
        }
    };
    let allowed = sys::allowed_cpus();
    let cpus = match a.cpus.as_deref() {
        None => allowed.clone(),
        Some(text) => {
            let mut v = Vec::new();
            for w in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                let c: usize = w
                    .parse()
                    .map_err(|_| usage(format!("--cpus `{w}` is not a CPU number")))?;
                if !allowed.contains(&c) {
                    return Err(usage(format!(
                        "--cpus {c}: this process may run on CPUs {} only",
                        allowed
                            .iter()
                            .map(usize::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                v.push(c);
            }
            if v.is_empty() {
                return Err(usage("--cpus is empty: give a comma-separated list"));
            }
            v.dedup();
            v
        }
    };
    let memory_top = a.memory_max.unwrap_or_else(sys::default_memory_top);
    let free = available_bytes();
    if let Some(free) = free.filter(|&f| memory_top > f / 2) {
        return Err(usage(format!(
            "--memory-max {memory_top}: the chase holds its largest working set, and this machine has {} MiB free: give at most half of that",
            free >> 20
        )));
    }
    Ok(SysConfig {
        only,
        engine: EngineConfig {
            trials: a.trials,
            warmup: Duration::from_millis(a.warmup_ms),
            batch_time: Duration::from_millis(a.batch_ms),
            ..EngineConfig::default()
        },
        pages: a.pages.0.clone(),
        copy_sizes: a.copy_sizes.0.clone(),
        memory_top,
        memory_sizes: None,
        cpus,
    })
}

/// MemAvailable, bytes.
fn available_bytes() -> Option<u64> {
    let t = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = t.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? << 10)
}
