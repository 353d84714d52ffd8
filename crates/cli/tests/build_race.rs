//! First use is safe under concurrency (issue 47): two tolls started at
//! once on an empty cache, each needing the same workers built (C, Go,
//! Java, Erlang), the same Go RPC server and the same ffi libraries (the C
//! side and Python's extension), both succeed. Every build takes its cache
//! directory's lock and installs by rename, so the second waits and finds
//! it built. (crates/peers/tests/build_race.rs races two threads of one
//! process the same way.)

mod common;
use common::*;
use std::process::{Command, Stdio};

/// Two `toll ARGS` at once on the cache directory `cache`: both outputs.
fn twice(s: &Scratch, cache: &std::path::Path, args: &[&str]) -> [std::process::Output; 2] {
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(s.db())
            .args(args)
            .env("TOLL_CACHE_DIR", cache)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toll")
    };
    let (a, b) = (start(), start());
    [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()]
}

/// The runtimes of `wanted` this machine has (`toll doctor` names the rest).
fn present(s: &Scratch, wanted: &[&str]) -> Vec<String> {
    wanted
        .iter()
        .filter(|r| {
            s.toll(&["--dry-run", "ring", "--runtime", r, "-n", "2,3,4"])
                .status
                .success()
        })
        .map(|r| r.to_string())
        .collect()
}

#[test]
fn two_tolls_on_an_empty_cache_both_build_and_measure() {
    let s = Scratch::new("build-race");
    let cache = s.0.join("cache");
    let runtimes = present(&s, &["c", "go", "java", "erlang"]);
    if runtimes.is_empty() {
        println!("skipped: none of c, go, java, erlang is installed");
        return;
    }
    let list = runtimes.join(",");
    let ring = [
        "ring",
        "--runtime",
        &list,
        "-n",
        "2,3,4",
        "--trials",
        "1",
        "-m",
        "1",
    ];
    for o in twice(&s, &cache, &ring) {
        assert!(o.status.success(), "ring: {}", stderr(&o));
    }
    if runtimes.iter().any(|r| r == "go") {
        let rpc = [
            "rpc",
            "--runtime",
            "go",
            "--stack",
            "raw",
            "--trials",
            "1",
            "--calls",
            "100",
        ];
        for o in twice(&s, &cache, &rpc) {
            assert!(o.status.success(), "rpc: {}", stderr(&o));
        }
    }
    let ffi = [
        "ffi",
        "--runtime",
        "c,python",
        "--sizes",
        "0,8,16",
        "--trials",
        "1",
    ];
    for o in twice(&s, &cache, &ffi) {
        assert!(o.status.success(), "ffi: {}", stderr(&o));
    }
}
