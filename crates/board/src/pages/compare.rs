//! Compare: two runs side by side, what `toll compare A B` prints as a
//! page — what differs besides the code first, then one table of every
//! series: each point's medians, change with its CI (and a bar that draws
//! it against 0), the Mann–Whitney p and the verdict, and for a series with
//! a model the change of its stored α and β.

use super::Problem;
use crate::cache::Board;
use crate::layout::page;
use serde::Deserialize;
use std::fmt::Write;
use toll_measure::change::{ParamChange, Verdict};
use toll_report::html::escape;
use toll_report::runs_compare::{self, Rules, RunComparison};
use toll_report::table::{fmt_ns, sig3};

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
    if let Some(w) = runs_compare::cross_machine_warning(&c) {
        let _ = write!(h, "<p class=\"warn\">{}</p>", escape(&w));
    }
    for w in &c.warnings {
        let _ = write!(h, "<p class=\"warn\">{}</p>", escape(w));
    }
    differences(&mut h, &c);
    series(&mut h, &c);
    Ok(page(&format!("Compare runs {a} and {b}"), "/compare", &h))
}

/// What differs besides the code.
fn differences(h: &mut String, c: &RunComparison) {
    h.push_str("<h2>Besides the code</h2>");
    if c.differences.is_empty() {
        h.push_str("<p>Same machine, toolchains, toll, config and placement.</p>");
    } else {
        h.push_str(
            "<table class=\"kv differences\"><thead><tr><th>differs</th><th>in A</th><th>in B</th></tr></thead><tbody>",
        );
        for d in &c.differences {
            let _ = write!(
                h,
                "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
                escape(&d.what),
                escape(&d.a),
                escape(&d.b)
            );
        }
        h.push_str("</tbody></table>");
    }
    if let Some((wa, wb)) = c.wakeup {
        let x = |v: Option<f64>| v.map(fmt_ns).unwrap_or_else(|| "–".into());
        let _ = write!(
            h,
            "<p class=\"muted\">Placement probe (a thread's wake-up, one core / across cores): A {} / {}, B {} / {}</p>",
            fmt_ns(wa.same_core_ns),
            x(wa.cross_core_ns),
            fmt_ns(wb.same_core_ns),
            x(wb.cross_core_ns)
        );
    }
}

/// Every series in one table.
fn series(h: &mut String, c: &RunComparison) {
    h.push_str("<h2>Series</h2>");
    // One scale for every bar: the widest interval, at least ±1%.
    let reach = c
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.change.as_ref())
        .flat_map(|ch| [ch.change_ci.0.abs(), ch.change_ci.1.abs(), ch.change.abs()])
        .fold(0.01f64, f64::max)
        .min(4.0);
    h.push_str(
        "<table class=\"compare\"><thead><tr><th>n</th><th>A median</th><th>B median</th><th>change</th>\
         <th>95% CI</th><th>against 0</th><th>p</th><th>verdict</th></tr></thead>\n",
    );
    for s in &c.series {
        let _ = writeln!(
            h,
            "<tbody><tr class=\"group\"><th colspan=\"8\">{}</th></tr>",
            escape(&s.label)
        );
        for p in &s.points {
            match (&p.change, p.verdict) {
                (Some(ch), Some(v)) => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                         <td class=\"num\">{}</td><td class=\"num\">[{}, {}]</td><td>{}</td><td class=\"num\">{:.3}</td><td>{}</td></tr>",
                        p.n,
                        fmt_ns(ch.median.0),
                        fmt_ns(ch.median.1),
                        pct(ch.change),
                        pct(ch.change_ci.0),
                        pct(ch.change_ci.1),
                        bar(ch.change, ch.change_ci, reach, v),
                        ch.test.p,
                        badge(v)
                    );
                }
                _ => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"num\">{}</td><td colspan=\"7\" class=\"muted\">{}</td></tr>",
                        p.n,
                        escape(p.note.as_deref().unwrap_or("no times on one side"))
                    );
                }
            }
        }
        for (side, ns) in [("A", &s.only_in_a), ("B", &s.only_in_b)] {
            if !ns.is_empty() {
                let list: Vec<String> = ns.iter().map(u64::to_string).collect();
                let _ = writeln!(
                    h,
                    "<tr><td colspan=\"8\" class=\"muted\">measured in {side} only: n = {}</td></tr>",
                    list.join(", ")
                );
            }
        }
        if let Some(f) = &s.fit {
            param(h, "α", &f.alpha_ns, fmt_ns);
            param(h, "β", &f.beta_ns, |v| format!("{} ns/n", sig3(v)));
            for (side, fits) in [("A", f.line_fits.0), ("B", f.line_fits.1)] {
                if !fits {
                    let _ = writeln!(
                        h,
                        "<tr><td colspan=\"8\" class=\"muted\">in run {side} a straight line does not describe the points: \
                         α and β are its two-segment model's (the run's page shows it)</td></tr>"
                    );
                }
            }
        }
        h.push_str("</tbody>\n");
    }
    h.push_str("</table>\n");
    for (side, labels) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !labels.is_empty() {
            let _ = write!(h, "<p>Only in {side}: {}</p>", escape(&labels.join(", ")));
        }
    }
    let k = &c.counts;
    let _ = write!(
        h,
        "<p><b>{} slower, {} faster, {} under the threshold, {} ~</b> (not told apart at α = {})</p>\
         <p class=\"notes\">change: median(B)/median(A) − 1 with its 95% bootstrap CI, drawn against 0 on one scale for the \
         whole table; p: Mann–Whitney U, two-sided; ~: p ≥ α. α, β: the change of each run's stored figure, its CI from both \
         runs' intervals and the machine's run-to-run noise (~: it holds 0).</p>",
        k.slower, k.faster, k.under_threshold, k.same, c.rules.alpha
    );
}

/// A fit parameter's row.
fn param(h: &mut String, name: &str, c: &ParamChange, show: impl Fn(f64) -> String) {
    let (change, ci) = match c.relative() {
        Some((r, (lo, hi))) => (pct(r), format!("[{}, {}]", pct(lo), pct(hi))),
        None => (
            show(c.difference),
            format!("[{}, {}]", show(c.difference_ci.0), show(c.difference_ci.1)),
        ),
    };
    let word = match (c.significant, c.difference > 0.0) {
        (false, _) => "<span class=\"badge v-none\">~</span>",
        (true, true) => "<span class=\"badge v-busy\">higher</span>",
        (true, false) => "<span class=\"badge v-ok\">lower</span>",
    };
    let _ = writeln!(
        h,
        "<tr class=\"param\"><td class=\"num\">{name}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td></td><td class=\"num\">–</td><td>{word}</td></tr>",
        escape(&show(c.value.0)),
        escape(&show(c.value.1)),
        escape(&change),
        escape(&ci)
    );
}

/// A point's verdict as a badge: slower in the busy colour, faster in ok's.
fn badge(v: Verdict) -> String {
    let class = match v {
        Verdict::Slower => "v-busy",
        Verdict::Faster => "v-ok",
        Verdict::UnderThreshold => "v-noisy",
        Verdict::Same => "v-none",
    };
    format!("<span class=\"badge {class}\">{}</span>", escape(v.word()))
}

/// The change and its interval as a small bar against 0, from −`reach`
/// to +`reach`.
fn bar(change: f64, ci: (f64, f64), reach: f64, v: Verdict) -> String {
    const W: f64 = 96.0;
    let x = |r: f64| (W / 2.0 + (r / reach).clamp(-1.0, 1.0) * (W / 2.0 - 4.0)).round();
    let color = match v {
        Verdict::Slower => "#d55e00",
        Verdict::Faster => "#009e73",
        _ => "#5b6570",
    };
    format!(
        "<svg width=\"{W}\" height=\"14\" viewBox=\"0 0 {W} 14\" role=\"img\" aria-label=\"{} [{}, {}]\">\
         <line x1=\"{mid}\" y1=\"0\" x2=\"{mid}\" y2=\"14\" stroke=\"#aab2ba\"/>\
         <rect x=\"{lo}\" y=\"5\" width=\"{w}\" height=\"4\" fill=\"{color}\" opacity=\"0.45\"/>\
         <rect x=\"{c}\" y=\"2\" width=\"3\" height=\"10\" fill=\"{color}\"/></svg>",
        escape(&pct(change)),
        escape(&pct(ci.0)),
        escape(&pct(ci.1)),
        mid = W / 2.0,
        lo = x(ci.0),
        w = (x(ci.1) - x(ci.0)).max(1.0),
        c = x(change) - 1.0,
    )
}

/// A share as a signed percentage: `+9.7%`, `−2.1%`.
fn pct(x: f64) -> String {
    let v = x * 100.0;
    let s = sig3(v.abs());
    if v >= 0.0 {
        format!("+{s}%")
    } else {
        format!("−{s}%")
    }
}
