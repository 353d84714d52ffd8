//! `toll http URL`: check ab's flags, load the server, store the run, print
//! ab's report (or the stored run as JSON).

use super::db;
use crate::args::HttpArgs;
use crate::usage::usage;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::http;

/// The fewest requests --plot draws: with fewer the percentile curve ends
/// before 99%, the tail it is drawn for.
const FEWEST_TO_PLOT: u64 = 100;

use super::http_load::{config, draw, plot_target, print_run, stop_flag, warn_lag};

/// `toll http URL` (`toll http compare` is [`super::http_compare::run`]).
pub fn run(a: HttpArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    if super::http_agents::wanted(&a) {
        return super::http_agents::run(a, db_path, dry_run);
    }
    let url = a.url.as_deref().expect("clap requires the URL");
    let mut cfg = config(url, &a.load, true)?;
    let plot = plot_target(&a.plot)?;
    if let (Some(_), Some(n)) = (&plot, cfg.requests) {
        if n < FEWEST_TO_PLOT {
            return Err(usage(format!(
                "--plot draws latency by percentile, and -n {n} is too few requests for a curve that reaches 99%: give -n {FEWEST_TO_PLOT} or more, or --duration 5s"
            )));
        }
    }
    if cfg.insecure && !cfg.target.tls {
        return Err(usage(format!(
            "--insecure is for https:// URLs; {url} is plain http"
        )));
    }
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        http::preflight(&mut cfg)?;
        crate::say!(
            "would load {} with {} connection(s) on {} thread(s){}; the server answers",
            cfg.target.shown(),
            cfg.concurrency,
            cfg.threads.clamp(1, cfg.concurrency.max(1)),
            match (cfg.requests, cfg.time_limit) {
                (Some(n), _) => format!(", {n} requests"),
                (None, Some(t)) => format!(", for {:?}", t),
                (None, None) => String::new(),
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    // A refused server is named before the database is touched.
    if let Some(p) = db_path {
        db::check_name(p)?;
    }
    http::preflight(&mut cfg)?;
    let store = db::open(db_path)?;
    // The machine before the load: a server of its own on it is idle now.
    let env = toll_measure::Fingerprint::capture(vec![]);
    if let Some(w) = env.busy_warning() {
        crate::tell!("warning: {w}");
    }
    let stop = stop_flag();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    let mut last = (0u64, Duration::ZERO);
    let outcome = http::load(&cfg, &stop, &mut |done, at| {
        let rate = (done - last.0) as f64 / (at - last.1).as_secs_f64().max(1e-9);
        last = (done, at);
        bar.set_message(format!("{done} requests, {rate:.0}/s"));
        bar.tick();
    });
    bar.finish_and_clear();
    let outcome = outcome?;
    let report = http::report(&cfg, &outcome);
    let run_id = http::store_run(&store, &cfg, &outcome, &report, Some(env))?;
    let title = format!(
        "This is toll http {}, benchmarking {}",
        env!("CARGO_PKG_VERSION"),
        cfg.target.shown()
    );
    print_run(
        &store,
        run_id,
        a.json,
        &title,
        &toll_report::http::render(&report),
    )?;
    if let (Some((path, scale)), true) = (&plot, outcome.stats.complete > 0) {
        draw(&store, run_id, path, *scale)?;
    }
    warn_lag(&report);
    if outcome.stats.complete == 0 {
        crate::tell!(
            "toll: no request to {} completed ({} failed): see the failures above",
            cfg.target.url,
            outcome.stats.failed()
        );
    }
    // Stopped by a signal, the figures so far are printed and stored
    // partial, as wrk and ab print theirs, and the status says a signal
    // ended the load, as every other toll command's does.
    Ok(if crate::stop::stopped() {
        crate::stop::exit_code()
    } else if outcome.stats.complete == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
