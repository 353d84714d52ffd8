//! `toll compare` as HTML (`toll compare A B --html FILE`, the board's
//! compare page): what differs besides the code as a table, then one table
//! of every series — each point's medians, its change with the 95% CI both
//! as figures and as a bar drawn against 0 (inline SVG, one scale for the
//! whole table, so bars compare across series), the Mann–Whitney p and the
//! verdict as a coloured badge; for a fitted series the change of α and β.
//! No script, nothing fetched; every string from a run goes through
//! [`escape`].

use super::text::{pct, short_time, threshold};
use super::{cross_machine_warning, RunComparison};
use crate::escape::escape;
use crate::table::{fmt_ns, sig3};
use std::fmt::Write;
use toll_measure::change::{ParamChange, Verdict};

/// The comparison's own rules, beside [`crate::html::STYLE`].
pub const STYLE: &str = r#"
table.compare { width: 100%; }
table.compare tr.group th { background: none; font-family: ui-monospace, "DejaVu Sans Mono", monospace; padding-top: 14px; border-bottom: 2px solid var(--line); white-space: normal; word-break: break-word; }
table.compare tr.param td { background: var(--band); }
table.compare td svg { vertical-align: middle; }
table.differences td { word-break: break-word; }
"#;

/// Width of a change bar, px.
const BAR: f64 = 120.0;

/// The whole comparison as one self-contained page; `version` is the toll
/// that writes it.
pub fn page(c: &RunComparison, version: &str) -> String {
    let title = format!("toll compare — {} runs {} → {}", c.a.family, c.a.id, c.b.id);
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"toll {}\">\n<title>{}</title>\n<style>{}{STYLE}</style>\n</head>\n<body>\n<main>\n\
         <header class=\"page\"><h1>{}<span class=\"model\">B against A, point by point</span></h1>\n",
        escape(version),
        escape(&title),
        crate::html::STYLE,
        escape(&title)
    );
    for (side, r) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            h,
            "<p class=\"meta\"><b>{side}</b> run {} · {} · {} · on {} ({}) · toll {}</p>",
            r.id,
            escape(&short_time(&r.started_at)),
            escape(&r.status),
            escape(&r.host),
            escape(&r.cpu_model),
            escape(&r.tool_version)
        );
    }
    h.push_str("</header>\n");
    body(&mut h, c);
    let _ = write!(
        h,
        "<footer>Written by toll {} (<code>toll compare {} {} --html</code>); <code>--json</code> gives the same comparison as data.</footer>\n</main>\n</body>\n</html>\n",
        escape(version),
        c.a.id,
        c.b.id
    );
    h
}

/// The comparison's warnings, differences and series, as the page and the
/// board show them.
pub fn body(h: &mut String, c: &RunComparison) {
    if let Some(w) = cross_machine_warning(c) {
        let _ = write!(h, "<p class=\"warn\">{}</p>", escape(&w));
    }
    for w in &c.warnings {
        let _ = write!(h, "<p class=\"warn\">{}</p>", escape(w));
    }
    differences(h, c);
    series(h, c);
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

/// The bars' reach: the widest interval or change, at least ±1%, at most
/// ±400% (a bar past it runs to the end).
fn reach(c: &RunComparison) -> f64 {
    c.series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.change.as_ref())
        .flat_map(|ch| [ch.change_ci.0.abs(), ch.change_ci.1.abs(), ch.change.abs()])
        .filter(|v| v.is_finite())
        .fold(0.01f64, f64::max)
        .min(4.0)
}

/// Every series in one table.
fn series(h: &mut String, c: &RunComparison) {
    h.push_str("<h2>Series</h2>");
    let reach = reach(c);
    let _ = writeln!(
        h,
        "<table class=\"compare\"><thead><tr><th>n</th><th>A median</th><th>B median</th><th>change</th>\
         <th>CI (95% unless said)</th><th>against 0 (±{})</th><th>p</th><th>verdict</th></tr></thead>",
        escape(pct(reach).trim_start_matches('+'))
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
                         <td class=\"num\">{}</td><td class=\"num\">[{}, {}]{}</td><td>{}</td><td class=\"num\">{:.3}</td><td>{}</td></tr>",
                        p.n,
                        fmt_ns(ch.median.0),
                        fmt_ns(ch.median.1),
                        pct(ch.change),
                        pct(ch.change_ci.0),
                        pct(ch.change_ci.1),
                        escape(&super::text::level_note(ch.change_level)),
                        bar(ch.change, ch.change_ci, reach, v),
                        ch.test.p,
                        badge(v, c.rules.threshold)
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
            param(h, "α", &f.alpha_ns, reach, fmt_ns);
            param(h, "β", &f.beta_ns, reach, |v| format!("{} ns/n", sig3(v)));
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
    let _ = write!(
        h,
        "<p><b>{}</b></p>\
         <p class=\"notes\">change: median(B)/median(A) − 1, its CI Hodges–Lehmann's (its level said where below 95%), drawn against 0 \
         (the line) on one scale for the whole table: the tick is the change, the band its CI; p: Mann–Whitney U, two-sided; \
         ~: not told apart; ~ run-to-run: told apart, but by no more than this machine moves between runs. α, β: the change of \
         each run's stored figure, its CI from both runs' intervals and the machine's run-to-run noise (~: it holds 0).</p>",
        escape(&super::text::tally(c))
    );
}

/// A fit parameter's row, its relative change drawn as a point's is.
fn param(h: &mut String, name: &str, c: &ParamChange, reach: f64, show: impl Fn(f64) -> String) {
    let like = match (c.significant, c.difference > 0.0) {
        (false, _) => Verdict::Same,
        (true, true) => Verdict::Slower,
        (true, false) => Verdict::Faster,
    };
    let (change, ci, drawn) = match c.relative() {
        Some((r, (lo, hi))) => (
            pct(r),
            format!("[{}, {}]", pct(lo), pct(hi)),
            bar(r, (lo, hi), reach, like),
        ),
        None => (
            show(c.difference),
            format!("[{}, {}]", show(c.difference_ci.0), show(c.difference_ci.1)),
            String::new(),
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
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{drawn}</td><td class=\"num\">–</td><td>{word}</td></tr>",
        escape(&show(c.value.0)),
        escape(&show(c.value.1)),
        escape(&change),
        escape(&ci)
    );
}

/// A point's verdict as a badge: slower in the busy colour, faster in ok's.
fn badge(v: Verdict, under: f64) -> String {
    let (class, word) = match v {
        Verdict::Slower => ("v-busy", v.word().to_string()),
        Verdict::Faster => ("v-ok", v.word().to_string()),
        Verdict::UnderThreshold => ("v-noisy", format!("under {}", threshold(under))),
        Verdict::Same | Verdict::RunToRun => ("v-none", v.word().to_string()),
    };
    format!("<span class=\"badge {class}\">{}</span>", escape(&word))
}

/// Where a change sits on a bar reaching ±`reach`, px from its left.
fn at(r: f64, reach: f64) -> f64 {
    (BAR / 2.0 + (r / reach).clamp(-1.0, 1.0) * (BAR / 2.0 - 4.0)).round()
}

/// The change and its interval as a small bar against 0: the band is the
/// CI, the tick the change, the grey line 0.
pub fn bar(change: f64, ci: (f64, f64), reach: f64, v: Verdict) -> String {
    let color = match v {
        Verdict::Slower => "#d55e00",
        Verdict::Faster => "#009e73",
        _ => "#5b6570",
    };
    let (lo, hi) = (at(ci.0, reach), at(ci.1, reach));
    format!(
        "<svg width=\"{BAR}\" height=\"14\" viewBox=\"0 0 {BAR} 14\" role=\"img\" aria-label=\"{} [{}, {}]\">\
         <line x1=\"{mid}\" y1=\"0\" x2=\"{mid}\" y2=\"14\" stroke=\"#aab2ba\"/>\
         <rect x=\"{lo}\" y=\"5\" width=\"{w}\" height=\"4\" fill=\"{color}\" opacity=\"0.45\"/>\
         <rect x=\"{c}\" y=\"2\" width=\"3\" height=\"10\" fill=\"{color}\"/></svg>",
        escape(&pct(change)),
        escape(&pct(ci.0)),
        escape(&pct(ci.1)),
        mid = BAR / 2.0,
        w = (hi - lo).max(1.0),
        c = at(change, reach) - 1.0,
    )
}
