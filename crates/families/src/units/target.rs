//! Which (runtime, unit) pairs a `toll spawn` or `toll ring` measures.

use serde::Serialize;
use toll_peers::{Runtime, UnitClass};

/// One kind of unit of one runtime, e.g. go/goroutine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Target {
    pub runtime: Runtime,
    pub unit: &'static str,
}

impl Target {
    /// `runtime/unit`, the series label.
    pub fn label(&self) -> String {
        format!("{}/{}", self.runtime, self.unit)
    }

    pub fn class(&self) -> UnitClass {
        self.runtime.unit_class(self.unit)
    }
}

/// A unit filter that matches nothing the chosen runtimes have.
#[derive(Debug, thiserror::Error)]
#[error("unknown unit kind `{given}`: valid ones are {valid} (or a class: os-process, os-thread, green)")]
pub struct UnknownUnit {
    pub given: String,
    pub valid: String,
}

/// Every unit of `runtimes`, narrowed by `filters` when given. A filter is a
/// unit name (`thread`), a `runtime/unit` pair (`java/virtual-thread`) or a
/// class (`os-process`, `os-thread`, `green`).
pub fn select(
    runtimes: &[Runtime],
    filters: Option<&[String]>,
) -> Result<Vec<Target>, UnknownUnit> {
    let all: Vec<Target> = runtimes
        .iter()
        .flat_map(|&runtime| {
            runtime
                .units()
                .iter()
                .map(move |&unit| Target { runtime, unit })
        })
        .collect();
    let Some(filters) = filters else {
        return Ok(all);
    };
    let matches = |t: &Target, f: &str| {
        f == t.unit || f == t.label() || f.replace(':', "/") == t.label() || f == t.class().name()
    };
    for f in filters {
        if !all.iter().any(|t| matches(t, f)) {
            let mut valid: Vec<String> = all.iter().map(|t| t.unit.to_string()).collect();
            valid.sort();
            valid.dedup();
            return Err(UnknownUnit {
                given: f.clone(),
                valid: valid.join(", "),
            });
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| filters.iter().any(|f| matches(t, f)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ts: &[Target]) -> Vec<String> {
        ts.iter().map(Target::label).collect()
    }

    #[test]
    fn selects_by_name_pair_or_class() {
        let rts = [Runtime::Rust, Runtime::C];
        assert_eq!(
            labels(&select(&rts, None).unwrap()),
            ["rust/thread", "rust/tokio-task", "c/process", "c/thread"]
        );
        let f = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            labels(&select(&rts, Some(&f(&["thread"]))).unwrap()),
            ["rust/thread", "c/thread"]
        );
        assert_eq!(
            labels(&select(&rts, Some(&f(&["c/process", "green"]))).unwrap()),
            ["rust/tokio-task", "c/process"]
        );
        let e = select(&rts, Some(&f(&["fiber"]))).unwrap_err();
        assert!(e.to_string().contains("`fiber`") && e.to_string().contains("tokio-task"));
    }
}
