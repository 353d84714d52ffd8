//! One module per page. Each takes the board and the page's query and
//! returns the whole page, or a [`Problem`] the server turns into a status.

pub mod compare;
pub mod machines;
pub mod run;
pub mod runs;
pub mod seeds;

use toll_report::html::escape;
use toll_store::StoreError;

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
