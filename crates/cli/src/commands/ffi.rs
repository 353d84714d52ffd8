//! `toll ffi`: validate the arguments (bindings, sizes, the C compiler)
//! before anything is measured, run the sweep, print α and β per
//! (runtime, binding).

use super::db;
use crate::args::FfiArgs;
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::ffi::{self, FfiConfig};
use toll_measure::EngineConfig;
use toll_peers::{Ceiling, Runtime};
use toll_store::RunStatus;

/// A batch's time ceiling: a batch is sized to `--batch-ms`, so one that
/// takes this long has hung.
const BATCH_CEILING: Duration = Duration::from_secs(120);

/// `toll ffi`.
pub fn run(args: FfiArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    super::design_note(
        "--trials",
        args.trials as usize,
        "--sizes",
        Some(cfg.sizes.len()),
    );
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args, db)
}

/// `n` bytes as a person reads them: 100 GiB, 1.5 MiB, 512 B.
fn iec(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut v, mut u) = (n as f64, 0);
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 || v.fract() == 0.0 {
        format!("{v:.0} {}", units[u])
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// Every call passes a buffer of its size, made in the worker: a size over
/// the memory ceiling, or over what this machine has free, would only fail
/// in the worker after the others had been measured.
fn fits_in_memory(sizes: &[u64], max_mem_mib: u64) -> anyhow::Result<()> {
    let top = sizes.iter().copied().max().unwrap_or(0);
    let shown = iec(top);
    if top > max_mem_mib << 20 {
        return Err(usage(format!(
            "--sizes {shown}: one call passes a buffer of that size, above --max-mem {max_mem_mib} MiB: give smaller sizes, or raise --max-mem"
        )));
    }
    let free = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kb| kb << 10);
    if let Some(free) = free.filter(|&f| top > f) {
        return Err(usage(format!(
            "--sizes {shown}: one call passes a buffer of that size, and this machine has {} free: give smaller sizes",
            iec(free)
        )));
    }
    Ok(())
}

fn config(a: &FfiArgs) -> anyhow::Result<FfiConfig> {
    // `all` is every runtime with bindings, whether or not this machine has
    // it: one it lacks is a row with its install command.
    let runtimes = if a.runtime.trim() == "all" {
        ffi::runtimes_with_bindings()
    } else {
        super::runtimes::parse(&a.runtime, "--runtime", "runtime")?
    };
    let bindings: Option<Vec<String>> = a.binding.as_deref().map(|b| {
        b.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    if bindings.as_ref().is_some_and(Vec::is_empty) {
        return Err(usage("--binding is empty: give a comma-separated list"));
    }
    let mut passes = a.pass.0.clone();
    if a.callback {
        passes.push(toll_peers::Pass::Callback);
    }
    let targets = ffi::select(&runtimes, bindings.as_deref(), &passes, &a.sizes.0)
        .map_err(|e| usage(e.to_string()))?;
    fits_in_memory(&a.sizes.0, a.max_mem)?;
    // Every binding calls the shared C side: without a compiler, nothing runs.
    Runtime::C.detect()?;
    Ok(FfiConfig {
        sizes: a.sizes.0.clone(),
        targets,
        touch: a.touch,
        engine: EngineConfig {
            trials: a.trials,
            warmup: Duration::from_millis(a.warmup_ms),
            batch_time: Duration::from_millis(a.batch_ms),
            ..EngineConfig::default()
        },
        ceiling: Ceiling {
            time: BATCH_CEILING,
            mem_kb: a.max_mem * 1024,
        },
        vs_link: a.vs_link,
    })
}

/// `--dry-run`: what would be measured, and which rows would say what to install.
fn dry(cfg: &FfiConfig, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(p) = db {
        db::check_name(p)?;
    }
    let series: Vec<String> = cfg.targets.iter().map(|t| t.label()).collect();
    if cfg.vs_link {
        let names: Vec<&str> = runtimes(cfg).iter().map(|r| r.name()).collect();
        crate::say!(
            "--vs-link: then each runtime's empty round trip over each of its links, both ends on one core ({})",
            names.join(", ")
        );
    }
    let sizes: Vec<String> = cfg.sizes.iter().map(u64::to_string).collect();
    crate::say!(
        "would measure {} series ({}) at {} bytes per call, {} rounds each",
        series.len(),
        series.join(", "),
        sizes.join(", "),
        cfg.engine.trials
    );
    for t in &cfg.targets {
        if let Err(e) = t.runtime.detect() {
            crate::say!("{}: not available here: {e}", t.label());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--plot`: α per series as dots above β per binding and way, one SVG.
fn draw(run: &toll_store::Run, path: &Path) -> anyhow::Result<()> {
    let charts = toll_report::plot::FfiCharts::for_run(run).expect("an ffi run");
    charts
        .write(path)
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
    crate::tell!("plot written to {}", path.display());
    Ok(())
}

/// The runtimes of the targets, in order, once each.
fn runtimes(cfg: &FfiConfig) -> Vec<Runtime> {
    let mut out: Vec<Runtime> = Vec::new();
    for t in &cfg.targets {
        if !out.contains(&t.runtime) {
            out.push(t.runtime);
        }
    }
    out
}

fn measure(cfg: FfiConfig, a: &FfiArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open(db)?;
    crate::stop::install();
    // --vs-link adds a trial per link a round for each runtime.
    let links: usize = match cfg.vs_link {
        true => runtimes(&cfg).iter().map(|r| r.transports().len()).sum(),
        false => 0,
    };
    let trials = (cfg.targets.len() * cfg.sizes.len() + links) as u64;
    let mut progress = Progress::new(trials * u64::from(cfg.engine.trials));
    let outcome = ffi::run(&cfg, &store, &mut progress, &crate::stop::STOP);
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
            toll_report::ffi::render(&ffi::report::view(&cfg, &outcome))
        )
        .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &a.plot {
        draw(&run, path)?;
    }
    match outcome.error {
        Some(e) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} (`toll show {}`)",
            outcome.run_id,
            outcome.status.as_str(),
            outcome.run_id
        )),
        None if outcome.status == RunStatus::Partial && crate::stop::stopped() => {
            crate::tell!("interrupted: run {} stored as partial", outcome.run_id);
            Ok(crate::stop::exit_code())
        }
        None if outcome.status != RunStatus::Complete => {
            crate::tell!(
                "toll: {} — run {} stored as {} (`toll show {}`)",
                run.error.as_deref().unwrap_or("some points failed"),
                outcome.run_id,
                outcome.status.as_str(),
                outcome.run_id
            );
            Ok(ExitCode::FAILURE)
        }
        None => Ok(ExitCode::SUCCESS),
    }
}
