//! One module per page. Each takes the board and the page's query and
//! returns the whole page, or a [`Problem`] the server turns into a status.

/// The trend page's part that says which runs are measured alike.
mod alike;
pub mod atlas;
pub mod compare;
pub mod machines;
pub mod run;
pub mod runs;
pub mod seeds;
pub mod trend;

use toll_report::html::escape;
use toll_store::{RunRow, RunStatus, StoreError};

/// The families in the order a chooser lists them: the link first (E1,
/// what most boards are kept for), then the seed experiments' order.
const FAMILY_ORDER: [&str; 8] = [
    "transfer", "spawn", "ring", "rpc", "file", "http", "exec", "ffi",
];

/// The families `rows` hold: those of [`FAMILY_ORDER`] in its order, then
/// any other by name.
pub fn families(rows: &[RunRow]) -> Vec<String> {
    let mut out: Vec<String> = FAMILY_ORDER
        .iter()
        .filter(|f| rows.iter().any(|r| r.family == **f))
        .map(|f| f.to_string())
        .collect();
    let mut others: Vec<String> = rows
        .iter()
        .map(|r| r.family.clone())
        .filter(|f| !FAMILY_ORDER.contains(&f.as_str()))
        .collect();
    others.sort();
    others.dedup();
    out.extend(others);
    out
}

/// The family a page shows when none is asked for: the first of
/// [`families`] with a complete run (else the first at all).
pub fn default_family(rows: &[RunRow]) -> String {
    let all = families(rows);
    all.iter()
        .find(|f| {
            rows.iter()
                .any(|r| &r.family == *f && r.status == RunStatus::Complete)
        })
        .or(all.first())
        .cloned()
        .unwrap_or_default()
}

/// Why a page cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// A wrong query or an unknown run: 400 or 404 with this text.
    #[error("{1}")]
    Request(u16, String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Problem {
    pub fn status(&self) -> u16 {
        match self {
            Problem::Request(s, _) => *s,
            Problem::Store(StoreError::NoSuchRun(_)) => 404,
            Problem::Store(_) => 500,
        }
    }
}

/// A status badge.
pub fn status_badge(status: &str) -> String {
    let class = match status {
        "complete" => "v-ok",
        "partial" | "running" => "v-noisy",
        _ => "v-busy",
    };
    format!("<span class=\"badge {class}\">{}</span>", escape(status))
}

/// A select box of `options` (value, text) with `chosen` selected; the
/// first option is "any" (empty).
pub fn select(name: &str, any: &str, options: &[String], chosen: &str) -> String {
    let mut h = format!(
        "<label>{name}<select name=\"{name}\"><option value=\"\">{}</option>",
        escape(any)
    );
    for o in options {
        let sel = if o == chosen { " selected" } else { "" };
        h.push_str(&format!(
            "<option value=\"{0}\"{sel}>{0}</option>",
            escape(o)
        ));
    }
    h.push_str("</select></label>");
    h
}

/// `s` safe inside a URL's query value (and then inside an attribute).
pub fn query_value(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, family: &str, status: RunStatus) -> RunRow {
        RunRow {
            id,
            family: family.into(),
            started_at: String::new(),
            status,
            summary: String::new(),
            host: "h".into(),
        }
    }

    #[test]
    fn the_default_family_is_the_first_in_order_with_a_complete_run() {
        use RunStatus::*;
        let rows = vec![
            row(9, "exec", Complete),
            row(8, "exec", Complete),
            row(7, "zeta", Complete),
            row(6, "spawn", Failed),
            row(5, "transfer", Complete),
            row(4, "exec", Complete),
        ];
        assert_eq!(families(&rows), ["transfer", "spawn", "exec", "zeta"]);
        assert_eq!(default_family(&rows), "transfer");
        let rows = vec![row(2, "exec", Complete), row(1, "ring", Failed)];
        assert_eq!(default_family(&rows), "exec");
        assert_eq!(default_family(&[row(1, "ring", Failed)]), "ring");
        assert_eq!(default_family(&[]), "");
    }
}
