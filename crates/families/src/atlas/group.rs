//! The atlas's groups — one family each (hardware: `toll sys`, links:
//! `toll transfer`, …) — and `--only` / `--skip` read into a list of them.

use serde::Serialize;

/// One group of rows, measured by one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    Hardware,
    Links,
    Threads,
    Languages,
    Files,
    Programs,
    Rpc,
}

impl Group {
    /// Every group, in the order they are measured.
    pub const ALL: [Group; 7] = [
        Group::Hardware,
        Group::Links,
        Group::Threads,
        Group::Languages,
        Group::Files,
        Group::Programs,
        Group::Rpc,
    ];

    /// Its name on the command line and in the store.
    pub fn name(self) -> &'static str {
        match self {
            Group::Hardware => "hardware",
            Group::Links => "links",
            Group::Threads => "threads",
            Group::Languages => "languages",
            Group::Files => "files",
            Group::Programs => "programs",
            Group::Rpc => "rpc",
        }
    }

    /// The family (or families) whose runs its rows come from.
    pub fn family(self) -> &'static str {
        match self {
            Group::Hardware => "toll sys",
            Group::Links => "toll transfer",
            Group::Threads => "toll spawn, toll ring",
            Group::Languages => "toll ffi",
            Group::Files => "toll file",
            Group::Programs => "toll exec",
            Group::Rpc => "toll rpc, toll http",
        }
    }

    /// What its rows are, in one line (`--dry-run`, the guide).
    pub fn measures(self) -> &'static str {
        match self {
            Group::Hardware => {
                "syscall, vDSO clock read, minor page fault, signal, wake-ups on one core and across two, core-to-core handoff, a load from each cache level and from memory, memcpy's rate"
            }
            Group::Links => {
                "pipe, unix, tcp and shm to a Rust peer across two cores: round trip (α), rate (1/β), n½"
            }
            Group::Threads => {
                "making a thread, a process (fork), a goroutine, a tokio task, an Erlang process… per unit; a ring hop"
            }
            Group::Languages => {
                "a null call into C from every installed runtime: its cheapest binding and its common one; a function call direct and through dlopen"
            }
            Group::Files => "a 4 KiB read at random by pread and from an mmap, warm and cold",
            Group::Programs => "start-up of a program that does nothing: C, Rust, Go, Python, Node, Java; the C one by fork+exec too",
            Group::Rpc => "a null call over raw TCP frames, HTTP/1.1 and gRPC; one request at a time to a local nginx, and its knee (a sweep of offered rate)",
        }
    }
}

impl std::fmt::Display for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A group name that is none of the atlas's.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown group `{given}` in {flag}: the groups are hardware, links, threads, languages, files, programs, rpc")]
pub struct UnknownGroup {
    pub given: String,
    pub flag: &'static str,
}

/// `a,b` as groups, each checked; `flag` names where they came from.
pub fn parse_groups(text: &str, flag: &'static str) -> Result<Vec<Group>, UnknownGroup> {
    let mut out = Vec::new();
    for word in text.split(',').map(str::trim) {
        let g = Group::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(word))
            .ok_or_else(|| UnknownGroup {
                given: word.to_string(),
                flag,
            })?;
        out.push(g);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The groups to measure: `--only`'s (else every one), less `--skip`'s.
pub fn choose(only: Option<&str>, skip: Option<&str>) -> Result<Vec<Group>, UnknownGroup> {
    let mut groups = match only {
        Some(text) => parse_groups(text, "--only")?,
        None => Group::ALL.to_vec(),
    };
    if let Some(text) = skip {
        let skipped = parse_groups(text, "--skip")?;
        groups.retain(|g| !skipped.contains(g));
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_and_skip_pick_groups_and_an_unknown_one_is_named() {
        assert_eq!(choose(None, None).unwrap(), Group::ALL);
        assert_eq!(
            choose(Some("files, hardware,files"), None).unwrap(),
            [Group::Hardware, Group::Files]
        );
        assert_eq!(
            choose(Some("links,rpc"), Some("RPC")).unwrap(),
            [Group::Links]
        );
        let e = choose(None, Some("gpu")).unwrap_err().to_string();
        assert!(
            e.starts_with("unknown group `gpu` in --skip: the groups are hardware"),
            "{e}"
        );
        assert!(choose(Some(""), None).is_err());
    }
}
