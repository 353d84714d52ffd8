//! The reports a family keeps with its points, for every view of a run
//! (`toll show`, `toll report`'s page and Markdown, the board).

use crate::http_compare::CompareReport;
use toll_store::Run;

/// The reports a family keeps with its points, as its command printed them:
/// `toll http`'s ab-shaped report per series and `toll http compare`'s
/// comparison, each as (title, text).
pub fn family_reports(run: &Run) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if run.family == "replicate" {
        out.push((
            "replicate".to_string(),
            crate::replicate::render(&run.config),
        ));
    }
    if run.family == "atlas" {
        out.push(("atlas".to_string(), crate::atlas::render(&run.config)));
    }
    if run.family == "ffi" {
        out.push((
            "ffi".to_string(),
            crate::ffi::page_tables(&crate::ffi::view_of_run(run)),
        ));
    }
    for s in &run.series {
        for p in &s.points {
            let Some(extra) = &p.extra else { continue };
            if let Some(r) = extra.get("sweep").and_then(|r| {
                serde_json::from_value::<crate::http_sweep::SweepReport>(r.clone()).ok()
            }) {
                out.push(("sweep".to_string(), crate::http_sweep::render(&r)));
            }
            if let Some(c) = extra
                .get("comparison")
                .and_then(|c| serde_json::from_value::<CompareReport>(c.clone()).ok())
            {
                out.push(("comparison".to_string(), crate::http_compare::render(&c)));
            }
            if let Some(r) = extra
                .get("report")
                .and_then(|r| serde_json::from_value::<crate::http::HttpReport>(r.clone()).ok())
            {
                let mut text = crate::http::render(&r);
                // A run from load agents: their rows below the whole run's report.
                if let Some(rows) = extra.get("agents").and_then(|a| {
                    serde_json::from_value::<Vec<crate::http_agents::AgentRow>>(a.clone()).ok()
                }) {
                    let lost: Vec<String> = extra
                        .get("lost_agents")
                        .and_then(|l| serde_json::from_value(l.clone()).ok())
                        .unwrap_or_default();
                    text.push('\n');
                    text.push_str(&crate::http_agents::render(&rows, &lost));
                }
                out.push((s.label.clone(), text));
            }
        }
    }
    out
}

/// A config key that is part of a `replicate` or `atlas` run's table (its
/// rows, findings and errors), printed as the table rather than as a value.
pub fn is_table_key(run: &Run, key: &str) -> bool {
    (run.family == "replicate" && matches!(key, "rows" | "findings" | "errors"))
        || (run.family == "atlas" && matches!(key, "rows" | "groups" | "runs" | "errors"))
}
