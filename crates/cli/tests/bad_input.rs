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
    assert_one_line_error(&o, "--trials must be at least 1");
    let o = s.toll(&["export", "1", "--format", "xml"]);
    assert_one_line_error(&o, "json, csv");
    let o = s.toll(&["show", "seven"]);
    assert_one_line_error(&o, "bad run id `seven`");
    let o = s.toll(&["show", "99"]);
    assert_one_line_error(&o, "no run 99");
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
    assert_one_line_error(&o, "cannot create");
    let err = stderr(&o);
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(err.contains("--db PATH"), "{err}");
}
