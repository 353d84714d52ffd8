//! `toll transfer`: validate the arguments, run the sweep, print the models.

use super::{db, runtimes};
use crate::args::TransferArgs;
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toll_families::placement::Pin;
use toll_families::sizes::parse_sizes;
use toll_families::transfer::{self, SeriesResult, TransferConfig, TransferOutcome, ITEM_BYTES};
use toll_measure::EngineConfig;
use toll_peers::Transport;
use toll_report::table::Table;
use toll_store::RunStatus;

/// Set by Ctrl-C: the run stops after the current batch and is stored as partial.
static STOP: AtomicBool = AtomicBool::new(false);

fn list<T: std::str::FromStr<Err = String>>(text: &str, flag: &str) -> anyhow::Result<Vec<T>> {
    let items: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give a comma-separated list"
        )));
    }
    items
        .iter()
        .map(|s| {
            s.parse::<T>()
                .map_err(|e| usage(format!("{e} (in {flag})")))
        })
        .collect()
}

fn config(args: &TransferArgs) -> anyhow::Result<TransferConfig> {
    let sizes = parse_sizes(&args.sizes).map_err(|e| usage(e.to_string()))?;
    let peers = runtimes::parse(&args.peer, "--peer", "peer")?;
    let transports = args
        .via
        .as_deref()
        .map(|v| list::<Transport>(v, "--via"))
        .transpose()?;
    let pin: Pin = args.pin.parse().map_err(usage)?;
    Ok(TransferConfig {
        sizes,
        peers,
        transports,
        pin,
        spin: args.spin,
        engine: EngineConfig {
            trials: args.trials,
            warmup: Duration::from_millis(args.warmup_ms),
            batch_time: Duration::from_millis(args.batch_ms),
            ..EngineConfig::default()
        },
    })
}

/// `toll transfer`.
pub fn run(args: TransferArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    let pairs = transfer::plan(&cfg).map_err(|e| usage(e.to_string()))?;
    if dry_run {
        return dry(&cfg, &pairs, db);
    }
    let store = db::open(db)?;
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130); // a second Ctrl-C: leave now; the run is marked partial on next open
        }
        eprintln!("\nstopping after the current batch (Ctrl-C again to quit at once)");
    });
    let mut progress = Progress::new((pairs.len() * cfg.sizes.len()) as u64);
    let outcome = transfer::run(&cfg, &store, &mut progress, &STOP);
    progress.finish();
    let outcome = outcome?;
    let run = store.load_run(outcome.run_id)?;
    let mut out = std::io::stdout().lock();
    let printed = if args.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(out, "{}", render(&cfg, &outcome))
            .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    // A reader that stopped early (`| head`) is no reason to skip the plot or the status.
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &args.plot {
        let series = toll_report::plot::plot_series_from_run(&run);
        toll_report::plot::series_svg(
            path,
            &format!(
                "toll transfer — run {}, {}",
                run.id,
                outcome.placement.describe()
            ),
            "items per message (n)",
            "round trip (µs)",
            &series,
        )
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
        eprintln!("plot written to {}", path.display());
    }
    let points: usize = outcome.series.iter().map(|s| s.points.len()).sum();
    match outcome.error {
        Some(e) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} with {points} points (`toll show {}`)",
            outcome.run_id,
            outcome.status.as_str(),
            outcome.run_id
        )),
        None if outcome.status == RunStatus::Partial => {
            eprintln!(
                "interrupted: run {} stored as partial with {points} points",
                outcome.run_id
            );
            Ok(ExitCode::from(130))
        }
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
    for peer in &cfg.peers {
        peer.detect()?;
    }
    let series: Vec<String> = pairs.iter().map(|(p, t)| format!("{p}/{t}")).collect();
    println!(
        "would measure {} series ({}) at {} sizes ({}…{} items), {} trials each, placement {}",
        series.len(),
        series.join(", "),
        cfg.sizes.len(),
        cfg.sizes[0],
        cfg.sizes[cfg.sizes.len() - 1],
        cfg.engine.trials,
        cfg.pin
    );
    Ok(ExitCode::SUCCESS)
}

/// The results table: one row per (peer, transport).
fn render(cfg: &TransferConfig, outcome: &TransferOutcome) -> String {
    let sizes = &cfg.sizes;
    let mut s = format!(
        "toll transfer: {} sizes ({}…{} items of {ITEM_BYTES} bytes), {} trials each\nplacement: {}{}\n\n",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() - 1],
        cfg.engine.trials,
        outcome.placement.describe(),
        if cfg.pin == Pin::DEFAULT { " — the default; --pin same|split|none changes it" } else { "" },
    );
    // The model's time at the largest size of the sweep: E1's quoted
    // t(100000) with the default sizes.
    let largest = sizes[sizes.len() - 1];
    let quote = format!("t({largest})");
    let mut t = Table::new(&[
        "peer",
        "via",
        "α µs",
        "α 95% CI",
        "β ns/item",
        "β 95% CI",
        "MB/s",
        "MB/s 95% CI",
        "n½",
        &quote,
        "R²",
    ]);
    let mut notes = Vec::new();
    for r in &outcome.series {
        t.row(row(r, largest as f64, &mut notes));
    }
    s.push_str(&t.render());
    for n in notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

fn row(r: &SeriesResult, quote_at: f64, notes: &mut Vec<String>) -> Vec<String> {
    let mut cells = vec![r.peer.to_string(), r.transport.to_string()];
    let Some(fit) = &r.fit else {
        cells.extend(std::iter::repeat_n("–".to_string(), 9));
        notes.push(format!(
            "{}: fewer than two sizes measured, no model",
            r.label
        ));
        return cells;
    };
    let f = &fit.robust;
    // MB/s = bytes per item / ns per item × 1000.
    let mbps = |beta: f64| {
        if beta > 0.0 {
            ITEM_BYTES as f64 / beta * 1e3
        } else {
            f64::INFINITY
        }
    };
    let fmt_mbps = |v: f64| {
        if v.is_finite() {
            format!("{v:.0}")
        } else {
            "∞".into()
        }
    };
    cells.extend([
        format!("{:.2}", f.alpha / 1e3),
        format!("[{:.2}, {:.2}]", f.alpha_ci.0 / 1e3, f.alpha_ci.1 / 1e3),
        format!("{:.4}", f.beta),
        format!("[{:.4}, {:.4}]", f.beta_ci.0, f.beta_ci.1),
        fmt_mbps(mbps(f.beta)),
        format!(
            "[{}, {}]",
            fmt_mbps(mbps(f.beta_ci.1)),
            fmt_mbps(mbps(f.beta_ci.0))
        ),
        f.n_half
            .map(|n| format!("{n:.0}"))
            .unwrap_or_else(|| "–".into()),
        format!("{:.1} µs", f.predict(quote_at) / 1e3),
        format!("{:.4}", f.r2),
    ]);
    if fit.nonlinear {
        notes.push(format!(
            "{}: a straight line fits poorly (a knee or curve): see `toll show` and --plot",
            r.label
        ));
    }
    let noisy: Vec<String> = r
        .points
        .iter()
        .filter(|(_, s)| s.too_noisy)
        .map(|(n, _)| n.to_string())
        .collect();
    if !noisy.is_empty() {
        notes.push(format!(
            "{}: spread too wide to trust at n = {} (try more --trials or a quieter machine)",
            r.label,
            noisy.join(", ")
        ));
    }
    cells
}
