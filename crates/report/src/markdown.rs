//! `toll report --format md`: stored runs as GitHub-flavoured Markdown, for
//! pasting into an issue — the same machine, config, models and points as
//! the HTML page, with the plots left to `toll report -o report.html`.
//!
//! GitHub renders inline HTML in Markdown, so every string that came from
//! a user or a machine is passed through [`escape`]: markup characters as
//! entities, `|` escaped so it cannot split a table cell, line breaks
//! folded so it cannot end a row, code, emphasis and links disarmed.

use crate::family_reports::{family_reports, is_table_key};
use crate::models::{legend, models_table};
use crate::show::{config_row, fit_lines, machine_rows, points_table};
use crate::table::Table;
use std::fmt::Write;
use toll_store::Run;

/// `s` as literal text in a Markdown table cell or paragraph.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\\' | '`' | '*' => {
                out.push('\\');
                out.push(c);
            }
            // `](` is what makes a link; an interval's brackets stay as written.
            ']' if chars.peek() == Some(&'(') => out.push_str("\\]"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The Markdown for `runs`; `version` is the toll that writes it.
pub fn render(runs: &[Run], version: &str) -> String {
    let mut m = String::new();
    for run in runs {
        let _ = writeln!(
            m,
            "## toll {} — run {} ({})\n",
            escape(&run.family),
            run.id,
            escape(run.status.as_str())
        );
        let _ = writeln!(
            m,
            "{} · started {} · finished {} · toll {}\n",
            escape(&run.summary),
            escape(&run.started_at),
            escape(run.finished_at.as_deref().unwrap_or("–")),
            escape(&run.tool_version)
        );
        if let Some(e) = &run.error {
            let _ = writeln!(m, "> **Stopped:** {}\n", escape(e));
        }
        let _ = writeln!(m, "### Machine\n");
        kv(&mut m, machine_rows(&run.env));
        let _ = writeln!(m, "### Config\n");
        let config = run
            .config
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| !is_table_key(run, k))
                    .map(|(k, v)| config_row(k, v))
                    .collect()
            })
            .unwrap_or_default();
        kv(&mut m, config);
        for (title, text) in family_reports(run) {
            // A fence longer than any run of backticks in the text.
            let fence = "`".repeat(3.max(longest_backticks(&text) + 1));
            let _ = writeln!(
                m,
                "### {}\n\n{fence}\n{}\n{fence}\n",
                escape(&title),
                text.trim_end()
            );
        }
        // A sweep's steps are its own table (its report, above), not
        // points of a model in n, as `toll show` prints it.
        if run.family == "http-sweep" {
            let _ = writeln!(
                m,
                "Plot: `toll report {} -o report.html` draws it.\n",
                run.id
            );
            continue;
        }
        let _ = writeln!(m, "### Models\n");
        table(&mut m, &models_table(run));
        for l in legend(run) {
            let _ = writeln!(m, "- {}", escape(&l));
        }
        let _ = writeln!(
            m,
            "\nPlots: `toll report {} -o report.html` draws them.\n",
            run.id
        );
        for s in &run.series {
            let _ = writeln!(m, "#### {}\n", escape(&s.label));
            match &s.fit {
                Some(fit) => {
                    for l in fit_lines(fit) {
                        let _ = writeln!(m, "- {}", escape(&l));
                    }
                }
                None => {
                    let _ = writeln!(m, "- no model (fewer than two sizes measured)");
                }
            }
            m.push('\n');
            let (t, notes) = points_table(s);
            table(&mut m, &t);
            for n in notes {
                let _ = writeln!(m, "- {}", escape(&n));
            }
            if !m.ends_with("\n\n") {
                m.push('\n');
            }
        }
    }
    let _ = writeln!(
        m,
        "<sub>toll {} · `toll report --format md`</sub>",
        escape(version)
    );
    m
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn kv(m: &mut String, rows: Vec<(String, String)>) {
    let mut t = Table::new(&["", ""]);
    for (k, v) in rows {
        t.row(vec![k, v]);
    }
    table(m, &t);
}

/// A [`Table`] as a GitHub table, numeric columns right-aligned.
fn table(m: &mut String, t: &Table) {
    let cells = |row: &[String]| {
        let mut line = String::from("|");
        for i in 0..t.headers().len() {
            let c = row.get(i).map(String::as_str).unwrap_or("");
            let _ = write!(line, " {} |", escape(c));
        }
        line
    };
    let _ = writeln!(m, "{}", cells(t.headers()));
    let mut rule = String::from("|");
    for right in t.numeric_columns() {
        rule.push_str(if right { "---:|" } else { "---|" });
    }
    let _ = writeln!(m, "{rule}");
    for row in t.rows() {
        let _ = writeln!(m, "{}", cells(row));
    }
    m.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_cells_so_they_stay_cells() {
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(escape("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(escape("two\nlines"), "two lines");
        assert_eq!(escape("`x` *y* [z]"), "\\`x\\` \\*y\\* [z]");
        assert_eq!(escape("[a](http://b)"), "[a\\](http://b)");
        assert_eq!(escape("item_bytes [1, 2]"), "item_bytes [1, 2]");
    }

    #[test]
    fn tables_are_github_tables() {
        let mut t = Table::new(&["peer", "α"]);
        t.row(vec!["rust|c".into(), "5.1".into()]);
        let mut m = String::new();
        table(&mut m, &t);
        assert_eq!(m, "| peer | α |\n|---|---:|\n| rust\\|c | 5.1 |\n\n");
    }
}
