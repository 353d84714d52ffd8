//! How a run from load agents is kept: the merged figures as any http run,
//! plus the launchers in its config, a row per agent (with its encoded
//! histogram, so anyone can re-merge, and whether it was itself saturated)
//! in its point's extra, and the agents lost on the way as the reason it is
//! partial.

use super::wire::encode;
use super::AgentsOutcome;
use crate::http::Added;
use serde_json::json;
use toll_report::http_agents::AgentRow;

/// An agent busier than this share of a core per engine thread was
/// saturated: its loops were queueing their own work.
pub const SATURATED: f64 = 0.9;
/// A load shorter than this is mostly its setup: too short to judge.
pub const SHORTEST_JUDGED_S: f64 = 0.2;

/// Whether an agent that spent `cpu_s` CPU seconds (user + system) over
/// `wall_s` with `threads` engine threads was saturated.
pub fn saturated(cpu_s: f64, wall_s: f64, threads: usize) -> bool {
    wall_s >= SHORTEST_JUDGED_S && cpu_s / wall_s >= SATURATED * threads.max(1) as f64
}

/// One row per agent that finished, in the launchers' order.
pub fn rows(out: &AgentsOutcome) -> Vec<AgentRow> {
    out.agents
        .iter()
        .map(|a| {
            let s = &a.result.stats;
            let ms = |q: f64| {
                if s.total.is_empty() {
                    0.0
                } else {
                    s.total.value_at_percentile(q) as f64 / 1e6
                }
            };
            AgentRow {
                agent: a.launcher.clone(),
                host: a.host.clone(),
                connections: a.connections,
                requests: s.complete,
                requests_per_second: s.complete as f64 / a.result.wall.as_secs_f64().max(1e-9),
                p50_ms: ms(50.0),
                p99_ms: ms(99.0),
                errors: s.failed(),
                cpu_s: a.result.cpu_s,
                wall_ns: a.result.wall.as_nanos() as u64,
                bytes: s.total_bytes,
                clock_offset_ms: Some(a.clock.offset_ns as f64 / 1e6),
                clock_uncertainty_ms: Some(a.clock.uncertainty_ns as f64 / 1e6),
                threads: a.result.threads,
                saturated: saturated(
                    a.result.cpu_s,
                    a.result.wall.as_secs_f64(),
                    a.result.threads,
                ),
                histogram_v2: encode(&s.total),
                histogram_uncorrected_v2: s.uncorrected.as_ref().map(encode),
            }
        })
        .collect()
}

/// Why each lost agent was lost, one line each.
pub fn lost_lines(out: &AgentsOutcome) -> Vec<String> {
    out.lost.iter().map(|l| l.why.clone()).collect()
}

/// What the stored run adds for its agents.
pub fn added(launchers: &[String], min_agents: usize, out: &AgentsOutcome) -> Added {
    let mut a = Added::default();
    a.config.insert("agents".into(), json!(launchers));
    a.config.insert("min_agents".into(), json!(min_agents));
    a.extra.insert("agents".into(), json!(rows(out)));
    // The latency over time: each second merged over the agents, with its
    // histogram for anyone to re-merge.
    let s = &out.seconds;
    a.extra.insert(
        "latency_per_second".into(),
        json!({
            "requests": s.iter().map(|s| s.requests).collect::<Vec<_>>(),
            "p50_ms": s.iter().map(|s| s.p50_ms).collect::<Vec<_>>(),
            "p99_ms": s.iter().map(|s| s.p99_ms).collect::<Vec<_>>(),
            "histograms_v2": s.iter().map(|s| s.histogram_v2.as_str()).collect::<Vec<_>>(),
        }),
    );
    let lost = lost_lines(out);
    if !lost.is_empty() {
        a.extra.insert("lost_agents".into(), json!(lost));
        let named: Vec<&str> = out.lost.iter().map(|l| l.launcher.as_str()).collect();
        a.partial = Some(format!(
            "{} of {} load agent(s) lost: {}",
            lost.len(),
            launchers.len(),
            named.join(", ")
        ));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_near_a_core_per_engine_thread_is_saturated() {
        assert!(saturated(0.95, 1.0, 1));
        assert!(saturated(0.90, 1.0, 1), "0.9 of a core is the line");
        assert!(!saturated(0.89, 1.0, 1));
        // Two engine threads: 1.7 cores is 85% of them, 1.8 is 90%.
        assert!(!saturated(1.7, 1.0, 2));
        assert!(saturated(1.8, 1.0, 2));
        assert!(saturated(18.0, 10.0, 2), "over a long run too");
        // A run too short to tell its load from its setup is not judged.
        assert!(!saturated(0.1, 0.1, 1));
        // No engine thread reported (an old agent's answer): one.
        assert!(saturated(0.95, 1.0, 0));
    }
}
