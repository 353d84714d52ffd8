//! `toll http` from many load agents: the coordinator. Each agent is a
//! `toll agent` started by a launcher (`ssh HOST toll agent`, or any
//! command), driven over its stdin/stdout. The coordinator has every agent
//! prepare the load (`http-ready`: resolve, connect once) and measures each
//! one's clock offset (`clock`, NTP's four timestamps); once all have
//! answered, it tells them all to go (`http-go`, with each one's share of
//! the connections and requests, split so shares differ by at most one, and
//! one start instant a margin ahead, translated to each agent's clock).
//! Each agent runs toll's own engine and answers with its histograms in
//! HdrHistogram's V2 encoding; they are added exactly (`Histogram::add`), so
//! the merged percentiles are those of every request, not an average of
//! percentiles.
//!
//! At a constant rate (`--rate R`) there is one arrival schedule, arrival i
//! at start + i/R on connection i mod c, and agent k of K holds connections
//! k, k + K, …: so the agents' arrivals together are exactly the schedule,
//! and each corrects for coordinated omission from its own slots, as one
//! machine does; their corrected and uncorrected histograms add.
//!
//! While the load runs, each agent streams each second's latency histogram
//! (`http-second` lines before its answer); the coordinator adds them into
//! the run's seconds, shows them as progress, and takes an agent silent for
//! [`STALL`] as stalled.
//!
//! HTTP/2 and TLS run the same way: each agent runs the client engine one
//! machine would (hyper's, on its own connections and handshakes), `-c`
//! split as for HTTP/1.1 and `--streams` per connection unchanged.

pub mod clock;
pub mod far_side;
pub mod record;
pub mod seconds;
pub mod wire;

use super::stats::Stats;
use super::{shares, HttpConfig, HttpError, LoadOutcome};
use clock::ClockOffset;
use seconds::{Second, Seconds};
use serde_json::json;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use toll_measure::Sample;
use toll_peers::agent::Agent;
use wire::{FarLoad, FarResult};

/// How long an agent may take to start and connect once.
const READY_WITHIN: Duration = Duration::from_secs(60);
/// An agent sends a line every second of its load: one that sends none
/// for this long has stalled (or its host, or the link to it, has).
const STALL: Duration = Duration::from_secs(15);
/// The start is this far ahead of the last agent's readiness, plus ten of
/// the slowest agent's round trips: time for every `http-go` line to arrive.
const START_MARGIN: Duration = Duration::from_millis(200);
/// An agent that starts later than this after the scheduled instant is
/// named in a warning.
const LATE_START: Duration = Duration::from_millis(1);
/// Once stopped, an agent answers with what it measured within its
/// engine's poll and one round trip; one that has not within this long is
/// killed (on this machine) and named as lost.
const ANSWER_STOP_WITHIN: Duration = Duration::from_secs(5);

/// Where the load comes from: the launchers, and how many must last.
#[derive(Debug, Clone)]
pub struct AgentsPlan {
    pub launchers: Vec<String>,
    /// --min-agents: fewer agents that start and finish fail the run.
    pub min_agents: usize,
    /// --threads when given (each agent's own cores otherwise).
    pub threads: Option<usize>,
    /// Have each agent send back every latency raw too (a check of the
    /// merge, `--raw-latencies`): in each agent's `result.raw`.
    pub raw: bool,
}

/// One agent's part of the run.
#[derive(Debug, Clone)]
pub struct AgentRun {
    pub launcher: String,
    /// Its host name, as it said.
    pub host: String,
    pub connections: u64,
    pub requests: Option<u64>,
    /// Its clock offset from the coordinator's.
    pub clock: ClockOffset,
    pub result: FarResult,
}

/// An agent that could not start, or died or stalled mid-run.
#[derive(Debug, Clone)]
pub struct Lost {
    pub launcher: String,
    pub why: String,
}

/// The merged run, the agents that made it and those lost on the way.
#[derive(Debug)]
pub struct AgentsOutcome {
    pub outcome: LoadOutcome,
    pub agents: Vec<AgentRun>,
    pub lost: Vec<Lost>,
    /// The run's seconds, each the sum of the same second of every agent
    /// that finished.
    pub seconds: Vec<Second>,
}

/// The flags an agent repeats, from the validated single-host config.
fn far_load(cfg: &HttpConfig, plan: &AgentsPlan) -> FarLoad {
    FarLoad {
        url: cfg.target.url.clone(),
        unix_socket: cfg.target.unix.as_ref().map(|p| p.display().to_string()),
        spec: cfg.spec.clone(),
        time_limit: cfg.time_limit,
        threads: plan.threads,
        timeout: cfg.timeout,
        variable_length: cfg.variable_length,
        spin: cfg.spin,
        coalesce: cfg.coalesce,
        rate: cfg.rate,
        raw: plan.raw,
        http2: cfg.http2,
        streams: cfg.streams,
        insecure: cfg.insecure,
    }
}

/// An agent ready to go, with its clock offset.
type Ready = (String, Agent, ClockOffset);
/// An agent being started, on its own thread.
type Starting = JoinHandle<Result<(Agent, ClockOffset), String>>;

/// An agent running its load, on its own thread.
struct Going {
    launcher: String,
    pid: u32,
    connections: u64,
    requests: Option<u64>,
    clock: ClockOffset,
    /// Ends its load from here (None: its input could not be kept, and
    /// only killing its launcher's group stops it).
    stopper: Option<toll_peers::agent::Stopper>,
    answer: JoinHandle<(Agent, Result<FarResult, String>)>,
}

/// Start every agent at once, have it prepare the load and measure its
/// clock: the ready ones (in the launchers' order) and the ones that failed.
fn start_all(launchers: &[String], load: &FarLoad) -> (Vec<Ready>, Vec<Lost>) {
    let ours = concat!("toll ", env!("CARGO_PKG_VERSION"));
    let starting: Vec<(String, Starting)> = launchers
        .iter()
        .map(|l| {
            let (l2, cmd) = (
                l.clone(),
                json!({"op": "http-ready", "load": load.to_json()}),
            );
            let h = std::thread::spawn(move || {
                let mut agent = Agent::launch(&l2).map_err(|e| e.to_string())?;
                if agent.hello.version != ours {
                    return Err(format!(
                        "agent `{l2}` is {}, this is {ours}: install the same toll on both",
                        agent.hello.version
                    ));
                }
                agent
                    .request_within(&cmd, READY_WITHIN)
                    .map_err(|e| e.to_string())?;
                let offset = clock::measure(&mut agent)
                    .map_err(|e| format!("agent `{l2}`: its clock could not be read: {e}"))?;
                Ok((agent, offset))
            });
            (l.clone(), h)
        })
        .collect();
    let (mut ready, mut lost) = (Vec::new(), Vec::new());
    for (launcher, h) in starting {
        match h.join() {
            Ok(Ok((agent, offset))) => ready.push((launcher, agent, offset)),
            Ok(Err(why)) => lost.push(Lost { launcher, why }),
            Err(_) => lost.push(Lost {
                why: format!("agent `{launcher}`: its coordinator thread panicked"),
                launcher,
            }),
        }
    }
    (ready, lost)
}

/// Too few agents left: one line naming what went wrong with each.
fn too_few(lost: &[Lost], left: usize, min: usize, of: usize) -> HttpError {
    let why: Vec<&str> = lost.iter().map(|l| l.why.as_str()).collect();
    HttpError::Agents(format!(
        "{}; {left} of {of} agent(s) left, and --min-agents is {min}",
        why.join("; ")
    ))
}

/// Run the load from the agents of `plan` and merge what they measured.
/// `warn` gets one line per agent lost while the run goes on.
pub fn load(
    cfg: &HttpConfig,
    plan: &AgentsPlan,
    stop: &Arc<AtomicBool>,
    warn: &mut dyn FnMut(&str),
    on_second: &mut dyn FnMut(&Second),
) -> Result<AgentsOutcome, HttpError> {
    let of = plan.launchers.len();
    let (ready, mut lost) = start_all(&plan.launchers, &far_load(cfg, plan));
    if ready.is_empty() {
        let why: Vec<&str> = lost.iter().map(|l| l.why.as_str()).collect();
        return Err(HttpError::Agents(format!(
            "none of the {of} load agent(s) could be started, so no load was sent: {}",
            why.join("; ")
        )));
    }
    if ready.len() < plan.min_agents {
        // Dropping the ready agents stops them.
        return Err(too_few(&lost, ready.len(), plan.min_agents, of));
    }
    for l in &lost {
        warn(&format!("{}; the run goes on without it", l.why));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(HttpError::Agents(
            "interrupted before the load started: nothing sent, nothing stored".into(),
        ));
    }
    let lost_at_start = lost.len();
    // Agent i holds connections i, i + k, i + 2k, … of the run's: as many
    // as shares() gives it, and at a constant rate its shard of arrivals.
    let k = ready.len();
    let conns = shares(cfg.concurrency as u64, k);
    // At a constant rate arrival i goes on connection i mod c, so an agent
    // sends its connections' requests; otherwise shares of -n.
    let reqs = cfg.requests.map(|n| match cfg.rate {
        Some(_) => by_connection(n, cfg.concurrency, k),
        None => shares(n, k),
    });
    // One start instant for all, on the coordinator's clock, far enough
    // ahead for every `http-go` line to arrive; each agent is told it on
    // its own clock.
    let slowest = ready.iter().map(|r| r.2.uncertainty_ns).max().unwrap_or(0);
    let margin = START_MARGIN + Duration::from_nanos(slowest) * 20;
    let start_at = clock::wall_ns() + margin.as_nanos() as i64;
    // The first second's line comes a margin and a second after the go.
    let stall = margin + STALL;
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Value)>();
    let mut going: Vec<Going> = Vec::new();
    // Every agent is ready: the `http-go` lines go out back to back.
    for (i, (launcher, mut agent, offset)) in ready.into_iter().enumerate() {
        let (c, n) = (conns[i], reqs.as_ref().map(|r| r[i]));
        let mut cmd = json!({"op": "http-go", "connections": c, "requests": n,
                             "start_at_ns": offset.to_agent(start_at), "stream": true});
        if cfg.rate.is_some() {
            cmd["shard"] = json!({"index": i, "of": k, "connections": cfg.concurrency});
        }
        let pid = agent.pid();
        let stopper = agent.stopper().ok();
        let tx = tx.clone();
        let answer = std::thread::spawn(move || {
            let answer = agent.request_streaming(&cmd, wire::SECOND, stall, &mut |v| {
                let _ = tx.send((i, v));
            });
            let result = answer
                .map_err(|e| e.to_string())
                .and_then(|v| FarResult::from_json(&v).map_err(|e| format!("answered badly: {e}")));
            (agent, result)
        });
        going.push(Going {
            launcher,
            pid,
            connections: c,
            requests: n,
            clock: offset,
            stopper,
            answer,
        });
    }
    drop(tx);
    let mut seconds = Seconds::new(k);
    // When the stop was sent to the agents; past ANSWER_STOP_WITHIN, the
    // ones still loading are killed.
    let mut stopped: Option<std::time::Instant> = None;
    let mut killed = vec![false; going.len()];
    loop {
        // Counted before the lines are taken: an agent counted finished has
        // sent all of its.
        let live = going.iter().filter(|g| !g.answer.is_finished()).count();
        // Each agent's seconds, merged; shown once all running have sent.
        while let Ok((i, v)) = rx.try_recv() {
            if let Err(e) = seconds.add(i, &v) {
                warn(&format!(
                    "agent `{}` sent a bad second: {e}",
                    going[i].launcher
                ));
            }
        }
        for s in seconds.ready(live) {
            on_second(&s);
        }
        if live == 0 {
            break;
        }
        if stopped.is_none() && stop.load(Ordering::Relaxed) {
            // Over the control channel, not by a signal: an agent behind
            // ssh or kubectl exec gets no signal from here. Each ends its
            // load and answers with what it measured.
            for g in going.iter_mut().filter(|g| !g.answer.is_finished()) {
                if !g.stopper.as_mut().is_some_and(|s| s.stop()) {
                    kill_group(g.pid);
                }
            }
            stopped = Some(std::time::Instant::now());
        }
        if stopped.is_some_and(|at| at.elapsed() > ANSWER_STOP_WITHIN) {
            for (i, g) in going.iter().enumerate() {
                if !g.answer.is_finished() && !killed[i] {
                    kill_group(g.pid);
                    killed[i] = true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut agents = Vec::new();
    let mut kept = Vec::new();
    for (g, killed) in going.into_iter().zip(killed) {
        let Going {
            launcher,
            connections,
            requests,
            clock,
            answer,
            ..
        } = g;
        let joined = answer.join();
        kept.push(matches!(joined, Ok((_, Ok(_)))));
        match joined {
            Ok((agent, Ok(result))) => {
                let host = agent.hello.host.clone();
                agent.close();
                agents.push(AgentRun {
                    launcher,
                    host,
                    connections,
                    requests,
                    clock,
                    result,
                });
            }
            Ok((agent, Err(_))) if killed => {
                drop(agent);
                lost.push(Lost {
                    why: format!(
                        "agent `{launcher}` did not answer its stop within {} s, so it was killed",
                        ANSWER_STOP_WITHIN.as_secs()
                    ),
                    launcher,
                });
            }
            Ok((agent, Err(why))) => {
                drop(agent);
                lost.push(Lost { launcher, why });
            }
            Err(_) => lost.push(Lost {
                why: format!("agent `{launcher}`: its coordinator thread panicked"),
                launcher,
            }),
        }
    }
    if stopped.is_some() && agents.is_empty() {
        return Err(HttpError::Agents(
            "interrupted: no agent answered its stop with what it measured; nothing stored".into(),
        ));
    }
    if stopped.is_none() && (agents.len() < plan.min_agents || agents.is_empty()) {
        return Err(too_few(&lost, agents.len(), plan.min_agents.max(1), of));
    }
    for l in &lost[lost_at_start..] {
        warn(&format!(
            "{}; the run is stored partial with the others",
            l.why
        ));
    }
    for a in agents.iter().filter(|a| a.result.late > LATE_START) {
        warn(&format!(
            "agent `{}` started {:.1} ms after the scheduled instant (its `http-go` came late): its load began that much after the others'",
            a.launcher,
            a.result.late.as_secs_f64() * 1e3
        ));
    }
    let mut outcome = merge(&agents);
    // Stopped: what the agents measured up to the stop, stored partial.
    outcome.interrupted = stopped.is_some();
    Ok(AgentsOutcome {
        outcome,
        agents,
        lost,
        seconds: seconds.merged(&kept),
    })
}

/// `n` requests of one arrival schedule over `c` connections, as `k`
/// agents hold them (agent i: connections i, i + k, …): each agent's sum.
fn by_connection(n: u64, c: usize, k: usize) -> Vec<u64> {
    let each = shares(n, c.max(1));
    (0..k)
        .map(|i| each.iter().skip(i).step_by(k.max(1)).sum())
        .collect()
}

/// End an agent's launcher and everything in its process group (on this
/// machine: an agent beyond ssh is stopped by its channel closing).
fn kill_group(pid: u32) {
    let pgid = nix::unistd::Pid::from_raw(pid as i32);
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// The agents' results added: histograms exactly, counts summed; the run's
/// time is the longest agent's, the rate over time summed interval by
/// interval (each agent's intervals count from its own start).
pub fn merge(agents: &[AgentRun]) -> LoadOutcome {
    let constant_rate = agents.iter().any(|a| a.result.stats.uncorrected.is_some());
    let mut stats = Stats::new(constant_rate);
    let mut elapsed = Duration::ZERO;
    let mut intervals: Vec<Sample> = Vec::new();
    let mut fine: Vec<(Duration, u64)> = Vec::new();
    for a in agents {
        let r = &a.result;
        stats.merge(&r.stats);
        elapsed = elapsed.max(r.wall);
        for (i, s) in r.intervals.iter().enumerate() {
            match intervals.get_mut(i) {
                Some(m) => {
                    m.iters += s.iters;
                    m.total_ns = m.total_ns.max(s.total_ns);
                }
                None => intervals.push(*s),
            }
        }
        for (i, f) in r.fine.iter().enumerate() {
            match fine.get_mut(i) {
                Some(m) => *m = (m.0.max(f.0), m.1 + f.1),
                None => fine.push(*f),
            }
        }
    }
    LoadOutcome {
        stats,
        elapsed,
        intervals,
        fine,
        interrupted: false,
        generator_cpu: None,
        io: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(complete: u64, values: &[u64], wall_ms: u64) -> AgentRun {
        let mut stats = Stats::new(false);
        for &v in values {
            stats.total.record(v).unwrap();
        }
        stats.complete = complete;
        AgentRun {
            launcher: "x".into(),
            host: "h".into(),
            connections: 1,
            requests: Some(complete),
            clock: ClockOffset {
                offset_ns: 0,
                uncertainty_ns: 0,
            },
            result: FarResult {
                stats,
                wall: Duration::from_millis(wall_ms),
                cpu_s: 0.1,
                threads: 1,
                intervals: vec![Sample {
                    iters: complete,
                    total_ns: wall_ms * 1_000_000,
                }],
                fine: vec![],
                late: Duration::ZERO,
                raw: None,
            },
        }
    }

    #[test]
    fn at_a_rate_each_agent_sends_its_connections_requests() {
        // 5 connections of 10 requests each: 3 and 2 of them.
        assert_eq!(by_connection(50, 5, 2), vec![30, 20]);
        assert_eq!(by_connection(12, 4, 2), vec![6, 6]);
        // 7 over 3 connections: 3, 2, 2; agents hold {0, 2} and {1}.
        assert_eq!(by_connection(7, 3, 2), vec![5, 2]);
    }

    #[test]
    fn the_merge_adds_histograms_and_counts_and_keeps_the_longest_time() {
        let (a, b) = (
            run(3, &[1_000, 2_000, 3_000], 900),
            run(1, &[5_000_000], 1_000),
        );
        let m = merge(&[a, b]);
        assert_eq!(m.stats.complete, 4);
        assert_eq!(m.stats.total.len(), 4);
        assert!(m.stats.total.max() >= 5_000_000);
        assert_eq!(m.elapsed, Duration::from_millis(1_000));
        assert_eq!(m.intervals[0].iters, 4);
    }
}
