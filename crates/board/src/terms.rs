//! What a series was measured under, as the trend page names it: the
//! terms that make two runs of a series comparable — the sizes swept, the
//! placement, the link, the family's own (the same ones a family's history
//! compares before it learns from an earlier run: `Comparable` in
//! `toll_families::history`) — and the ones a trend is there to follow
//! across, named but never dividing: toll's version and the peer's.
//!
//! Read from the stored run as it was stored (its config, its series'
//! attributes, its version), so a pushed run is read like a local one.

use serde_json::Value;
use toll_store::{Run, Series};

/// One term and its value in one series of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// What it is, as a reader says it: `sizes`, `placement`, `toll`.
    pub name: &'static str,
    /// Its value as a reader reads it: `0, 1000, 4000`, `split`.
    pub value: String,
    /// Runs that differ in it measured different things: a trend draws
    /// them together only when asked.
    pub divides: bool,
}

/// Where a term is read: the run's config or the series' attributes
/// (the attributes first: they hold what the series got, the config what
/// was asked).
const DIVIDING: [(&str, &[&str], &str); 10] = [
    ("sizes", &["transfer", "file", "rpc", "ffi"], "sizes"),
    ("sizes", &["spawn", "ring"], "ns"),
    ("sizes", &["exec"], "parameters"),
    ("placement", &["transfer", "exec"], "pin"),
    ("spin", &["transfer"], "spin"),
    ("link", &["transfer", "rpc"], "far"),
    ("rounds (m)", &["ring"], "m"),
    ("file size", &["file"], "file_size"),
    ("reads", &["file"], "reads"),
    ("calls", &["rpc"], "calls"),
];

/// Every term of series `s` of `run`, the dividing ones first.
pub fn of(run: &Run, s: &Series) -> Vec<Term> {
    let mut out = Vec::new();
    for (name, families, key) in DIVIDING {
        if !families.contains(&run.family.as_str()) {
            continue;
        }
        let v = s.attrs.get(key).or_else(|| run.config.get(key));
        let value = match (name, v) {
            // A local peer's series has no "far": this machine.
            ("link", None | Some(Value::Null)) => "this machine".to_string(),
            // Spinning is a choice of shm's alone: named where it was made.
            ("spin", Some(Value::Bool(false))) => continue,
            (_, None) => continue,
            (_, Some(v)) => words(v),
        };
        out.push(Term {
            name,
            value,
            divides: true,
        });
    }
    out.push(Term {
        name: "toll",
        value: run.tool_version.clone(),
        divides: false,
    });
    let peer = ["peer_version", "runtime_version"]
        .iter()
        .find_map(|k| s.attrs.get(*k)?.as_str())
        .filter(|v| !v.is_empty());
    if let Some(v) = peer {
        out.push(Term {
            name: "peer version",
            value: v.to_string(),
            divides: false,
        });
    }
    out
}

/// A stored value as a reader reads it: a list as `0, 1000, 4000`, a
/// one-entry object as `link lan`, a flag as on or off, null as default.
pub fn words(v: &Value) -> String {
    match v {
        Value::Null => "default".into(),
        Value::Bool(b) => if *b { "on" } else { "off" }.into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Array(a) if a.iter().all(|x| !x.is_array() && !x.is_object()) => {
            a.iter().map(words).collect::<Vec<_>>().join(", ")
        }
        Value::Object(o) if o.len() == 1 => {
            let (k, v) = o.iter().next().expect("one entry");
            format!("{k} {}", words(v))
        }
        other => other.to_string(),
    }
}

/// The dividing terms of a list, for comparing two series.
pub fn dividing(terms: &[Term]) -> Vec<&Term> {
    terms.iter().filter(|t| t.divides).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_a_person_writes_them() {
        assert_eq!(words(&json!([0, 1000, 4000])), "0, 1000, 4000");
        assert_eq!(words(&json!("split")), "split");
        assert_eq!(words(&json!({"link": "lan"})), "link lan");
        assert_eq!(words(&json!(true)), "on");
        assert_eq!(words(&json!(null)), "default");
        assert_eq!(
            words(&json!([{"name": "n", "values": [1, 2]}])),
            r#"[{"name":"n","values":[1,2]}]"#
        );
    }
}
