//! `toll http compare` end to end: nginx against a deliberately slow server
//! in this process, short rounds; the stored run; Ctrl-C; user mistakes.

mod common;
use common::nginx::{self, free_port};
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A keep-alive HTTP/1.1 server in this process that sleeps 2 ms before
/// each answer: at -c 2 it serves at most ~1000 requests/s.
fn slow_server() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(c.try_clone().unwrap());
                let mut c = c;
                let mut line = String::new();
                loop {
                    // One request head, up to its blank line.
                    loop {
                        line.clear();
                        match r.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) if line == "\r\n" => break,
                            Ok(_) => {}
                        }
                    }
                    std::thread::sleep(Duration::from_millis(2));
                    if c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// The `seq` of each round in `rounds` (a stored point's extra).
fn seqs(rounds: &Value) -> Vec<u64> {
    rounds
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seq"].as_u64().unwrap())
        .collect()
}

#[test]
fn nginx_against_a_slow_server_alternates_rounds_and_calls_it_slower() {
    let s = Scratch::new("compare-nginx");
    let nginx = nginx::start(&s, &[""]);
    let fast = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    let slow = format!("http://127.0.0.1:{}/", slow_server());
    let o = s.toll(&[
        "http",
        "compare",
        &fast,
        &slow,
        "-c",
        "2",
        "-k",
        "--round",
        "300ms",
        "--warmup-max",
        "3",
        "--min-rounds",
        "4",
        "--max-rounds",
        "4",
        "--plot",
        s.0.join("cmp.svg").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Both servers on one chart: latency by percentile, rate by round.
    let svg = std::fs::read_to_string(s.0.join("cmp.svg")).unwrap();
    for want in [
        "latency by percentile",
        "requests per second over time",
        "warm-up round (not measured)",
        "median of 4 rounds",
        "A GET http",
        "B GET http",
        "99%",
    ] {
        assert!(svg.contains(want), "{want} missing from the plot");
    }
    let text = stdout(&o);
    for want in [
        fast.as_str(),
        slow.as_str(),
        "alternating rounds: A B, then B A",
        "Round length:           0.300 seconds",
        "Concurrency Level:      2 (keep-alive)",
        "Warm-up rounds:         A 3",
        "Measured rounds:        4 of each server",
        "B / A",
        "slower",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));

    let run = export_json(&s, "last");
    assert_eq!(run["family"], "http-compare");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["config"]["round_ns"], 300_000_000);
    let series = run["series"].as_array().unwrap();
    assert_eq!(series.len(), 2, "one series per URL");
    assert!(series[0]["label"].as_str().unwrap().contains(&fast));
    assert!(series[1]["label"].as_str().unwrap().contains(&slow));
    for se in series {
        let p = &se["points"][0];
        let samples = p["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 4, "a sample per measured round");
        for x in samples {
            assert!(x["iters"].as_u64().unwrap() > 0, "{x}");
            let ns = x["total_ns"].as_u64().unwrap();
            assert!(
                (250_000_000..1_000_000_000).contains(&ns),
                "a round lasts --round: {ns} ns"
            );
        }
        assert_eq!(p["extra"]["warmup"].as_array().unwrap().len(), 3);
        assert_eq!(p["extra"]["rounds"].as_array().unwrap().len(), 4);
    }
    // Stored order: warm-up A B A B A B (0…5), then measured cycles A B,
    // B A, A B, B A (6…13): ABBA, so neither side always goes first.
    let a = &series[0]["points"][0]["extra"];
    let b = &series[1]["points"][0]["extra"];
    assert_eq!(seqs(&a["warmup"]), [0, 2, 4]);
    assert_eq!(seqs(&b["warmup"]), [1, 3, 5]);
    assert_eq!(seqs(&a["rounds"]), [6, 9, 10, 13]);
    assert_eq!(seqs(&b["rounds"]), [7, 8, 11, 12]);
    let starts = |e: &Value| -> Vec<u64> {
        e["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["start_ns"].as_u64().unwrap())
            .collect()
    };
    let (sa, sb) = (starts(a), starts(b));
    for i in 0..4 {
        // A pair's rounds follow each other, A first in even cycles.
        if i % 2 == 0 {
            assert!(sa[i] < sb[i], "cycle {i}: A before B");
        } else {
            assert!(sb[i] < sa[i], "cycle {i}: B before A");
        }
    }
    // The slow server's ratio: well below 1, its CI below 1, called slower.
    let ratio = &b["ratio"];
    let (median, hi) = (
        ratio["estimate"]["median"].as_f64().unwrap(),
        ratio["estimate"]["hi"].as_f64().unwrap(),
    );
    assert!(median < 0.7, "the slow server's ratio is {median}");
    assert!(hi < 1.0, "its CI excludes 1: {ratio}");
    assert_eq!(ratio["verdict"], "slower");
    assert_eq!(ratio["pairs"], 4);
    assert!(a["ratio"].is_null(), "the first server is the base");
    // Each measured round's full report is kept.
    assert!(
        a["rounds"][0]["report"]["complete_requests"]
            .as_u64()
            .unwrap()
            > 0
    );

    let listing = stdout(&s.toll(&["runs"]));
    assert!(
        listing.contains("http-compare") && listing.contains("slower"),
        "{listing}"
    );
    let shown = stdout(&s.toll(&["show", "last"]));
    assert!(
        shown.contains("comparison") && shown.contains("B / A") && shown.contains(&slow),
        "{shown}"
    );
}

#[test]
fn ctrl_c_ends_after_the_current_round_and_stores_a_partial_run() {
    let s = Scratch::new("compare-sigint");
    let a = format!("http://127.0.0.1:{}/", slow_server());
    let b = format!("http://127.0.0.1:{}/", slow_server());
    let child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["http", "compare", &a, &b, "-c", "2", "-k"])
        .args([
            "--round",
            "400ms",
            "--warmup-max",
            "0",
            "--min-rounds",
            "30",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("stored as partial"), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    assert_eq!(run["error"], "interrupted by the user");
    let samples = run["series"][0]["points"][0]["samples"].as_array().unwrap();
    assert!(!samples.is_empty(), "rounds before the stop are kept");
    for x in samples {
        assert!(
            x["total_ns"].as_u64().unwrap() >= 350_000_000,
            "the round under way ran to its end: {x}"
        );
    }
}

#[test]
fn user_mistakes_and_refused_servers_are_one_line_errors() {
    let s = Scratch::new("compare-bad");
    let up = format!("http://127.0.0.1:{}/", slow_server());
    let closed = format!("http://127.0.0.1:{}/", free_port());
    // Usage errors: exit 2, one line naming the flag.
    // One URL is not a comparison.
    let o = s.toll(&["http", "compare", &up]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_one_line_error(&o, "toll http compare --help");
    assert!(stderr(&o).contains("2 values required"), "{}", stderr(&o));
    for (args, want) in [
        (vec!["--round", "soon"], "--round `soon`"),
        (vec!["--round", "0"], "--round"),
        (vec!["--round", "10ms"], "--round 10ms is too short"),
        (vec!["--ci", "0"], "--ci `0`"),
        (vec!["--ci", "abc"], "--ci `abc`"),
        (vec!["--ci", "150"], "--ci `150`"),
        (
            vec!["--min-rounds", "1"],
            "--min-rounds must be from 3 to 1000",
        ),
        (vec!["--max-rounds", "1e20"], "--max-rounds `1e20`"),
        (
            vec!["--max-rounds", "100000000000000000000"],
            "--max-rounds must be from 1 to 1000",
        ),
        (
            vec!["--warmup-max", "5000"],
            "--warmup-max must be from 0 to 1000",
        ),
        // Huge times once panicked in Duration::from_secs_f64.
        (
            vec!["--round", "1e20"],
            "--round 1e20 is out of range: give 1ms to 1h",
        ),
        (
            vec!["--max-time", "1e20"],
            "--max-time 1e20 is out of range: give 1ms to 24h",
        ),
        (
            vec!["-s", "1e20"],
            "-s 1e20 is out of range: give 1ms to 1h",
        ),
        (vec!["--spin", "1e20"], "--spin 1e20 is longer than 10ms"),
        (
            vec!["--coalesce", "1e20"],
            "--coalesce 1e20 is longer than 1ms",
        ),
        (
            vec!["--min-rounds", "9", "--max-rounds", "5"],
            "--max-rounds 5",
        ),
        (vec!["--warmup-max", "x"], "--warmup-max `x`"),
        (vec!["--max-time", "-1"], "--max-time `-1`"),
        (vec!["--round", "-2s"], "--round `-2s`"),
        (vec!["-n", "100"], "-n does not apply"),
        (vec!["--duration", "5s"], "--round"),
        (vec!["--rate", "100"], "--rate"),
    ] {
        let mut all = vec!["http", "compare", up.as_str(), up.as_str()];
        all.extend(args.iter().copied());
        let o = s.toll(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_one_line_error(&o, want);
    }
    // A server that refuses connections: named, exit 1, nothing stored.
    let o = s.toll(&["http", "compare", &up, &closed, "--round", "200ms"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_one_line_error(&o, &closed);
    assert!(stderr(&o).contains("cannot connect"), "{}", stderr(&o));
    assert!(!s.db().exists(), "nothing stored for a refused comparison");
}
