//! `toll replicate`'s runs as the page a newcomer meets first
//! (replicate.html, written by scripts/run): the machine in one line and
//! the seeds' lessons counted by verdict at the top; then per experiment
//! a dot plot of the originals against this machine, the lessons as
//! badged sentences, the plots of the family runs behind the table, and
//! the table itself as an HTML table that wraps rather than scrolls.
//!
//! Everything comes from the stored `replicate` run (its config holds the
//! rows, the findings and the ids of its family runs) and from those
//! family runs as they were stored: nothing is re-measured or re-decided
//! here, and every string goes through [`escape`].

use crate::escape::escape;
use crate::plot::dots::rows_of_run;
use crate::plot::{Chart, DotChart, DotRow, Scale};
use crate::replicate::{noted_cells, DITTO};
use crate::replicate_charts;
use serde_json::Value;
use std::fmt::Write;
use toll_measure::Fingerprint;
use toll_store::Run;

/// The page's own rules, beside [`crate::html::STYLE`].
pub const STYLE: &str = r#"
.machine { font-size: 14px; margin: 6px 0 2px; }
.tally { margin: 8px 0 4px; }
.tally .badge { font-size: 14px; padding: 2px 11px; margin: 0 6px 4px 0; }
ul.lessons { list-style: none; padding: 0; margin: 8px 0 4px; }
ul.lessons li { margin: 5px 0; font-size: 14px; }
ul.lessons .badge { margin-right: 6px; }
.l-holds { background: #dff3ea; color: #00573f; }
.l-partly { background: #fdf0d5; color: #7a4b00; }
.l-no { background: #fbe0e6; color: #8c1230; }
.l-unclear { background: #e3ecf6; color: #1f4e79; }
.l-not { background: #eceff2; color: #3b444d; }
table.replicate { table-layout: fixed; width: 100%; font-size: 13px; }
table.replicate th, table.replicate td { white-space: normal; overflow-wrap: anywhere; padding: 4px 6px; }
table.replicate td.num { white-space: normal; }
table.replicate td.why { color: var(--muted); font-size: 12px; }
ul.behind { font-size: 13.5px; margin: 4px 0; }
"#;

/// A lesson's verdict as stored, its words, and its badge.
const VERDICTS: [(&str, &str, &str, &str); 5] = [
    ("holds", "still holds", "still hold", "l-holds"),
    ("partly", "holds in part", "hold in part", "l-partly"),
    (
        "no-longer-holds",
        "no longer holds",
        "no longer hold",
        "l-no",
    ),
    ("unclear", "unclear", "unclear", "l-unclear"),
    ("not-checked", "not checked", "not checked", "l-not"),
];

/// The columns of an experiment's table, with their share of its width.
const COLUMNS: [(&str, u32); 7] = [
    ("subject", 21),
    ("figure", 18),
    ("original", 17),
    ("this machine", 12),
    ("CI", 12),
    ("ratio", 8),
    ("ratio CI", 12),
];

/// Whether `run` is an experiment's table (`toll replicate`).
pub fn is_replicate(run: &Run) -> bool {
    run.family == "replicate"
}

fn findings(run: &Run) -> impl Iterator<Item = &Value> {
    run.config
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The machine in one line: host, CPU, system, memory.
pub fn machine_line(e: &Fingerprint) -> String {
    format!(
        "{} · {} ({} logical CPUs) · {} / Linux {} ({}) · {:.1} GiB{}",
        e.hostname,
        e.cpu_model,
        e.logical_cpus,
        e.distribution,
        e.kernel,
        e.virtualization.as_deref().unwrap_or("bare metal"),
        e.memory_bytes as f64 / (1u64 << 30) as f64,
        e.governor
            .as_deref()
            .map(|g| format!(" · governor {g}"))
            .unwrap_or_default()
    )
}

/// The lessons of `runs` counted by verdict: (count, words, badge class),
/// the four main verdicts always, "in part" where there is one.
pub fn tally<'a>(
    runs: impl IntoIterator<Item = &'a Run>,
) -> Vec<(usize, &'static str, &'static str)> {
    let runs: Vec<&Run> = runs.into_iter().collect();
    VERDICTS
        .iter()
        .map(|&(key, _, plural, class)| {
            let n = runs
                .iter()
                .flat_map(|r| findings(r))
                .filter(|f| f.get("verdict").and_then(Value::as_str) == Some(key))
                .count();
            (n, plural, class)
        })
        .filter(|(n, plural, _)| *n > 0 || *plural != "hold in part")
        .collect()
}

/// The page's heading: what it is, the machine, the lessons counted.
pub fn header(h: &mut String, title: &str, runs: &[&Run]) {
    let names: Vec<&str> = runs
        .iter()
        .filter_map(|r| r.config.get("replicate").and_then(Value::as_str))
        .collect();
    let _ = writeln!(
        h,
        "<header class=\"page\"><h1>{}<span class=\"model\">the seed experiments {} on this machine</span></h1>",
        escape(title),
        escape(&names.join(", "))
    );
    if let Some(r) = runs.first() {
        let _ = writeln!(
            h,
            "<p class=\"machine\"><strong>Machine:</strong> {}</p>",
            escape(&machine_line(&r.env))
        );
    }
    h.push_str("<p class=\"tally\"><strong>Lessons:</strong> ");
    for (n, words, class) in tally(runs.iter().copied()) {
        let _ = write!(h, "<span class=\"badge {class}\">{n} {words}</span>");
    }
    h.push_str("</p>\n<p class=\"meta\">Each seed's published figure beside this machine's, with its interval (95% unless a level follows it); ratio = this machine ÷ original. A lesson holds when its whole interval is on the lesson's side, at that interval's level.</p></header>\n");
}

/// One experiment's section: heading, dot plot, lessons, the family runs'
/// plots (those of `behind` it names), its table.
pub fn section(h: &mut String, run: &Run, behind: &[Run], scale: Scale) {
    let c = &run.config;
    let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
    let status = run.status.as_str();
    let _ = writeln!(
        h,
        "<section class=\"run experiment\" id=\"run-{}\">\n<h2>{} — {} <span class=\"badge {}\">{}</span></h2>",
        run.id,
        escape(s("replicate")),
        escape(s("title")),
        if status == "complete" { "v-ok" } else { "v-curve" },
        escape(status)
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} · {} preset · run {} · started {} · toll {}</p>",
        escape(s("design")),
        escape(s("preset")),
        run.id,
        escape(&run.started_at),
        escape(&run.tool_version)
    );
    if let Some(e) = &run.error {
        let _ = writeln!(h, "<p class=\"warn\">Stopped: {}</p>", escape(e));
    }
    let chart = dot_chart(run);
    if chart.has_marks() {
        if let Ok(svg) = chart.svg() {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>Every figure of the table above 0, on a log axis per unit: this machine's with its interval (dots), the original's (hollow diamonds); the grey line between them is the ratio; an interval without a cap runs past the axis.</figcaption>\n</figure>\n"
            );
        }
    }
    h.push_str("<h3>Lessons</h3>\n<ul class=\"lessons\">\n");
    for f in findings(run) {
        let verdict = f.get("verdict").and_then(Value::as_str).unwrap_or("");
        let text = f.get("text").and_then(Value::as_str).unwrap_or("");
        let (words, class) = VERDICTS
            .iter()
            .find(|v| v.0 == verdict)
            .map_or((verdict, "l-not"), |v| (v.1, v.3));
        let rest = text
            .strip_prefix(words)
            .and_then(|t| t.strip_prefix(": "))
            .unwrap_or(text);
        let _ = writeln!(
            h,
            "<li><span class=\"badge {class}\">{}</span>{}</li>",
            escape(words),
            escape(rest)
        );
    }
    h.push_str("</ul>\n");
    family_figures(h, run, behind, scale);
    results_table(h, run);
    h.push_str("</section>\n");
}

/// The years of the original, from the title's last parenthesis
/// (`… (Erlang, Squeak, Haskell, 2007)` → `2007`).
fn original_label(title: &str) -> String {
    let when = title
        .rsplit_once('(')
        .and_then(|(_, t)| t.strip_suffix(')'))
        .map(|t| t.rsplit(", ").next().unwrap_or(t).trim());
    match when {
        Some(w) if !w.is_empty() => format!("original ({w})"),
        _ => "original".into(),
    }
}

/// The dot plot of the stored rows: every row with a figure.
pub fn dot_chart(run: &Run) -> DotChart {
    let c = &run.config;
    let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    let rows = c
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let measured = row
                .get("measured")
                .and_then(|m| Some((f(m, "value")?, f(m, "lo")?, f(m, "hi")?)));
            let original = row.get("original").and_then(|o| f(o, "value"));
            if measured.is_none() && original.is_none() {
                return None;
            }
            let g = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("");
            let unit = match g("unit") {
                "" => "(no unit)".to_string(),
                u => u.to_string(),
            };
            Some((
                unit,
                DotRow {
                    label: format!("{} · {}", g("subject"), g("figure")),
                    measured,
                    original,
                },
            ))
        });
    DotChart::grouped(
        format!("{}: the original against this machine", s("replicate")),
        original_label(s("title")),
        rows,
    )
}

/// The families whose points [`Chart::for_run`] gives as times in its
/// y axis' unit.
const TIMED: [&str; 7] = ["transfer", "spawn", "ring", "file", "rpc", "exec", "ffi"];

/// What tells a run apart from the others of its family on this page
/// (rpc's link), for labels that would otherwise repeat.
fn tag(run: &Run) -> String {
    match run
        .config
        .get("far")
        .and_then(|f| f.get("link"))
        .and_then(Value::as_str)
    {
        Some(link) => link.to_string(),
        None if run.family == "rpc" => "loopback".into(),
        None => format!("run {}", run.id),
    }
}

/// The family runs behind the table, drawn: a family's runs on one plot
/// (`toll exec`'s each on its own: each has its own parameter), as lines
/// where a series has two sizes, as dots where each has one; the runs
/// with nothing to draw here (`toll http`'s) named in a line.
fn family_figures(h: &mut String, run: &Run, behind: &[Run], scale: Scale) {
    let ids: Vec<i64> = run
        .config
        .get("runs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    if ids.is_empty() {
        return;
    }
    let found: Vec<&Run> = ids
        .iter()
        .filter_map(|id| behind.iter().find(|r| r.id == *id))
        .collect();
    let list = |ids: &[i64]| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
    h.push_str("<h3>The family runs behind the table</h3>\n");
    if found.len() < ids.len() {
        let _ = writeln!(
            h,
            "<p class=\"muted\">Runs {}: <code>toll report {}</code> draws them.</p>",
            escape(&list(&ids)),
            escape(&list(&ids))
        );
    }
    // The families in the order they ran, each with its runs.
    let mut groups: Vec<(&str, Vec<&Run>)> = Vec::new();
    for r in &found {
        if r.family == "exec" {
            groups.push((&r.family, vec![*r]));
            continue;
        }
        match groups.iter_mut().find(|(f, _)| *f == r.family) {
            Some((_, rs)) => rs.push(r),
            None => groups.push((&r.family, vec![*r])),
        }
    }
    let mut undrawn: Vec<&Run> = Vec::new();
    // `toll http`'s loads, named in one line: their figures are the table's.
    let mut loads: Vec<&Run> = Vec::new();
    let names = replicate_charts::server_names(run, behind);
    for (family, runs) in groups {
        let run_ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
        let title = format!(
            "toll {family} — run{} {}",
            if runs.len() == 1 { "" } else { "s" },
            run_ids
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if let Some(c) = replicate_charts::scaling(family, &runs, &title) {
            if let Ok(svg) = c.svg() {
                let _ = write!(
                    h,
                    "<figure>\n{svg}\n<figcaption>Each runtime's median {} against N with its 95% CI, on log–log axes: a flat line is a cost that does not grow with N. <code>toll report {}</code> shows the fitted models.</figcaption>\n</figure>\n",
                    escape(&c.y_label),
                    escape(&list(&run_ids))
                );
                continue;
            }
        }
        if family == "http-compare" && compare_figures(h, &runs, &names, scale) {
            continue;
        }
        if family == "http" {
            loads.extend(runs);
            continue;
        }
        let mut chart = Chart::for_run(runs[0]).titled(&title);
        chart.series = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        for r in &runs {
            for s in Chart::for_run(r).series {
                labels.push(s.label.clone());
                chart.series.push(s);
            }
        }
        let repeats = labels
            .iter()
            .enumerate()
            .any(|(i, l)| labels[..i].contains(l));
        if repeats {
            let mut k = 0;
            for r in &runs {
                let n = Chart::for_run(r).series.len();
                for s in &mut chart.series[k..k + n] {
                    s.label = format!("{} · {}", s.label, tag(r));
                }
                k += n;
            }
        }
        let caption = format!(
            "<code>toll report {}</code> shows {} whole: models, points, machine.",
            escape(&list(&run_ids)),
            if runs.len() == 1 {
                "this run"
            } else {
                "these runs"
            }
        );
        if chart.has_lines() {
            if let Ok(svg) = chart.svg(scale) {
                let _ = write!(
                    h,
                    "<figure>\n{svg}\n<figcaption>Each series' medians with their CIs; lines are the fitted models. {}{caption}</figcaption>\n</figure>\n",
                    chart
                        .panels_note()
                        .map(|n| format!("{} ", escape(&n)))
                        .unwrap_or_default()
                );
                continue;
            }
        }
        // Only where a point's median is a time in the chart's unit: an
        // http run's points are not (its pictures are its own report's).
        if !TIMED.contains(&family) {
            undrawn.extend(runs);
            continue;
        }
        let rows = runs.iter().flat_map(|r| {
            let suffix = if repeats {
                format!(" · {}", tag(r))
            } else {
                String::new()
            };
            rows_of_run(r, &chart.y_label, &suffix)
        });
        let dots = DotChart::grouped(title, "", rows);
        match dots.has_marks().then(|| dots.svg()) {
            Some(Ok(svg)) => {
                let _ = write!(
                    h,
                    "<figure>\n{svg}\n<figcaption>Each series' median with its CI (one size each: no line to fit). {caption}</figcaption>\n</figure>\n"
                );
            }
            _ => undrawn.extend(runs),
        }
    }
    if !loads.is_empty() {
        let ids: Vec<i64> = loads.iter().map(|r| r.id).collect();
        let _ = writeln!(
            h,
            "<p class=\"muted\">{} <code>toll http</code> loads (runs {}): their rates and percentiles are the table's rows; each run's own report draws its latency and rate (<code>toll report {}</code>).</p>",
            loads.len(),
            escape(&ranges(&ids)),
            ids[0]
        );
    }
    if !undrawn.is_empty() {
        h.push_str("<ul class=\"behind\">\n");
        for r in undrawn {
            let _ = writeln!(
                h,
                "<li>run {} — {}: {} <span class=\"muted\">(<code>toll report {}</code>)</span></li>",
                r.id,
                escape(&r.family),
                escape(&r.summary),
                r.id
            );
        }
        h.push_str("</ul>\n");
    }
}

/// Run ids as ranges: `200–241, 243`.
fn ranges(ids: &[i64]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}–{}", sorted[i], sorted[j])
        } else {
            sorted[i].to_string()
        });
        i = j + 1;
    }
    out.join(", ")
}

/// A `toll http compare` run's servers (rates with CIs) and latency by
/// percentile, each server by its name in the table; false when it has
/// no rates to draw.
fn compare_figures(
    h: &mut String,
    runs: &[&Run],
    names: &std::collections::HashMap<String, String>,
    scale: Scale,
) -> bool {
    let mut drew = false;
    for r in runs {
        let Some((servers, latency)) = replicate_charts::compare(r, names) else {
            continue;
        };
        let Ok(svg) = servers.svg() else { continue };
        drew = true;
        let _ = write!(
            h,
            "<figure>\n{svg}\n<figcaption>Each server's requests per second: the bar is the median of its measured rounds, the whisker its 95% CI (servers in alternating rounds, so a drift of the machine falls on all alike). <code>toll report {}</code> shows each round.</figcaption>\n</figure>\n",
            r.id
        );
        if let Some(Ok(svg)) = latency.filter(|l| l.drawable()).map(|l| l.svg(scale)) {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>Each server's latency by percentile (median over its rounds of each percentile): x is 1/(1 − q) on a log scale, so 90%, 99% and 99.9% sit a decade apart.</figcaption>\n</figure>\n"
            );
        }
    }
    drew
}

/// The experiment's table as HTML: fixed columns that wrap, so it fits
/// the page at any width; an empty cell's reason in muted type.
fn results_table(h: &mut String, run: &Run) {
    let c = &run.config;
    let rows: Vec<&Value> = c
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    h.push_str("<h3>The table</h3>\n");
    if rows.is_empty() {
        h.push_str(
            "<p class=\"muted\">No rows: the experiment stopped before its first figure.</p>\n",
        );
    } else {
        h.push_str("<table class=\"replicate\">\n<colgroup>");
        for (_, w) in COLUMNS {
            let _ = write!(h, "<col style=\"width: {w}%\">");
        }
        h.push_str("</colgroup>\n<thead><tr>");
        for (name, _) in COLUMNS {
            let _ = write!(h, "<th>{name}</th>");
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        let (shown, notes) = noted_cells(&rows);
        for row in &shown {
            h.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = if cell.starts_with("– [") {
                    " class=\"why\""
                } else if i >= 3 {
                    " class=\"num\""
                } else {
                    ""
                };
                let _ = write!(h, "<td{class}>{}</td>", escape(cell));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody></table>\n");
        if !notes.is_empty() {
            h.push_str("<ul class=\"notes why\">\n");
            for n in &notes {
                let _ = writeln!(h, "<li>{}</li>", escape(n));
            }
            h.push_str("</ul>\n");
        }
        if shown.iter().any(|c| c[2] == DITTO) {
            h.push_str("<p class=\"notes\">″ = the original of the row above.</p>\n");
        }
    }
    let _ = writeln!(
        h,
        "<p class=\"notes\">ratio = this machine ÷ original; each CI is 95% unless a level follows it (a median of 3 rounds: 75%); originals from {}.</p>",
        escape(
            c.get("originals")
                .and_then(Value::as_str)
                .unwrap_or("the seed")
        )
    );
    for e in c
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = writeln!(
            h,
            "<p class=\"warn\">error: {}</p>",
            escape(e.as_str().unwrap_or(""))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_is_labelled_with_its_years() {
        assert_eq!(
            original_label("process spawn (Erlang, Squeak, Haskell, 2007)"),
            "original (2007)"
        );
        assert_eq!(
            original_label("transfer time over a link (MathLink, ~1999–2004)"),
            "original (~1999–2004)"
        );
        assert_eq!(original_label("no years"), "original");
    }
}
