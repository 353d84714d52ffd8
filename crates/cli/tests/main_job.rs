//! The README's main job (`scripts/run`: `toll replicate all --quick --html
//! replicate.html`) on any store, and on a machine that lacks optional
//! runtimes.
//!
//! The store: `TOLL_DB` naming a file in a directory that does not exist
//! yet (created), a store that already holds runs (the page shows this
//! run's experiments only), a directory that cannot be made (one line
//! before anything is built or measured, from `scripts/run` itself), and a
//! PostgreSQL URL (in tests/postgres.rs, beside its server). E1 and E4 at
//! the tests' preset stand in for all five: each takes a few seconds.
//!
//! The runtimes: `toll transfer --peer all` (E1's family) on a machine
//! without Node.js and GHC completes, names what it skipped and how to
//! install it, and draws its plot: the test runs toll with a PATH that has
//! every program of the real one except `node` and `ghc`.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// A directory of links to every program on PATH except `left_out`.
fn path_without(dir: &Path, left_out: &[&str]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for d in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(text) = name.to_str() else { continue };
            if left_out.contains(&text) || dir.join(&name).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), dir.join(&name));
        }
    }
    dir.to_str().unwrap().to_string()
}

#[test]
fn the_main_job_completes_without_an_optional_runtime_and_names_it() {
    let s = Scratch::new("main-job");
    let bin = path_without(&s.0.join("bin"), &["node", "nodejs", "ghc"]);
    let plot = s.0.join("e1.svg");
    // scripts/run's command line, with its --quick preset.
    let mut args = vec![
        "transfer",
        "--peer",
        "all",
        "--plot",
        plot.to_str().unwrap(),
        "--sizes",
        "0,100,1k,10k,100k",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll_env(&args, &[("PATH", &bin)]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "{err}\n{out}");
    let skipped: Vec<&str> = err.lines().filter(|l| l.contains("skipping")).collect();
    assert_eq!(skipped.len(), 1, "one line names what was skipped: {err}");
    for (runtime, install) in [("node", "apt-get install nodejs"), ("haskell", "ghc")] {
        assert!(
            skipped[0].contains(&format!("{runtime} (install: `")) && skipped[0].contains(install),
            "{runtime} and its install command: {}",
            skipped[0]
        );
    }
    for row in ["rust", "c", "python"] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{row} "))),
            "a {row} row: {out}"
        );
    }
    assert!(
        !out.lines().any(|l| l.starts_with("node ")),
        "no node row: {out}"
    );
    // Every peer over every transport is more series than colours: a
    // panel per peer, each transport named once beside them.
    let svg = std::fs::read_to_string(&plot).expect("the plot is drawn");
    let text = |t: &str| format!(">\n{t}\n</text>");
    let panels: Vec<&str> = svg.split("<svg class=\"panel\"").skip(1).collect();
    for peer in ["rust", "python"] {
        assert!(
            panels.iter().any(|p| p.contains(&text(peer))),
            "{peer}'s panel: {svg}"
        );
    }
    assert!(svg.contains(&text("pipe")) && svg.contains(&text("tcp")));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    // Naming a missing runtime explicitly stays an error.
    let o = s.toll_env(&["transfer", "--peer", "node"], &[("PATH", &bin)]);
    assert_one_line_error(&o, "apt-get install nodejs");
}

/// The experiments a page shows, by the title of each section ("E1", "E4").
pub fn experiments_on(page: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(page).expect("the page is written");
    html.split("<section class=\"run experiment\"")
        .skip(1)
        .map(|s| {
            let h2 = s.split("<h2>").nth(1).unwrap_or("");
            h2.split_whitespace().next().unwrap_or("").to_string()
        })
        .collect()
}

/// `toll replicate EXPERIMENTS --test-preset --html PAGE`, the store named
/// by `env` (TOLL_DB) only.
fn main_job(s: &Scratch, experiments: &str, page: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toll"));
    c.args(["replicate", experiments, "--test-preset", "--html"])
        .arg(page)
        .env_remove("TOLL_DB")
        .env("TMPDIR", &s.0)
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        );
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run toll")
}

#[test]
fn the_main_job_creates_a_store_toll_db_names_in_a_new_directory() {
    let s = Scratch::new("main-job-new-store");
    let db = s.0.join("results/this-vm/toll.db");
    let page = s.0.join("replicate.html");
    let o = main_job(&s, "E1,E4", &page, &[("TOLL_DB", db.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(db.is_file(), "the store is created where TOLL_DB says");
    assert_eq!(experiments_on(&page), ["E1", "E4"]);
    assert!(
        stderr(&o).contains("the page to look at: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_main_job_on_a_store_with_earlier_runs_shows_only_its_own() {
    let s = Scratch::new("main-job-old-store");
    let db = s.0.join("toll.db");
    let env = [("TOLL_DB", db.to_str().unwrap())];
    // Earlier work in the same store: a transfer and an earlier main job.
    let mut args = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k,4k",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = s.0.join("first.html");
    let o = main_job(&s, "E4", &first, &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(experiments_on(&first), ["E4"]);
    // This run's page: its experiments, none of the store's earlier ones.
    let page = s.0.join("replicate.html");
    let o = main_job(&s, "E1", &page, &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(experiments_on(&page), ["E1"]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("E4 —"), "an earlier run's table on the page");
}

#[test]
fn a_store_that_cannot_be_made_is_one_line_before_the_build() {
    let s = Scratch::new("main-job-bad-store");
    std::fs::write(s.0.join("a-file"), b"").unwrap();
    let db = s.0.join("a-file/sub/toll.db");
    // scripts/run itself: it must refuse before its set-up and build, so
    // this takes no time and runs no cargo.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = Command::new(root.join("scripts/run"))
        .env("TOLL_DB", &db)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run scripts/run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(
        lines[0].contains("a-file/sub/toll.db") && lines[0].contains("TOLL_DB"),
        "{err}"
    );
    // toll itself says the same before measuring, and stores nothing.
    let page = s.0.join("page.html");
    let o = main_job(&s, "E4", &page, &[("TOLL_DB", db.to_str().unwrap())]);
    assert_one_line_error(&o, "a-file is a file, not a directory");
    assert!(!page.exists());
    // A page in a directory that does not exist: refused before measuring.
    let good = s.0.join("good.db");
    let o = main_job(
        &s,
        "E4",
        &s.0.join("no/such/dir/page.html"),
        &[("TOLL_DB", good.to_str().unwrap())],
    );
    assert_one_line_error(&o, "--html");
    assert_eq!(o.status.code(), Some(2));
    assert!(!good.exists(), "a refused run stores nothing");
}
