//! Text made safe for HTML: the one escaping function every page uses (the
//! run report, the replicate page, the board), kept in a leaf so each can
//! use it without importing another page's module.

/// `s` safe as HTML text or inside a quoted attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
