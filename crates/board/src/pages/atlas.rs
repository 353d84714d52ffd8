//! The atlas page: each machine's newest atlas side by side (machines as
//! columns, crossings as rows, one log picture with a colour per machine),
//! each machine's environment a click away on its atlas's own page.

use super::Problem;
use crate::cache::Board;
use crate::layout::page;
use toll_report::atlas_machines::{render as machines, MOST};
use toll_store::{Run, RunStatus};

/// The atlas page.
pub fn render(board: &Board) -> Result<bytes::Bytes, Problem> {
    let rows = board.runs()?;
    // Newest first: each host's first atlas is its newest.
    let mut hosts: Vec<&str> = vec![];
    let mut ids: Vec<i64> = vec![];
    for r in rows.iter().filter(|r| {
        r.family == "atlas" && matches!(r.status, RunStatus::Complete | RunStatus::Partial)
    }) {
        if !hosts.contains(&r.host.as_str()) && ids.len() < MOST {
            hosts.push(&r.host);
            ids.push(r.id);
        }
    }
    let runs: Vec<Run> = ids
        .iter()
        .map(|&id| board.store().load_run(id))
        .collect::<Result<_, _>>()?;
    let refs: Vec<&Run> = runs.iter().collect();
    let mut body = String::from(
        "<p class=\"muted\">Each machine's newest atlas (<code>toll atlas</code>, then <code>toll push RUN --to URL</code>): its latency numbers, measured, with their intervals (95% unless a level follows them).</p>\n",
    );
    body.push_str(&machines(&refs, &|id| format!("/runs/{id}")));
    Ok(page("Atlas — machines side by side", "/atlas", &body).into())
}
