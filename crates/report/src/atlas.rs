//! `toll atlas`'s page for the terminal, drawn from the run it stored
//! (family `atlas`: the rows in its config), so `toll atlas`, `toll show`
//! and `toll report` print the same: the times grouped by order of
//! magnitude (1–10 ns, 10–100 ns, …), each in the unit that reads well
//! with its interval, what it is made of and the run behind it; then the
//! rates and sizes (a link's 1/β and n½, memcpy's rate); then every row
//! not measured, with why, and the groups left out.

use crate::table::{sig3, wrap, Table};
use serde_json::Value;
use std::fmt::Write;

/// A time in ns as (value, unit) reading well: 18.2 ns, 4.51 µs, 52.3 ms.
fn time_unit(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a < 1e3 => (1.0, "ns"),
        a if a < 1e6 => (1e3, "µs"),
        a if a < 1e9 => (1e6, "ms"),
        _ => (1e9, "s"),
    }
}

/// A rate in bytes per second as (divisor, unit): MB/s, GB/s.
fn rate_unit(bps: f64) -> (f64, &'static str) {
    match bps.abs() {
        a if a < 1e6 => (1e3, "kB/s"),
        a if a < 1e9 => (1e6, "MB/s"),
        _ => (1e9, "GB/s"),
    }
}

/// Requests a second as (divisor, unit).
fn requests_unit(r: f64) -> (f64, &'static str) {
    match r.abs() {
        a if a < 1e3 => (1.0, "req/s"),
        a if a < 1e6 => (1e3, "k req/s"),
        _ => (1e6, "M req/s"),
    }
}

/// A size in bytes as (divisor, unit).
fn size_unit(b: f64) -> (f64, &'static str) {
    match b.abs() {
        a if a < 1024.0 => (1.0, "B"),
        a if a < 1024.0 * 1024.0 => (1024.0, "KiB"),
        _ => (1024.0 * 1024.0, "MiB"),
    }
}

/// The order of magnitude a time falls in, as its band's words.
pub fn band(ns: f64) -> String {
    let k = ns.max(1e-3).log10().floor() as i32;
    let at = |k: i32| -> (String, &'static str) {
        let (v, u) = match k {
            k if k < 3 => (10f64.powi(k), "ns"),
            k if k < 6 => (10f64.powi(k - 3), "µs"),
            k if k < 9 => (10f64.powi(k - 6), "ms"),
            k => (10f64.powi(k - 9), "s"),
        };
        (format!("{v}"), u)
    };
    if k < 0 {
        return "under 1 ns".into();
    }
    let ((a, ua), (b, ub)) = (at(k), at(k + 1));
    if ua == ub {
        format!("{a}–{b} {ub}")
    } else {
        format!("{a} {ua}–{b} {ub}")
    }
}

/// A stored figure's (value cell, interval cell) in the row's unit.
pub fn cells(f: &Value, unit: &str) -> Option<(String, String)> {
    let g = |k: &str| f.get(k).and_then(Value::as_f64);
    let value = g("value")?;
    let (k, u) = match unit {
        "B/s" => rate_unit(value),
        "B" => size_unit(value),
        "req/s" => requests_unit(value),
        _ => time_unit(value),
    };
    let shown = format!("{} {u}", sig3(value / k));
    if let Some(why) = f.get("no_interval").and_then(Value::as_str) {
        return Some((shown, format!("– ({why})")));
    }
    let (lo, hi) = (g("lo")?, g("hi")?);
    let level = match g("level") {
        Some(l) if l < 0.95 - 1e-9 => format!(" {:.0}%", (l * 100.0).floor()),
        _ => String::new(),
    };
    Some((
        shown,
        format!("[{}, {}]{level}", sig3(lo / k), sig3(hi / k)),
    ))
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn run_cell(row: &Value) -> String {
    row.get("run")
        .and_then(Value::as_i64)
        .map_or("–".into(), |r| r.to_string())
}

/// Each interval cell without one ("– (why)") becomes "– [k]", its reason
/// once under the table.
fn noted(t: &mut [Vec<String>], col: usize, notes: &mut Vec<String>) {
    for cells in t.iter_mut() {
        let Some(reason) = cells
            .get(col)
            .and_then(|c| c.strip_prefix("– ("))
            .and_then(|r| r.strip_suffix(')'))
            .map(str::to_string)
        else {
            continue;
        };
        let k = match notes.iter().position(|n| *n == reason) {
            Some(i) => i + 1,
            None => {
                notes.push(reason);
                notes.len()
            }
        };
        cells[col] = format!("– [{k}]");
    }
}

/// The atlas as stored: its heading, the times by order of magnitude, the
/// rates and sizes, what was not measured and why.
pub fn render(config: &Value) -> String {
    let rows: Vec<&Value> = config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let measured: Vec<&Value> = rows
        .iter()
        .copied()
        .filter(|r| r.get("figure").is_some_and(|f| !f.is_null()))
        .collect();
    let mut out = String::new();
    let secs = config
        .get("measuring_s")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let _ = writeln!(
        out,
        "toll atlas: {} of {} crossings measured on this machine ({} preset, {:.0} s of measuring)\n",
        measured.len(),
        rows.len(),
        text(config, "preset"),
        secs
    );
    let mut notes = vec![];
    let value = |r: &Value| r["figure"]["value"].as_f64().unwrap_or(0.0);
    let mut times: Vec<&Value> = measured
        .iter()
        .copied()
        .filter(|r| text(r, "unit") == "ns")
        .collect();
    times.sort_by(|a, b| value(a).total_cmp(&value(b)));
    if !times.is_empty() {
        let mut cells: Vec<Vec<String>> = vec![];
        let mut made: Vec<String> = vec![];
        let mut last = String::new();
        for r in &times {
            let b = band(value(r));
            if b != last {
                cells.push(vec![format!("── {b}")]);
                made.push(String::new());
                last = b;
            }
            let (v, ci) = cells_of(r);
            cells.push(vec![text(r, "crossing").into(), v, ci, run_cell(r)]);
            made.push(text(r, "made_of").into());
        }
        noted(&mut cells, 2, &mut notes);
        out.push_str(&with_made_of(
            &["crossing", "time", "CI", "run"],
            cells,
            &made,
        ));
    }
    let others: Vec<&Value> = measured
        .iter()
        .copied()
        .filter(|r| text(r, "unit") != "ns")
        .collect();
    if !others.is_empty() {
        let mut cells: Vec<Vec<String>> = others
            .iter()
            .map(|r| {
                let (v, ci) = cells_of(r);
                vec![text(r, "crossing").into(), v, ci, run_cell(r)]
            })
            .collect();
        let made: Vec<String> = others.iter().map(|r| text(r, "made_of").into()).collect();
        noted(&mut cells, 2, &mut notes);
        out.push('\n');
        out.push_str(&with_made_of(
            &["rate or size", "figure", "CI", "run"],
            cells,
            &made,
        ));
    }
    for (i, n) in notes.iter().enumerate() {
        out.push_str(&wrap(&format!("[{}] {n}", i + 1)));
        out.push('\n');
    }
    out.push_str(&wrap(
        "CI: 95% unless a level follows it; made of: what one crossing is, and the sum of the rows of this atlas it names; run: `toll show N` has the family run the figure comes from",
    ));
    out.push('\n');
    missing(&mut out, config, &rows);
    out
}

fn cells_of(r: &Value) -> (String, String) {
    cells(&r["figure"], text(r, "unit")).unwrap_or_else(|| ("–".into(), "–".into()))
}

/// The table, each row followed by what it is made of on a line of its
/// own (indented, wrapped to the width); where a row's cells would wrap,
/// the make-up is a last column instead.
fn with_made_of(headers: &[&str], cells: Vec<Vec<String>>, made: &[String]) -> String {
    let mut t = Table::new(headers);
    for c in &cells {
        t.row(c.clone());
    }
    let text = t.render();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != cells.len() + 1 {
        let mut headers = headers.to_vec();
        headers.insert(3, "made of");
        let mut t = Table::new(&headers);
        for (mut c, m) in cells.into_iter().zip(made) {
            c.resize(4, String::new());
            c.insert(3, m.clone());
            t.row(c);
        }
        return t.render();
    }
    let mut out = format!("{}\n", lines[0]);
    for (line, m) in lines[1..].iter().zip(made) {
        out.push_str(line);
        out.push('\n');
        if !m.is_empty() {
            out.push_str(&wrap(&format!("    {m}")));
            out.push('\n');
        }
    }
    out
}

/// A group's crossings, by name.
type Named = (String, Vec<String>);

/// The rows not measured, one line per reason, and the groups left out.
fn missing(out: &mut String, config: &Value, rows: &[&Value]) {
    // Per reason, the rows of each group it holds for.
    let mut reasons: Vec<(String, Vec<Named>)> = vec![];
    for r in rows
        .iter()
        .filter(|r| r.get("figure").is_none_or(Value::is_null))
    {
        let why = text(r, "missing").to_string();
        let (group, name) = (
            text(r, "group").to_string(),
            text(r, "crossing").to_string(),
        );
        let i = match reasons.iter().position(|(w, _)| *w == why) {
            Some(i) => i,
            None => {
                reasons.push((why, vec![]));
                reasons.len() - 1
            }
        };
        let groups = &mut reasons[i].1;
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, names)) => names.push(name),
            None => groups.push((group, vec![name])),
        }
    }
    if !reasons.is_empty() {
        out.push_str("\nnot measured:\n");
        for (why, groups) in reasons {
            let each: Vec<String> = groups
                .iter()
                .map(|(g, names)| format!("{g}: {}", names.join(", ")))
                .collect();
            out.push_str(&wrap(&format!("  {} — {why}", each.join("; "))));
            out.push('\n');
        }
    }
    let mut left: Vec<(String, Vec<String>)> = vec![];
    for g in config
        .get("groups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|g| g.get("measured") == Some(&Value::Bool(false)))
    {
        let why = text(g, "reason").to_string();
        let name = text(g, "group").to_string();
        match left.iter_mut().find(|(w, _)| *w == why) {
            Some((_, names)) => names.push(name),
            None => left.push((why, vec![name])),
        }
    }
    for (why, names) in left {
        out.push_str(&wrap(&format!("groups {why}: {}", names.join(", "))));
        out.push('\n');
    }
    for e in config
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push_str(&wrap(&format!("error: {}", e.as_str().unwrap_or(""))));
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bands_are_orders_of_magnitude() {
        assert_eq!(band(3.2), "1–10 ns");
        assert_eq!(band(45.0), "10–100 ns");
        assert_eq!(band(450.0), "100 ns–1 µs");
        assert_eq!(band(4_500.0), "1–10 µs");
        assert_eq!(band(45e6), "10–100 ms");
        assert_eq!(band(0.4), "under 1 ns");
    }

    #[test]
    fn an_atlas_fits_100_columns_and_says_why_a_row_is_empty() {
        let row = |crossing: &str, unit: &str, figure: Value, missing: Option<&str>| {
            json!({
                "group": "hardware", "crossing": crossing, "unit": unit, "figure": figure,
                "missing": missing, "run": 3,
                "made_of": "2 wake-ups and 2 context switches, each an interrupt to the other core; 4 futex calls; from this atlas: 4 × syscall (getppid) ≈ 412 ns",
            })
        };
        let config = json!({
            "preset": "quick", "measuring_s": 95.2,
            "rows": [
                row("wake-up round trip, pipe between processes, across cores", "ns", json!({"value": 41234.5, "lo": 40012.25, "hi": 42555.75}), None),
                row("vDSO clock read (clock_gettime)", "ns", json!({"value": 18.24, "lo": 18.1, "hi": 18.5, "level": 0.75}), None),
                row("start-up (java)", "ns", json!({"value": 5.2e7, "lo": 5.2e7, "hi": 5.2e7, "no_interval": "one repetition: no interval"}), None),
                row("pipe rate (1/β)", "B/s", json!({"value": 3.96e9, "lo": 3.88e9, "hi": 4.04e9}), None),
                row("pipe n½ (α/β)", "B", json!({"value": 20920.0, "lo": 19000.0, "hi": 23000.0}), None),
                row("spawn a goroutine (go)", "ns", Value::Null, Some("go not installed: apt-get install golang-go")),
            ],
            "groups": [{"group": "files", "measured": false, "reason": "left out by --only or --skip"}],
        });
        let text = render(&config);
        assert!(
            text.lines()
                .all(|l| l.chars().count() <= crate::table::DEFAULT_WIDTH),
            "{text}"
        );
        for want in [
            "5 of 6 crossings measured",
            "── 10–100 ns",
            "18.2 ns",
            "[18.1, 18.5] 75%",
            "── 10–100 µs",
            "41.2 µs",
            "[40.0, 42.6]",
            "52.0 ms",
            "– [1]",
            "[1] one repetition",
            "3.96 GB/s",
            "20.4 KiB",
            "go not installed",
            "groups left out by --only or --skip: files",
        ] {
            assert!(text.contains(want), "{want} not in:\n{text}");
        }
        // Ordered by time, fastest first.
        assert!(text.find("vDSO").unwrap() < text.find("wake-up").unwrap());
    }
}
