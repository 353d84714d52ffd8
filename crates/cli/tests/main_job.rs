//! The README's main job (`scripts/run`: `toll transfer --peer all --plot
//! e1.svg`) on a machine that lacks optional runtimes: it completes, names
//! what it skipped and how to install it, and draws its plot. Here the
//! machine lacks Node.js and GHC: the test runs toll with a PATH that has
//! every program of the real one except `node` and `ghc`.

mod common;
use common::*;
use std::path::Path;

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
    let svg = std::fs::read_to_string(&plot).expect("the plot is drawn");
    assert!(svg.contains("rust/pipe") && svg.contains("python/tcp"));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    // Naming a missing runtime explicitly stays an error.
    let o = s.toll_env(&["transfer", "--peer", "node"], &[("PATH", &bin)]);
    assert_one_line_error(&o, "apt-get install nodejs");
}
