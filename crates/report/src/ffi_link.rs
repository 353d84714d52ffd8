//! `toll ffi --vs-link`'s section: for each runtime, its fastest binding's
//! null call beside the round trip of an empty message through `toll
//! transfer`'s fastest link to that runtime's worker, both ends on one core,
//! and the ratio link ÷ call with its interval — "binding or helper
//! process?". The rows are decided when the run is stored (on the fastest
//! binding's series, `attrs.vs_link`) and rendered from there.

use crate::table::Table;
use serde::{Deserialize, Serialize};

/// A figure with its 95% interval: (value, low, high).
pub type WithCi = (f64, f64, f64);

/// One runtime's row, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VsLinkRow {
    pub runtime: String,
    /// The binding with the cheapest call at n = 0, and that call's median ns
    /// with the 95% CI of the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_ns: Option<WithCi>,
    /// The coverage of `call_ns`'s interval (order statistics of the median:
    /// below 0.95 with fewer than six rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_level: Option<f64>,
    /// The transport with the cheapest empty round trip, and its median ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trip_ns: Option<WithCi>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trip_level: Option<f64>,
    /// median(trip) ÷ median(call), with its bootstrap 95% interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<WithCi>,
    /// Why the row has no ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Three significant figures or so: ns from 1 to 10⁶ read at a glance.
fn num(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// An interval's level falls short of 95% (too few rounds for the
/// median's order statistics).
fn short(level: Option<f64>) -> bool {
    level.is_some_and(|l| l < 0.95)
}

/// An interval, marked † when its level falls short of 95% (one column
/// more would take the table past 100).
fn ci((_, lo, hi): WithCi, level: Option<f64>) -> String {
    let mark = if short(level) { "†" } else { "" };
    format!("[{}, {}]{mark}", num(lo), num(hi))
}

/// The line above the section's table.
pub const CAPTION: &str =
    "binding or helper process? the cheapest call into C beside the cheapest round trip to a helper";

/// The section, or nothing when the run has no rows.
pub fn render(rows: &[VsLinkRow]) -> String {
    let Some(table) = table(rows) else {
        return String::new();
    };
    let mut out = format!("\n{CAPTION}\n\n{table}");
    out.push_str("call ns: the median call at n = 0 of the runtime's cheapest binding; trip ns: the median round trip of an empty message between toll and the runtime's worker over its cheapest link (toll transfer's machinery, both ends pinned to one core), measured in the same run; link ÷ call: how many calls one round trip costs, its 95% CI a bootstrap of the two medians' ratio (each side resampled on its own)\n");
    if let Some(n) = dagger(rows) {
        out.push_str(&n);
        out.push('\n');
    }
    for r in rows {
        if let Some(why) = &r.why {
            out.push_str(&format!("note: {}: {why}\n", r.runtime));
        }
    }
    out
}

/// What † means in these rows, when one has it.
pub fn dagger(rows: &[VsLinkRow]) -> Option<String> {
    let mut levels: Vec<String> = rows
        .iter()
        .flat_map(|r| [r.call_level, r.trip_level])
        .filter(|l| short(*l))
        .map(|l| format!("{:.1}%", l.unwrap_or(0.0) * 100.0))
        .collect();
    levels.dedup();
    (!levels.is_empty()).then(|| {
        format!(
            "†: too few rounds for a 95% interval of the median; it covers {}",
            levels.join(", ")
        )
    })
}

/// The table alone; None without rows.
pub fn table(rows: &[VsLinkRow]) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        "runtime",
        "binding",
        "call ns",
        "95% CI",
        "link",
        "trip ns",
        "95% CI",
        "link ÷ call",
        "95% CI",
    ]);
    let dash = || "–".to_string();
    for r in rows {
        let fig = |f: Option<WithCi>, level| {
            f.map(|f| (num(f.0), ci(f, level)))
                .unwrap_or((dash(), dash()))
        };
        let (c, cc) = fig(r.call_ns, r.call_level);
        let (l, lc) = fig(r.trip_ns, r.trip_level);
        let (q, qc) = fig(r.ratio, None);
        t.row(vec![
            r.runtime.clone(),
            r.binding.clone().unwrap_or_else(dash),
            c,
            cc,
            r.link.clone().unwrap_or_else(dash),
            l,
            lc,
            q,
            qc,
        ]);
    }
    Some(t.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_runtime_within_100_columns() {
        let rows = vec![
            VsLinkRow {
                runtime: "python".into(),
                binding: Some("ext".into()),
                call_ns: Some((45.1, 44.0, 46.2)),
                call_level: Some(0.96),
                link: Some("unix".into()),
                trip_ns: Some((9812.0, 9700.0, 9905.0)),
                trip_level: Some(0.75),
                ratio: Some((217.6, 210.1, 225.3)),
                why: None,
            },
            VsLinkRow {
                runtime: "erlang".into(),
                binding: Some("nif".into()),
                call_ns: Some((61.0, 60.0, 62.5)),
                call_level: None,
                link: None,
                trip_ns: None,
                trip_level: None,
                ratio: None,
                why: Some("the erlang worker did not start".into()),
            },
        ];
        let text = render(&rows);
        let row = text.lines().find(|l| l.starts_with("python")).unwrap();
        for cell in [
            "ext",
            "45.1",
            "[44.0, 46.2]",
            "unix",
            "9812",
            "[9700, 9905]†",
            "218",
            "[210, 225]",
        ] {
            assert!(row.contains(cell), "{cell} not in {row}");
        }
        assert!(
            row.contains("[44.0, 46.2] "),
            "95% or more is not marked: {row}"
        );
        assert!(
            text.contains("†: too few rounds for a 95% interval of the median; it covers 75.0%")
        );
        assert!(text.contains("note: erlang: the erlang worker did not start"));
        for l in text.lines().filter(|l| {
            ["runtime", "python", "erlang"]
                .iter()
                .any(|w| l.starts_with(w))
        }) {
            assert!(l.chars().count() <= 100, "{l}");
        }
        assert_eq!(render(&[]), "");
        // Stored as JSON and read back as it was.
        let back: VsLinkRow =
            serde_json::from_value(serde_json::to_value(&rows[1]).unwrap()).unwrap();
        assert_eq!(back, rows[1]);
    }
}
