//! One run: what `toll report` shows for it (models, plots, points, the
//! machine), with where it came from and links to compare it.

use super::{query_value, Problem};
use crate::cache::Board;
use crate::layout::page;
use std::fmt::Write;
use toll_report::html::{escape, run_section};
use toll_report::plot::Scale;
use toll_store::Run;

/// Run `id`'s page.
pub fn render(board: &Board, id: i64) -> Result<bytes::Bytes, Problem> {
    // The machine's run of the same family just before this one, to
    // compare with.
    let rows = board.runs()?;
    let this = rows.iter().find(|r| r.id == id).ok_or(Problem::Request(
        404,
        format!("no run {id} on this board: see /runs"),
    ))?;
    let previous = rows
        .iter()
        .find(|r| r.id < id && r.host == this.host && r.family == this.family)
        .map(|r| r.id);
    let origin = board.store().run_origin(id)?;
    Ok(board.page(id, |run| body(run, previous, origin.as_ref()))?)
}

fn body(run: &Run, previous: Option<i64>, origin: Option<&serde_json::Value>) -> String {
    let mut h = String::new();
    h.push_str("<p class=\"meta\">");
    let _ = write!(
        h,
        "<a href=\"/api/runs/{0}\">JSON (every sample)</a>",
        run.id
    );
    if let Some(p) = previous {
        let _ = write!(
            h,
            " · <a href=\"/compare?a={p}&amp;b={0}\">compare with this machine's previous {1} run ({p})</a>",
            run.id,
            escape(&run.family)
        );
    }
    if let Some(o) = origin {
        let who = o.get("pushed_by").and_then(|v| v.as_str());
        let when = o.get("imported_at").and_then(|v| v.as_str()).unwrap_or("");
        match who {
            Some(w) => {
                let _ = write!(h, " · pushed by {} at {}", escape(w), escape(when));
            }
            None => {
                let _ = write!(h, " · imported at {}", escape(when));
            }
        }
    }
    h.push_str("</p>\n");
    if !run.series.is_empty() {
        // Each series across this machine's runs.
        h.push_str("<p class=\"meta\">trend across runs:");
        for (k, s) in run.series.iter().enumerate() {
            let _ = write!(
                h,
                "{} <a href=\"/trend?family={}&amp;series={}&amp;host={}\">{}</a>",
                if k == 0 { "" } else { " ·" },
                escape(&query_value(&run.family)),
                escape(&query_value(&s.label)),
                escape(&query_value(&run.env.hostname)),
                escape(&s.label)
            );
        }
        h.push_str("</p>\n");
    }
    run_section(&mut h, run, Scale::Auto);
    page(&format!("Run {} — {}", run.id, run.family), "/runs", &h)
}
