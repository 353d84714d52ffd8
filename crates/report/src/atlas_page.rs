//! `toll atlas`'s page (`toll report ATLAS -o FILE`, `toll atlas --html
//! FILE`): one picture — every crossing a dot with its interval on one log
//! axis from 1 ns to 1 s, grouped as the atlas groups them — with the
//! figures people quote as hollow diamonds where they name the same
//! crossing (atlas_quotes.rs, each source named under the picture); the
//! machine's environment beside it (hypervisor, container, mitigations,
//! governor, SMT: what moves these figures most); then the quotes against
//! this machine, every crossing with what it is made of and its run, the
//! rates and sizes, and what was not measured and why.
//!
//! Everything comes from the stored `atlas` run: its config holds the rows,
//! its fingerprint the machine. Every string goes through [`escape`].

use crate::atlas::cells;
use crate::atlas_quotes::{self, Quote};
use crate::escape::escape;
use crate::plot::{DotChart, DotRow};
use crate::show::machine_rows;
use serde_json::Value;
use std::fmt::Write;
use toll_store::Run;

/// The page's own rules, beside [`crate::html::STYLE`].
pub const STYLE: &str = r#"
table.atlas { table-layout: fixed; width: 100%; font-size: 13px; }
table.atlas th, table.atlas td { white-space: normal; overflow-wrap: anywhere; padding: 4px 6px; }
table.atlas td.num { white-space: normal; }
table.atlas td.made { color: var(--muted); font-size: 12px; }
table.env th { width: 11em; }
ol.sources { font-size: 13px; color: var(--muted); padding-left: 20px; }
"#;

/// The axis every atlas picture spans at least: 1 ns to 1 s.
pub const SPAN_NS: (f64, f64) = (1.0, 1e9);

/// The page's heading, when every run on it is an atlas.
pub fn header(h: &mut String, title: &str) {
    let _ = writeln!(
        h,
        "<header class=\"page\"><h1>{}<span class=\"model\">this machine's latency numbers, measured</span></h1>\
         <p class=\"meta\">each crossing measured by the family that owns it, with its interval (95% unless a level follows it) · a hollow diamond: the figure a named source quotes for the same crossing</p></header>",
        escape(title)
    );
}

/// Whether a run is an atlas.
pub fn is_atlas(run: &Run) -> bool {
    run.family == "atlas"
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// The stored rows.
fn rows(run: &Run) -> Vec<&Value> {
    run.config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect()
}

/// (value, lo, hi).
type Interval = (f64, f64, f64);

/// A measured row's (value, lo, hi) in its base unit; an interval it
/// cannot have is the value alone.
fn figure(row: &Value) -> Option<Interval> {
    let f = row.get("figure").filter(|f| !f.is_null())?;
    let v = f.get("value").and_then(Value::as_f64)?;
    if f.get("no_interval").is_some_and(|w| !w.is_null()) {
        return Some((v, v, v));
    }
    let lo = f.get("lo").and_then(Value::as_f64).unwrap_or(v);
    let hi = f.get("hi").and_then(Value::as_f64).unwrap_or(v);
    Some((v, lo, hi))
}

fn is_time(row: &Value) -> bool {
    text(row, "unit") == "ns"
}

/// The picture: each group's timed crossings, fastest first, on one axis
/// in ns spanning at least 1 ns to 1 s, a quoted figure as a diamond.
pub fn chart(run: &Run) -> DotChart {
    let mut timed: Vec<(&Value, (f64, f64, f64))> = rows(run)
        .into_iter()
        .filter(|r| is_time(r))
        .filter_map(|r| Some((r, figure(r)?)))
        .collect();
    // Grouped in the atlas's order of groups, fastest first within each.
    let order: Vec<String> =
        rows(run)
            .iter()
            .map(|r| text(r, "group").to_string())
            .fold(vec![], |mut v, g| {
                if !v.contains(&g) {
                    v.push(g);
                }
                v
            });
    timed.sort_by(|(a, fa), (b, fb)| {
        let at = |r: &Value| order.iter().position(|g| g == text(r, "group"));
        at(a).cmp(&at(b)).then(fa.0.total_cmp(&fb.0))
    });
    // A group's heading: its name and the family that measured it.
    let family = |g: &str| {
        run.config
            .get("groups")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|e| text(e, "group") == g)
            .map(|e| format!("{g} — {}", text(e, "family")))
            .unwrap_or_else(|| g.to_string())
    };
    let rows = timed.into_iter().map(|(r, m)| {
        (
            family(text(r, "group")),
            DotRow {
                label: text(r, "crossing").to_string(),
                measured: Some(m),
                original: atlas_quotes::for_crossing(text(r, "crossing")).map(|q| q.ns),
            },
        )
    });
    DotChart::grouped(
        format!(
            "toll atlas — run {}: every crossing, with its interval",
            run.id
        ),
        "a quoted figure (sources below)",
        rows,
    )
    .on_one_ns_axis("time of one crossing")
    .spanning(SPAN_NS.0, SPAN_NS.1)
}

/// The environment: what moves these figures most first, then the rest
/// of the machine as every run stores it.
fn environment(h: &mut String, run: &Run) {
    let all = machine_rows(&run.env);
    let first = [
        "cpu",
        "system",
        "governor",
        "smt",
        "container",
        "seccomp",
        "mitigations",
        "kernel flags",
        "memory reclaim",
        "transparent huge pages",
    ];
    let mut ordered: Vec<&(String, String)> = first
        .iter()
        .filter_map(|k| all.iter().find(|(name, _)| name == k))
        .collect();
    ordered.extend(all.iter().filter(|(k, _)| !first.contains(&k.as_str())));
    h.push_str("<h3>This machine</h3>\n<table class=\"kv env\"><tbody>\n");
    for (k, v) in ordered {
        let k = if k == "system" {
            "system (hypervisor)"
        } else {
            k
        };
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    h.push_str("</tbody></table>\n");
    if run.env.platform.is_none() {
        h.push_str("<p class=\"muted\">This atlas was stored before toll read the platform (SMT, container, mitigations): <code>toll sys</code> shows them for this machine now.</p>\n");
    }
}

/// A time in ns as it reads (`18.2 ns`, `4.51 µs`).
fn ns(v: f64) -> String {
    cells(&serde_json::json!({ "value": v, "lo": v, "hi": v }), "ns")
        .map_or_else(|| format!("{v} ns"), |(shown, _)| shown)
}

/// The quotes against this machine: what each source says, its figure,
/// this machine's and their ratio.
fn quotes(h: &mut String, run: &Run) {
    let rows = rows(run);
    let found: Vec<(&Quote, Option<Interval>)> = atlas_quotes::QUOTES
        .iter()
        .filter_map(|q| {
            let r = rows.iter().find(|r| text(r, "crossing") == q.crossing)?;
            Some((q, figure(r)))
        })
        .collect();
    h.push_str("<h3>Quoted figures against this machine</h3>\n");
    if found.is_empty() {
        h.push_str(
            "<p class=\"muted\">None of this atlas's crossings is one a source quotes.</p>\n",
        );
    } else {
        h.push_str("<table class=\"atlas\"><colgroup><col style=\"width:26%\"><col style=\"width:24%\"><col style=\"width:12%\"><col style=\"width:16%\"><col style=\"width:22%\"></colgroup>\n<thead><tr><th>crossing</th><th>as the source says it</th><th>quoted</th><th>this machine</th><th>this machine ÷ quoted</th></tr></thead><tbody>\n");
        for (q, m) in found {
            let (here, ratio) = match m {
                Some((v, lo, hi)) if lo < hi => (
                    ns(v),
                    format!("{:.2}× [{:.2}, {:.2}]", v / q.ns, lo / q.ns, hi / q.ns),
                ),
                Some((v, _, _)) => (ns(v), format!("{:.2}×", v / q.ns)),
                None => ("not measured".into(), "–".into()),
            };
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>“{}” ({})</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(q.crossing),
                escape(q.said),
                escape(q.source.name),
                escape(&ns(q.ns)),
                escape(&here),
                escape(&ratio)
            );
        }
        h.push_str("</tbody></table>\n");
    }
    h.push_str("<ol class=\"sources\">\n");
    for s in atlas_quotes::sources() {
        let _ = writeln!(
            h,
            "<li><strong>{}</strong>: {}</li>",
            escape(s.name),
            escape(s.cite)
        );
    }
    h.push_str("<li><strong>lmbench</strong>: none of its published runs is quoted yet — no run whose machine and source could be named was at hand (<code>scripts/bench-sys</code> runs lmbench3 here instead).</li>\n</ol>\n");
}

/// Rows as a table: crossing, figure, interval, what it is made of, run.
fn table(h: &mut String, head: &str, rows: &[&Value]) {
    let _ = writeln!(
        h,
        "<table class=\"atlas\"><colgroup><col style=\"width:30%\"><col style=\"width:11%\"><col style=\"width:17%\"><col style=\"width:36%\"><col style=\"width:6%\"></colgroup>\n<thead><tr><th>{}</th><th>figure</th><th>interval</th><th>made of</th><th>run</th></tr></thead><tbody>",
        escape(head)
    );
    for r in rows {
        let (v, ci) = cells(&r["figure"], text(r, "unit")).unwrap_or(("–".into(), "–".into()));
        let run = r
            .get("run")
            .and_then(Value::as_i64)
            .map_or("–".into(), |i| i.to_string());
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"made\">{}</td><td class=\"num\">{}</td></tr>",
            escape(text(r, "crossing")),
            escape(&v),
            escape(&ci),
            escape(text(r, "made_of")),
            escape(&run)
        );
    }
    h.push_str("</tbody></table>\n");
}

/// The atlas's section of the page.
pub fn section(h: &mut String, run: &Run) {
    let c = &run.config;
    let all = rows(run);
    let measured: Vec<&Value> = all
        .iter()
        .copied()
        .filter(|r| figure(r).is_some())
        .collect();
    let _ = write!(
        h,
        "<style>{STYLE}</style>\n<section class=\"run atlas\" id=\"run-{}\">\n<h2>Atlas — run {} <span class=\"badge {}\">{}</span></h2>\n",
        run.id,
        run.id,
        if run.status.as_str() == "complete" {
            "v-ok"
        } else {
            "v-curve"
        },
        escape(run.status.as_str())
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} of {} crossings measured · {} preset, {:.0} s of measuring · started {} · toll {} · every interval 95% unless a level follows it</p>",
        measured.len(),
        all.len(),
        escape(text(c, "preset")),
        c.get("measuring_s").and_then(Value::as_f64).unwrap_or(0.0),
        escape(&run.started_at),
        escape(&run.tool_version)
    );
    if let Some(e) = &run.error {
        let _ = writeln!(h, "<p class=\"warn\">Stopped: {}</p>", escape(e));
    }
    let chart = chart(run);
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
    h.push_str("<figcaption>Each dot is this machine's figure for one crossing, its bar the interval; a hollow diamond is the figure a source quotes for the same crossing, so the distance between them is how far folklore is off here. One log axis for every row.</figcaption>\n</figure>\n");
    environment(h, run);
    quotes(h, run);
    let mut times: Vec<&Value> = measured.iter().copied().filter(|r| is_time(r)).collect();
    times.sort_by(|a, b| {
        let v = |r: &Value| figure(r).map_or(0.0, |f| f.0);
        v(a).total_cmp(&v(b))
    });
    if !times.is_empty() {
        h.push_str("<h3>Every crossing, fastest first</h3>\n");
        table(h, "crossing", &times);
    }
    let others: Vec<&Value> = measured.iter().copied().filter(|r| !is_time(r)).collect();
    if !others.is_empty() {
        h.push_str("<h3>Rates and sizes</h3>\n");
        table(h, "rate or size", &others);
    }
    let missing: Vec<&Value> = all
        .iter()
        .copied()
        .filter(|r| figure(r).is_none())
        .collect();
    if !missing.is_empty() {
        h.push_str("<h3>Not measured</h3>\n<ul class=\"model\">\n");
        for r in missing {
            let _ = writeln!(
                h,
                "<li>{} ({}): {}</li>",
                escape(text(r, "crossing")),
                escape(text(r, "group")),
                escape(text(r, "missing"))
            );
        }
        h.push_str("</ul>\n");
    }
    for g in c
        .get("groups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|g| g.get("measured") == Some(&Value::Bool(false)))
    {
        let _ = writeln!(
            h,
            "<p class=\"muted\">group {}: {}</p>",
            escape(text(g, "group")),
            escape(text(g, "reason"))
        );
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toll_measure::Fingerprint;
    use toll_store::RunStatus;

    fn atlas() -> Run {
        let row = |group: &str, crossing: &str, unit: &str, f: Value| {
            json!({"group": group, "crossing": crossing, "unit": unit, "figure": f,
                   "missing": Value::Null, "made_of": "a <trap>", "run": 4})
        };
        Run {
            id: 9,
            family: "atlas".into(),
            started_at: "2026-11-28 06:00:00".into(),
            finished_at: None,
            status: RunStatus::Complete,
            config: json!({
                "preset": "test", "measuring_s": 12.0,
                "rows": [
                    row("hardware", "syscall (getppid)", "ns", json!({"value": 99.0, "lo": 97.0, "hi": 102.0})),
                    row("hardware", "load from memory", "ns", json!({"value": 134.0, "lo": 130.0, "hi": 140.0, "level": 0.75})),
                    row("programs", "start-up of a program that does nothing (c)", "ns", json!({"value": 9.1e5, "lo": 8.9e5, "hi": 9.3e5})),
                    row("links", "pipe rate (1/β)", "B/s", json!({"value": 3.9e9, "lo": 3.8e9, "hi": 4.0e9})),
                    {"group": "rpc", "crossing": "HTTP request to a local nginx, one connection", "unit": "ns",
                     "figure": null, "missing": "nginx not installed: apt-get install nginx"},
                ],
            }),
            env: Fingerprint::capture(vec![]),
            tool_version: "0".into(),
            summary: "atlas".into(),
            error: None,
            series: vec![],
        }
    }

    #[test]
    fn the_page_draws_every_time_on_one_axis_from_1_ns_to_1_s_with_quotes() {
        let run = atlas();
        let c = chart(&run);
        assert_eq!(c.groups.len(), 2, "hardware and programs: times only");
        let svg = c.svg().unwrap();
        for tick in ["1 ns", "1 s", "1 µs", "1 ms"] {
            let line = format!("\n{tick}\n");
            assert!(svg.contains(&line), "{tick} not on the axis");
        }
        let mut h = String::new();
        section(&mut h, &run);
        assert!(h.contains("Main memory reference") && h.contains("Dean/Norvig 2012"));
        assert!(
            h.contains("1.34× [1.30, 1.40]"),
            "ratio with its interval: {h}"
        );
        assert!(h.contains("a &lt;trap&gt;"), "escaped");
        assert!(h.contains("apt-get install nginx"));
        assert!(h.contains("3.90 GB/s"));
        assert!(h.contains("This machine") && h.contains("governor"));
    }
}
