//! `toll http URL --remote HOST,… | --remote-cmd CMD …`: the load sent from
//! load agents, their latency histograms added exactly, the run stored and
//! printed as ab's report with a row per agent. `--rate` is one arrival
//! schedule sharded across the agents; HTTP/2 and TLS run on each agent
//! as on one machine.

use super::db;
use super::http_load::{config, draw, plot_target, print_run, stop_flag, warn_lag};
use crate::args::{AgentArgs, HttpArgs};
use crate::usage::usage;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use toll_families::http::agents::{self, record, AgentsPlan};
use toll_families::http::{self, HttpConfig};

/// Whether `toll http` was given agents (then [`run`] takes the run).
pub fn wanted(a: &HttpArgs) -> bool {
    let g = &a.agents;
    !g.remote.is_empty()
        || !g.remote_cmd.is_empty()
        || g.min_agents.is_some()
        || g.raw_latencies.is_some()
}

/// The launchers, in the order given: --remote's hosts, then --remote-cmd's.
pub fn launchers(a: &AgentArgs) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for host in &a.remote {
        if host.trim().is_empty() || host.starts_with('-') || host.contains(char::is_whitespace) {
            return Err(usage(format!(
                "--remote `{host}` is not a host name: give one ssh can reach, or use --remote-cmd for any other launcher"
            )));
        }
        out.push(toll_peers::agent::ssh_launcher(host));
    }
    if !a.remote.is_empty() && !super::far::on_path("ssh") {
        anyhow::bail!("--remote runs ssh, which was not found: install it (apt-get install openssh-client), or start the agents another way with --remote-cmd");
    }
    for cmd in &a.remote_cmd {
        if cmd.trim().is_empty() {
            return Err(usage(
                "--remote-cmd is empty: give a command that runs `toll agent` on the far host",
            ));
        }
        out.push(cmd.clone());
    }
    Ok(out)
}

/// `--raw-latencies FILE`: every agent's raw latencies, to check the merge by.
fn write_raw(path: &Path, out: &agents::AgentsOutcome) -> anyhow::Result<()> {
    let each: Vec<serde_json::Value> = out
        .agents
        .iter()
        .map(|r| serde_json::json!({"agent": r.launcher, "latencies_ns": r.result.raw}))
        .collect();
    std::fs::write(path, serde_json::to_vec(&each)?)
        .with_context(|| format!("writing the raw latencies to {}", path.display()))
}

/// Every agent has at least one connection.
pub fn enough_connections(k: usize, cfg: &HttpConfig) -> anyhow::Result<()> {
    if k > cfg.concurrency {
        return Err(usage(format!(
            "{k} agents need at least {k} connections, and -c is {}: raise -c to {k} or more, or give fewer agents",
            cfg.concurrency
        )));
    }
    Ok(())
}

/// `toll http URL` with agents.
pub fn run(a: HttpArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    if a.urls_file.is_some() || a.pick.is_some() || a.seed.is_some() {
        return Err(usage(
            "--urls is not sent to load agents: run it from this machine (drop --remote/--remote-cmd), or give one URL",
        ));
    }
    if a.warmup.is_some() {
        return Err(usage(
            "--warmup is not sent to load agents: warm the server with a first run from them, or run from this machine",
        ));
    }
    let Some(url) = a.url.as_deref() else {
        return Err(usage("give the URL to load"));
    };
    let launchers = launchers(&a.agents)?;
    if launchers.is_empty() {
        return Err(usage(
            "--min-agents and --raw-latencies apply to load agents: add --remote HOST or --remote-cmd CMD",
        ));
    }
    let cfg = config(url, &a.load, false)?;
    let k = launchers.len();
    enough_connections(k, &cfg)?;
    // Each agent's shard of the schedule is at least one arrival a second.
    if let Some(r) = cfg.rate.filter(|&r| r < k as f64) {
        return Err(usage(format!(
            "--rate {r} is lower than the {k} agents that would share it (each sends at least 1 request/s): raise --rate to {k} or more, or give fewer agents"
        )));
    }
    let min_agents = a.agents.min_agents.map_or(k, |m| m as usize);
    if min_agents > k {
        return Err(usage(format!(
            "--min-agents {min_agents} is more than the {k} agent(s) given: lower it, or give more agents"
        )));
    }
    let plot = plot_target(&a.plot)?;
    if let Some(p) = db_path {
        db::check_name(p)?;
    }
    if dry_run {
        crate::say!(
            "would load {} from {k} agent(s) ({}) with {} connection(s) in all",
            cfg.target.url,
            launchers.join("; "),
            cfg.concurrency
        );
        return Ok(ExitCode::SUCCESS);
    }
    let plan = AgentsPlan {
        launchers: launchers.clone(),
        min_agents,
        threads: a.load.threads,
        raw: a.agents.raw_latencies.is_some(),
    };
    // The machine as the load starts; said once the agents have answered,
    // so an agent that cannot start is still the one line it is.
    let env = toll_measure::Fingerprint::capture(vec![]);
    let stop = stop_flag();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    let out = agents::load(
        &cfg,
        &plan,
        &stop,
        &mut |line| bar.suspend(|| crate::tell!("warning: {line}")),
        &mut |s| {
            bar.set_message(format!(
                "{} requests; second {}: {}/s, p50 {:.3} ms, p99 {:.3} ms (all agents)",
                s.done, s.number, s.requests, s.p50_ms, s.p99_ms
            ));
            bar.tick();
        },
    );
    bar.finish_and_clear();
    let out = out?;
    if let Some(w) = env.busy_warning() {
        crate::tell!("warning: {w}");
    }
    if let Some(path) = &a.agents.raw_latencies {
        write_raw(path, &out)?;
    }
    // Opened only now: agents that fail leave no database behind.
    let store = db::open(db_path)?;
    let report = http::report(&cfg, &out.outcome);
    let mut added = record::added(&launchers, min_agents, &out);
    added.env = Some(env);
    let run_id = http::store_run_with(&store, &cfg, &out.outcome, &report, &added)?;
    let title = format!(
        "This is toll http {}, benchmarking {} from {} load agent(s)",
        env!("CARGO_PKG_VERSION"),
        cfg.target.shown(),
        out.agents.len()
    );
    let text = format!(
        "{}\n{}",
        toll_report::http::render(&report),
        toll_report::http_agents::render(&record::rows(&out), &record::lost_lines(&out))
    );
    print_run(&store, run_id, a.json, &title, &text)?;
    if let (Some((path, scale)), true) = (&plot, out.outcome.stats.complete > 0) {
        draw(&store, run_id, path, *scale)?;
    }
    warn_lag(&report);
    if out.outcome.stats.complete == 0 {
        crate::tell!(
            "toll: no request to {} completed ({} failed): see the failures above",
            cfg.target.url,
            out.outcome.stats.failed()
        );
    }
    // Stopped by a signal, the figures so far are printed and stored
    // partial, as wrk and ab print theirs, and the status says a signal
    // ended the load, as every other toll command's does.
    Ok(if crate::stop::stopped() {
        crate::stop::exit_code()
    } else if out.outcome.stats.complete == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
