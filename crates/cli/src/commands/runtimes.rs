//! `--peer LIST` and `--runtime LIST`, shared by every family that starts
//! workers. `all` means every runtime *this machine has*: the missing ones
//! are named on one line with the command that installs each, and the run
//! goes on without them. A runtime named explicitly must be there.

use crate::usage::usage;
use toll_peers::Runtime;

/// The runtimes named by `text` (`all`, or a comma-separated list), for the
/// flag `flag` (`--peer`, `--runtime`) whose items are called `what`.
pub fn parse(text: &str, flag: &str, what: &str) -> anyhow::Result<Vec<Runtime>> {
    if text.trim() == "all" {
        let (found, missing): (Vec<Runtime>, Vec<Runtime>) =
            Runtime::ALL.into_iter().partition(|r| r.detect().is_ok());
        if let Some(line) = skipped_line(&missing) {
            crate::tell!("{line}");
        }
        return Ok(found);
    }
    let names: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give a comma-separated list, or all"
        )));
    }
    let mut out: Vec<Runtime> = Vec::new();
    for name in names {
        let r = name.parse::<Runtime>().map_err(|_| {
            usage(format!(
                "unknown {what} `{name}`: valid {what}s are {}, or all (in {flag})",
                names_list()
            ))
        })?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

/// Every runtime's name, comma-separated, in the registry's order.
pub fn names_list() -> String {
    Runtime::ALL.map(Runtime::name).join(", ")
}

/// One line naming the runtimes `all` left out and how to add each; None
/// when none is missing.
pub fn skipped_line(missing: &[Runtime]) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    let each: Vec<String> = missing
        .iter()
        .map(|r| format!("{r} (install: `{}`)", r.install_hint()))
        .collect();
    Some(format!(
        "note: skipping what this machine lacks: {}; `toll doctor` lists every runtime",
        each.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_every_runtime_of_the_registry() {
        let list = names_list();
        for r in Runtime::ALL {
            assert!(list.split(", ").any(|n| n == r.name()), "{r} missing");
        }
    }

    #[test]
    fn explicit_names_are_kept_in_order_without_repeats() {
        let got = parse("go, rust,go", "--runtime", "runtime").unwrap();
        assert_eq!(got, vec![Runtime::Go, Runtime::Rust]);
    }

    #[test]
    fn an_unknown_name_lists_the_valid_ones_and_the_flag() {
        let e = parse("rust,cobol", "--peer", "peer")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown peer `cobol`"), "{e}");
        assert!(e.contains("haskell"), "{e}");
        assert!(e.contains("(in --peer)"), "{e}");
    }

    #[test]
    fn the_skipped_line_is_one_line_with_each_install_command() {
        assert_eq!(skipped_line(&[]), None);
        let line = skipped_line(&[Runtime::Haskell, Runtime::Go]).unwrap();
        assert!(!line.contains('\n'));
        assert!(line.contains("haskell (install: `"), "{line}");
        assert!(line.contains(Runtime::Haskell.install_hint()), "{line}");
        assert!(line.contains("go (install: `"), "{line}");
    }
}
