//! Every `toll` command of the README's tour, as written. The HTTP ones run
//! for real against nginx on loopback (the tour's 127.0.0.1:8080 and :8081
//! become the test's servers; `--http2` lines go to an h2c server). Commands
//! that would take minutes here (default sweeps, `--peer all`, a comparison
//! that runs until its CIs are narrow) run with `--dry-run`, which checks the
//! arguments, toolchains and servers as a run does and stops before
//! measuring; every other command runs for real, in order, so `toll show 3`
//! finds run 3.

mod common;
use common::*;

/// The terminal the tour's output must fit, in columns (`--wide` lifts it).
const WIDTH: usize = 100;

/// The tour's lines, without the comments: `toll …` ones as their words
/// (without `toll`), and the others (a build step) as the shell line, in a
/// vector of one prefixed with `$ `.
fn tour() -> Vec<Vec<String>> {
    let readme = include_str!("../../../README.md");
    let start = readme.find("## A short tour").expect("a tour section");
    let block = &readme[start..];
    let open = block.find("```sh").expect("a code block") + 5;
    let close = open + block[open..].find("```").expect("the block's end");
    block[open..close]
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim())
        // toll's lines, and the steps of the clone's own (examples/…); the
        // build and the alias before them are what the test binary is.
        .filter(|l| l.starts_with("toll ") || l.starts_with("examples/"))
        .map(|l| match l.strip_prefix("toll ") {
            Some(_) => words(l).into_iter().skip(1).collect(),
            None => vec![format!("$ {l}")],
        })
        .collect()
}

/// A tour line's words as the shell reads them ('…' keeps blanks).
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted, mut any) = (vec![], String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word, any) = (word + &c.to_string(), true),
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// A default sweep, every runtime, or a comparison that runs until its CIs
/// are narrow: minutes of measuring (each has its own end-to-end tests).
fn long(args: &[String]) -> bool {
    if args.iter().any(|a| a == "--dry-run") {
        return false; // a dry run already
    }
    let family = args
        .iter()
        .find(|a| !a.starts_with("--") && !a.contains("://"))
        .map_or("", String::as_str);
    let sized = args.iter().any(|a| a == "--sizes" || a == "-n");
    let all = args.windows(2).any(|w| w[0] == "--peer" && w[1] == "all");
    let compare = family == "http" && args.get(1).is_some_and(|a| a == "compare");
    // `toll file` on its own 100,000,000-byte file (a user's file is quick).
    let own_file = family == "file" && !args.iter().any(|a| a == "--file");
    // `toll replicate` runs whole experiments (tests/replicate.rs runs them small).
    let replicate = family == "replicate";
    // `toll atlas` runs every family (tests/atlas.rs runs it small).
    let atlas = family == "atlas";
    compare
        || atlas
        || own_file
        || replicate
        || (matches!(family, "transfer" | "spawn" | "ring") && (!sized || all))
}

#[test]
fn every_tour_command_runs_as_written() {
    let s = Scratch::new("tour");
    let nginx = nginx::start(&s, &["", "", "http2"]);
    // The tour loads `/` too.
    std::fs::write(s.0.join("www").join("index.html"), [b'x'; 92]).unwrap();
    // The tour runs in a directory that has the clone's examples/, as a
    // person's shell in the clone does: its own line builds E5's loop.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(repo.join("examples"), s.0.join("examples")).unwrap();
    let lines = tour();
    assert!(lines.len() >= 15, "the tour has its commands: {lines:?}");
    let mut dry = 0;
    let mut wide = vec![];
    let mut shell = 0;
    for mut args in lines {
        if let Some(line) = args[0].strip_prefix("$ ") {
            // A step that is not toll's (the e5 loop's build), as written.
            let o = std::process::Command::new("sh")
                .args(["-c", line])
                .current_dir(&s.0)
                .output()
                .unwrap();
            assert!(o.status.success(), "`{line}` failed:\n{}", stderr(&o));
            shell += 1;
            continue;
        }
        let h2 = args.iter().any(|a| a == "--http2");
        for a in args.iter_mut() {
            let port_a = if h2 { nginx.ports[2] } else { nginx.ports[0] };
            *a = a
                .replace("127.0.0.1:8080", &format!("127.0.0.1:{port_a}"))
                .replace("127.0.0.1:8081", &format!("127.0.0.1:{}", nginx.ports[1]));
        }
        if long(&args) {
            args.insert(0, "--dry-run".into());
            dry += 1;
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_toll"));
        c.current_dir(&s.0);
        // A line that names its own store (the PostgreSQL one is a dry run:
        // tests/postgres.rs measures into a real server) keeps it.
        if !argv.contains(&"--db") {
            c.arg("--db").arg(s.db());
        }
        c.args(&argv);
        c.env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        );
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "`toll {}` failed:\n{}\n{}",
            argv.join(" "),
            stderr(&o),
            stdout(&o)
        );
        let out = stdout(&o);
        // Through a pipe: no colour codes.
        assert!(
            !out.contains('\u{1b}') && !stderr(&o).contains('\u{1b}'),
            "`toll {}` coloured a pipe",
            argv.join(" ")
        );
        // A terminal of 100 columns holds every line (counted in characters)
        // of what is printed for a person; documents for another program
        // (Markdown, CSV, JSON, a completion script, roff) are as their
        // formats need (a Markdown table's row cannot wrap); `--wide` asks
        // for lines whole.
        let document = ["--format", "--json", "completions", "man", "--wide"]
            .iter()
            .any(|d| argv.contains(d));
        let printed = if document { "" } else { out.as_str() };
        for line in printed.lines().chain(stderr(&o).lines()) {
            let width = line.chars().count();
            if width > WIDTH {
                wide.push(format!("`toll {}` ({width}): {line}", argv.join(" ")));
            }
        }
        if argv[0] == "--dry-run" {
            assert!(out.starts_with("would "), "{out}");
        }
        if argv[0] == "http" && argv[1] != "compare" {
            assert!(out.contains("Complete requests:"), "{out}");
            assert!(out.contains("Failed requests:        0"), "{out}");
        }
    }
    assert!(
        wide.is_empty(),
        "{} lines wider than {WIDTH} columns:\n{}",
        wide.len(),
        wide.join("\n")
    );
    assert!(
        (4..=14).contains(&dry),
        "only the long runs are dry runs ({dry})"
    );
    assert_eq!(shell, 1, "the tour's one build step ran");
    assert!(s.0.join("spawn.svg").is_file(), "the tour's spawn plot");
    assert!(s.0.join("loop.svg").is_file(), "the tour's exec plot");
}
