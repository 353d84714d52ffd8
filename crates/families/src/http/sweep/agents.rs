//! A sweep through load agents: each step is one `--rate` load from them
//! (`toll http --rate R --remote …`'s: the step's rate one arrival schedule
//! sharded over the agents, started together, their histograms added
//! exactly and counts summed), so the driver judges, stores and finds the
//! knee as it does from this machine. A step needs every agent: one that
//! cannot start, dies or stalls breaks the step, and the sweep stops there.

use crate::http::agents::{self, AgentsPlan};
use crate::http::{HttpConfig, HttpError, LoadOutcome};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The load of one step through the agents of `plan` (all of them must
/// last: `min_agents` is their number); `warn` gets each agent's warning
/// line (a late start, a bad second).
pub fn loader<'a>(
    plan: &'a AgentsPlan,
    stop: &'a Arc<AtomicBool>,
    warn: &'a mut dyn FnMut(&str),
) -> impl FnMut(&HttpConfig) -> Result<LoadOutcome, HttpError> + 'a {
    move |step| {
        let out = agents::load(step, plan, stop, warn, &mut |_| {}).map_err(|e| match e {
            HttpError::Agents(why) => HttpError::Agents(reasons(&why).to_string()),
            other => other,
        })?;
        // Stopped by the user with an agent lost: the step is partial by
        // the stop, and the sweep ends on it.
        match out.lost.first() {
            Some(_) if !out.outcome.interrupted => {
                let why: Vec<&str> = out.lost.iter().map(|l| l.why.as_str()).collect();
                Err(HttpError::Agents(why.join("; ")))
            }
            _ => Ok(out.outcome),
        }
    }
}

/// The agents' reasons without the count a load from too few agents ends
/// with (`1 of 2 agent(s) left, and --min-agents is 2`): a sweep takes no
/// --min-agents, every agent must last.
fn reasons(why: &str) -> &str {
    match why.rsplit_once("; ") {
        Some((named, count)) if count.contains(" agent(s) left, and --min-agents is ") => named,
        _ => why,
    }
}

#[cfg(test)]
mod tests {
    use super::reasons;

    #[test]
    fn a_lost_agent_is_named_without_the_count_of_those_left() {
        assert_eq!(
            reasons(
                "agent `b` died; agent `c` stalled; 1 of 3 agent(s) left, and --min-agents is 3"
            ),
            "agent `b` died; agent `c` stalled"
        );
        assert_eq!(reasons("agent `b` died"), "agent `b` died");
    }
}
