//! The rows a `toll http` run from load agents adds below ab's report: one
//! per agent (its requests, rate, median and p99 latency, errors, CPU time
//! and clock offset from the coordinator), a warning for each agent that was
//! itself saturated, and a line per agent lost on the way. Stored with the
//! run, so every view renders the same rows.

use crate::table::Table;
use serde::{Deserialize, Serialize};

/// One agent's part of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentRow {
    /// Its launcher, e.g. `ssh -o BatchMode=yes b toll agent`.
    pub agent: String,
    /// Its host name, as it said.
    pub host: String,
    pub connections: u64,
    pub requests: u64,
    pub requests_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
    /// Its user + system CPU time over the load.
    pub cpu_s: f64,
    /// Its time from start to last answer, on its clock.
    pub wall_ns: u64,
    pub bytes: u64,
    /// Its clock minus the coordinator's, and that estimate's uncertainty
    /// (half the least round trip of the exchanges); absent in runs stored
    /// before offsets were measured.
    #[serde(default)]
    pub clock_offset_ms: Option<f64>,
    #[serde(default)]
    pub clock_uncertainty_ms: Option<f64>,
    /// Its engine threads (0 in runs stored before they were kept).
    #[serde(default)]
    pub threads: usize,
    /// It was busy near a core per engine thread: its latencies include its
    /// own queueing (decided when stored).
    #[serde(default)]
    pub saturated: bool,
    /// Its latency histogram (ab's Total) in HdrHistogram's V2 encoding,
    /// compressed, base64: anyone can decode and re-merge it.
    pub histogram_v2: String,
    /// At a constant rate, its uncorrected latency histogram (from each
    /// request's actual send), encoded the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram_uncorrected_v2: Option<String>,
}

/// The agents' table, and a line for each agent lost (`lost`: its why).
pub fn render(rows: &[AgentRow], lost: &[String]) -> String {
    render_to(rows, lost, crate::table::width())
}

/// [`render`], the table fitted to `limit` columns.
pub fn render_to(rows: &[AgentRow], lost: &[String], limit: usize) -> String {
    let mut t = Table::new(&[
        "agent",
        "host",
        "requests",
        "req/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "CPU s",
        "clock offset ms",
        "± ms",
    ]);
    let mut aligned = !rows.is_empty();
    for r in rows {
        // Saturation marks the agent's words, which wrap, not its CPU
        // seconds, a number that does not.
        let mut cells = vec![
            if r.saturated {
                format!("{} (saturated)", r.agent)
            } else {
                r.agent.clone()
            },
            r.host.clone(),
            r.requests.to_string(),
            format!("{:.0}", r.requests_per_second),
            format!("{:.3}", r.p50_ms),
            format!("{:.3}", r.p99_ms),
            r.errors.to_string(),
            format!("{:.2}", r.cpu_s),
        ];
        // The offset and its uncertainty as two numbers: a number never
        // wraps, so a narrow terminal cannot split one across lines that
        // read as another row.
        match (r.clock_offset_ms, r.clock_uncertainty_ms) {
            (Some(o), Some(u)) => cells.extend([format!("{o:+.3}"), format!("{u:.3}")]),
            _ => {
                aligned = false;
                cells.extend(["-".to_string(), "-".to_string()]);
            }
        }
        t.row(cells);
    }
    let start = if aligned {
        "started together at a scheduled instant"
    } else {
        "starts not clock-aligned"
    };
    let mut out = format!(
        "Load agents:            {} (histograms added exactly; {start})\n",
        rows.len()
    );
    out.push_str(&t.render_to(limit));
    for r in rows.iter().filter(|r| r.saturated) {
        let wall = r.wall_ns as f64 / 1e9;
        out.push_str(&format!(
            "warning: agent `{}` was saturated: {:.2} CPU s in {:.2} s is {:.2} cores busy for {} engine thread(s); its latencies include its own queueing: add agents, or give each more cores (--threads)\n",
            r.agent,
            r.cpu_s,
            wall,
            r.cpu_s / wall.max(1e-9),
            r.threads
        ));
    }
    for why in lost {
        out.push_str(&format!("lost: {why}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_terminal_wraps_only_the_agents_words() {
        let row = AgentRow {
            agent: "ip netns exec toll-test-agent-a /usr/local/bin/toll agent --threads 1".into(),
            host: "agent-a.example".into(),
            connections: 2,
            requests: 123_456,
            requests_per_second: 61_728.0,
            p50_ms: 0.2,
            p99_ms: 1.5,
            errors: 0,
            cpu_s: 1.91,
            wall_ns: 2_000_000_000,
            bytes: 1,
            clock_offset_ms: Some(0.0004),
            clock_uncertainty_ms: Some(0.005),
            threads: 1,
            saturated: true,
            histogram_v2: String::new(),
            histogram_uncorrected_v2: None,
        };
        let text = render_to(&[row.clone(), row], &[], 100);
        let table: Vec<&str> = text
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("warning:"))
            .collect();
        assert!(table.iter().all(|l| l.chars().count() <= 100), "{text}");
        // Every number of a row is on its first line: each row's offset,
        // uncertainty and request count appear together, once a row.
        let firsts: Vec<&&str> = table.iter().filter(|l| l.contains("123456")).collect();
        assert_eq!(firsts.len(), 2, "{text}");
        for l in firsts {
            assert!(l.contains("+0.000") && l.contains("0.005"), "{l}\n{text}");
        }
    }

    #[test]
    fn one_row_per_agent_and_a_line_per_lost_one() {
        let row = AgentRow {
            agent: "toll agent".into(),
            host: "a".into(),
            connections: 2,
            requests: 1000,
            requests_per_second: 5000.0,
            p50_ms: 0.2,
            p99_ms: 1.5,
            errors: 0,
            cpu_s: 0.31,
            wall_ns: 200_000_000,
            bytes: 1,
            clock_offset_ms: Some(-0.0123),
            clock_uncertainty_ms: Some(0.031),
            threads: 1,
            saturated: false,
            histogram_v2: String::new(),
            histogram_uncorrected_v2: None,
        };
        let text = render(
            &[row.clone(), row.clone()],
            &["the far end `x` exited".into()],
        );
        assert_eq!(text.matches("toll agent").count(), 2, "{text}");
        assert!(text.contains("lost: the far end `x` exited"), "{text}");
        assert!(text.contains("0.200") && text.contains("1.500"), "{text}");
        assert!(text.contains("-0.012") && text.contains("0.031"), "{text}");
        assert!(text.contains("started together"), "{text}");
        // A row stored before offsets were measured still reads, as such.
        let mut old = serde_json::to_value(&row).unwrap();
        let o = old.as_object_mut().unwrap();
        o.remove("clock_offset_ms");
        o.remove("clock_uncertainty_ms");
        let old: AgentRow = serde_json::from_value(old).unwrap();
        assert!(render(&[old], &[]).contains("starts not clock-aligned"));
        assert!(!text.contains("saturated"), "{text}");
        let busy = AgentRow {
            agent: "ssh b toll agent".into(),
            cpu_s: 0.19,
            saturated: true,
            ..row
        };
        let text = render_to(&[busy], &[], usize::MAX);
        assert!(
            text.contains("ssh b toll agent (saturated)") && text.contains("0.19"),
            "the row marks it: {text}"
        );
        let warning: Vec<&str> = text.lines().filter(|l| l.starts_with("warning:")).collect();
        assert_eq!(warning.len(), 1, "{text}");
        assert!(
            warning[0].contains("`ssh b toll agent` was saturated"),
            "{text}"
        );
        assert!(
            warning[0].contains("0.95 cores busy for 1 engine thread"),
            "{text}"
        );
    }
}
