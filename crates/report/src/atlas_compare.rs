//! `toll compare A B` of two atlases: every crossing both measured, as how
//! many times longer it takes on B than on A, with an interval — sorted so
//! what is slower on B comes first, then what is the same, then what is
//! faster ("what is 4× slower on this VM than on my laptop, and what is
//! the same").
//!
//! The ratio's interval comes from the two rows' own intervals: if A's
//! figure is in [a₋, a₊] and B's in [b₋, b₊], B ÷ A is in [b₋/a₊, b₊/a₋].
//! The two atlases are measured apart, so both intervals hold at once with
//! probability level(A) × level(B), and the ratio's interval holds at
//! least that often: that product is its level (90% for two 95%
//! intervals). A rate is compared as the time per byte it gives (A's rate
//! ÷ B's), so every ratio reads the same way: above 1, B takes longer.

use crate::atlas::cells;
use crate::runs_compare::{machine_differences, Difference};
use crate::table::{sig3, wrap, Table};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write;

/// Where a crossing's ratio falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Call {
    /// The whole interval above 1 (+ the threshold): B takes longer.
    Slower,
    /// The interval holds 1 (or stays within the threshold of it).
    Same,
    /// The whole interval below 1: B is quicker.
    Faster,
    /// A size (n½), or a figure without an interval on either side: the
    /// ratio, not judged.
    Unjudged,
}

/// One crossing measured in both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Crossing {
    pub group: String,
    pub crossing: String,
    pub unit: String,
    /// Each side's figure as stored (value, lo, hi, level…).
    pub a: Value,
    pub b: Value,
    /// B's time ÷ A's: (value, lo, hi); lo = hi = value when unjudged.
    pub ratio: (f64, f64, f64),
    /// The level the interval holds at, at least.
    pub level: Option<f64>,
    pub call: Call,
}

/// A crossing both measured, at different sizes (`at`: `n = 1000` against
/// `n = 10000`): not the same measurement, so not compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    pub crossing: String,
    pub a_at: String,
    pub b_at: String,
}

/// Two atlases compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtlasComparison {
    pub a: i64,
    pub b: i64,
    pub crossings: Vec<Crossing>,
    /// Measured in one only (each with the side that has it), or in neither.
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    pub neither: Vec<String>,
    /// Measured in both at different sizes (two presets' atlases).
    pub unmatched: Vec<Unmatched>,
    /// What differs between the two machines (hypervisor, mitigations,
    /// SMT, …) and the presets: where a ratio may come from.
    pub differences: Vec<Difference>,
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// A stored figure's value, its interval (None without one) and its level.
type Parts = (f64, Option<(f64, f64)>, f64);

/// (value, interval, level) of a stored figure.
fn parts(f: &Value) -> Option<Parts> {
    let g = |k: &str| f.get(k).and_then(Value::as_f64);
    let v = g("value").filter(|v| *v > 0.0)?;
    let interval = match (g("lo"), g("hi")) {
        _ if f.get("no_interval").is_some_and(|w| !w.is_null()) => None,
        (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((lo, hi)),
        _ => None,
    };
    Some((v, interval, g("level").unwrap_or(0.95)))
}

/// The rows of an atlas's config.
fn rows(config: &Value) -> Vec<&Value> {
    config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect()
}

/// The size a row was measured at, where it names one.
fn at(r: &Value) -> Option<&str> {
    r.get("at").and_then(Value::as_str)
}

fn measured(r: &Value) -> Option<&Value> {
    r.get("figure").filter(|f| !f.is_null())
}

impl AtlasComparison {
    /// Two stored atlases: their rows ([`AtlasComparison::of`]) and what
    /// differs between their machines (the family runs' configs aside).
    pub fn of_runs(a: &toll_store::Run, b: &toll_store::Run, threshold: f64) -> AtlasComparison {
        let mut c = AtlasComparison::of((a.id, &a.config), (b.id, &b.config), threshold);
        c.differences = machine_differences(a, b)
            .into_iter()
            .filter(|d| !d.what.starts_with("config ") || d.what == "config preset")
            .collect();
        c
    }

    /// A's and B's rows matched by crossing; `threshold`: the smallest
    /// change that counts (0.05 for 5%).
    pub fn of(a: (i64, &Value), b: (i64, &Value), threshold: f64) -> AtlasComparison {
        let (ra, rb) = (rows(a.1), rows(b.1));
        let mut out = AtlasComparison {
            a: a.0,
            b: b.0,
            crossings: vec![],
            only_a: vec![],
            only_b: vec![],
            neither: vec![],
            unmatched: vec![],
            differences: vec![],
        };
        for x in &ra {
            let name = text(x, "crossing");
            let y = rb.iter().find(|y| text(y, "crossing") == name);
            // The size each was measured at, where its figure depends on one
            // (atlases stored before rows said so match by crossing alone).
            let sizes = y
                .and_then(|y| Some((at(x)?, at(y)?)))
                .filter(|(a, b)| a != b);
            match (measured(x), y.and_then(|y| measured(y))) {
                (Some(_), Some(_)) if sizes.is_some() => {
                    let (a_at, b_at) = sizes.expect("checked");
                    out.unmatched.push(Unmatched {
                        crossing: name.into(),
                        a_at: a_at.into(),
                        b_at: b_at.into(),
                    });
                }
                (Some(fa), Some(fb)) => {
                    if let Some(c) = crossing(x, fa, fb, threshold) {
                        out.crossings.push(c);
                    }
                }
                (Some(_), None) => out.only_a.push(name.into()),
                (None, Some(_)) => out.only_b.push(name.into()),
                (None, None) => out.neither.push(name.into()),
            }
        }
        for y in rb.iter().filter(|y| measured(y).is_some()) {
            let name = text(y, "crossing");
            if !ra.iter().any(|x| text(x, "crossing") == name) {
                out.only_b.push(name.into());
            }
        }
        out.crossings
            .sort_by(|x, y| x.call.cmp(&y.call).then(y.ratio.0.total_cmp(&x.ratio.0)));
        out
    }
}

fn crossing(row: &Value, fa: &Value, fb: &Value, threshold: f64) -> Option<Crossing> {
    let unit = text(row, "unit").to_string();
    let ((va, ia, la), (vb, ib, lb)) = (parts(fa)?, parts(fb)?);
    // A rate's ratio as time per byte: A's ÷ B's.
    let rate = unit == "B/s" || unit == "req/s";
    let (ratio, interval) = match (ia, ib) {
        (Some((a0, a1)), Some((b0, b1))) if rate => (va / vb, Some((a0 / b1, a1 / b0))),
        (Some((a0, a1)), Some((b0, b1))) => (vb / va, Some((b0 / a1, b1 / a0))),
        _ if rate => (va / vb, None),
        _ => (vb / va, None),
    };
    let (lo, hi) = interval.unwrap_or((ratio, ratio));
    let call = match interval {
        // A size (n½) is neither slower nor faster.
        _ if unit == "B" => Call::Unjudged,
        None => Call::Unjudged,
        Some((lo, _)) if lo > 1.0 + threshold => Call::Slower,
        Some((_, hi)) if hi < 1.0 / (1.0 + threshold) => Call::Faster,
        Some(_) => Call::Same,
    };
    Some(Crossing {
        group: text(row, "group").into(),
        crossing: text(row, "crossing").into(),
        unit,
        a: fa.clone(),
        b: fb.clone(),
        ratio: (ratio, lo, hi),
        level: interval.map(|_| la * lb),
        call,
    })
}

/// The ratio as it reads: `4.02× [3.80, 4.30] 90%`.
fn ratio_cell(c: &Crossing) -> String {
    let (v, lo, hi) = c.ratio;
    match c.level {
        Some(l) => format!(
            "{}× [{}, {}] {:.0}%",
            sig3(v),
            sig3(lo),
            sig3(hi),
            (l * 100.0 + 1e-9).floor()
        ),
        None => format!("{}× (no interval)", sig3(v)),
    }
}

fn figure_cell(f: &Value, unit: &str) -> String {
    cells(f, unit).map_or("–".into(), |(v, _)| v)
}

/// The comparison for the terminal: a heading, the crossings by call, the
/// ones measured in one atlas only.
pub fn render(c: &AtlasComparison, machines: (&str, &str)) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        wrap(&format!(
            "toll compare: atlas {} (A: {}) and atlas {} (B: {}) — {} crossings measured in both",
            c.a,
            machines.0,
            c.b,
            machines.1,
            c.crossings.len()
        ))
    );
    let mut t = Table::new(&["crossing", "A", "B", "B ÷ A"]);
    for (call, words) in [
        (Call::Slower, "slower on B: the whole interval above 1"),
        (Call::Same, "the same: the interval holds 1"),
        (Call::Faster, "faster on B: the whole interval below 1"),
        (
            Call::Unjudged,
            "not judged: a size, or a figure without an interval",
        ),
    ] {
        let these: Vec<&Crossing> = c.crossings.iter().filter(|x| x.call == call).collect();
        if these.is_empty() {
            continue;
        }
        t.row(vec![format!("── {words}")]);
        for x in these {
            t.row(vec![
                x.crossing.clone(),
                figure_cell(&x.a, &x.unit),
                figure_cell(&x.b, &x.unit),
                ratio_cell(x),
            ]);
        }
    }
    out.push_str(&t.render());
    if c.differences.is_empty() {
        out.push_str("the same machine, toll and preset\n");
    } else {
        out.push_str("where they differ (A → B):\n");
        for d in &c.differences {
            out.push_str(&wrap(&format!("  {}: {} → {}", d.what, d.a, d.b)));
            out.push('\n');
        }
    }
    if !c.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "not compared, measured at different sizes ({}):",
            c.unmatched.len()
        );
        for u in &c.unmatched {
            out.push_str(&wrap(&format!(
                "  {}: A at {}, B at {}",
                u.crossing, u.a_at, u.b_at
            )));
            out.push('\n');
        }
    }
    for (words, names) in [
        ("measured in A only", &c.only_a),
        ("measured in B only", &c.only_b),
        ("measured in neither", &c.neither),
    ] {
        if !names.is_empty() {
            out.push_str(&wrap(&format!("{words}: {}", names.join(", "))));
            out.push('\n');
        }
    }
    out.push_str(&wrap(
        "B ÷ A: how many times longer one crossing takes on B (a rate as its time per byte, a size as itself); its interval from the two rows' own, holding at least as often as the product of their levels (90% for two 95% intervals)",
    ));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn atlas(rows: &[(&str, &str, Value)]) -> Value {
        let rows: Vec<Value> = rows
            .iter()
            .map(|(c, unit, f)| json!({"group": "hardware", "crossing": c, "unit": unit, "figure": f}))
            .collect();
        json!({ "rows": rows })
    }

    #[test]
    fn each_crossing_is_a_ratio_with_its_interval_sorted_slower_first() {
        let f = |v: f64, lo: f64, hi: f64| json!({"value": v, "lo": lo, "hi": hi});
        let a = atlas(&[
            ("syscall", "ns", f(100.0, 95.0, 105.0)),
            ("wake", "ns", f(2000.0, 1900.0, 2100.0)),
            ("pipe rate", "B/s", f(4e9, 3.9e9, 4.1e9)),
            ("page fault", "ns", f(1000.0, 900.0, 1100.0)),
            ("java", "ns", Value::Null),
            (
                "clock",
                "ns",
                json!({"value": 20.0, "lo": 20.0, "hi": 20.0, "no_interval": "one repetition"}),
            ),
        ]);
        let b = atlas(&[
            ("syscall", "ns", f(400.0, 380.0, 420.0)),
            ("wake", "ns", f(2050.0, 1950.0, 2150.0)),
            ("pipe rate", "B/s", f(8e9, 7.8e9, 8.2e9)),
            ("java", "ns", f(5e7, 4.9e7, 5.1e7)),
            ("clock", "ns", f(25.0, 24.0, 26.0)),
        ]);
        let c = AtlasComparison::of((1, &a), (2, &b), 0.0);
        let calls: Vec<(&str, Call)> = c
            .crossings
            .iter()
            .map(|x| (x.crossing.as_str(), x.call))
            .collect();
        assert_eq!(
            calls,
            [
                ("syscall", Call::Slower),
                ("wake", Call::Same),
                ("pipe rate", Call::Faster),
                ("clock", Call::Unjudged)
            ]
        );
        let s = &c.crossings[0];
        assert!((s.ratio.0 - 4.0).abs() < 1e-9);
        assert!(
            (s.ratio.1 - 380.0 / 105.0).abs() < 1e-9 && (s.ratio.2 - 420.0 / 95.0).abs() < 1e-9
        );
        assert!((s.level.unwrap() - 0.9025).abs() < 1e-9);
        // A rate twice as high: half the time per byte.
        assert!((c.crossings[2].ratio.0 - 0.5).abs() < 1e-9);
        assert_eq!(c.only_a, ["page fault"]);
        assert_eq!(c.only_b, ["java"]);
        let text = render(&c, ("laptop", "vm"));
        assert!(text.contains("4.00× [3.62, 4.42] 90%"), "{text}");
        assert!(text.find("slower on B").unwrap() < text.find("the same").unwrap());
        assert!(text.contains("measured in A only: page fault"));
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        // A threshold of 5% calls a 2.5% change the same.
        let c = AtlasComparison::of((1, &a), (2, &b), 0.05);
        assert_eq!(
            c.crossings
                .iter()
                .find(|x| x.crossing == "wake")
                .unwrap()
                .call,
            Call::Same
        );
    }

    #[test]
    fn a_crossing_measured_at_two_sizes_is_not_compared_but_named() {
        let row = |c: &str, at: Option<&str>, v: f64| {
            json!({"group": "threads", "crossing": c, "unit": "ns", "at": at,
                   "figure": {"value": v, "lo": v * 0.9, "hi": v * 1.1}})
        };
        let a = json!({"rows": [
            row("spawn: thread (rust)", Some("n = 50"), 9000.0),
            row("4 KiB pread at random, warm", Some("a 100 MB file"), 900.0),
            row("syscall (getppid)", None, 100.0),
        ]});
        let b = json!({"rows": [
            row("spawn: thread (rust)", Some("n = 10000"), 20000.0),
            row("4 KiB pread at random, warm", Some("a 100 MB file"), 910.0),
            // An atlas stored before rows named their size: matched by name.
            row("syscall (getppid)", Some("n = 1"), 101.0),
        ]});
        let c = AtlasComparison::of((1, &a), (2, &b), 0.0);
        let compared: Vec<&str> = c.crossings.iter().map(|x| x.crossing.as_str()).collect();
        assert_eq!(
            compared,
            ["4 KiB pread at random, warm", "syscall (getppid)"]
        );
        assert_eq!(
            c.unmatched,
            [Unmatched {
                crossing: "spawn: thread (rust)".into(),
                a_at: "n = 50".into(),
                b_at: "n = 10000".into()
            }]
        );
        assert!(c.only_a.is_empty() && c.only_b.is_empty());
        let text = render(&c, ("quick", "full"));
        assert!(
            text.contains("not compared, measured at different sizes (1):\n  spawn: thread (rust): A at n = 50, B at n = 10000\n"),
            "{text}"
        );
    }
}
