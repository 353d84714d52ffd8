//! A report a command printed for the terminal (`toll http`'s, label for
//! label as ab prints it; `toll http compare`'s) as HTML tables rather
//! than terminal text in a box: its `Label:  value` lines as a two-column
//! table, its aligned tables as tables, each under its own caption. The
//! text stays the one source, so the page never says less than the
//! terminal did; the blocks a page draws in its own way already (the
//! percentiles, a comparison's servers) are left to the caller to skip.

use crate::escape::escape;
use std::fmt::Write;

/// One blank-line-separated part of a printed report.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// `Label:  value` lines (a line that starts with spaces goes on the
    /// value above it).
    Pairs(Vec<(String, String)>),
    /// An aligned table: its caption (a line of words above it), header
    /// and rows, cells as printed.
    Table {
        caption: Option<String>,
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
}

/// The cells of an aligned line: split where two or more spaces are.
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in line.trim_end().split("  ") {
        let part = part.trim();
        if !part.is_empty() {
            out.push(part.to_string());
        } else if out.is_empty() {
            // A line that starts with spaces: its first column is empty.
            out.push(String::new());
        }
    }
    // ab's header puts two columns under one label: "mean [+/-sd]".
    out.iter()
        .flat_map(|c| match c.as_str() {
            "mean [+/-sd]" => vec!["mean".into(), "[+/-sd]".into()],
            _ => vec![c.clone()],
        })
        .collect()
}

/// `Label:  value`, where the label is words and the gap two spaces or
/// more (a table's first cell can end in a colon too: `Connect:`, so the
/// caller decides by the block).
fn pair(line: &str) -> Option<(String, String)> {
    if line.starts_with(' ') {
        return None;
    }
    let (label, value) = line.split_once(':')?;
    let spaced = !label.contains("  ") && value.starts_with("  ");
    (spaced || (value.is_empty() && !label.is_empty()))
        .then(|| (label.trim().to_string(), value.trim().to_string()))
}

/// The report's blocks, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
        let Some(first) = lines.first() else { continue };
        // A caption: words with no column gap, not a label.
        let titled = !first.trim().contains("  ") && pair(first).is_none();
        if !titled && pair(first).is_some() && cells(first).len() <= 2 {
            let mut pairs: Vec<(String, String)> = Vec::new();
            for l in &lines {
                match (pair(l), pairs.last_mut()) {
                    (Some(p), _) => pairs.push(p),
                    (None, Some(last)) => {
                        last.1.push('\n');
                        last.1.push_str(l.trim());
                    }
                    (None, None) => {}
                }
            }
            out.push(Block::Pairs(pairs));
            continue;
        }
        let (caption, body) = if titled {
            (Some(first.trim().to_string()), &lines[1..])
        } else {
            (None, &lines[..])
        };
        let mut rows: Vec<Vec<String>> = body.iter().map(|l| cells(l)).collect();
        // A table whose first line is a header of words (not `50%`).
        let header = match rows.first() {
            Some(h) if !h.iter().any(|c| number(c)) => rows.remove(0),
            _ => Vec::new(),
        };
        // A column empty in every line (the percentiles' indent) goes.
        let width = rows
            .iter()
            .chain([&header])
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        let keep: Vec<bool> = (0..width)
            .map(|i| {
                rows.iter()
                    .chain([&header])
                    .any(|r| r.get(i).is_some_and(|c| !c.is_empty()))
            })
            .collect();
        let trim = |r: Vec<String>| -> Vec<String> {
            r.into_iter()
                .enumerate()
                .filter(|(i, _)| keep[*i])
                .map(|(_, c)| c)
                .collect()
        };
        out.push(Block::Table {
            caption,
            header: trim(header),
            rows: rows.into_iter().map(trim).collect(),
        });
    }
    out
}

/// Whether a cell is a number: `1116`, `50%`, `11.3×`.
fn number(c: &str) -> bool {
    c.trim_end_matches(['%', '×']).parse::<f64>().is_ok()
}

/// Whether a cell reads as a number (right-aligned).
fn numeric(c: &str) -> bool {
    c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '[' || ch == '-' || ch == '−')
}

/// `text` as HTML into `h`, less the blocks `skip` names by their first
/// line (a caption, a header's first cell or a label).
pub fn render(h: &mut String, text: &str, skip: impl Fn(&str) -> bool) {
    let mut pairs_open = false;
    for block in blocks(text) {
        match block {
            Block::Pairs(pairs) => {
                if pairs.first().is_some_and(|p| skip(&p.0)) {
                    continue;
                }
                if !pairs_open {
                    h.push_str("<table class=\"kv printed\"><tbody>\n");
                    pairs_open = true;
                }
                for (k, v) in pairs {
                    let v = escape(&v).replace('\n', "<br>");
                    let _ = writeln!(h, "<tr><th>{}</th><td>{v}</td></tr>", escape(&k));
                }
            }
            Block::Table {
                caption,
                header,
                rows,
            } => {
                let first = caption
                    .as_deref()
                    .or(header.first().map(String::as_str))
                    .unwrap_or("");
                if skip(first) {
                    continue;
                }
                if pairs_open {
                    h.push_str("</tbody></table>\n");
                    pairs_open = false;
                }
                if let Some(c) = &caption {
                    let _ = writeln!(h, "<p class=\"meta\">{}</p>", escape(c));
                }
                if header.is_empty() && rows.is_empty() {
                    continue;
                }
                h.push_str("<div class=\"scroll\"><table class=\"points\">\n");
                if !header.is_empty() {
                    h.push_str("<thead><tr>");
                    for c in &header {
                        let _ = write!(h, "<th>{}</th>", escape(c));
                    }
                    h.push_str("</tr></thead>\n");
                }
                h.push_str("<tbody>\n");
                for r in rows {
                    h.push_str("<tr>");
                    for c in r {
                        let class = if numeric(&c) { " class=\"num\"" } else { "" };
                        let _ = write!(h, "<td{class}>{}</td>", escape(&c));
                    }
                    h.push_str("</tr>\n");
                }
                h.push_str("</tbody></table></div>\n");
            }
        }
    }
    if pairs_open {
        h.push_str("</tbody></table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AB: &str = "Server Software:        nginx/1.22.1
Server Port:            38149

Document Path:          /hello.html
Time per request:       0.044 [ms] (mean, across all concurrent requests)

Connection Times (ms)
                  min    mean [+/-sd]  median     max
Connect:        0.026   0.428   0.901   0.225   5.759
Total:          0.363   0.865   1.228   0.426   6.136

Percentage of the requests served within a certain time (ms)
     50%    0.426
    100%    6.136 (longest request)
";

    #[test]
    fn ab_labels_become_pairs_and_its_tables_tables() {
        let b = blocks(AB);
        assert_eq!(b.len(), 4, "{b:?}");
        let Block::Pairs(p) = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(
            p[1],
            (
                "Time per request".into(),
                "0.044 [ms] (mean, across all concurrent requests)".into()
            )
        );
        let Block::Table {
            caption,
            header,
            rows,
        } = &b[2]
        else {
            panic!("{b:?}")
        };
        assert_eq!(caption.as_deref(), Some("Connection Times (ms)"));
        assert_eq!(header, &["", "min", "mean", "[+/-sd]", "median", "max"]);
        assert_eq!(rows[0].len(), 6, "{rows:?}");
        assert_eq!(rows[1][0], "Total:");
        let Block::Table { header, rows, .. } = &b[3] else {
            panic!("{b:?}")
        };
        assert!(header.is_empty());
        assert_eq!(rows[1], ["100%", "6.136 (longest request)"]);
    }

    #[test]
    fn the_html_has_no_terminal_text_and_skips_what_the_page_draws() {
        let mut h = String::new();
        render(&mut h, AB, |first| first.starts_with("Percentage"));
        assert!(!h.contains("<pre") && !h.contains("longest request"), "{h}");
        assert!(h.contains("<th>Server Software</th><td>nginx/1.22.1</td>"));
        assert!(h.contains("<td class=\"num\">0.026</td>"), "{h}");
        // The two groups of pairs are one table.
        assert_eq!(h.matches("class=\"kv printed\"").count(), 1, "{h}");
    }

    #[test]
    fn a_continued_value_stays_with_its_label() {
        let text = "Warm-up rounds:         A 6, B 3\n                        (stable: within 5%)\nStopped:                at --max-rounds\n\nserver  url  req/s\nA       http://x/  1116\n";
        let b = blocks(text);
        let Block::Pairs(p) = &b[0] else {
            panic!("{b:?}")
        };
        assert_eq!(p[0].1, "A 6, B 3\n(stable: within 5%)");
        assert_eq!(p[1].0, "Stopped");
        let Block::Table { header, rows, .. } = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(header, &["server", "url", "req/s"]);
        assert_eq!(rows[0], ["A", "http://x/", "1116"]);
    }
}
