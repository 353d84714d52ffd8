//! `toll report`: stored runs as one self-contained HTML page — the page a
//! user attaches to a bug report or a design review, in the spirit of
//! criterion's report.
//!
//! Self-contained means it fetches nothing: the CSS is inline, the plots
//! are inline SVG, the fonts are the reader's own, and there is no script.
//! Every string that came from a user or a machine (labels, host names,
//! commands, URLs, error messages) goes through [`escape`] — the page is
//! written by hand rather than through a template engine, so that one
//! function is the whole of its defence.

use crate::atlas_page;
use crate::family_reports::{family_reports, is_table_key};
use crate::models::{legend, models_table};
use crate::plot::{is_load, Chart, FfiCharts, LoadCharts, Scale, SysCharts};
use crate::replicate_page;
use crate::show::{config_row, fit_lines, machine_rows, points_table};
use crate::table::Table;
use std::fmt::Write;
use toll_store::Run;

pub use crate::escape::escape;

/// The report's stylesheet (also the board's, `toll board`).
pub const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1d232a; --muted: #5b6570; --line: #d9dee3; --band: #f4f6f8; --accent: #0072b2; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1160px; margin: 0 auto; padding: 28px 32px 64px; }
header.page { border-bottom: 3px solid var(--accent); padding-bottom: 10px; margin-bottom: 8px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h1 .model { font-weight: 400; color: var(--muted); font-size: 18px; margin-left: 10px; }
h2 { font-size: 21px; margin: 36px 0 6px; padding-top: 14px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
h3 code { text-transform: none; letter-spacing: 0; }
h4 { font-size: 15px; margin: 22px 0 4px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
p { margin: 4px 0; }
.muted, .meta { color: var(--muted); }
nav ul { margin: 6px 0 0; padding-left: 20px; }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 8px 32px; }
table { border-collapse: collapse; margin: 6px 0 4px; font-size: 13.5px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; text-align: left; }
th { background: var(--band); font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fafbfc; }
table.models td, table.points td { white-space: nowrap; }
table.models td:last-child { color: var(--muted); white-space: normal; min-width: 8em; }
table.models th { white-space: normal; }
table.models td:first-child { white-space: normal; min-width: 9em; max-width: 22em; word-break: break-word; }
table.kv th { background: none; color: var(--muted); font-weight: 500; padding-left: 0; }
table.kv td { word-break: break-word; }
.scroll { overflow-x: auto; }
figure { margin: 16px 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
ul.model { margin: 4px 0 6px; padding-left: 18px; font-size: 13.5px; }
ul.model li { margin: 1px 0; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12.5px; font-weight: 600; white-space: nowrap; }
.v-ok { background: #dff3ea; color: #00573f; }
.v-curve { background: #fde9d9; color: #8a3700; }
.v-noisy, .v-flat, .v-none { background: #eceff2; color: #3b444d; }
.v-busy { background: #fbe0e6; color: #8c1230; }
.warn { border-left: 4px solid #d55e00; background: #fdf1e8; padding: 8px 12px; margin: 10px 0; }
.notes { font-size: 13px; color: var(--muted); margin: 2px 0 0; padding-left: 18px; }
details > summary { cursor: pointer; color: var(--accent); margin: 14px 0 6px; }
pre { background: var(--band); padding: 12px; overflow-x: auto; font-size: 12.5px; line-height: 1.4; }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); padding-top: 10px; }
@media print { details { display: block; } figure svg { border: none; } }
"#;

/// The page for `runs`, their plots drawn on `scale`; `version` is the
/// toll that writes it.
pub fn render(runs: &[Run], scale: Scale, version: &str) -> String {
    render_with(runs, &[], scale, version)
}

/// The page for `runs`, with `behind`: the family runs that the
/// `replicate` runs among them name, drawn inside their experiment's
/// section rather than as sections of their own.
pub fn render_with(runs: &[Run], behind: &[Run], scale: Scale, version: &str) -> String {
    let mut h = String::new();
    let ids: Vec<String> = runs.iter().map(|r| r.id.to_string()).collect();
    let experiments: Vec<&Run> = runs
        .iter()
        .filter(|r| replicate_page::is_replicate(r))
        .collect();
    let title = match runs {
        [r] if atlas_page::is_atlas(r) => format!("toll atlas — run {}", r.id),
        [r] if experiments.is_empty() => format!("toll report — run {} ({})", r.id, r.family),
        _ if experiments.len() == runs.len() => "toll replicate".to_string(),
        _ => format!("toll report — runs {}", ids.join(", ")),
    };
    let extra = if experiments.is_empty() {
        ""
    } else {
        replicate_page::STYLE
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"toll {}\">\n<title>{}</title>\n<style>{STYLE}{extra}</style>\n</head>\n<body>\n<main>\n",
        escape(version),
        escape(&title)
    );
    if !experiments.is_empty() {
        replicate_page::header(&mut h, &title, &experiments);
    } else if runs.iter().all(atlas_page::is_atlas) && !runs.is_empty() {
        atlas_page::header(&mut h, &title);
    } else if !runs.is_empty() && runs.iter().all(|r| is_load(&r.family)) {
        // A load is not a sweep over n: no t(n) to head it.
        let _ = writeln!(
            h,
            "<header class=\"page\"><h1>{}<span class=\"model\">HTTP load: latency by percentile, requests per second</span></h1>\
             <p class=\"meta\">latency: each request's, start to last byte, drawn by percentile on HdrHistogram's axis (90%, 99%, 99.9% a decade apart) · a load is not a sweep over n, so there is no t(n) to fit</p></header>",
            escape(&title)
        );
    } else {
        let _ = writeln!(
            h,
            "<header class=\"page\"><h1>{}<span class=\"model\">t(n) = α + β·n</span></h1>\
             <p class=\"meta\">α: the fixed cost of one crossing · β: the cost of each further unit of n · n½ = α/β: where half the peak rate is reached · every interval is a 95% confidence interval unless its level is shown beside it</p></header>",
            escape(&title)
        );
    }
    if runs.len() > 1 {
        h.push_str("<nav><ul>\n");
        for r in runs {
            let name = match r.config.get("replicate").and_then(|e| e.as_str()) {
                Some(e) if replicate_page::is_replicate(r) => format!(
                    "{e} — {}",
                    r.config.get("title").and_then(|t| t.as_str()).unwrap_or("")
                ),
                _ => format!("run {} — {}", r.id, r.family),
            };
            let _ = writeln!(
                h,
                "<li><a href=\"#run-{}\">{}</a> <span class=\"muted\">{}</span></li>",
                r.id,
                escape(&name),
                escape(&r.summary)
            );
        }
        h.push_str("</ul></nav>\n");
    }
    for run in runs {
        if replicate_page::is_replicate(run) {
            replicate_page::section(&mut h, run, behind, scale);
        } else {
            run_section(&mut h, run, scale);
        }
    }
    let _ = write!(
        h,
        "<footer>Written by toll {} (<code>toll report {}</code>). Every sample behind these figures is in the results database: <code>toll export RUN --format csv</code>.</footer>\n</main>\n</body>\n</html>\n",
        escape(version),
        escape(&ids.join(" "))
    );
    h
}

/// One run's section of the page: its models, plots, points and machine
/// (the board's run page shows the same), as HTML throughout — no
/// terminal text; an experiment's table
/// (`replicate`) as [`replicate_page::section`] draws it, without the
/// models and plots that belong to its family runs.
pub fn run_section(h: &mut String, run: &Run, scale: Scale) {
    if replicate_page::is_replicate(run) {
        replicate_page::section(h, run, &[], scale);
        return;
    } else if atlas_page::is_atlas(run) {
        return atlas_page::section(h, run);
    }
    let _ = write!(
        h,
        "<section class=\"run\" id=\"run-{}\">\n<h2>Run {} — {} <span class=\"badge {}\">{}</span></h2>\n",
        run.id,
        run.id,
        escape(&run.family),
        if run.status.as_str() == "complete" {
            "v-ok"
        } else {
            "v-curve"
        },
        escape(run.status.as_str())
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} · started {} · finished {} · toll {}</p>",
        escape(&run.summary),
        escape(&run.started_at),
        escape(run.finished_at.as_deref().unwrap_or("–")),
        escape(&run.tool_version)
    );
    if let Some(e) = &run.error {
        let _ = writeln!(h, "<p class=\"warn\">Stopped: {}</p>", escape(e));
    }
    h.push_str("<div class=\"grid\">\n<div><h3>Machine</h3>\n");
    kv_table(h, machine_rows(&run.env));
    h.push_str("</div>\n<div><h3>Config</h3>\n");
    let config: Vec<(String, String)> = run
        .config
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| !is_table_key(run, k))
                .map(|(k, v)| config_row(k, v))
                .collect()
        })
        .unwrap_or_default();
    kv_table(h, config);
    h.push_str("</div>\n</div>\n");
    if let Some(charts) = LoadCharts::for_run(run) {
        load_section(h, run, &charts, scale);
        return show_details(h, run);
    }
    if let Some(section) = crate::http_sweep_page::section(run) {
        h.push_str(&section);
        return show_details(h, run);
    }
    reports_section(h, run);
    h.push_str("<h3>Models</h3>\n");
    table(h, &models_table(run), Some(8), "models");
    h.push_str("<ul class=\"notes\">\n");
    for l in legend(run) {
        let _ = writeln!(h, "<li>{}</li>", escape(&l));
    }
    h.push_str("</ul>\n");

    let chart = Chart::for_run(run);
    if let Some(charts) = FfiCharts::for_run(run) {
        ffi_figure(h, &charts);
    } else if let Some(charts) = SysCharts::for_run(run) {
        figure(h, charts.svg(scale), &escape(&charts.caption()));
    } else if chart.has_lines() {
        match chart.svg(scale) {
            Ok(svg) => {
                let _ = write!(
                    h,
                    "<figure>\n{svg}\n<figcaption>Each series' medians with their 95% CIs; lines are the fitted models ({} axes: <code>--plot-scale linear|log</code> changes them).{}</figcaption>\n</figure>\n",
                    escape(&scale.to_string()),
                    chart
                        .panels_note()
                        .map(|n| format!(" {}", escape(&n)))
                        .unwrap_or_default()
                );
            }
            Err(e) => {
                let _ = writeln!(
                    h,
                    "<p class=\"muted\">No plot: {}.</p>",
                    escape(&e.to_string())
                );
            }
        }
    } else {
        h.push_str("<p class=\"muted\">No plot: no series has two measured points.</p>\n");
    }

    h.push_str("<h3>Series</h3>\n");
    for s in &run.series {
        let _ = writeln!(
            h,
            "<h4 id=\"run-{}-{}\">{}</h4>",
            run.id,
            s.id,
            escape(&s.label)
        );
        h.push_str("<ul class=\"model\">\n");
        match &s.fit {
            Some(fit) => {
                for l in fit_lines(fit) {
                    let _ = writeln!(h, "<li>{}</li>", escape(&l));
                }
            }
            None => {
                // Why there is none: too few sizes, or a run cut short
                // before its fit was stored (its points are below).
                let sizes = s
                    .points
                    .iter()
                    .filter(|p| p.status == toll_store::PointStatus::Ok)
                    .count();
                let why = match sizes {
                    0..=2 => crate::decided::no_model(sizes),
                    _ if run.status != toll_store::RunStatus::Complete => format!(
                        "no model stored: the run stopped ({}) before its fit was stored",
                        run.status.as_str()
                    ),
                    _ => "no model stored".to_string(),
                };
                let _ = writeln!(h, "<li>{}</li>", escape(&why));
            }
        }
        h.push_str("</ul>\n");
        let (t, notes) = points_table(s);
        table(h, &t, None, "points");
        if !notes.is_empty() {
            h.push_str("<ul class=\"notes\">\n");
            for n in notes {
                let _ = writeln!(h, "<li>{}</li>", escape(&n));
            }
            h.push_str("</ul>\n");
        }
    }
    show_details(h, run);
}

/// `toll ffi`'s picture: α per series as dots, above β per binding and way.
fn ffi_figure(h: &mut String, charts: &FfiCharts) {
    let words = format!(
        "Above: each series' α (the crossing) with its 95% CI on a log axis, the figures dyu/ffi-overhead gives for the same call as hollow diamonds ({}), and with <code>--vs-link</code> each runtime's round trip over its cheapest link; below: β per binding and way with its 95% CI on log axes of their own, ns per KiB passed and ns per upcall for the callbacks (a β that cannot be told from 0 is a row without a dot).",
        escape(crate::ffi_quotes::CITE)
    );
    figure(h, charts.svg(), &words);
}

/// A family's picture with its caption (HTML), or why there is none.
fn figure(h: &mut String, svg: Result<String, crate::plot::PlotError>, caption: &str) {
    match svg {
        Ok(svg) => {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>\n"
            );
        }
        Err(e) => {
            let _ = writeln!(
                h,
                "<p class=\"muted\">No plot: {}.</p>",
                escape(&e.to_string())
            );
        }
    }
}

/// The section's end: where the rest of the run is, as commands.
fn show_details(h: &mut String, run: &Run) {
    let _ = write!(
        h,
        "<p class=\"notes\">The run as the terminal shows it: <code>toll show {0}</code>; every sample: <code>toll export {0} --format csv</code>.</p>\n</section>\n",
        run.id
    );
}

/// The reports the family's command printed (ab's, the comparison's), as
/// tables: less the percentiles and a comparison's servers and ratios,
/// which the section draws itself.
fn reports_section(h: &mut String, run: &Run) {
    let reports = family_reports(run);
    if !reports.is_empty() {
        let _ = writeln!(
            h,
            "<h3>As <code>toll {}</code> reported it</h3>",
            // `http-compare` is stored for `toll http compare`.
            escape(&run.family.replace('-', " "))
        );
    }
    let drawn = |first: &str| {
        first.starts_with("Percentage of the requests")
            || first.starts_with("Uncorrected")
            || first == "server"
            || first == "req/s ratio"
    };
    for (title, text) in reports {
        let _ = writeln!(h, "<h4>{}</h4>", escape(&title));
        crate::printed::render(h, &text, drawn);
    }
}

/// An HTTP load's part of its section: its pictures, its percentiles (or,
/// for a comparison, each server's rate and ratio) as a table, then the
/// report as its command printed it. No models: a load has no n to fit.
fn load_section(h: &mut String, run: &Run, charts: &LoadCharts, scale: Scale) {
    h.push_str("<h3>Latency by percentile</h3>\n");
    let rate_mode = charts.latency.curves.iter().any(|c| c.dashed);
    match charts.latency.svg(scale) {
        Ok(svg) => {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>Each request's latency, start to last byte, by percentile: x is 1/(1 − q) on a log scale, so 90%, 99% and 99.9% sit a decade apart; the curve ends at the longest request.{}{}</figcaption>\n</figure>\n",
                if rate_mode {
                    " Solid: corrected, timed from each request's intended start (what a user waiting on the schedule sees); dashed: uncorrected, from its actual send. The gap is the time requests waited to go out."
                } else {
                    ""
                },
                if run.family == "http-compare" {
                    " Each server's curve is the median over its measured rounds of each percentile."
                } else {
                    ""
                }
            );
        }
        Err(e) => {
            let _ = writeln!(h, "<p class=\"muted\">{}.</p>", escape(&e.to_string()));
        }
    }
    h.push_str("<h3>Requests per second over time</h3>\n");
    match charts.rate.svg() {
        Ok(svg) => {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>Requests completed {}, as a rate{}.</figcaption>\n</figure>\n",
                escape(&charts.rate.per),
                if run.family == "http-compare" {
                    "; hollow marks are warm-up rounds, not measured"
                } else if charts.rate.target.is_some() {
                    "; dashed: the rate asked for (--rate)"
                } else {
                    ""
                }
            );
        }
        Err(e) => {
            let _ = writeln!(h, "<p class=\"muted\">{}.</p>", escape(&e.to_string()));
        }
    }
    if run.family == "http-compare" {
        servers_table(h, run);
    } else {
        percentiles_table(h, charts);
    }
    reports_section(h, run);
}

/// The percentiles of each curve side by side, in ms.
fn percentiles_table(h: &mut String, charts: &LoadCharts) {
    let curves = &charts.latency.curves;
    let Some(first) = curves.first() else { return };
    h.push_str("<h3>Percentiles</h3>\n<div class=\"scroll\"><table class=\"points\">\n<thead><tr><th>percentile</th>");
    for c in curves {
        let _ = write!(h, "<th>{} (ms)</th>", escape(&c.label));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (k, &(pct, _)) in first.percentiles.iter().enumerate() {
        let name = if pct >= 100.0 {
            "100% (longest)".to_string()
        } else {
            format!("{pct}%")
        };
        let _ = write!(h, "<tr><td>{name}</td>");
        for c in curves {
            let v = c
                .percentiles
                .get(k)
                .map_or("–".to_string(), |p| crate::http::ms(p.1));
            let _ = write!(h, "<td class=\"num\">{v}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// A comparison's servers: the rate with its CI, and against the first
/// server the ratio with its CI drawn as a bar about 1.
fn servers_table(h: &mut String, run: &Run) {
    let report = run
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.extra.as_ref()?.get("comparison"))
        .find_map(|c| serde_json::from_value::<crate::http_compare::CompareReport>(c.clone()).ok());
    let Some(r) = report else { return };
    // The bars share one scale: the widest CI's distance from 1, at least 5%.
    let reach = r
        .servers
        .iter()
        .filter_map(|s| s.ratio.as_ref())
        .flat_map(|x| [x.estimate.lo, x.estimate.hi])
        .filter(|v| v.is_finite())
        .map(|v| (v - 1.0).abs())
        .fold(0.05, f64::max);
    h.push_str("<h3>Servers</h3>\n<div class=\"scroll\"><table class=\"points\">\n<thead><tr><th>server</th><th>req/s (median of rounds)</th><th>95% CI</th><th>against A</th><th>95% CI</th><th></th><th>verdict</th><th>p50 ms</th><th>p99 ms</th><th>rounds</th></tr></thead>\n<tbody>\n");
    for s in &r.servers {
        let (rate, rate_ci) = match &s.rate {
            Some(e) => (
                format!("{:.0}", e.median),
                format!("{:.0} – {:.0}", e.lo, e.hi),
            ),
            None => ("–".into(), "–".into()),
        };
        let (ratio, ratio_ci, bar, verdict) = match &s.ratio {
            Some(x) => (
                format!("{:.3}×", x.estimate.median),
                format!("{:.3} – {:.3}", x.estimate.lo, x.estimate.hi),
                ratio_bar(x.estimate.median, x.estimate.lo, x.estimate.hi, reach),
                format!(
                    "<span class=\"badge {}\">{}</span>",
                    match x.verdict {
                        crate::http_compare::Verdict::Faster => "v-ok",
                        crate::http_compare::Verdict::Slower => "v-busy",
                        crate::http_compare::Verdict::WithinNoise => "v-noisy",
                    },
                    x.verdict.as_str()
                ),
            ),
            None => (
                "1 (the base)".into(),
                String::new(),
                String::new(),
                String::new(),
            ),
        };
        let _ = writeln!(
            h,
            "<tr><td>{} <span class=\"muted\">{}</span></td><td class=\"num\">{rate}</td><td class=\"num\">{rate_ci}</td><td class=\"num\">{ratio}</td><td class=\"num\">{ratio_ci}</td><td>{bar}</td><td>{verdict}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&s.label),
            escape(&s.url),
            crate::http::ms(s.p50_ms),
            crate::http::ms(s.p99_ms),
            s.rounds
        );
    }
    h.push_str("</tbody></table></div>\n<p class=\"notes\">A ratio above 1: more requests per second than A. The bar is its 95% CI about 1 (the line); faster or slower only where the whole CI is past 1.</p>\n");
}

/// A small inline SVG: the CI of a ratio as a bar, its median as a tick,
/// about a line at 1; `reach` is the distance from 1 at either end.
fn ratio_bar(median: f64, lo: f64, hi: f64, reach: f64) -> String {
    const W: f64 = 120.0;
    let x = |v: f64| (W / 2.0 + (v - 1.0) / reach * (W / 2.0 - 4.0)).clamp(0.0, W);
    let color = if lo > 1.0 {
        "#009E73"
    } else if hi < 1.0 {
        "#D55E00"
    } else {
        "#5b6570"
    };
    format!(
        "<svg width=\"{W}\" height=\"14\" viewBox=\"0 0 {W} 14\" role=\"img\" aria-label=\"{lo:.3} to {hi:.3}\"><line x1=\"{c}\" y1=\"0\" x2=\"{c}\" y2=\"14\" stroke=\"#1d232a\" stroke-width=\"1\"/><rect x=\"{a:.1}\" y=\"4\" width=\"{w:.1}\" height=\"6\" fill=\"{color}\" opacity=\"0.6\"/><line x1=\"{m:.1}\" y1=\"1\" x2=\"{m:.1}\" y2=\"13\" stroke=\"{color}\" stroke-width=\"2\"/></svg>",
        c = W / 2.0,
        a = x(lo),
        w = (x(hi) - x(lo)).max(1.0),
        m = x(median),
    )
}

fn kv_table(h: &mut String, rows: Vec<(String, String)>) {
    h.push_str("<table class=\"kv\"><tbody>\n");
    for (k, v) in rows {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(&k), escape(&v));
    }
    h.push_str("</tbody></table>\n");
}

/// A [`Table`] as HTML, numbers right-aligned; the cells of column
/// `badge` (the verdicts) as coloured badges.
fn table(h: &mut String, t: &Table, badge: Option<usize>, class: &str) {
    let right = t.numeric_columns();
    let _ = write!(
        h,
        "<div class=\"scroll\"><table class=\"{class}\">\n<thead><tr>"
    );
    for head in t.headers() {
        let _ = write!(h, "<th>{}</th>", escape(head));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in t.rows() {
        h.push_str("<tr>");
        for (i, _) in t.headers().iter().enumerate() {
            let cell = row.get(i).map(String::as_str).unwrap_or("");
            let class = if right[i] { " class=\"num\"" } else { "" };
            if badge == Some(i) && !cell.is_empty() {
                let _ = write!(
                    h,
                    "<td><span class=\"badge {}\">{}</span></td>",
                    verdict_class(cell),
                    escape(cell)
                );
            } else {
                let _ = write!(h, "<td{class}>{}</td>", escape(cell));
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

fn verdict_class(v: &str) -> &'static str {
    if v.starts_with("busy") {
        "v-busy"
    } else if v.starts_with("curve") {
        "v-curve"
    } else if v.starts_with("ok") {
        "v-ok"
    } else if v.starts_with("no model") {
        "v-none"
    } else {
        "v-noisy"
    }
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
