//! `toll http compare URL URL…`: alternating timed rounds against several
//! servers, a warm-up until each rate settles, then rounds until the CI of
//! each server's rate ratio (against the first) is narrow. The rules live in
//! toll_families::http::compare; this runs the rounds, shows progress,
//! stores the run and prints the report. With load agents (--remote,
//! --remote-cmd) every round is loaded from all of them, as `toll http
//! --remote` loads once.

use super::db;
use super::http_agents;
use super::http_load::{config_via, draw, plot_target, print_run, stop_flag, unix_socket};
use crate::args::CompareArgs;
use crate::usage::usage;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use toll_families::http::agents::{self, AgentsPlan};
use toll_families::http::compare::{self, label, Comparison, Phase, Round, Rules};
use toll_families::http::compare_rounds::{self, Rounds};
use toll_families::http::{self, HttpConfig};
use toll_report::http_compare::StopReason;
use toll_store::RunStatus;

/// The 3-round, 5% warm-up rule (see toll_families::http::compare).
const WARMUP_WINDOW: usize = 3;
const WARMUP_TOLERANCE: f64 = 0.05;

/// The load agents every round runs from (none: this machine). A round
/// from fewer agents would be another load, so every agent must last.
fn agents(a: &CompareArgs) -> anyhow::Result<Vec<String>> {
    let launchers = http_agents::launchers(&a.agents)?;
    let k = launchers.len();
    if a.agents.raw_latencies.is_some() {
        return Err(usage(
            "--raw-latencies checks one run's merge: use it with toll http --remote, not compare",
        ));
    }
    match a.agents.min_agents.map(|m| m as usize) {
        Some(_) if k == 0 => Err(usage(
            "--min-agents applies to load agents: add --remote HOST or --remote-cmd CMD",
        )),
        Some(m) if m != k => Err(usage(format!(
            "--min-agents {m}: compare runs every round from all {k} agent(s), since a round from fewer is another load: drop --min-agents"
        ))),
        _ => Ok(launchers),
    }
}

/// Each URL's `--unix-socket` (None: TCP): `N=PATH` for the Nth URL, or
/// one bare PATH for all.
fn sockets(given: &[String], urls: usize) -> anyhow::Result<Vec<Option<PathBuf>>> {
    let mut out = vec![None; urls];
    for text in given {
        let indexed = text
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match indexed {
            None if given.len() == 1 => {
                let p = PathBuf::from(text);
                out.iter_mut().for_each(|o| *o = Some(p.clone()));
            }
            None => {
                return Err(usage(format!(
                    "--unix-socket {text}: with several sockets, name each URL's as N=PATH (e.g. 2={text} for the second URL)"
                )))
            }
            Some((n, path)) => {
                let i = n.parse::<usize>().ok().filter(|i| (1..=urls).contains(i));
                let Some(i) = i else {
                    return Err(usage(format!(
                        "--unix-socket {text}: there is no URL {n}; give N from 1 to {urls}"
                    )));
                };
                if out[i - 1].is_some() {
                    return Err(usage(format!(
                        "--unix-socket {text}: URL {i} already has a socket: give one per URL"
                    )));
                }
                out[i - 1] = Some(PathBuf::from(path));
            }
        }
    }
    Ok(out)
}

/// The rules from the flags, and one validated load per URL whose length is
/// a round.
fn validate(a: &mut CompareArgs, here: bool) -> anyhow::Result<(Rules, Vec<HttpConfig>)> {
    let round = a.round;
    let (min_rounds, max_rounds) = (a.min_rounds, a.max_rounds);
    if max_rounds < min_rounds {
        return Err(usage(format!(
            "--max-rounds {max_rounds} is below --min-rounds {min_rounds}: raise --max-rounds"
        )));
    }
    let rules = Rules {
        round,
        window: WARMUP_WINDOW,
        tolerance: WARMUP_TOLERANCE,
        warmup_max: a.warmup_max,
        min_rounds,
        max_rounds,
        ci_target: a.ci,
        max_time: a.max_time,
    };
    // Rounds are timed, so the flags that end a load some other way have no place.
    let l = &mut a.load;
    if l.requests.is_some() {
        return Err(usage(
            "-n does not apply to compare: each round runs for --round, and --max-rounds bounds the rounds",
        ));
    }
    if l.time_limit.is_some() || l.duration.is_some() {
        return Err(usage(
            "-t and --duration do not apply to compare: set a round's length with --round and the whole with --max-time",
        ));
    }
    if l.rate.is_some() {
        return Err(usage(
            "--rate fixes every server's request rate, so their ratio would say nothing: compare without --rate",
        ));
    }
    l.duration = Some(round);
    let mut cfgs = Vec::new();
    let sockets = sockets(&l.unix_socket, a.urls.len())?;
    for (url, unix) in a.urls.iter().zip(&sockets) {
        let mut cfg = config_via(url, l, unix.as_deref())?;
        // Checked here unless the socket is on the agents' hosts.
        if let (Some(p), true) = (unix, here) {
            unix_socket(p)?;
        }
        cfg.time_limit = Some(round);
        cfg.requests = None;
        cfgs.push(cfg);
    }
    if l.insecure && !cfgs.iter().any(|c| c.target.tls) {
        return Err(usage(
            "--insecure is for https:// URLs, and none of these is one",
        ));
    }
    Ok((rules, cfgs))
}

/// The spinner over the rounds; Ctrl-C is said once, when first seen.
struct Shown<'a> {
    bar: &'a ProgressBar,
    stop: &'a AtomicBool,
    what: String,
    told: bool,
}

impl Shown<'_> {
    fn tell(&mut self) {
        if !self.told {
            self.told = true;
            self.bar.suspend(|| {
                crate::tell!("\nstopping after the current round (Ctrl-C again to quit at once)")
            });
        }
    }
}

impl compare_rounds::Progress for Shown<'_> {
    fn round(&mut self, cmp: &Comparison, round: Round) {
        self.what = describe(cmp, round.phase, round.server);
        self.bar.set_message(self.what.clone());
        self.bar.tick();
    }

    fn requests(&mut self, done: u64) {
        if self.stop.load(Ordering::SeqCst) {
            self.tell();
        }
        self.bar
            .set_message(format!("{}: {done} requests", self.what));
        self.bar.tick();
    }
}

/// What the bar says before a round.
fn describe(cmp: &Comparison, phase: Phase, server: usize) -> String {
    let rules = cmp.rules();
    match phase {
        Phase::Warmup => format!(
            "warm-up {} round {}/{}",
            label(server),
            cmp.warmup_rates(server).len() + 1,
            rules.warmup_max
        ),
        Phase::Measure => {
            let widths: Vec<String> = (1..cmp.servers())
                .filter_map(|s| {
                    cmp.ratio(s)
                        .map(|(e, _)| format!("{}/A ±{:.1}%", label(s), e.half_width() * 100.0))
                })
                .collect();
            format!(
                "round {}/{} {}  {}",
                cmp.cycles() + 1,
                rules.max_rounds,
                label(server),
                widths.join(" ")
            )
        }
    }
}

pub fn run(mut a: CompareArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let launchers = agents(&a)?;
    let (rules, mut cfgs) = validate(&mut a, launchers.is_empty())?;
    let plot = plot_target(&a.plot)?;
    if launchers.is_empty() {
        for cfg in &mut cfgs {
            http::preflight(cfg).map_err(|e| anyhow::anyhow!("{}: {e}", cfg.target.shown()))?;
        }
    } else {
        // The agents check each server when they prepare each round.
        http_agents::enough_connections(launchers.len(), &cfgs[0])?;
    }
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        let urls: Vec<String> = cfgs.iter().map(|c| c.target.shown()).collect();
        match launchers.len() {
            0 => crate::say!(
                "would compare {} in alternating rounds; every server answers",
                urls.join(", ")
            ),
            k => crate::say!(
                "would compare {} in alternating rounds, each from {k} agent(s) ({})",
                urls.join(", "),
                launchers.join("; ")
            ),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db_path)?;
    let (run_id, series) = compare::begin_run(&store, &cfgs, &rules, &launchers)?;
    let stop = stop_flag();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    let mut shown = Shown {
        bar: &bar,
        stop: &stop,
        what: String::new(),
        told: false,
    };
    let rounds = if launchers.is_empty() {
        compare_rounds::run(&cfgs, rules, &stop, &mut shown)
    } else {
        let plan = AgentsPlan {
            min_agents: launchers.len(),
            launchers: launchers.clone(),
            threads: a.load.threads,
            raw: false,
        };
        // Each round runs to its end; Ctrl-C stops between rounds.
        let never = Arc::new(AtomicBool::new(false));
        let mut each_round = |cfg: &HttpConfig, done: &mut dyn FnMut(u64)| {
            agents::load(
                cfg,
                &plan,
                &never,
                &mut |line| bar.suspend(|| crate::tell!("warning: {line}")),
                &mut |s| done(s.done),
            )
            .map(|o| o.outcome)
        };
        compare_rounds::run_with(&cfgs, rules, &stop, &mut shown, &mut each_round)
    };
    if shown.stop.load(Ordering::SeqCst) {
        shown.tell();
    }
    let Rounds {
        comparison: cmp,
        records,
        stop: why,
    } = match rounds {
        Ok(r) => r,
        Err(failed) => {
            bar.finish_and_clear();
            let msg = format!("{}: {}", cfgs[failed.server].target.shown(), failed.error);
            store.finish_run(run_id, RunStatus::Failed, &msg, Some(&msg))?;
            return Err(anyhow::anyhow!(msg));
        }
    };
    bar.finish_and_clear();
    let report = compare::figures(&cmp, &records, &cfgs, why);
    let status = compare::finish_run(&store, run_id, &series, &records, &report)?;
    let title = format!("This is toll http compare {}", env!("CARGO_PKG_VERSION"));
    let text = toll_report::http_compare::render(&report);
    print_run(&store, run_id, a.json, &title, &text)?;
    if let (Some((path, scale)), false) = (&plot, status == RunStatus::Failed) {
        draw(&store, run_id, path, *scale)?;
    }
    warn(&report);
    match (why, status) {
        (StopReason::Interrupted, _) => {
            crate::tell!(
                "interrupted: run {run_id} stored as partial with {} rounds of each server",
                report.rounds
            );
            Ok(crate::stop::exit_code())
        }
        (_, RunStatus::Failed) => {
            let dead: Vec<&str> = report
                .servers
                .iter()
                .filter(|s| s.complete == 0)
                .map(|s| s.url.as_str())
                .collect();
            crate::tell!(
                "toll: no measured request to {} completed: see the failures above",
                dead.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Warnings on stderr: CIs left wide, servers that never settled, failures.
fn warn(r: &toll_report::http_compare::CompareReport) {
    if matches!(r.stop, StopReason::MaxRounds | StopReason::MaxTime) {
        let wide: Vec<String> = r
            .servers
            .iter()
            .filter_map(|s| s.ratio.as_ref().map(|x| (s, x)))
            .filter(|(_, x)| !x.narrow)
            .map(|(s, x)| format!("{}/A ±{:.1}%", s.label, x.estimate.half_width() * 100.0))
            .collect();
        let remedy = if r.stop == StopReason::MaxRounds {
            "raise --max-rounds or lengthen --round"
        } else {
            "raise --max-time, or lengthen --round"
        };
        crate::tell!(
            "warning: {} after {} rounds, wider than the ±{:.1}% asked for: {remedy}",
            if wide.is_empty() {
                "no ratio could be computed".to_string()
            } else {
                format!("CI still {}", wide.join(", "))
            },
            r.rounds,
            r.ci_target * 100.0
        );
    }
    let unsettled: Vec<&str> = r
        .servers
        .iter()
        .filter(|s| !s.stable && s.warmup_rounds > 0)
        .map(|s| s.label.as_str())
        .collect();
    if !unsettled.is_empty() {
        crate::tell!(
            "warning: {} did not settle in {} warm-up rounds (the last {} rates within {:.0}% of their median); measured anyway: raise --warmup-max or lengthen --round",
            unsettled.join(", "),
            r.warmup_max,
            r.warmup_window,
            r.warmup_tolerance * 100.0
        );
    }
    for s in &r.servers {
        let mut bad = Vec::new();
        if s.failed > 0 {
            bad.push(format!("{} failed requests", s.failed));
        }
        if s.non_2xx > 0 {
            bad.push(format!("{} non-2xx responses", s.non_2xx));
        }
        if !bad.is_empty() {
            crate::tell!(
                "warning: {} ({}): {} in the measured rounds; its rate counts every answer, not only successes",
                s.label,
                s.url,
                bad.join(" and ")
            );
        }
    }
}
