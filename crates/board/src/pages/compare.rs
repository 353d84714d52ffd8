//! Compare: two runs side by side, as `toll compare A B` prints them —
//! what differs besides the code first, then each point's change with its
//! CI and Mann–Whitney p.

use super::Problem;
use crate::cache::Board;
use crate::layout::page;
use serde::Deserialize;
use std::fmt::Write;
use toll_report::html::escape;
use toll_report::run_compare::{self, Rules, RunComparison};

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
             a run's page links to its machine's previous run).</p>",
        );
        return Ok(page("Compare", "/compare", &h));
    }
    let (a, b) = (run_id("a", &q.a)?, run_id("b", &q.b)?);
    let (ra, rb) = {
        let store = board.store();
        (store.load_run(a)?, store.load_run(b)?)
    };
    let rules = Rules {
        alpha: 0.05,
        threshold: 0.0,
    };
    let c = RunComparison::of(&ra, &rb, rules).map_err(|e| Problem::Request(400, e.to_string()))?;
    if let Some(w) = run_compare::cross_machine_warning(&c) {
        let _ = write!(h, "<p class=\"warn\">{}</p>", escape(&w));
    }
    let _ = write!(
        h,
        "<p class=\"meta\"><a href=\"/runs/{a}\">run {a}</a> ({}, {}) → <a href=\"/runs/{b}\">run {b}</a> ({}, {}) · \
         the same as <code>toll compare {a} {b}</code></p><pre>{}</pre>",
        escape(&ra.env.hostname),
        escape(&ra.started_at),
        escape(&rb.env.hostname),
        escape(&rb.started_at),
        escape(&run_compare::render(&c))
    );
    Ok(page(&format!("Compare runs {a} and {b}"), "/compare", &h))
}
