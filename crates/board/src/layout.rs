//! The frame around every page: the report's stylesheet, a bar of links,
//! the title. Every page is one self-contained HTML document.

use std::fmt::Write;
use toll_report::html::{escape, STYLE};
use toll_report::runs_compare::html::STYLE as COMPARE_STYLE;

/// The board's additions to the report's stylesheet.
const BOARD_STYLE: &str = r#"
nav.board { display: flex; gap: 18px; align-items: baseline; border-bottom: 1px solid var(--line); padding: 10px 32px; background: var(--band); }
nav.board .brand { font-weight: 700; color: var(--ink); margin-right: 12px; }
nav.board a { color: var(--accent); text-decoration: none; }
nav.board a.here { color: var(--ink); font-weight: 600; border-bottom: 2px solid var(--accent); }
form.filter { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: end; margin: 10px 0 14px; font-size: 13.5px; }
form.filter label { display: flex; flex-direction: column; color: var(--muted); }
form.filter input, form.filter select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; color: var(--ink); }
form.filter button { font: inherit; padding: 4px 14px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; }
th a { color: inherit; text-decoration: none; }
th a.sorted { color: var(--accent); }
.pager { margin: 10px 0; display: flex; gap: 16px; }
table.series th[scope=row] { white-space: normal; word-break: break-word; max-width: 18em; }
td.when { white-space: nowrap; }
.terms p { margin: 4px 0; font-size: 13.5px; }
"#;

/// The pages in the bar, by path and name.
const PAGES: [(&str, &str); 6] = [
    ("/machines", "Machines"),
    ("/atlas", "Atlas"),
    ("/trend", "Trend"),
    ("/runs", "Runs"),
    ("/compare", "Compare"),
    ("/seeds", "Seeds"),
];

/// A whole page: `title` (text, escaped here), `here` the bar's current
/// path, `body` HTML already safe.
pub fn page(title: &str, here: &str, body: &str) -> String {
    let mut h = String::with_capacity(body.len() + 8192);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} — toll board</title>\n<style>{STYLE}{COMPARE_STYLE}{BOARD_STYLE}</style>\n</head>\n<body>\n\
         <nav class=\"board\"><span class=\"brand\">toll board</span>",
        escape(title)
    );
    for (path, name) in PAGES {
        let class = if path == here { " class=\"here\"" } else { "" };
        let _ = write!(h, "<a href=\"{path}\"{class}>{name}</a>");
    }
    let _ = write!(
        h,
        "<a href=\"/api/runs\">API</a></nav>\n<main>\n<header class=\"page\"><h1>{}</h1></header>\n{body}\n\
         <footer>toll board · every figure links to its run; every run's samples: <code>GET /api/runs/ID</code>.</footer>\n</main>\n</body>\n</html>\n",
        escape(title)
    );
    h
}

/// An error page's body.
pub fn message(text: &str) -> String {
    format!("<p class=\"warn\">{}</p>", escape(text))
}
