//! Aligned text tables for the terminal: text columns left, numbers right.

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

    /// The table as text, two spaces between columns, one line per row.
    pub fn render(&self) -> String {
        let cols = self.headers.len();
        let cell = |r: &Vec<String>, i: usize| r.get(i).cloned().unwrap_or_default();
        let width = |i: usize| {
            self.rows
                .iter()
                .map(|r| cell(r, i).chars().count())
                .chain([self.headers[i].chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..cols).map(width).collect();
        let right = self.numeric_columns();
        let line = |cells: Vec<String>| {
            let parts: Vec<String> = (0..cols)
                .map(|i| {
                    let c = cells.get(i).cloned().unwrap_or_default();
                    let pad = widths[i].saturating_sub(c.chars().count());
                    if right[i] {
                        format!("{}{c}", " ".repeat(pad))
                    } else {
                        format!("{c}{}", " ".repeat(pad))
                    }
                })
                .collect();
            format!("{}\n", parts.join("  ").trim_end())
        };
        let mut out = line(self.headers.clone());
        for r in &self.rows {
            out.push_str(&line(r.clone()));
        }
        out
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
    fn durations_keep_three_figures() {
        assert_eq!(fmt_ns(812.4), "812 ns");
        assert_eq!(fmt_ns(48_213.0), "48.2 µs");
        assert_eq!(fmt_ns(1_530_000.0), "1.53 ms");
        assert_eq!(fmt_ns(7.53e9), "7.53 s");
    }
}
