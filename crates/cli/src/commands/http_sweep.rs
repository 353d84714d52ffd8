//! `toll http URL --sweep FROM..TO`: check the sweep's flags (every refusal
//! before any load), step the offered rate up pass after pass — from this
//! machine, or through load agents (`--remote`, `--remote-cmd`), each step
//! one `--rate` load from them — store the sweep as one run, print its
//! table, knee and break (or the stored run as JSON).

use super::db;
use super::http_load::{config, plot_target, print_run, stop_flag};
use crate::args::{HttpArgs, IoArg, SweepArgs};
use crate::usage::usage;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use toll_families::http;
use toll_families::http::agents::AgentsPlan;
use toll_families::http::sweep::{self, Slo, SweepPlan};
use toll_report::http_sweep::StepRun;

/// A p99 send lag (ms) past which a step's corrected latencies say as
/// much about toll as about the server (as `toll http --rate`'s).
const LAG_WARNING_MS: f64 = 1.0;
/// Steps when --steps is not given.
const DEFAULT_STEPS: usize = 8;
/// A step's load when --step-duration is not given.
const DEFAULT_STEP: Duration = Duration::from_secs(2);
/// Passes when --repeats is not given: min–max of 3 is a 75% interval.
const DEFAULT_REPEATS: usize = 3;
/// The SLO when --slo is not given: this multiple of the first step's p99.
const DEFAULT_SLO: f64 = 5.0;
/// The fewest requests the lowest step sends: fewer, and its p99 (the
/// SLO's base) is its slowest request or next to it.
const FEWEST_AT_FIRST: f64 = 100.0;

/// Whether any sweep flag was given (then the sweep decides, or refuses).
pub fn wanted(a: &SweepArgs) -> bool {
    a.sweep.is_some()
        || a.steps.is_some()
        || a.step_duration.is_some()
        || a.repeats.is_some()
        || a.slo.is_some()
}

/// `toll http URL --sweep FROM..TO`, from this machine or through load
/// agents (each step one `--rate` load from them).
pub fn run(mut a: HttpArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let plan = plan(&a)?;
    // Each step is a timed load (-n, -t and --duration were refused above).
    a.load.duration = Some(plan.step);
    let Some(url) = a.url.as_deref() else {
        return Err(usage("--sweep loads one URL: give it"));
    };
    let launchers = super::http_agents::launchers(&a.agents)?;
    let k = launchers.len();
    let mut cfg = config(url, &a.load, k == 0)?;
    cfg.coalesce = Duration::ZERO;
    if cfg.insecure && !cfg.target.tls {
        return Err(usage(format!(
            "--insecure is for https:// URLs; {url} is plain http"
        )));
    }
    // A step from fewer agents would be another load: every one must last.
    match a.agents.min_agents.map(|m| m as usize) {
        Some(_) if k == 0 => {
            return Err(usage(
                "--min-agents applies to load agents: add --remote HOST or --remote-cmd CMD",
            ))
        }
        Some(m) if m != k => {
            return Err(usage(format!(
                "--sweep cannot go with --min-agents {m} (every step needs all {k} agents, each sending its share of the step's rate): drop --min-agents"
            )))
        }
        _ => {}
    }
    if k > 0 {
        super::http_agents::enough_connections(k, &cfg)?;
        // Each agent's shard of a step is at least one arrival a second.
        if plan.rates[0] < k as f64 {
            return Err(usage(format!(
                "--sweep from {} req/s is lower than the {k} agents that would share its first step (each sends at least 1 request/s): raise FROM to {k} or more, or give fewer agents",
                plan.rates[0]
            )));
        }
    }
    let plot = plot_target(&a.plot)?;
    if let Some(p) = db_path {
        db::check_name(p)?;
    }
    // Through agents, each agent connects once before each step: the
    // server may not be reachable from here at all.
    if k == 0 {
        http::preflight(&mut cfg)?;
    }
    let most = plan.rates.len() * plan.repeats;
    if dry_run {
        crate::say!(
            "would sweep {} over {} steps from {:.1} to {:.1} req/s, {:?} each, up to {most} steps in all, with {} connection(s){}",
            cfg.target.shown(),
            plan.rates.len(),
            plan.rates[0],
            plan.rates[plan.rates.len() - 1],
            plan.step,
            cfg.concurrency,
            if k == 0 {
                "; the server answers".to_string()
            } else {
                format!(" from {k} load agent(s) ({})", launchers.join("; "))
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db_path)?;
    let env = toll_measure::Fingerprint::capture(vec![]);
    if let Some(w) = env.busy_warning() {
        crate::tell!("warning: {w}");
    }
    let stop = stop_flag();
    let mut on_step = |r: &StepRun| {
        crate::tell!(
            "pass {} step {}: offered {:.1}/s, achieved {:.1}/s, p99 {:.3} ms{}",
            r.pass,
            r.step + 1,
            r.offered,
            r.achieved,
            r.corrected.p99,
            match &r.failed {
                Some(why) => format!(" — not kept up: {why}"),
                None => String::new(),
            }
        );
    };
    let agents_plan = AgentsPlan {
        launchers: launchers.clone(),
        // Every step needs every agent: each sends its share of the rate.
        min_agents: k,
        threads: a.load.threads,
        raw: false,
    };
    let mut warn = |line: &str| crate::tell!("warning: {line}");
    let (mut report, loads) = if k == 0 {
        http::sweep::run(&cfg, &plan, &stop, &mut on_step, &mut sweep::here(&stop))?
    } else {
        let mut there = sweep::agents::loader(&agents_plan, &stop, &mut warn);
        http::sweep::run(&cfg, &plan, &stop, &mut on_step, &mut there)?
    };
    report.agents = k;
    let run_id = http::sweep::store_sweep(&store, &cfg, &loads, &report, env, &launchers)?;
    let title = format!(
        "This is toll http {}, sweeping {}{}",
        env!("CARGO_PKG_VERSION"),
        cfg.target.shown(),
        if k == 0 {
            String::new()
        } else {
            format!(" from {k} load agent(s)")
        }
    );
    print_run(
        &store,
        run_id,
        a.json,
        &title,
        &toll_report::http_sweep::render(&report),
    )?;
    if let Some((path, _)) = &plot {
        let title =
            format!("toll http --sweep — run {run_id}: latency and achieved rate against offered");
        toll_report::plot::sweep::write(&report, &title, path)
            .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
        eprintln!("plot written to {}", path.display());
    }
    let lag = loads.iter().map(|l| l.run.send_lag_p99).fold(0.0, f64::max);
    if lag >= LAG_WARNING_MS {
        crate::tell!(
            "warning: toll ran behind its own schedule (send lag p99 {lag:.3} ms in its worst step), and that step's corrected latencies include the delay: give it more --threads, a lower TO, or a quieter machine"
        );
    }
    let broken = report.partial && !crate::stop::stopped();
    if broken {
        crate::tell!(
            "toll: the sweep stopped early, {}; the {} step(s) before it are stored as run {run_id}, partial",
            report.stopped,
            loads.len()
        );
    }
    Ok(if crate::stop::stopped() {
        crate::stop::exit_code()
    } else if broken {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The sweep's plan from its flags, and every flag it cannot go with
/// refused (in one line, before anything is sent).
fn plan(a: &HttpArgs) -> anyhow::Result<SweepPlan> {
    let s = &a.sweep;
    let Some((from, to)) = s.sweep else {
        let given = [
            (s.steps.is_some(), "--steps"),
            (s.step_duration.is_some(), "--step-duration"),
            (s.repeats.is_some(), "--repeats"),
            (s.slo.is_some(), "--slo"),
        ];
        let flag = given.iter().find(|g| g.0).map_or("--steps", |g| g.1);
        return Err(usage(format!(
            "{flag} shapes a sweep: add --sweep FROM..TO (requests per second)"
        )));
    };
    let l = &a.load;
    let refused = [
        (l.rate.is_some(), "--rate", "each step sets its own rate"),
        (
            l.requests.is_some(),
            "-n",
            "each step runs for --step-duration",
        ),
        (
            l.time_limit.is_some() || l.duration.is_some(),
            "-t/--duration",
            "each step runs for --step-duration",
        ),
        (
            l.io == Some(IoArg::IoUring),
            "--io io_uring",
            "it runs a closed loop, and a sweep is open",
        ),
        (
            l.coalesce.is_some_and(|d| !d.is_zero()),
            "--coalesce",
            "it naps in a closed loop, and a sweep is open",
        ),
        (a.urls_file.is_some(), "--urls", "a sweep loads one URL"),
        (
            a.warmup.is_some(),
            "--warmup",
            "its lowest steps warm the server",
        ),
        (
            a.agents.raw_latencies.is_some(),
            "--raw-latencies",
            "it checks one load's merge, and a sweep is many",
        ),
    ];
    if let Some((_, flag, why)) = refused.iter().find(|r| r.0) {
        return Err(usage(format!(
            "--sweep cannot go with {flag} ({why}): drop {flag}"
        )));
    }
    let step = s.step_duration.unwrap_or(DEFAULT_STEP);
    if from * step.as_secs_f64() < FEWEST_AT_FIRST {
        return Err(usage(format!(
            "--sweep {from}..{to} with --step-duration {:?} sends {:.0} requests at its first step, too few for the p99 its SLO is set by: raise FROM or --step-duration so FROM × step is {FEWEST_AT_FIRST} or more",
            step,
            from * step.as_secs_f64()
        )));
    }
    Ok(SweepPlan {
        rates: sweep::geometric(from, to, s.steps.unwrap_or(DEFAULT_STEPS)),
        step,
        repeats: s.repeats.unwrap_or(DEFAULT_REPEATS),
        slo: s.slo.unwrap_or(Slo::Times(DEFAULT_SLO)),
    })
}
