//! Which runs a trend draws together: those measured like the newest —
//! the same sizes, placement, link and the family's other dividing terms
//! ([`crate::terms`]) — so a step in the line is a change of the machine,
//! toll or a toolchain, not of what was measured. The others are left out
//! and named, unless the page is asked for every run (`all=1`); then the
//! page says which terms differ, and the table each run's.

use crate::headline::Head;
use crate::terms::{dividing, Term};
use std::fmt::Write;
use toll_report::html::escape;
use toll_store::RunRow;

/// A run of the trend and its series' headline.
pub type Entry<'a> = (&'a RunRow, &'a Head);

/// A trend's runs, sorted into those it draws and those it leaves out.
pub struct Sorted<'a> {
    /// Oldest first, as the picture goes.
    pub drawn: Vec<Entry<'a>>,
    /// Oldest first: measured otherwise than the newest run.
    pub left: Vec<Entry<'a>>,
}

/// The newest of `entries` (oldest first) and those measured like it;
/// every one of them when `all`.
pub fn sort<'a>(entries: Vec<Entry<'a>>, all: bool) -> Sorted<'a> {
    let Some((_, newest)) = entries.last().copied() else {
        return Sorted {
            drawn: entries,
            left: Vec::new(),
        };
    };
    let like = dividing(&newest.terms);
    let (drawn, left) = entries
        .into_iter()
        .partition(|(_, h)| all || dividing(&h.terms) == like);
    Sorted { drawn, left }
}

/// The value of term `name` in a series; "—" where it has none.
fn value<'h>(h: &'h Head, name: &str) -> &'h str {
    h.terms
        .iter()
        .find(|t| t.name == name)
        .map_or("—", |t| t.value.as_str())
}

/// Every term's name in `entries`, in the order they come.
fn names<'h>(entries: &[Entry<'h>]) -> Vec<&'h Term> {
    let mut out: Vec<&Term> = Vec::new();
    for t in entries.iter().flat_map(|(_, h)| &h.terms) {
        if !out.iter().any(|o| o.name == t.name) {
            out.push(t);
        }
    }
    out
}

/// The terms whose value differs between `entries`, by name.
pub fn differing(entries: &[Entry]) -> Vec<&'static str> {
    names(entries)
        .into_iter()
        .filter(|t| {
            let first = entries.first().map_or("—", |(_, h)| value(h, t.name));
            entries.iter().any(|(_, h)| value(h, t.name) != first)
        })
        .map(|t| t.name)
        .collect()
}

/// A run's values of the terms `names`, for the table: `sizes 0, 2000 ·
/// toll 0.3.0`.
pub fn cell(h: &Head, names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("{n} {}", value(h, n)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// `run 4` or `runs 3, 5, 9`.
fn runs(ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    match ids.len() {
        1 => format!("run {}", list[0]),
        _ => format!("runs {}", list.join(", ")),
    }
}

/// Each value of term `name` among `entries` with the runs that have it:
/// `0, 1000, 4000 (runs 3, 9); 0, 2000 (run 4)`.
fn values_by_run(entries: &[Entry], name: &str) -> String {
    let mut groups: Vec<(&str, Vec<i64>)> = Vec::new();
    for (r, h) in entries {
        let v = value(h, name);
        match groups.iter_mut().find(|g| g.0 == v) {
            Some(g) => g.1.push(r.id),
            None => groups.push((v, vec![r.id])),
        }
    }
    groups
        .iter()
        .map(|(v, ids)| format!("{} ({})", escape(v), runs(ids)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The paragraphs above the picture that say what its runs share, what
/// differs between them, and what was left out; `every` and `alike` are
/// the page's links with and without `all=1`.
pub fn describe(h: &mut String, s: &Sorted, all: bool, every: &str, alike: &str) {
    h.push_str("<div class=\"terms\">");
    let differ = differing(&s.drawn);
    let shared: Vec<String> = names(&s.drawn)
        .into_iter()
        .filter(|t| !differ.contains(&t.name))
        .map(|t| format!("<b>{}</b> {}", t.name, escape(&t.value)))
        .collect();
    if !shared.is_empty() {
        let _ = write!(
            h,
            "<p>{} measured with {}.</p>",
            if s.drawn.len() == 1 {
                "The run drawn was"
            } else {
                "Every run drawn was"
            },
            shared.join(" · ")
        );
    }
    if !differ.is_empty() {
        let parts: Vec<String> = differ
            .iter()
            .map(|n| format!("<b>{n}</b> {}", values_by_run(&s.drawn, n)))
            .collect();
        let _ = write!(h, "<p>The runs drawn differ in {}.</p>", parts.join(" · "));
    }
    let newest = s.drawn.last().map(|(r, _)| r.id);
    if let (false, Some(newest)) = (s.left.is_empty(), newest) {
        let why: Vec<String> = s
            .left
            .iter()
            .map(|(r, h)| {
                let (_, n) = s.drawn.last().expect("a newest run");
                let mut names: Vec<&str> = Vec::new();
                for t in dividing(&h.terms).into_iter().chain(dividing(&n.terms)) {
                    if !names.contains(&t.name) && value(h, t.name) != value(n, t.name) {
                        names.push(t.name);
                    }
                }
                format!("run {} ({})", r.id, escape(&cell(h, &names)))
            })
            .collect();
        let _ = write!(
            h,
            "<p class=\"warn\">Not drawn: {} measured otherwise than the newest, run {newest}: {}. \
             <a href=\"{every}\">Draw every run</a>, saying which differ.</p>",
            if s.left.len() == 1 {
                "1 run".to_string()
            } else {
                format!("{} runs", s.left.len())
            },
            why.join(", ")
        );
    }
    let dividing_differ = differ.iter().any(|n| {
        s.drawn
            .iter()
            .flat_map(|(_, h)| &h.terms)
            .any(|t| t.name == *n && t.divides)
    });
    if all && dividing_differ {
        let _ = write!(
            h,
            "<p class=\"warn\">Every run drawn, measured alike or not: their figures differ partly by what was measured. \
             <a href=\"{alike}\">Only the runs measured like the newest</a>.</p>"
        );
    }
    h.push_str("</div>\n");
}
