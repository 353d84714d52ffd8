//! A sweep's part of `toll report`'s page and the board's run page: its
//! picture (latency against offered rate above achieved against offered,
//! the knee's interval shaded) with a caption that says how to read it,
//! then the report as the command printed it — the same parts
//! ([`crate::http_sweep::parts`]), the steps as an HTML table.

use crate::escape::escape;
use crate::http_sweep::SweepReport;
use std::fmt::Write;
use toll_store::Run;

/// The stored sweep of an `http-sweep` run: its first point's `sweep`.
pub fn of_run(run: &Run) -> Option<SweepReport> {
    if run.family != "http-sweep" {
        return None;
    }
    let p = run.series.first()?.points.first()?;
    serde_json::from_value(p.extra.as_ref()?.get("sweep")?.clone()).ok()
}

/// The picture and its caption, then the report, as HTML; None for a run
/// that is not a sweep.
pub fn section(run: &Run) -> Option<String> {
    let r = of_run(run)?;
    let title = format!(
        "toll http --sweep — run {}: latency and achieved rate against offered",
        run.id
    );
    let mut h = String::from("<h3>Latency and achieved rate against offered</h3>\n");
    match crate::plot::sweep::svg(&r, &title) {
        Ok(svg) => {
            let _ = write!(
                h,
                "<figure>\n{svg}\n<figcaption>Above: each step's latency percentiles (corrected, the median over the passes that ran it; p99's range as a bar) against the rate offered, the SLO dashed. Below: the rate achieved, offered = achieved dashed. Shaded: the knee's interval, where the capacity lies ({}); the line, the highest rate kept up.</figcaption>\n</figure>\n",
                escape(&crate::http_sweep::knee_line(&r))
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
    report(&mut h, &r);
    Some(h)
}

/// The report as the command printed it: its lines, the steps a table,
/// the knee in bold.
fn report(h: &mut String, r: &SweepReport) {
    let p = crate::http_sweep::parts(r);
    h.push_str("<h3>As <code>toll http --sweep</code> reported it</h3>\n");
    for line in &p.above {
        let _ = writeln!(h, "<p class=\"meta\">{}</p>", escape(line));
    }
    h.push_str("<div class=\"scroll\"><table class=\"points\">\n<thead><tr>");
    for c in p.header {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in &p.rows {
        h.push_str("<tr>");
        for c in row {
            let _ = write!(h, "<td class=\"num\">{}</td>", escape(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
    let knee = crate::http_sweep::knee_line(r);
    for line in &p.below {
        if *line == knee {
            let _ = writeln!(h, "<p><strong>{}</strong></p>", escape(line));
        } else {
            let _ = writeln!(h, "<p>{}</p>", escape(line));
        }
    }
}
