//! How a run from load agents is kept: the merged figures as any http run,
//! plus the launchers in its config, a row per agent (with its encoded
//! histogram, so anyone can re-merge) in its point's extra, and the agents
//! lost on the way as the reason it is partial.

use super::wire::encode;
use super::AgentsOutcome;
use crate::http::Added;
use serde_json::json;
use toll_report::http_agents::AgentRow;

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
                histogram_v2: encode(&s.total),
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
