//! `toll http URL`: check ab's flags, load the server, store the run, print
//! ab's report (or the stored run as JSON).

use super::db;
use crate::args::HttpArgs;
use crate::usage::usage;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use toll_families::http;
use toll_report::http::Warmup;

/// The fewest requests --plot draws: with fewer the percentile curve ends
/// before 99%, the tail it is drawn for.
const FEWEST_TO_PLOT: u64 = 100;

use super::http_load::{
    config, config_of_lines, draw, plot_target, print_run, stop_flag, url_lines, warn_lag,
};

/// `toll http URL` (`toll http compare` is [`super::http_compare::run`]).
pub fn run(a: HttpArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    if super::http_sweep::wanted(&a.sweep) {
        return super::http_sweep::run(a, db_path, dry_run);
    }
    if super::http_agents::wanted(&a) {
        return super::http_agents::run(a, db_path, dry_run);
    }
    if let (Some(url), Some(file)) = (&a.url, &a.urls_file) {
        return Err(usage(format!(
            "{url} and --urls {} both name what to load: give the URL, or add it to the file as a line",
            file.display()
        )));
    }
    let lines = url_lines(a.urls_file.as_deref(), a.pick, a.seed)?;
    let mut cfg = match (lines, a.url.as_deref(), a.urls_file.as_deref()) {
        (Some((lines, pick)), _, Some(file)) => config_of_lines(file, lines, pick, &a.load)?,
        (_, Some(url), _) => config(url, &a.load, true)?,
        _ => return Err(usage("give the URL to load, or --urls FILE")),
    };
    let url = cfg.target.url.clone();
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
    let warmup = match a.warmup {
        Some(d) => Some(warm_up(&cfg, d, &stop)?),
        None => None,
    };
    if crate::stop::stopped() {
        crate::tell!("interrupted during the warm-up: nothing measured, nothing stored");
        return Ok(crate::stop::exit_code());
    }
    let outcome = load(&cfg, &stop, "")?;
    let mut report = http::report(&cfg, &outcome);
    report.warmup = warmup;
    let run_id = http::store_run(&store, &cfg, &outcome, &report, Some(env))?;
    let title = format!(
        "This is toll http {}, benchmarking {}{}",
        env!("CARGO_PKG_VERSION"),
        cfg.target.shown(),
        match (&cfg.urls, &a.urls_file) {
            (Some(set), Some(file)) => format!(
                " and the other {} line(s) of {}",
                set.entries.len() - 1,
                file.display()
            ),
            _ => String::new(),
        }
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

/// One load with its spinner; `what` names it on the spinner (the warm-up).
fn load(
    cfg: &http::HttpConfig,
    stop: &Arc<AtomicBool>,
    what: &str,
) -> anyhow::Result<http::LoadOutcome> {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    let mut last = (0u64, Duration::ZERO);
    let outcome = http::load(cfg, stop, &mut |done, at| {
        let rate = (done - last.0) as f64 / (at - last.1).as_secs_f64().max(1e-9);
        last = (done, at);
        bar.set_message(format!("{what}{done} requests, {rate:.0}/s"));
        bar.tick();
    });
    bar.finish_and_clear();
    Ok(outcome?)
}

/// `--warmup TIME`: the same load for that long, not measured, and said in
/// one line. Requests in flight at its end are dropped with their
/// connections (the server may still answer and log them).
fn warm_up(
    cfg: &http::HttpConfig,
    time: Duration,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<Warmup> {
    let mut w = cfg.clone();
    w.requests = None;
    w.time_limit = Some(time);
    let out = load(&w, stop, "warm-up (not measured): ")?;
    let warmup = Warmup {
        time_ns: time.as_nanos() as u64,
        requests: out.stats.complete,
        failed: out.stats.failed(),
    };
    crate::tell!(
        "warm-up: {:.3} s of load sent, {} requests answered ({} failed), not measured",
        time.as_secs_f64(),
        warmup.requests,
        warmup.failed
    );
    Ok(warmup)
}
