//! Each user mistake gets one line naming the problem and the fix, a non-zero
//! exit, and never a panic.

mod common;
use common::*;

#[test]
fn unknown_transport_lists_the_valid_ones() {
    let s = Scratch::new("bad-via");
    let o = s.toll(&["transfer", "--via", "pipe,smoke"]);
    assert_one_line_error(
        &o,
        "unknown transport `smoke`: valid transports are pipe, unix, tcp, shm",
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unknown_peer_lists_the_valid_ones() {
    let s = Scratch::new("bad-peer");
    let o = s.toll(&["transfer", "--peer", "cobol"]);
    assert_one_line_error(
        &o,
        "unknown peer `cobol`: valid peers are rust, c, python, node",
    );
}

#[test]
fn a_transport_the_peer_lacks_is_refused_before_measuring() {
    let s = Scratch::new("py-shm");
    let o = s.toll(&["transfer", "--peer", "python", "--via", "shm"]);
    assert_one_line_error(&o, "the python peer does not support the shm transport");
    assert!(!s.db().exists() || stdout(&s.toll(&["runs"])).contains("no runs"));
}

#[test]
fn bad_size_lists_are_refused() {
    let s = Scratch::new("bad-sizes");
    for (sizes, needle) in [
        ("", "empty size list"),
        (",", "empty size list"),
        ("-5", "negative size `-5`"),
        ("10,abc", "bad size `abc`"),
        ("100:0:10", "bad range `100:0:10`"),
        ("4Gi", "too large"),
    ] {
        let o = s.toll(&["transfer", "--sizes", sizes]);
        assert_one_line_error(&o, needle);
    }
}

#[test]
fn unknown_options_and_placements() {
    let s = Scratch::new("bad-opt");
    let o = s.toll(&["transfer", "--frobnicate"]);
    assert_one_line_error(&o, "--frobnicate");
    assert!(stderr(&o).contains("toll transfer --help"));
    let o = s.toll(&["transfer", "--pin", "left"]);
    assert_one_line_error(
        &o,
        "unknown placement `left`: valid placements are same, split, none",
    );
    let o = s.toll(&["transfer", "--pin", "same", "--spin", "--via", "shm"]);
    assert_one_line_error(&o, "--spin with --pin same");
    let o = s.toll(&["transfer", "--trials", "0"]);
    assert_one_line_error(&o, "0 is not in 1..=100000");
    let o = s.toll(&["export", "1", "--format", "xml"]);
    assert_one_line_error(&o, "json, csv");
    let o = s.toll(&["show", "seven"]);
    assert_one_line_error(&o, "bad run id `seven`");
    let o = s.toll(&["show", "99"]);
    assert_one_line_error(&o, "no runs stored yet (no database at");
}

#[test]
fn missing_toolchains_name_the_package() {
    let s = Scratch::new("no-tools");
    let empty = s.0.join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let path = empty.to_str().unwrap();
    // A fresh cache, so no earlier build of the C worker can stand in for the compiler.
    let cache = s.0.join("cache");
    let env = [("PATH", path), ("TOLL_CACHE_DIR", cache.to_str().unwrap())];
    let o = s.toll_env(&["transfer", "--peer", "c"], &env);
    assert_one_line_error(&o, "apt-get install gcc");
    let o = s.toll_env(&["transfer", "--peer", "python"], &env);
    assert_one_line_error(&o, "apt-get install python3");
    let o = s.toll_env(&["transfer", "--peer", "node"], &env);
    assert_one_line_error(&o, "apt-get install nodejs");
}

#[test]
fn doctor_lists_every_runtime_and_how_to_install_what_is_missing() {
    let s = Scratch::new("doctor");
    let o = s.toll(&["doctor"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for r in ["rust", "c", "python", "node"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(r))
            .unwrap_or_else(|| panic!("no {r} row: {out}"));
        assert!(line.contains("found"), "{r} is on this machine: {line}");
    }
    let empty = s.0.join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let o = s.toll_env(&["doctor"], &[("PATH", empty.to_str().unwrap())]);
    let out = stdout(&o);
    let c = out.lines().find(|l| l.starts_with("c ")).unwrap();
    assert!(
        c.contains("missing") && c.contains("apt-get install gcc"),
        "{c}"
    );
    assert!(out
        .lines()
        .find(|l| l.starts_with("rust"))
        .unwrap()
        .contains("found"));
}

#[test]
fn doctor_lists_each_rpc_server_s_stacks_and_the_proxies() {
    let s = Scratch::new("doctor-rpc");
    let out = stdout(&s.toll(&["doctor"]));
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} row: {out}"))
            .to_string()
    };
    assert!(row("go").contains("raw, http1, h2, grpc"), "{}", row("go"));
    assert!(row("python").contains("raw, http1"), "{}", row("python"));
    assert!(!row("python").contains("h2"), "{}", row("python"));
    for proxy in ["haproxy", "nginx"] {
        let r = row(proxy);
        assert!(
            r.contains("found") || r.contains(&format!("apt-get install {proxy}")),
            "{r}"
        );
    }
}

/// `toll export N | head` closing the pipe early is not an error: no message,
/// exit 0 (the JSON exporter once lost the broken pipe inside serde's error).
#[test]
fn a_reader_that_closes_the_pipe_early_is_not_an_error() {
    let s = Scratch::new("broken-pipe");
    let mut args = vec!["transfer", "--sizes", "0,1", "--via", "pipe"];
    args.extend_from_slice(QUICK);
    assert!(s.toll(&args).status.success());
    for format in ["json", "csv"] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(s.db())
            .args(["export", "last", "--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{format}");
    }
    let o = s.toll(&["show", "99"]);
    assert_one_line_error(&o, "no run 99");
}

/// Every number a flag takes has a range, checked before any work: a huge
/// value is one line, never a panic, an abort or a silent wrap.
#[test]
fn huge_values_are_refused_before_any_work() {
    let s = Scratch::new("huge");
    let cases: &[(&[&str], &str)] = &[
        (
            &["transfer", "--trials", "4000000000", "--sizes", "0"],
            "4000000000 is not in 1..=100000",
        ),
        (&["transfer", "--batch-ms", "0"], "0 is not in 1..=10000"),
        (
            &["transfer", "--warmup-ms", "99999999999"],
            "is not in 0..=60000",
        ),
        (
            &[
                "spawn",
                "--runtime",
                "rust",
                "-n",
                "10",
                "--max-time",
                "1e20",
            ],
            "--max-time 1e20 is out of range",
        ),
        (
            &[
                "spawn",
                "--runtime",
                "rust",
                "-n",
                "10",
                "--max-time",
                "NaN",
            ],
            "--max-time NaN is out of range",
        ),
        (
            &["ring", "--max-mem", "99999999999999999"],
            "is not in 1..=16777216",
        ),
        (&["spawn", "--trials", "4000000000"], "not in 1..=10000"),
    ];
    assert_usage_errors(&s, cases);
}

/// `--db` names a file toll can read back or a PostgreSQL URL
/// (tests/postgres.rs): SQLite's in-memory names, `file:` URIs and URLs of
/// other stores are refused before any work, and nothing is created for them.
#[test]
fn stores_that_would_not_keep_results_are_refused() {
    let s = Scratch::new("db-names");
    for (db, needle) in [
        ("mysql://host/db", "`mysql://` is not a store toll speaks"),
        (":memory:", "lose the run at exit"),
        ("file:x?mode=memory", "lose the run at exit"),
    ] {
        for args in [
            &["--db", db, "transfer", "--sizes", "0", "--via", "pipe"][..],
            &["--db", db, "runs"][..],
        ] {
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
                .current_dir(&s.0)
                .args(args)
                .output()
                .unwrap();
            assert_one_line_error(&o, needle);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(&s.0).unwrap().flatten().collect();
    assert!(left.is_empty(), "nothing may be created: {left:?}");
}

/// A reading command never creates anything, and a store that does not
/// exist yet is one rule whether it was named (--db, TOLL_DB) or is the
/// default: nothing stored there, said with its path, so a typo shows —
/// `runs` lists nothing (exit 0), a command that needs a run fails.
#[test]
fn reading_commands_create_nothing() {
    let s = Scratch::new("db-typo");
    let typo = s.0.join("a/mistyped/path.db");
    let typo = typo.to_str().unwrap();
    let home = s.0.join("home");
    // The same store named three ways: --db, TOLL_DB, and as the default
    // place (XDG_DATA_HOME) never written yet.
    type Way<'a> = (&'a [&'a str], Vec<(&'a str, String)>);
    let ways: [Way; 3] = [
        (&["--db", typo], vec![]),
        (&[], vec![("TOLL_DB", typo.to_string())]),
        (
            &[],
            vec![("XDG_DATA_HOME", home.join("data").display().to_string())],
        ),
    ];
    for (pre, env) in &ways {
        let run = |args: &[&str]| {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_toll"));
            c.args(*pre)
                .args(args)
                .env_remove("TOLL_DB")
                .env("HOME", &home);
            for (k, v) in env {
                c.env(k, v);
            }
            c.output().unwrap()
        };
        let o = run(&["runs"]);
        assert!(o.status.success(), "{pre:?} {env:?}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("no runs stored yet (no database at"),
            "{}",
            stdout(&o)
        );
        let o = run(&["runs", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o).trim(), "[]");
        assert!(stderr(&o).contains("no runs stored yet"), "{}", stderr(&o));
        for args in [
            &["show"][..],
            &["export", "last"][..],
            &["rm", "1"][..],
            &["compare", "1", "2"][..],
            &["report", "1", "--format", "md"][..],
            &[
                "predict", "transfer", "--peer", "rust", "--via", "pipe", "-n", "10",
            ][..],
        ] {
            let o = run(args);
            assert_one_line_error(&o, "no runs stored yet (no database at");
            assert_eq!(o.status.code(), Some(1), "{args:?}");
        }
        if pre.is_empty() && env[0].0 == "TOLL_DB" {
            // The typo'd path is named, with its missing directory.
            let o = run(&["show"]);
            assert!(
                stderr_joined(&o).contains("a/mistyped/path.db, and no directory"),
                "{}",
                stderr(&o)
            );
        }
    }
    assert!(!s.0.join("a").exists(), "no directory may be created");
    assert!(
        !home.exists(),
        "nothing may be created at the default place"
    );
}

/// An error's cause is printed once, not once in the message and again as
/// its source.
#[test]
fn an_error_names_its_cause_once() {
    let s = Scratch::new("db-twice");
    // A directory where the database's directory should be: creating it fails.
    std::fs::write(s.0.join("blocker"), b"").unwrap();
    let db = s.0.join("blocker/sub/toll.db");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(&db)
        .args(["transfer", "--sizes", "0", "--via", "pipe"])
        .output()
        .unwrap();
    assert_one_line_error(&o, "cannot create");
    let err = stderr_joined(&o);
    let cause = "blocker is a file, not a directory";
    assert_eq!(err.matches(cause).count(), 1, "{err}");
}

/// `--ci` and `--max-time` of a transfer, and a preset a family lacks: one
/// line naming the fix, exit 2, nothing stored.
#[test]
fn ci_targets_and_presets_are_checked_before_any_work() {
    let s = Scratch::new("ci-flags");
    let cases: &[(&[&str], &str)] = &[
        (&["transfer", "--ci", "0"], "--ci `0` is out of range"),
        (&["transfer", "--ci", "-3%"], "--ci `-3%` is out of range"),
        (&["transfer", "--ci", "50%"], "--ci `50%` is out of range"),
        (&["transfer", "--ci", "lots"], "--ci `lots` is out of range"),
        (
            &["transfer", "--max-time", "forever"],
            "--max-time `forever` is not a positive time",
        ),
        (
            &["spawn", "-n", "e1"],
            "`e1` is a preset of `toll transfer --sizes`",
        ),
        (&["ring", "-n", "E1"], "spawn and ring take `--n e2`"),
    ];
    assert_usage_errors(&s, cases);
}

/// Issue: error chains printed the OS's text twice ("cannot create …: Not a
/// directory (os error 20); pick another place …: Not a directory (os error
/// 20)"), as `toll http` showed for a --db it could not create.
#[test]
fn an_os_error_is_named_once() {
    let s = Scratch::new("os-error-once");
    let file = s.0.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let db = file.join("toll.db");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(&db)
        .args(["http", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    // The server is checked first (nothing to store for a refused run), and
    // its error names the OS's reason once.
    assert_one_line_error(&o, "cannot connect");
    let err = stderr(&o);
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(!db.exists());
}

/// A design that cannot give a model (two sizes; one or two rounds) is
/// announced in one line each before measuring, and `--dry-run`
/// says the same: never a run stored "complete" with "no model" on every
/// row and nothing said.
#[test]
fn designs_that_cannot_give_a_model_are_announced_before_measuring() {
    let s = Scratch::new("design-notes");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[
                "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k", "--trials", "2",
            ],
            &[
                "--sizes gives two sizes",
                "no model t(n) = α + β·n",
                "--trials 2: each point's interval is its two values",
            ],
        ),
        (
            &["ring", "--runtime", "rust", "-n", "10,20", "--trials", "1"],
            &["-n gives two sizes", "--trials 1: one round"],
        ),
        (
            &["ffi", "--runtime", "c", "--sizes", "0,64"],
            &["--sizes gives two sizes"],
        ),
    ];
    for (args, said) in cases {
        let mut dry = vec!["--dry-run"];
        dry.extend_from_slice(args);
        let o = s.toll(&dry);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        for line in *said {
            assert!(err.contains(line), "{args:?}: {err}");
        }
    }
    assert!(!s.db().exists(), "a dry run stores nothing");
    // The full design (three sizes, three rounds) says nothing of the kind.
    let o = s.toll(&[
        "--dry-run",
        "transfer",
        "--peer",
        "rust",
        "--via",
        "pipe",
        "--sizes",
        "0,1k,2k",
        "--trials",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("note:"), "{}", stderr(&o));
}

/// Messages that lead somewhere (issue 48): a `--db` that is a directory is
/// named as one, a `--plot` that is not SVG is refused before measuring,
/// and `export -o` says where it wrote, as `report -o` does.
#[test]
fn a_directory_db_a_png_plot_and_an_export_file_are_each_said() {
    let s = Scratch::new("said");
    let dir = s.0.join("a-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
        .args(["--wide", "--db"])
        .arg(&dir)
        .args([
            "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k,2k",
        ])
        .output()
        .unwrap();
    assert_one_line_error(&o, "is a directory: name a file in it");
    let png = s.0.join("e1.png");
    let o = s.toll(&["transfer", "--plot", png.to_str().unwrap()]);
    assert_one_line_error(&o, "toll draws SVG, not png");
    assert_eq!(o.status.code(), Some(2));
    assert!(!s.db().exists(), "refused before anything was stored");
    let mut args = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k,2k",
    ];
    args.extend_from_slice(QUICK);
    assert!(s.toll(&args).status.success());
    let out = s.0.join("run.json");
    let o = s.toll(&["export", "last", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("run 1 exported as json to {}", out.display())),
        "{}",
        stderr(&o)
    );
    let run: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(run["family"], "transfer");
}

/// `toll http`'s targets (issue 51): a unix socket or a URL file that is
/// not there or cannot be read, a URL file line that does not parse (named
/// by its number), a socket with https, a URL beside --urls: one line each,
/// before any load, and nothing stored.
#[test]
fn http_targets_that_cannot_be_loaded_are_named_before_any_load() {
    let s = Scratch::new("bad-http-targets");
    let dir = s.0.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let urls = dir.join("urls.txt");
    std::fs::write(&urls, "http://127.0.0.1:9/\n\nhttp://127.0.0.1:9/a b c\n").unwrap();
    let (urls, dir) = (urls.to_str().unwrap(), dir.to_str().unwrap());
    let missing = s.0.join("gone");
    let missing = missing.to_str().unwrap();
    assert_usage_errors(
        &s,
        &[
            (
                &["http", "--unix-socket", missing, "http://localhost/"],
                "no such socket",
            ),
            (
                &["http", "--unix-socket", dir, "http://localhost/"],
                "is not a socket",
            ),
            (
                &["http", "--unix-socket", dir, "https://localhost/"],
                "give an http:// URL",
            ),
            (&["http", "--urls", missing], "cannot read it"),
            (&["http", "--urls", dir], "cannot read it"),
            (&["http", "--urls", urls], "line 3"),
            (
                &["http", "--urls", urls, "http://127.0.0.1:9/"],
                "both name what to load",
            ),
            (
                &["http", "--warmup", "soon", "http://127.0.0.1:9/"],
                "--warmup `soon`",
            ),
        ],
    );
}
