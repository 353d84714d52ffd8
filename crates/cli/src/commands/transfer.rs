//! `toll transfer`: validate the arguments, run the sweep, print the models.

use super::{db, runtimes};
use crate::args::TransferArgs;
use crate::progress::Progress;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::far::Far;
use toll_families::placement::Pin;
use toll_families::transfer::{self, SeriesResult, TransferConfig, TransferOutcome, ITEM_BYTES};
use toll_measure::decision::{Sign, Verdict};
use toll_measure::EngineConfig;
use toll_peers::{Runtime, Transport};
use toll_report::table::Table;

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
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(args.json);
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
        let title = format!(
            "toll transfer — run {}, {}",
            run.id,
            outcome.placement.describe()
        );
        let chart = toll_report::plot::Chart::for_run(&run).titled(title);
        super::plot::draw(path, chart, &args.plot_scale)?;
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

/// The results table: one row per (peer, transport).
fn render(cfg: &TransferConfig, outcome: &TransferOutcome) -> String {
    let sizes = &cfg.sizes;
    let mut s = format!(
        "toll transfer: {} sizes ({}…{} items of {ITEM_BYTES} bytes), {}\nplacement: {}{}\n\n",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() - 1],
        match cfg.ci_target {
            None => format!(
                "{} rounds (every size once a round, shuffled)",
                cfg.engine.trials
            ),
            Some(t) => format!(
                "rounds until every CI is within ±{}% (at least {}, at most {:?} a series)",
                t * 100.0,
                cfg.engine.trials,
                cfg.max_time
            ),
        },
        outcome.placement.describe(),
        if cfg.pin == Pin::DEFAULT {
            " — the default; --pin same|split|none changes it"
        } else {
            ""
        },
    );
    match &cfg.far {
        Some(Far::Agent { launcher, .. }) => {
            s.insert_str(s.len() - 1, &format!("peer: far end started by `{launcher}`, over tcp\n"))
        }
        Some(Far::Link(spec)) => s.insert_str(
            s.len() - 1,
            &format!("peer: across an emulated link ({spec}: namespaces joined by veth, tbf, toll's delay relay), over tcp\n"),
        ),
        None => {}
    }
    // The model's time at the largest size of the sweep: E1's quoted
    // t(100000) with the default sizes.
    let largest = sizes[sizes.len() - 1];
    let quote = format!("t({largest})");
    let smallest = sizes[0];
    let measured_head = format!("t({smallest}) µs");
    let widened = outcome
        .series
        .iter()
        .filter_map(|r| r.fit.as_ref()?.decision.as_ref())
        .any(|d| d.widened);
    let (a_ci, b_ci) = toll_report::decided::ci_headings(widened);
    let mut t = Table::new(&[
        "peer",
        "via",
        &measured_head,
        "α µs",
        &a_ci,
        "β ns/item",
        &b_ci,
        "MB/s",
        "MB/s 95% CI",
        "n½",
        &quote,
        "fit",
    ]);
    let mut notes = Notes {
        run_to_run: toll_report::legend::run_to_run(
            outcome.series.iter().filter_map(|r| r.fit.as_ref()),
        ),
        ..Notes::default()
    };
    for r in &outcome.series {
        t.row(row(r, &mut notes));
        if !r.missed.is_empty() {
            let missed: Vec<String> = r.missed.iter().map(u64::to_string).collect();
            notes.missed.push(format!(
                "{} at n = {} ({} rounds)",
                r.label,
                missed.join(", "),
                r.rounds
            ));
        }
    }
    if t.fits() {
        s.push_str(&t.render());
    } else {
        // Too wide for the terminal (`--wide` prints it whole): the model
        // and its verdict, then what follows from it per row.
        s.push_str(&t.columns(&[0, 1, 2, 3, 4, 5, 6, 11]).render());
        s.push('\n');
        s.push_str(&t.columns(&[0, 1, 7, 8, 9, 10]).render());
    }
    s.push_str(&notes.render());
    s
}

/// What the rows' notes say, one line per kind.
#[derive(Default)]
struct Notes {
    no_model: Vec<String>,
    noisy: Vec<String>,
    any_curve: bool,
    any_flat: bool,
    near_zero: bool,
    missed: Vec<String>,
    busy: Vec<String>,
    /// The legend of the CIs' run-to-run term.
    run_to_run: String,
}

impl Notes {
    fn render(&self) -> String {
        let mut s = String::from(
            "fit: ok = one line fits every size within its noise; curve = it does not \
             (α from the small sizes, β from the large, break where they meet); flat = β \
             not above 0; noisy = a size's spread is too wide to trust; busy = other \
             processes used over a quarter of the CPUs while it was measured\n",
        );
        s.push_str(&self.run_to_run);
        if !self.busy.is_empty() {
            s.push_str(&format!(
                "note: busy rows (share of all CPUs others used): {}; let that work finish and run again\n",
                self.busy.join(", ")
            ));
        }
        if self.any_curve {
            s.push_str("note: curve rows: `toll show` has the lack-of-fit test and both segments; --plot draws the points\n");
        }
        if self.any_flat {
            s.push_str("note: flat rows: the cost does not grow measurably with n over these sizes, so no bandwidth is given\n");
        }
        if !self.noisy.is_empty() {
            s.push_str(&format!(
                "note: spread too wide to trust at some sizes of {} (try more --trials or a quieter machine)\n",
                self.noisy.join(", ")
            ));
        }
        if self.near_zero {
            s.push_str(toll_report::decided::NEAR_ZERO_LEGEND);
            s.push('\n');
        }
        if !self.missed.is_empty() {
            s.push_str(&format!(
                "note: --max-time ran out before these sizes' CIs met --ci: {} (raise --max-time, or accept a wider --ci)\n",
                self.missed.join("; ")
            ));
        }
        if !self.no_model.is_empty() {
            s.push_str(&format!(
                "note: a line needs three sizes or more; no model for {}\n",
                self.no_model.join(", ")
            ));
        }
        s
    }
}

fn row(r: &SeriesResult, notes: &mut Notes) -> Vec<String> {
    let mut cells = vec![r.peer.to_string(), r.transport.to_string()];
    let small = r
        .points
        .first()
        .map(|(_, m)| format!("{:.2}", m.median / 1e3));
    cells.push(small.unwrap_or_else(|| "–".into()));
    let Some(d) = r.fit.as_ref().and_then(|f| f.decision.as_ref()) else {
        cells.extend(std::iter::repeat_n("–".to_string(), 8));
        cells.push(toll_report::decided::no_model(r.points.len()));
        notes.no_model.push(r.label.clone());
        return cells;
    };
    // Every figure and the verdict are the series' stored decision.
    match d.verdict {
        Verdict::Curve => notes.any_curve = true,
        Verdict::Flat => notes.any_flat = true,
        _ => {}
    }
    if !d.noisy_sizes.is_empty() {
        notes.noisy.push(r.label.clone());
    }
    if d.alpha.sign != Sign::Positive || d.beta.sign != Sign::Positive {
        notes.near_zero = true;
    }
    // Other work on the machine while measuring: said first, whatever else.
    if d.busy {
        notes.busy.push(format!(
            "{} ({:.0}%{})",
            r.label,
            r.others_busy * 100.0,
            r.busiest
                .as_ref()
                .map(|(name, _)| format!(", busiest {name}"))
                .unwrap_or_default()
        ));
    }
    // MB/s = bytes per item / ns per item × 1000; only for a β clearly above 0.
    let mbps = |b: f64| ITEM_BYTES as f64 / b * 1e3;
    let (rate, rate_ci) = match d.beta.shown() {
        Some(beta) => (
            format!("{:.0}", mbps(beta)),
            format!("[{:.0}, {:.0}]", mbps(d.beta.ci.1), mbps(d.beta.ci.0)),
        ),
        None => ("–".to_string(), "–".to_string()),
    };
    let (alpha, alpha_ci) = toll_report::decided::cells(&d.alpha, |v| format!("{:.2}", v / 1e3));
    let (beta, beta_ci) = toll_report::decided::cells(&d.beta, |v| format!("{v:.4}"));
    cells.extend([
        alpha,
        alpha_ci,
        beta,
        beta_ci,
        rate,
        rate_ci,
        d.n_half
            .map(|n| format!("{n:.0}"))
            .unwrap_or_else(|| "–".into()),
        d.at_largest
            .map(|(_, t)| format!("{:.1} µs", t / 1e3))
            .unwrap_or_else(|| "–".into()),
        d.words(),
    ]);
    cells
}
