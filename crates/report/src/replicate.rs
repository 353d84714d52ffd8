//! `toll replicate`'s table, drawn from the run it stored (family
//! `replicate`: the rows, findings and errors in its config), so that what
//! `toll replicate` prints, `toll show` and `toll report` print the same.
//! Every empty cell says why it is empty.

use crate::table::Table;
use serde_json::Value;
use std::fmt::Write;

/// A figure with three significant digits or so.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "–".into()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 {
        format!("{v:.2}")
    } else if a >= 0.001 || a == 0.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.1e}")
    }
}

/// `{value, lo, hi, level?, no_interval?}` as (value, "[lo, hi]"), the
/// interval's level after it where below 95% ("[lo, hi] 75%"), or why there
/// is none.
fn figure(v: &Value) -> Option<(f64, String)> {
    let g = |k: &str| v.get(k).and_then(Value::as_f64);
    let value = g("value")?;
    if let Some(why) = v.get("no_interval").and_then(Value::as_str) {
        return Some((value, format!("– ({why})")));
    }
    let (lo, hi) = (g("lo")?, g("hi")?);
    let level = match g("level") {
        Some(l) if l < 0.95 - 1e-9 => format!(" {:.0}%", (l * 100.0).floor()),
        _ => String::new(),
    };
    Some((value, format!("[{}, {}]{level}", num(lo), num(hi))))
}

/// The reason stored beside an empty cell.
fn why(row: &Value, key: &str) -> String {
    format!(
        "– ({})",
        row.get(key).and_then(Value::as_str).unwrap_or("missing")
    )
}

/// The cells of one stored row: subject, figure, original, this machine,
/// its CI, ratio, the ratio's CI.
pub fn cells(row: &Value) -> Vec<String> {
    let s = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let unit = s("unit");
    let original = match row.get("original").filter(|o| !o.is_null()) {
        Some(o) => match o.get("text").and_then(Value::as_str) {
            Some(t) if !t.is_empty() => t.to_string(),
            _ => format!(
                "{} {unit}",
                num(o.get("value").and_then(Value::as_f64).unwrap_or(f64::NAN))
            ),
        },
        None => why(row, "original_missing"),
    };
    let (mine, ci) = match row.get("measured").and_then(figure) {
        Some((v, ci)) => (format!("{} {unit}", num(v)), ci),
        None => (why(row, "measured_missing"), "–".into()),
    };
    let (ratio, ratio_ci) = match row.get("ratio").and_then(figure) {
        Some((v, ci)) => (format!("{}×", num(v)), ci),
        None => ("–".into(), "–".into()),
    };
    vec![
        s("subject"),
        s("figure"),
        original,
        mine,
        ci,
        ratio,
        ratio_ci,
    ]
}

/// A table's rows as they are shown: each empty cell's reason ("– (why)")
/// becomes a mark, "– [k]", with the reason once under the table as
/// "[k] why" (one mark per distinct reason), so a long reason never makes
/// a column one word wide; and an original that repeats the row above's is
/// a ditto mark, "″", so one figure is stated once.
pub fn noted_cells(rows: &[&Value]) -> (Vec<Vec<String>>, Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut above: Option<String> = None;
    for row in rows {
        let mut cells = cells(row);
        let original = cells[2].clone();
        if above.as_deref() == Some(original.as_str()) && !original.starts_with('–') {
            cells[2] = DITTO.into();
        }
        above = Some(original);
        for cell in cells.iter_mut() {
            let Some(reason) = cell.strip_prefix("– (").and_then(|r| r.strip_suffix(')')) else {
                continue;
            };
            let k = match notes.iter().position(|n| n == reason) {
                Some(i) => i + 1,
                None => {
                    notes.push(reason.to_string());
                    notes.len()
                }
            };
            *cell = format!("– [{k}]");
        }
        out.push(cells);
    }
    let notes = notes
        .into_iter()
        .enumerate()
        .map(|(i, n)| format!("[{}] {n}", i + 1))
        .collect();
    (out, notes)
}

/// The ditto mark: the same original as the row above.
pub const DITTO: &str = "″";

/// The experiment's title, design, table, findings and errors.
pub fn render(config: &Value) -> String {
    let s = |k: &str| config.get(k).and_then(Value::as_str).unwrap_or("");
    let mut out = format!("{} — {}\n{}\n\n", s("replicate"), s("title"), s("design"));
    let mut t = Table::new(&[
        "subject",
        "figure",
        "original",
        "this machine",
        "CI",
        "ratio",
        "ratio CI",
    ]);
    let rows: Vec<&Value> = config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let (shown, notes) = noted_cells(&rows);
    let dittos = shown.iter().any(|c| c[2] == DITTO);
    for cells in shown {
        t.row(cells);
    }
    out.push_str(&t.render());
    for n in &notes {
        out.push_str(&crate::table::wrap(n));
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "ratio = this machine ÷ original; each CI is 95% unless a level follows it\n(a median of 3 rounds: 75%){}; originals from {}\n\nfindings:",
        if dittos { "; ″ = the original of the row above" } else { "" },
        s("originals")
    );
    for f in config
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = writeln!(
            out,
            "  {}",
            f.get("text").and_then(Value::as_str).unwrap_or("")
        );
    }
    for e in config
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = writeln!(out, "error: {}", e.as_str().unwrap_or(""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_wide_experiment_fits_100_columns() {
        // E5's rows: long subjects, figures and reasons.
        let row = |subject: &str, missing: Option<&str>| {
            json!({
                "subject": subject, "figure": "requests per second at 100 connections, keep-alive",
                "unit": "req/s",
                "original": {"value": 6000.0, "text": "≈ 6000 req/s (2004, a 2.4 GHz Pentium 4, ab -k -c 100)"},
                "measured": if missing.is_some() { json!(null) } else { json!({"value": 41234.5, "lo": 40012.25, "hi": 42555.75}) },
                "measured_missing": missing,
                "ratio": {"value": 6.87, "lo": 6.67, "hi": 7.09},
            })
        };
        let config = json!({
            "replicate": "E5", "title": "web servers and the loop", "design": "…",
            "originals": "the 2004 notes",
            "rows": [
                row("apache2/mpm_prefork", None),
                row("tomcat10 (virtual threads, NIO connector)", Some("tomcat10 not installed: apt-get install tomcat10, then toll replicate E5 again")),
            ],
        });
        let text = render(&config);
        assert!(
            text.lines()
                .all(|l| l.chars().count() <= crate::table::DEFAULT_WIDTH),
            "{text}"
        );
        assert!(text.contains("apache2/mpm_prefork"), "{text}");
        assert!(
            text.contains("[40012, 42556]"),
            "numbers are never wrapped: {text}"
        );
        // The reason is a mark in its cell and a note under the table; the
        // second row's original, the same as the first's, is a ditto.
        assert!(text.contains("– [1]"), "{text}");
        assert!(
            text.contains("[1] tomcat10 not installed: apt-get install tomcat10"),
            "{text}"
        );
        assert_eq!(text.matches("≈ 6000 req/s").count(), 1, "{text}");
        assert!(text.contains('″') && text.contains("″ = the original of the row above"));
        // Every row one line: no cell wrapped a word at a time.
        let table_lines = text
            .lines()
            .filter(|l| l.contains("apache2") || l.contains("tomcat10 ("))
            .count();
        assert_eq!(table_lines, 2, "{text}");
    }

    #[test]
    fn small_ratios_keep_their_digits() {
        assert_eq!(num(1.5e-4), "1.5e-4");
        assert_eq!(num(0.0123), "0.012");
        assert_eq!(num(0.0), "0.000");
        assert_eq!(num(2221.0), "2221");
    }

    #[test]
    fn an_empty_cell_shows_its_reason() {
        let row = json!({
            "subject": "squeak/fork", "figure": "spawn", "unit": "µs",
            "original": {"value": 4.5, "text": "4–5 µs"}, "original_missing": null,
            "measured": null, "measured_missing": "squeak not installed: apt-get install squeak-vm scratch",
            "ratio": null, "ratio_missing": "not measured",
        });
        let c = cells(&row);
        assert_eq!(c[2], "4–5 µs");
        assert_eq!(
            c[3],
            "– (squeak not installed: apt-get install squeak-vm scratch)"
        );
        assert_eq!((c[4].as_str(), c[5].as_str()), ("–", "–"));
        let row = json!({
            "subject": "rust/pipe", "figure": "α", "unit": "µs",
            "original": null, "original_missing": "not in E1",
            "measured": {"value": 8.5, "lo": 7.25, "hi": 9.75},
            "ratio": null,
        });
        let c = cells(&row);
        assert_eq!(c[2], "– (not in E1)");
        assert_eq!((c[3].as_str(), c[4].as_str()), ("8.50 µs", "[7.25, 9.75]"));
    }
}
