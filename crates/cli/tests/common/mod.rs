//! Running the real `toll` binary as a user would, against a private database.

#![allow(dead_code)]

pub mod far_host;
pub mod lan;
pub mod nginx;

use std::path::PathBuf;
use std::process::{Command, Output};

/// A scratch directory for one test, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("toll-e2e-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    pub fn db(&self) -> PathBuf {
        self.0.join("toll.db")
    }

    /// `toll --db <scratch db> ARGS` with quick measuring settings for transfer.
    pub fn toll(&self, args: &[&str]) -> Output {
        self.toll_env(args, &[])
    }

    /// With `--wide`: the tests that look for a phrase find it on one line
    /// (tests/terminal.rs and the tour check the 100-column form).
    pub fn toll_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut wide = vec!["--wide"];
        wide.extend_from_slice(args);
        self.toll_fitted(&wide, env)
    }

    /// `toll --db <scratch db> ARGS` as a person's terminal gets it: every
    /// line within 100 columns.
    pub fn toll_fitted(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toll"));
        c.arg("--db").arg(self.db()).args(args);
        c.env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        );
        // The machine's record of runs is this test's own: what its runs
        // learn from is what it made.
        c.env("TOLL_RUN_RECORD", self.0.join("runs-here.jsonl"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run toll")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Quick settings so a transfer test takes a second, not a minute.
pub const QUICK: &[&str] = &["--trials", "3", "--warmup-ms", "5", "--batch-ms", "2"];

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The run as `toll export --format json` gives it.
pub fn export_json(s: &Scratch, run: &str) -> serde_json::Value {
    let o = s.toll(&["export", run, "--format", "json"]);
    assert!(o.status.success(), "export failed: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("export is JSON")
}

/// Assert a user error: non-zero exit, exactly one error line on stderr
/// naming `needle` (warnings, such as a busy machine, and notes, such as a
/// worker being built, may precede it).
/// stderr with each message whole: a line that goes on over indented
/// lines (past 100 columns) joined back into one.
pub fn stderr_joined(o: &Output) -> String {
    let mut out = String::new();
    for l in stderr(o).lines() {
        match l.strip_prefix("  ") {
            Some(more) if !out.is_empty() => {
                out.pop();
                out.push(' ');
                out.push_str(more.trim_start());
            }
            _ => out.push_str(l),
        }
        out.push('\n');
    }
    out
}

pub fn assert_one_line_error(o: &Output, needle: &str) {
    assert!(
        !o.status.success(),
        "expected failure, got success: {}",
        stdout(o)
    );
    let err = stderr(o);
    // A message wider than 100 columns goes on over indented lines: each
    // message is its first line and those.
    let mut messages: Vec<String> = Vec::new();
    for l in err.lines().filter(|l| !l.trim().is_empty()) {
        match (l.strip_prefix("  "), messages.last_mut()) {
            (Some(more), Some(m)) => {
                m.push(' ');
                m.push_str(more.trim_start());
            }
            _ => messages.push(l.to_string()),
        }
    }
    let lines: Vec<&String> = messages
        .iter()
        .filter(|m| !m.starts_with("warning: ") && !m.starts_with("note: "))
        .collect();
    assert_eq!(lines.len(), 1, "expected one error message, got: {err}");
    assert!(lines[0].starts_with("toll: "), "error line: {}", lines[0]);
    assert!(lines[0].contains(needle), "`{needle}` not in: {}", lines[0]);
    assert!(!err.contains("panicked"), "panic: {err}");
}

/// Each case, run: a usage error (exit 2) in one line naming its needle,
/// and no database created for any of them.
pub fn assert_usage_errors(s: &Scratch, cases: &[(&[&str], &str)]) {
    for (args, needle) in cases {
        let o = s.toll(args);
        assert_one_line_error(&o, needle);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    assert!(!s.db().exists(), "a refused command creates nothing");
}
