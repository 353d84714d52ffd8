//! Aligned text tables for the terminal: text columns left, numbers right,
//! narrowed to the terminal's width (100 columns unless `--wide`) by
//! wrapping text cells and headings onto further lines; and [`wrap`], which
//! does the same for prose (legends, notes).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The width every table and line is fitted to unless `--wide`: a terminal
/// of 100 columns holds toll's output without a line folding.
pub const DEFAULT_WIDTH: usize = 100;

static WIDTH: AtomicUsize = AtomicUsize::new(DEFAULT_WIDTH);

/// Fit text to `columns` from now on; `None` for no limit (`--wide`).
pub fn set_width(columns: Option<usize>) {
    WIDTH.store(columns.unwrap_or(usize::MAX), Ordering::Relaxed);
}

/// The width text is fitted to (`usize::MAX`: no limit).
pub fn width() -> usize {
    WIDTH.load(Ordering::Relaxed)
}

/// Every line of `text` that is wider than [`width`] re-flowed at its
/// blanks, each further line indented two more than the first; shorter lines
/// as they are. Widths are counted in characters.
pub fn wrap(text: &str) -> String {
    wrap_to(text, width())
}

/// [`wrap`] to `limit` columns.
pub fn wrap_to(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        if line.chars().count() <= limit {
            out.push_str(line);
            continue;
        }
        // A deep indent keeps at most half the line.
        let indent = line
            .chars()
            .take_while(|c| *c == ' ')
            .count()
            .min(limit / 2);
        let hang = " ".repeat((indent + 2).min(limit / 4));
        let lines = flow(
            &line[indent..],
            limit - indent,
            limit - hang.chars().count(),
        );
        for (i, l) in lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
                out.push_str(&hang);
            } else {
                out.push_str(&line[..indent]);
            }
            out.push_str(l);
        }
    }
    out
}

/// Words of `text` in lines of at most `first` characters, then `rest`; a
/// word longer than a line is cut.
fn flow(text: &str, first: usize, rest: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    let mut len = 0;
    let room = |lines: &Vec<String>| if lines.is_empty() { first } else { rest }.max(1);
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let sep = usize::from(len > 0);
        if len > 0 && len + sep + word.len() > room(&lines) {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
            len = 0;
        }
        if len == 0 && word.is_empty() {
            continue; // runs of blanks at a break
        }
        if len > 0 {
            line.push(' ');
            len += 1;
        }
        while len + word.len() > room(&lines) {
            let cut = room(&lines) - len;
            line.extend(word.drain(..cut));
            lines.push(std::mem::take(&mut line));
            len = 0;
        }
        len += word.len();
        line.extend(word);
    }
    if len > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A table built row by row.
#[derive(Debug, Clone, Default)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// A number, a number with its unit (`48.2 µs`) or an interval (`[1.2, 3.4]`).
fn numeric(cell: &str) -> bool {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let first = words
        .first()
        .map(|w| w.trim_matches(['[', ']', ',']))
        .unwrap_or("");
    cell == "–" || cell == "∞" || (words.len() <= 2 && first.parse::<f64>().is_ok())
}

impl Table {
    /// A table with these column headers.
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: vec![],
        }
    }

    /// Add a row (missing cells are blank).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// A table of some of these columns, in the order given.
    pub fn columns(&self, which: &[usize]) -> Table {
        let pick = |cells: &[String]| -> Vec<String> {
            which
                .iter()
                .map(|&i| cells.get(i).cloned().unwrap_or_default())
                .collect()
        };
        Table {
            headers: pick(&self.headers),
            rows: self.rows.iter().map(|r| pick(r)).collect(),
        }
    }

    /// Whether the table fits [`width`] without wrapping a cell.
    pub fn fits(&self) -> bool {
        let cols = self.headers.len();
        let widest = |i: usize| {
            self.rows
                .iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .chain([self.headers[i].chars().count()])
                .max()
                .unwrap_or(0)
        };
        (0..cols).map(widest).sum::<usize>() + 2 * cols.saturating_sub(1) <= width()
    }

    /// The column headers.
    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    /// The rows, as added.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// For each column, whether every cell in it is a number (aligned right).
    pub fn numeric_columns(&self) -> Vec<bool> {
        let cell = |r: &Vec<String>, i: usize| r.get(i).cloned().unwrap_or_default();
        (0..self.headers.len())
            .map(|i| {
                !self.rows.is_empty()
                    && self
                        .rows
                        .iter()
                        .all(|r| numeric(&cell(r, i)) || cell(r, i).is_empty())
            })
            .collect()
    }

    /// The table as text, two spaces between columns, one line per row;
    /// wider than [`width`], its text cells and headings wrap onto further
    /// lines (numbers never do).
    pub fn render(&self) -> String {
        self.render_to(width())
    }

    /// [`Table::render`] fitted to `limit` columns.
    pub fn render_to(&self, limit: usize) -> String {
        let cols = self.headers.len();
        let cell = |r: &Vec<String>, i: usize| r.get(i).cloned().unwrap_or_default();
        let right = self.numeric_columns();
        let widths = self.widths(&right, limit);
        let line = |cells: Vec<String>| {
            let wrapped: Vec<Vec<String>> = (0..cols)
                .map(|i| flow(&cell(&cells, i), widths[i], widths[i]))
                .collect();
            let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
            let mut out = String::new();
            for k in 0..height {
                let parts: Vec<String> = (0..cols)
                    .map(|i| {
                        let c = wrapped[i].get(k).map_or("", String::as_str);
                        let pad = widths[i].saturating_sub(c.chars().count());
                        if right[i] {
                            format!("{}{c}", " ".repeat(pad))
                        } else {
                            format!("{c}{}", " ".repeat(pad))
                        }
                    })
                    .collect();
                out.push_str(parts.join("  ").trim_end());
                out.push('\n');
            }
            out
        };
        let mut out = line(self.headers.clone());
        for r in &self.rows {
            out.push_str(&line(r.clone()));
        }
        out
    }

    /// Each column's width: its widest cell, or less where the table is
    /// wider than [`width`] — the widest columns give way first, a text
    /// column down to its longest word (cut at 16 if even that is too
    /// wide), a number column to its widest number (its heading wraps).
    fn widths(&self, right: &[bool], limit: usize) -> Vec<usize> {
        let cols = self.headers.len();
        let chars = |s: &str| s.chars().count();
        let longest_word = |s: &str| s.split(' ').map(chars).max().unwrap_or(0);
        let cells = |i: usize| {
            self.rows
                .iter()
                .map(move |r| r.get(i).map_or("", String::as_str))
        };
        let mut widths: Vec<usize> = (0..cols)
            .map(|i| {
                cells(i)
                    .map(chars)
                    .chain([chars(&self.headers[i])])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Words whole where they can be; cut past 16 characters where not.
        let least_with = |cap: usize| -> Vec<usize> {
            (0..cols)
                .map(|i| {
                    let head = longest_word(&self.headers[i]).min(cap);
                    let body = if right[i] {
                        cells(i).map(chars).max().unwrap_or(0)
                    } else {
                        cells(i).map(longest_word).max().unwrap_or(0).min(cap)
                    };
                    head.max(body).max(1)
                })
                .collect()
        };
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
        let whole = least_with(usize::MAX);
        let least = if total(&whole) <= limit {
            whole
        } else {
            least_with(16)
        };
        while total(&widths) > limit {
            let Some(i) = (0..cols)
                .filter(|&i| widths[i] > least[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break; // as narrow as it goes
            };
            widths[i] -= 1;
        }
        widths
    }
}

/// A duration in ns with a unit that keeps 3 significant figures: `812 ns`, `48.2 µs`.
pub fn fmt_ns(ns: f64) -> String {
    let (v, unit) = match ns.abs() {
        a if a < 1e3 => (ns, "ns"),
        a if a < 1e6 => (ns / 1e3, "µs"),
        a if a < 1e9 => (ns / 1e6, "ms"),
        _ => (ns / 1e9, "s"),
    };
    format!("{} {unit}", sig3(v))
}

/// Three significant figures.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_text_left_and_numbers_right() {
        let mut t = Table::new(&["peer", "α µs"]);
        t.row(vec!["rust".into(), "5.1".into()]);
        t.row(vec!["python".into(), "48.25".into()]);
        assert_eq!(t.render(), "peer     α µs\nrust      5.1\npython  48.25\n");
        let mut t = Table::new(&["run", "summary"]);
        t.row(vec!["12".into(), "11 series; lowest α".into()]);
        assert_eq!(t.render(), "run  summary\n 12  11 series; lowest α\n");
    }

    #[test]
    fn a_wide_table_wraps_its_text_cells_and_headings() {
        let mut t = Table::new(&["peer", "β ns/item", "fit"]);
        let long = "curve, break ≈ 30000 where the pipe's buffer fills up and wakes";
        t.row(vec!["rust".into(), "1.4661".into(), long.into()]);
        let text = t.render_to(30);
        assert!(text.lines().all(|l| l.chars().count() <= 30), "{text}");
        assert!(text.starts_with("peer  β ns/item  fit"), "{text}");
        assert!(text.contains("rust     1.4661  curve, break"), "{text}");
        let words: Vec<&str> = text
            .lines()
            .skip(1)
            .flat_map(|l| l.split_whitespace())
            .collect();
        assert_eq!(words.join(" "), format!("rust 1.4661 {long}"));
    }

    #[test]
    fn prose_wraps_with_a_hanging_indent() {
        let line = format!("  fit: {}", "ok = one line fits; ".repeat(8));
        let text = wrap(&line);
        assert!(text.lines().all(|l| l.chars().count() <= DEFAULT_WIDTH));
        assert!(
            text.lines().skip(1).all(|l| l.starts_with("    ")),
            "{text}"
        );
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(&text), words(&line));
        assert_eq!(wrap("short\n\nlines"), "short\n\nlines");
        let blank = " ".repeat(150);
        assert!(wrap_to(&blank, 100)
            .lines()
            .all(|l| l.chars().count() <= 100));
    }

    #[test]
    fn durations_keep_three_figures() {
        assert_eq!(fmt_ns(812.4), "812 ns");
        assert_eq!(fmt_ns(48_213.0), "48.2 µs");
        assert_eq!(fmt_ns(1_530_000.0), "1.53 ms");
        assert_eq!(fmt_ns(7.53e9), "7.53 s");
    }
}
