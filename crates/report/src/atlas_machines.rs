//! Machines side by side (the board's atlas page): each machine's newest
//! atlas a column, each crossing a row — one log picture with a colour per
//! machine, then the table of figures with their intervals, each column
//! headed by its machine with a link to its atlas (where its environment
//! is: hypervisor, container, mitigations, governor, SMT).

use crate::atlas::cells;
use crate::escape::escape;
use crate::plot::machines::{MachineRow, MachinesChart};
use serde_json::Value;
use std::fmt::Write;
use toll_store::Run;

/// The most machines one page draws (a colour each).
pub const MOST: usize = 7;

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn rows(run: &Run) -> Vec<&Value> {
    run.config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("figure").is_some_and(|f| !f.is_null()))
        .collect()
}

fn interval(f: &Value) -> Option<(f64, f64, f64)> {
    let v = f.get("value")?.as_f64()?;
    let lo = f.get("lo").and_then(Value::as_f64).unwrap_or(v);
    let hi = f.get("hi").and_then(Value::as_f64).unwrap_or(v);
    Some((v, lo, hi))
}

/// A machine in a few words: its host, CPU and hypervisor.
pub fn machine(run: &Run) -> String {
    let e = &run.env;
    format!(
        "{} — {} ({} logical CPUs{})",
        e.hostname,
        e.cpu_model,
        e.logical_cpus,
        e.virtualization
            .as_deref()
            .map(|v| format!(", under {v}"))
            .unwrap_or_default()
    )
}

/// Every crossing any of `atlases` measured, in the first's order of time
/// then the rest's: (crossing, unit).
fn crossings(atlases: &[&Run]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    for a in atlases {
        let mut mine = rows(a);
        mine.sort_by(|x, y| {
            let v = |r: &Value| r["figure"]["value"].as_f64().unwrap_or(0.0);
            (text(x, "unit") != "ns")
                .cmp(&(text(y, "unit") != "ns"))
                .then(v(x).total_cmp(&v(y)))
        });
        for r in mine {
            let c = text(r, "crossing");
            if !out.iter().any(|(o, _)| o == c) {
                out.push((c.to_string(), text(r, "unit").to_string()));
            }
        }
    }
    out
}

/// A crossing's figure in one atlas.
fn figure<'a>(run: &'a Run, crossing: &str) -> Option<&'a Value> {
    rows(run)
        .into_iter()
        .find(|r| text(r, "crossing") == crossing)
        .map(|r| &r["figure"])
}

/// The picture and the table, for `atlases` (one per machine, at most
/// [`MOST`]); `link(id)` is where an atlas's own page is.
pub fn render(atlases: &[&Run], link: &dyn Fn(i64) -> String) -> String {
    let mut h = String::new();
    if atlases.is_empty() {
        h.push_str("<p class=\"muted\">No atlas on this board yet: <code>toll atlas</code> on a machine, then <code>toll push RUN --to URL</code>.</p>\n");
        return h;
    }
    let names: Vec<String> = atlases.iter().map(|r| machine(r)).collect();
    let all = crossings(atlases);
    let chart = MachinesChart {
        title: "every crossing, each machine a colour, with its interval".into(),
        machines: names.clone(),
        rows: all
            .iter()
            .filter(|(_, unit)| unit == "ns")
            .map(|(c, _)| MachineRow {
                label: c.clone(),
                figures: atlases
                    .iter()
                    .map(|a| figure(a, c).and_then(interval))
                    .collect(),
            })
            .collect(),
    };
    h.push_str("<figure class=\"atlas\">\n");
    match chart.svg() {
        Ok(svg) => h.push_str(&svg),
        Err(e) => {
            let _ = write!(
                h,
                "<p class=\"muted\">No picture: {}.</p>",
                escape(&e.to_string())
            );
        }
    }
    h.push_str("<figcaption>One log axis for every row: between two machines, a ratio is a distance. Each machine's environment is on its atlas's page (its column's link).</figcaption>\n</figure>\n");
    let share = 70.0 / atlases.len() as f64;
    h.push_str("<table class=\"atlas machines\" style=\"table-layout: fixed; width: 100%; font-size: 13px;\"><colgroup><col style=\"width:30%\">");
    for _ in atlases {
        let _ = write!(h, "<col style=\"width:{share:.1}%\">");
    }
    h.push_str("</colgroup>\n<thead><tr><th>crossing</th>");
    for (a, name) in atlases.iter().zip(&names) {
        let _ = write!(
            h,
            "<th style=\"white-space: normal; overflow-wrap: anywhere;\"><a href=\"{}\">{}</a><br><span class=\"muted\">atlas {}, {}</span></th>",
            escape(&link(a.id)),
            escape(name),
            a.id,
            escape(a.started_at.get(..10).unwrap_or(&a.started_at))
        );
    }
    h.push_str("</tr></thead><tbody>\n");
    for (c, unit) in &all {
        let _ = write!(
            h,
            "<tr><td style=\"white-space: normal; overflow-wrap: anywhere;\">{}</td>",
            escape(c)
        );
        for a in atlases {
            let cell = figure(a, c)
                .and_then(|f| cells(f, unit))
                .map_or("–".to_string(), |(v, ci)| format!("{v} {ci}"));
            let _ = write!(
                h,
                "<td class=\"num\" style=\"white-space: normal;\">{}</td>",
                escape(&cell)
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toll_measure::Fingerprint;
    use toll_store::RunStatus;

    fn atlas(id: i64, host: &str, syscall: f64) -> Run {
        let mut env = Fingerprint::capture(vec![]);
        env.hostname = host.into();
        Run {
            id,
            family: "atlas".into(),
            started_at: "2026-11-28T06:00:00Z".into(),
            finished_at: None,
            status: RunStatus::Complete,
            summary: String::new(),
            error: None,
            config: json!({"rows": [
                {"crossing": "syscall (getppid)", "unit": "ns",
                 "figure": {"value": syscall, "lo": syscall * 0.9, "hi": syscall * 1.1}},
                {"crossing": "pipe rate (1/β)", "unit": "B/s",
                 "figure": {"value": 4e9, "lo": 3.9e9, "hi": 4.1e9}},
            ]}),
            env,
            tool_version: "0".into(),
            series: vec![],
        }
    }

    #[test]
    fn machines_are_columns_and_crossings_rows() {
        let (a, b) = (atlas(3, "laptop", 100.0), atlas(8, "vm", 400.0));
        let h = render(&[&a, &b], &|id| format!("/runs/{id}"));
        assert!(h.contains("<svg") && h.contains("href=\"/runs/8\""));
        assert!(h.contains("laptop — ") && h.contains("vm — "));
        let row = h
            .split("<tr>")
            .skip(1)
            .find(|r| r.contains("syscall"))
            .unwrap();
        assert!(row.contains("100 ns") && row.contains("400 ns"), "{row}");
        assert!(h.contains("4.00 GB/s"));
        assert!(render(&[], &|_| String::new()).contains("No atlas"));
    }
}
