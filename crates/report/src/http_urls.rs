//! A `toll http --urls FILE` run's rows, one per line of the file beside
//! the merged report: its requests, their rate over the run, p50 and p99
//! (ab's Total) and its failures and non-2xx answers.

use crate::table::Table;
use serde::{Deserialize, Serialize};

/// One line of a URL file, as its run measured it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlRow {
    /// Its line in the file (from 1).
    pub line: usize,
    pub method: String,
    pub url: String,
    /// Answers (ab's Complete requests).
    pub requests: u64,
    /// Answers per second over the whole run.
    pub rate: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// ab's Failed requests of this URL (a Length failure is an answer of
    /// another length than this URL's first).
    pub failed: u64,
    pub non_2xx: u64,
}

/// The rows as a table under a heading that says how lines were picked.
pub fn render(rows: &[UrlRow], pick: &str) -> String {
    let mut t = Table::new(&[
        "line", "request", "requests", "req/s", "p50 ms", "p99 ms", "failed", "non-2xx",
    ]);
    for r in rows {
        t.row(vec![
            r.line.to_string(),
            format!("{} {}", r.method, r.url),
            r.requests.to_string(),
            format!("{:.1}", r.rate),
            format!("{:.3}", r.p50_ms),
            format!("{:.3}", r.p99_ms),
            r.failed.to_string(),
            r.non_2xx.to_string(),
        ]);
    }
    format!("Per URL ({} lines, {pick}):\n{}", rows.len(), t.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_line_under_its_heading() {
        let rows = vec![
            UrlRow {
                line: 2,
                method: "GET".into(),
                url: "http://h/a".into(),
                requests: 10,
                rate: 5.0,
                p50_ms: 0.1,
                p99_ms: 0.2,
                failed: 0,
                non_2xx: 1,
            },
            UrlRow {
                line: 5,
                method: "POST".into(),
                url: "http://h/b".into(),
                requests: 9,
                ..UrlRow::default()
            },
        ];
        let text = render(&rows, "round robin");
        assert!(
            text.starts_with("Per URL (2 lines, round robin):"),
            "{text}"
        );
        assert!(text.contains("GET http://h/a"), "{text}");
        assert!(text.contains("POST http://h/b"), "{text}");
        assert_eq!(text.lines().count(), 4, "{text}");
    }
}
