//! Trend: one series of a family across runs — α and β of each run's
//! stored model, or for a series without one (or when a size is asked for)
//! the median at one size — with their intervals, one line per machine,
//! newest right; below the picture the same figures as a table, newest
//! first, each run linked and compared with its machine's run before.
//!
//! Only runs measured like the newest are drawn — the same sizes,
//! placement, link (`alike.rs`) — and the page names what they
//! share and what differs between them (toll's version, the peer's);
//! `all=1` draws every run and says which differ.
//!
//! The work is bounded: the newest [`TREND_RUNS`] complete runs of the
//! family (on the chosen machine) are read, through the board's kept
//! headline figures, so a reload reads no run from the store.

use super::alike::{self, Entry};
use super::{default_family, families, query_value, select, Problem};
use crate::cache::{Board, KEEP};
use crate::headline::{Figure, Head, RunHeads};
use crate::layout::{message, page};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;
use toll_measure::decision::Sign;
use toll_report::decided;
use toll_report::html::escape;
use toll_report::plot::trend::{Line, Mark, Panel, Trend};
use toll_report::table::fmt_ns;
use toll_store::{RunRow, RunStatus, StoreError};

/// How many of the newest complete runs a trend reads.
const TREND_RUNS: usize = 60;
const _: () = assert!(TREND_RUNS < KEEP, "a trend's runs stay in the cache");

/// The trend page's query.
#[derive(Debug, Default, Deserialize)]
pub struct Pick {
    #[serde(default)]
    pub family: String,
    /// A series label; the first of the newest run when empty.
    #[serde(default)]
    pub series: String,
    /// A machine; every machine when empty.
    #[serde(default)]
    pub host: String,
    /// A size: the median there rather than α and β.
    #[serde(default)]
    pub at: String,
    /// `1`: every run, measured alike or not; else those measured like
    /// the newest.
    #[serde(default)]
    pub all: String,
}

/// What the trend follows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Follow {
    /// α and β of each run's stored model.
    Model,
    /// The median at this size.
    Median(u64),
}

/// The trend page (made once per list of runs and query).
pub fn render(board: &Board, q: &Pick) -> Result<bytes::Bytes, Problem> {
    let at = match q.at.trim() {
        "" => None,
        a => Some(a.parse::<u64>().map_err(|_| {
            Problem::Request(
                400,
                format!("at={a} is not a size: give a whole n the series measured, or leave it empty for α and β"),
            )
        })?),
    };
    let all = matches!(q.all.trim(), "1" | "true" | "yes" | "on");
    let key = format!(
        "/trend?family={}&series={}&host={}&at={}&all={all}",
        query_value(&q.family),
        query_value(&q.series),
        query_value(&q.host),
        at.map(|n| n.to_string()).unwrap_or_default()
    );
    board.list_page(&key, |rows| make(board, rows, q, at, all))
}

/// This page's address with `all` as given, for a link.
fn href(family: &str, series: &str, q: &Pick, at: Option<u64>, all: bool) -> String {
    format!(
        "/trend?family={}&amp;series={}&amp;host={}&amp;at={}{}",
        query_value(family),
        query_value(series),
        query_value(&q.host),
        at.map(|n| n.to_string()).unwrap_or_default(),
        if all { "&amp;all=1" } else { "" }
    )
}

fn make(
    board: &Board,
    rows: &[RunRow],
    q: &Pick,
    at: Option<u64>,
    all: bool,
) -> Result<String, Problem> {
    let family = if q.family.is_empty() {
        default_family(rows)
    } else {
        q.family.clone()
    };
    let mut hosts: Vec<String> = rows
        .iter()
        .filter(|r| r.family == family)
        .map(|r| r.host.clone())
        .collect();
    hosts.sort();
    hosts.dedup();
    // Newest first, as the list is.
    let read: Vec<(&RunRow, Arc<RunHeads>)> = rows
        .iter()
        .filter(|r| {
            r.family == family
                && r.status == RunStatus::Complete
                && (q.host.is_empty() || r.host == q.host)
        })
        .take(TREND_RUNS)
        .map(|r| Ok((r, board.heads(r)?)))
        .collect::<Result<_, StoreError>>()?;
    let mut labels: Vec<&str> = Vec::new();
    for h in read.iter().flat_map(|(_, h)| &h.heads) {
        if !labels.contains(&h.label.as_str()) {
            labels.push(&h.label);
        }
    }
    let series = if q.series.is_empty() {
        labels.first().copied().unwrap_or("")
    } else {
        q.series.as_str()
    };
    // Oldest first: the picture's order.
    let holding: Vec<Entry> = read
        .iter()
        .rev()
        .filter_map(|(r, h)| Some((*r, h.get(series)?)))
        .collect();
    let held = holding.len();
    let sorted = alike::sort(holding, all);
    let entries = &sorted.drawn;
    let sizes: BTreeSet<u64> = entries
        .iter()
        .flat_map(|(_, h)| h.medians.iter().map(|m| m.0))
        .collect();
    let modelled = entries
        .iter()
        .any(|(_, h)| matches!(h.figure, Figure::Line { .. }));
    let follow = match at {
        Some(n) => Some(Follow::Median(n)),
        None if modelled => Some(Follow::Model),
        // The newest run's largest size.
        None => entries
            .last()
            .and_then(|(_, h)| h.medians.last())
            .map(|m| Follow::Median(m.0)),
    };
    let on = if q.host.is_empty() {
        String::new()
    } else {
        format!(" on {}", q.host)
    };

    let mut h = String::new();
    h.push_str("<form class=\"filter\" method=\"get\" action=\"/trend\">");
    h.push_str(&choose("family", &families(rows), &family));
    let labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
    h.push_str(&choose("series", &labels, series));
    h.push_str(&select("host", "every machine", &hosts, &q.host).replacen(
        "<label>host",
        "<label>machine",
        1,
    ));
    let sizes_text: Vec<String> = sizes.iter().map(u64::to_string).collect();
    let at_text = at.map(|n| n.to_string()).unwrap_or_default();
    h.push_str(
        &select(
            "at",
            if modelled {
                "α and β (the model)"
            } else {
                "the largest size"
            },
            &sizes_text,
            &at_text,
        )
        .replacen("<label>at", "<label>median at n =", 1),
    );
    let _ = write!(
        h,
        "<label>runs<select name=\"all\"><option value=\"\">measured like the newest</option>\
         <option value=\"1\"{}>every run</option></select></label>",
        if all { " selected" } else { "" }
    );
    h.push_str("<button>Show</button></form>\n");
    if labels.is_empty() {
        h.push_str(&message(&format!(
            "No complete {family} run{on} on this board yet: `toll push RUN --to URL` adds one."
        )));
        return Ok(page("Trend", "/trend", &h));
    }
    if held == 0 {
        return Err(Problem::Request(
            404,
            format!(
                "series `{series}`: none of the newest {TREND_RUNS} complete {family} runs{on} holds it: pick one on /trend?family={family}"
            ),
        ));
    }
    let Some(follow) = follow else {
        h.push_str(&message(&format!(
            "{series} has no measured size in these runs: nothing to follow."
        )));
        return Ok(page(&format!("Trend — {series}"), "/trend", &h));
    };
    let (trend, omitted) = chart(&family, series, &on, entries, follow);
    let _ = writeln!(
        h,
        "<p class=\"muted\">The newest {} complete <b>{}</b> runs{} were read (at most {TREND_RUNS}); {} hold <b>{}</b>{}. \
         {}</p>",
        read.len(),
        escape(&family),
        escape(&on),
        held,
        escape(series),
        if sorted.left.is_empty() {
            String::new()
        } else {
            format!(", {} of them measured like the newest", entries.len())
        },
        match follow {
            Follow::Model =>
                "Each run's α and β as its stored model decided them, with their 95% intervals.".to_string(),
            Follow::Median(n) => format!(
                "Each run's median at n = {n} with its interval (the level is the table's where it is not 95%)."
            ),
        }
    );
    alike::describe(
        &mut h,
        &sorted,
        all,
        &href(&family, series, q, at, true),
        &href(&family, series, q, at, false),
    );
    match trend.svg() {
        Ok(svg) => {
            let _ = writeln!(
                h,
                "<figure class=\"trend\">{svg}<figcaption>{} runs · {} marks, one per run and figure · \
                 bars: intervals · hollow: cannot be told from 0</figcaption></figure>",
                trend.runs.len(),
                trend.marks()
            );
        }
        Err(e) => h.push_str(&message(&e.to_string())),
    }
    for o in omitted {
        let _ = write!(h, "<p class=\"muted\">{}</p>", escape(&o));
    }
    table(&mut h, &family, entries, follow);
    Ok(page(
        &format!("Trend — {family} {series}{on}"),
        "/trend",
        &h,
    ))
}

/// A select box without an "any" choice.
fn choose(name: &str, options: &[String], chosen: &str) -> String {
    let mut h = format!("<label>{name}<select name=\"{name}\">");
    for o in options {
        let sel = if o == chosen { " selected" } else { "" };
        let _ = write!(h, "<option value=\"{0}\"{sel}>{0}</option>", escape(o));
    }
    h.push_str("</select></label>");
    h
}

/// The picture, and a line for each figure it cannot draw.
fn chart(
    family: &str,
    series: &str,
    on: &str,
    entries: &[(&RunRow, &Head)],
    follow: Follow,
) -> (Trend, Vec<String>) {
    let mut machines: Vec<&str> = entries.iter().map(|(r, _)| r.host.as_str()).collect();
    machines.sort();
    machines.dedup();
    let mut omitted = Vec::new();
    let mut panel = |name: &str, per_unit: bool, pick: &dyn Fn(&Head) -> Option<Mark>| {
        Panel {
        name: name.into(),
        per_unit,
        lines: machines
            .iter()
            .map(|m| Line {
                machine: m.to_string(),
                marks: entries
                    .iter()
                    .filter(|(r, _)| r.host == *m)
                    .filter_map(|(r, h)| {
                        let mark = pick(h).map(|k| Mark { run: r.id, ..k });
                        // In α and β, a run with a model and no mark has
                        // its figure below 0.
                        if mark.is_none()
                            && follow == Follow::Model
                            && matches!(h.figure, Figure::Line { .. })
                        {
                            omitted.push(format!(
                                "{name} of run {}: its interval lies below 0 (the model does not reach that end), not drawn",
                                r.id
                            ));
                        }
                        mark
                    })
                    .collect(),
            })
            .collect(),
    }
    };
    let figure = |f: &toll_measure::decision::Figure| {
        (f.sign != Sign::BelowZero).then_some(Mark {
            run: 0,
            value: f.value,
            ci: f.ci,
            near_zero: f.sign == Sign::NearZero,
        })
    };
    let panels = match follow {
        Follow::Model => vec![
            panel("α, fixed cost", false, &|h| match &h.figure {
                Figure::Line { alpha, .. } => figure(alpha),
                _ => None,
            }),
            panel("β, cost per unit", true, &|h| match &h.figure {
                Figure::Line { beta, .. } => figure(beta),
                _ => None,
            }),
        ],
        Follow::Median(n) => vec![panel(&format!("median at n = {n}"), false, &|h| {
            let (_, s) = h.medians.iter().find(|m| m.0 == n)?;
            Some(Mark {
                run: 0,
                value: s.median,
                ci: (s.ci_low, s.ci_high),
                near_zero: false,
            })
        })],
    };
    let trend = Trend {
        title: format!("toll {family} · {series}{on}"),
        runs: entries.iter().map(|(r, _)| r.id).collect(),
        panels,
    };
    (trend, omitted)
}

/// The figures as a table, newest first.
fn table(h: &mut String, family: &str, entries: &[(&RunRow, &Head)], follow: Follow) {
    let widened = entries
        .iter()
        .any(|(_, h)| matches!(h.figure, Figure::Line { widened: true, .. }));
    let near_zero = entries.iter().any(|(_, h)| {
        matches!(&h.figure, Figure::Line { alpha, beta, .. }
            if alpha.sign != Sign::Positive || beta.sign != Sign::Positive)
    });
    h.push_str("<div class=\"scroll\"><table class=\"trend\"><thead><tr><th>run</th><th>machine</th><th>started (UTC)</th>");
    match follow {
        Follow::Model => {
            let _ = write!(
                h,
                "<th>α</th><th>{}</th><th>β</th><th>{}</th><th>fit</th>",
                escape(&decided::ci_heading("α", widened)),
                escape(&decided::ci_heading("β", widened))
            );
        }
        Follow::Median(n) => {
            let _ = write!(h, "<th>median at n = {n}</th><th>interval</th>");
        }
    }
    // What differs between the runs drawn, run by run.
    let differ = alike::differing(entries);
    h.push_str("<th>against the machine's run before</th>");
    if !differ.is_empty() {
        h.push_str("<th>measured with</th>");
    }
    h.push_str("</tr></thead><tbody>\n");
    for (k, (r, head)) in entries.iter().enumerate().rev() {
        let _ = write!(
            h,
            "<tr><td class=\"num\"><a href=\"/runs/{0}\">{0}</a></td><td>{1}</td><td>{2}</td>",
            r.id,
            escape(&r.host),
            escape(&r.started_at)
        );
        match (follow, &head.figure) {
            (Follow::Model, Figure::Line { alpha, beta, .. }) => {
                let (a, a_ci) = decided::cells(alpha, fmt_ns);
                let (b, b_ci) = decided::cells(beta, fmt_ns);
                let _ = write!(
                    h,
                    "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>",
                    escape(&a),
                    escape(&a_ci),
                    escape(&b),
                    escape(&b_ci),
                    escape(&head.verdict)
                );
            }
            (Follow::Model, _) => {
                let _ = write!(
                    h,
                    "<td class=\"muted\" colspan=\"5\">{}</td>",
                    escape(&decided::no_model(head.medians.len()))
                );
            }
            (Follow::Median(n), _) => match head.medians.iter().find(|m| m.0 == n) {
                Some((_, s)) => {
                    let _ = write!(
                        h,
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                        fmt_ns(s.median),
                        escape(&decided::median_interval(s, fmt_ns))
                    );
                }
                None => {
                    let _ = write!(
                        h,
                        "<td class=\"muted\" colspan=\"2\">n = {n} not measured</td>"
                    );
                }
            },
        }
        // The same machine's run before this one among those shown.
        match entries[..k].iter().rev().find(|(p, _)| p.host == r.host) {
            Some((p, _)) => {
                let _ = write!(
                    h,
                    "<td><a href=\"/compare?a={0}&amp;b={1}\">run {0} → {1}</a></td>",
                    p.id, r.id
                );
            }
            None => h.push_str("<td class=\"muted\">—</td>"),
        }
        if !differ.is_empty() {
            let _ = write!(h, "<td>{}</td>", escape(&alike::cell(head, &differ)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
    if follow == Follow::Model {
        let _ = write!(h, "<p class=\"notes\">{}</p>", escape(decided::FIT_LEGEND));
        if widened {
            let _ = write!(
                h,
                "<p class=\"notes\">{}</p>",
                escape(decided::WIDENED_LEGEND)
            );
        }
        if near_zero {
            let _ = write!(
                h,
                "<p class=\"notes\">{}</p>",
                escape(decided::NEAR_ZERO_LEGEND)
            );
        }
    }
    let _ = write!(
        h,
        "<p class=\"muted\">Every {} run: <a href=\"/runs?family={}\">Runs</a>.</p>",
        escape(family),
        escape(&query_value(family))
    );
}
