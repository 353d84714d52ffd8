//! Compare: two runs side by side, what `toll compare A B --html` writes —
//! what differs besides the code first, then one table of every series:
//! each point's medians, change with its CI (and a bar that draws it
//! against 0), the Mann–Whitney p and the verdict, and for a series with a
//! model the change of its stored α and β (`toll_report::runs_compare::html`
//! draws both).

use super::Problem;
use crate::cache::Board;
use crate::layout::page;
use serde::Deserialize;
use std::fmt::Write;
use toll_report::html::escape;
use toll_report::runs_compare::{self, Rules, RunComparison};

/// The compare page's query.
#[derive(Debug, Default, Deserialize)]
pub struct Pair {
    #[serde(default)]
    pub a: String,
    #[serde(default)]
    pub b: String,
}

fn run_id(name: &str, v: &str) -> Result<i64, Problem> {
    v.trim().parse::<i64>().map_err(|_| {
        Problem::Request(
            400,
            format!("{name}={v} is not a run number: pick runs from /runs"),
        )
    })
}

/// The board's rules: `toll compare`'s defaults.
const RULES: Rules = Rules {
    alpha: 0.05,
    threshold: 0.0,
    mixed_latency: false,
};

/// The compare page: a form, and the comparison when both runs are named.
pub fn render(board: &Board, q: &Pair) -> Result<String, Problem> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<form class=\"filter\" method=\"get\" action=\"/compare\">\
         <label>run A (before)<input name=\"a\" value=\"{}\" size=\"8\"></label>\
         <label>run B (after)<input name=\"b\" value=\"{}\" size=\"8\"></label>\
         <button>Compare</button></form>",
        escape(&q.a),
        escape(&q.b)
    );
    if q.a.is_empty() || q.b.is_empty() {
        h.push_str(
            "<p class=\"muted\">Name two runs of one family (their numbers are on <a href=\"/runs\">Runs</a>; \
             a run's page and a series' trend link each run to its machine's previous one).</p>",
        );
        return Ok(page("Compare", "/compare", &h));
    }
    let (a, b) = (run_id("a", &q.a)?, run_id("b", &q.b)?);
    let (ra, rb) = {
        let store = board.store();
        (store.load_run(a)?, store.load_run(b)?)
    };
    let c = RunComparison::of(&ra, &rb, RULES).map_err(|e| Problem::Request(400, e.to_string()))?;
    let _ = write!(
        h,
        "<p class=\"meta\"><a href=\"/runs/{a}\">run {a}</a> ({}, {}) → <a href=\"/runs/{b}\">run {b}</a> ({}, {}) · \
         the same as <code>toll compare {a} {b}</code></p>",
        escape(&ra.env.hostname),
        escape(&ra.started_at),
        escape(&rb.env.hostname),
        escape(&rb.started_at),
    );
    runs_compare::html::body(&mut h, &c);
    Ok(page(&format!("Compare runs {a} and {b}"), "/compare", &h))
}
