//! `toll rpc` end to end: the real binary against its real Rust server on
//! loopback — every stack, blocking and pipelined, direct and through the
//! broker — and each bad input's one line. Small call counts: these check
//! what is measured and stored, never how fast.

mod common;
use common::far_host::{assert_root, FarHost};
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

const SMALL: &[&str] = &["--calls", "40", "--trials", "2", "--warmup", "5"];

fn json_run(s: &Scratch, args: &[&str]) -> Value {
    let mut all = vec!["rpc"];
    all.extend_from_slice(args);
    all.extend_from_slice(SMALL);
    all.push("--json");
    let o = s.toll(&all);
    assert!(o.status.success(), "toll {all:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("--json prints JSON")
}

fn series(run: &Value) -> &Vec<Value> {
    run["series"].as_array().unwrap()
}

#[test]
fn every_stack_blocking_and_pipelined_direct_and_through_the_broker() {
    let s = Scratch::new("rpc-all");
    let run = json_run(
        &s,
        &[
            "--stack",
            "all",
            "--mode",
            "blocking,pipelined",
            "--in-flight",
            "4",
            "--path",
            "direct,broker",
        ],
    );
    assert_eq!(run["family"], "rpc");
    assert_eq!(run["status"], "complete");
    let all = series(&run);
    assert_eq!(all.len(), 4 * 2 * 2);
    for stack in ["raw", "http1", "h2", "grpc"] {
        for mode in ["blocking", "pipelined"] {
            for path in ["direct", "broker-per-call"] {
                let s = all
                    .iter()
                    .find(|s| {
                        s["attrs"]["stack"] == stack
                            && s["attrs"]["mode"] == mode
                            && s["attrs"]["path"] == path
                    })
                    .unwrap_or_else(|| panic!("no series {stack}/{path}/{mode}"));
                assert_eq!(s["attrs"]["runtime"], "rust");
                let in_flight = if mode == "blocking" { 1 } else { 4 };
                assert_eq!(s["attrs"]["in_flight"], in_flight);
                let p = &s["points"][0];
                assert_eq!(p["status"], "ok", "{stack}/{path}/{mode}: {p}");
                assert_eq!(p["n"], 0);
                let samples = p["samples"].as_array().unwrap();
                assert_eq!(samples.len(), 2);
                assert!(samples.iter().all(|x| x["iters"] == 40));
                // Every call made a round trip; a per-call look-up one more.
                let trips = p["extra"]["round_trips"].as_u64().unwrap();
                let per_call = if path == "direct" { 1 } else { 2 };
                assert_eq!(trips, 2 * 40 * per_call, "{stack}/{path}/{mode}");
                // The server's CPU was read around every trial.
                assert_eq!(p["extra"]["server_cpu_ns"].as_array().unwrap().len(), 2);
                assert!(p["extra"]["latency_p99_ns"].as_u64().unwrap() > 0);
            }
        }
    }
}

#[test]
fn the_ladder_is_the_default_and_prints_each_steps_difference() {
    let s = Scratch::new("rpc-ladder");
    let o = s.toll(&["rpc", "--calls", "30", "--trials", "2", "--warmup", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for row in [
        "raw-unix",
        "http1",
        "h2",
        "grpc",
        "broker-per-call",
        "pipelined ×8",
    ] {
        assert!(out.contains(row), "no {row} in:\n{out}");
    }
    assert!(out.contains("+ µs over row above"), "{out}");
    assert!(out.contains("run 1 stored (complete)"), "{out}");
}

#[test]
fn raw_over_a_unix_socket_and_a_lookup_once() {
    let s = Scratch::new("rpc-unix");
    let run = json_run(&s, &["--stack", "raw", "--via", "unix"]);
    assert_eq!(series(&run)[0]["attrs"]["via"], "unix");
    assert_eq!(series(&run)[0]["points"][0]["status"], "ok");
    // The floor over three connections, a thread each, per-call look-ups.
    let run = json_run(
        &s,
        &["--stack", "raw", "--connections", "3", "--path", "broker"],
    );
    let p = &series(&run)[0]["points"][0];
    assert_eq!(p["status"], "ok");
    assert_eq!(p["extra"]["round_trips"], 2 * 2 * 40);
    let run = json_run(
        &s,
        &[
            "--stack",
            "grpc",
            "--path",
            "broker",
            "--lookup",
            "once",
            "--connections",
            "2",
        ],
    );
    let p = &series(&run)[0]["points"][0];
    assert_eq!(series(&run)[0]["attrs"]["path"], "broker-once");
    assert_eq!(
        p["extra"]["round_trips"], 80,
        "one look-up per connection, none per call"
    );
}

#[test]
fn a_payload_sweep_is_fitted_and_plotted() {
    let s = Scratch::new("rpc-sweep");
    let svg = s.0.join("rpc.svg");
    let o = s.toll(&[
        "rpc",
        "--stack",
        "raw,h2",
        "--sizes",
        "0,1000,4000",
        "--calls",
        "30",
        "--trials",
        "3",
        "--warmup",
        "0",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("model t(n) = α + β·n"),
        "{}",
        stdout(&o)
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let o = s.toll(&["predict", "rpc", "--stack", "h2", "-n", "2000"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn fails(s: &Scratch, args: &[&str], code: i32, words: &[&str]) {
    let o = s.toll(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(
        err.trim().lines().count(),
        1,
        "{args:?}: one line, got {err}"
    );
    for w in words {
        assert!(err.contains(w), "{args:?}: no `{w}` in {err}");
    }
}

#[test]
fn bad_arguments_are_one_line_naming_the_fix() {
    let s = Scratch::new("rpc-bad");
    fails(
        &s,
        &["rpc", "--stack", "smtp"],
        2,
        &["smtp", "raw, http1, h2, grpc"],
    );
    fails(
        &s,
        &["rpc", "--mode", "async"],
        2,
        &["async", "blocking, pipelined"],
    );
    fails(
        &s,
        &["rpc", "--stack", "grpc", "--via", "unix"],
        2,
        &["raw only"],
    );
    fails(
        &s,
        &["rpc", "--stack", "raw", "--in-flight", "0"],
        2,
        &["--in-flight"],
    );
    fails(
        &s,
        &["rpc", "--runtime", "cobol"],
        2,
        &["rust, go or python"],
    );
    fails(&s, &["rpc", "--server", "nowhere"], 2, &["HOST:PORT"]);
    fails(&s, &["rpc", "--link", "mars"], 2, &["mars"]);
    fails(
        &s,
        &["rpc", "--stack", "raw", "--via", "unix", "--link", "lan"],
        2,
        &["stays on this machine"],
    );
    fails(
        &s,
        &["rpc", "--remote=-oProxyCommand=x"],
        2,
        &["not a host name"],
    );
    // Nothing was stored by any of them.
    assert!(!s.db().exists() || stdout(&s.toll(&["runs"])).lines().count() <= 1);
}

#[test]
fn a_server_that_is_not_there_is_named() {
    let s = Scratch::new("rpc-gone");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let addr = format!("127.0.0.1:{port}");
    fails(
        &s,
        &["rpc", "--stack", "raw", "--server", &addr],
        1,
        &["cannot connect", &addr],
    );
}

/// A `toll rpc-server` started by hand, serving `stack`: its port.
fn server(stack: &str) -> (Child, u16) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("rpc-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let stdin = c.stdin.as_mut().unwrap();
    writeln!(
        stdin,
        r#"{{"op":"serve","stack":"{stack}","host":"127.0.0.1","port":0}}"#
    )
    .unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    (c, v["port"].as_u64().unwrap() as u16)
}

#[test]
fn a_stack_mismatch_is_found_by_the_probe_before_the_run() {
    let s = Scratch::new("rpc-mismatch");
    for (ask, serves) in [
        ("grpc", "http1"),
        ("h2", "raw"),
        ("raw", "http1"),
        ("grpc", "h2"),
    ] {
        let (mut child, port) = server(serves);
        let addr = format!("127.0.0.1:{port}");
        fails(
            &s,
            &["rpc", "--stack", ask, "--server", &addr, "--timeout", "2s"],
            1,
            &[&format!("not a `{ask}` server"), "--stack"],
        );
        let _ = child.kill();
        let _ = child.wait();
    }
    // A server of the right stack is timed, without server CPU.
    let (mut child, port) = server("grpc");
    let run = json_run(
        &s,
        &["--stack", "grpc", "--server", &format!("127.0.0.1:{port}")],
    );
    assert_eq!(run["status"], "complete");
    assert_eq!(series(&run)[0]["attrs"]["runtime"], "external");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_server_that_dies_or_stalls_mid_run_leaves_a_partial_run() {
    for (fault, words) in [
        ("exit-after:150", "stopped or died"),
        ("stall-after:150", "no answer within"),
    ] {
        let s = Scratch::new(&format!("rpc-{}", &fault[..4]));
        let o = s.toll_env(
            &[
                "rpc",
                "--stack",
                "raw,http1",
                "--calls",
                "40",
                "--trials",
                "5",
                "--warmup",
                "0",
                "--timeout",
                "300ms",
            ],
            &[("TOLL_RPC_SERVER_FAULT", fault)],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{fault}: {err}");
        assert!(err.contains(words), "{fault}: {err}");
        assert!(err.contains("stored as partial"), "{fault}: {err}");
        let run: Value =
            serde_json::from_str(&stdout(&s.toll(&["export", "last", "--format", "json"])))
                .unwrap();
        assert_eq!(run["status"], "partial");
        // 150 calls answered: the trials before the fault are kept.
        let kept: usize = series(&run)
            .iter()
            .flat_map(|s| s["points"].as_array().unwrap())
            .map(|p| p["samples"].as_array().unwrap().len())
            .sum();
        assert_eq!(kept, 3, "{fault}: {run}");
    }
}

/// Every stack a runtime's server has, through every path: direct, toll's
/// broker, haproxy and nginx (Debian's, started on loopback with generated
/// configs), blocking and pipelined; each call counted by the server.
fn every_path(runtime: &str, stacks: &[&str]) {
    let s = Scratch::new(&format!("rpc-paths-{runtime}"));
    let list = stacks.join(",");
    let run = json_run(
        &s,
        &[
            "--runtime",
            runtime,
            "--stack",
            &list,
            "--mode",
            "blocking,pipelined",
            "--in-flight",
            "3",
            "--path",
            "direct,broker,haproxy,nginx",
        ],
    );
    assert_eq!(run["status"], "complete", "{run}");
    let all = series(&run);
    assert_eq!(all.len(), stacks.len() * 2 * 4);
    for s in all {
        assert_eq!(s["attrs"]["runtime"], runtime);
        let p = &s["points"][0];
        assert_eq!(p["status"], "ok", "{}: {p}", s["label"]);
        let per_call = if s["attrs"]["path"] == "broker-per-call" {
            2
        } else {
            1
        };
        assert_eq!(
            p["extra"]["round_trips"].as_u64().unwrap(),
            2 * 40 * per_call,
            "{}",
            s["label"]
        );
    }
}

#[test]
fn go_server_every_stack_through_every_path() {
    every_path("go", &["raw", "http1", "h2", "grpc"]);
}

#[test]
fn python_server_every_stack_through_every_path() {
    // The standard library has no HTTP/2 server: Python's has no h2.
    every_path("python", &["raw", "http1", "grpc"]);
}

#[test]
fn a_stack_the_runtime_lacks_is_refused_before_the_run() {
    let s = Scratch::new("rpc-lacks");
    let o = s.toll(&["rpc", "--stack", "h2", "--runtime", "python"]);
    assert_one_line_error(&o, "h2");
    assert!(stderr(&o).contains("python"), "{}", stderr(&o));
    if s.db().exists() {
        let runs = stdout(&s.toll(&["runs"]));
        assert!(runs.contains("no runs stored"), "nothing stored: {runs}");
    }
}

/// Mean ns per call of the series labelled `label`, at its first size.
fn mean_of(run: &Value, label: &str) -> f64 {
    let s = series(run)
        .iter()
        .find(|s| s["label"] == label)
        .unwrap_or_else(|| panic!("no series {label} in {run}"));
    assert_eq!(s["points"][0]["status"], "ok", "{label}: {s}");
    s["points"][0]["summary"]["mean"].as_f64().unwrap()
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn across_an_emulated_link_every_round_trip_pays_the_delay_twice() {
    assert_root();
    let s = Scratch::new("rpc-link");
    let run = json_run(
        &s,
        &[
            "--link",
            "delay=2ms,rate=100mbit",
            "--stack",
            "raw,grpc",
            "--path",
            "direct,broker",
        ],
    );
    assert_eq!(run["status"], "complete", "{run}");
    assert_eq!(
        run["config"]["far"]["link"],
        "delay=2000us,rate=100000000bit"
    );
    assert!(
        run["config"]["server"]
            .as_str()
            .unwrap()
            .contains("across an emulated link"),
        "{}",
        run["config"]["server"]
    );
    for stack in ["raw", "grpc"] {
        let direct = mean_of(&run, &format!("rust/{stack}/direct/blocking"));
        let broker = mean_of(&run, &format!("rust/{stack}/broker-per-call/blocking"));
        // One round trip is two crossings of 2 ms; a per-call look-up at
        // the broker (beside the server, across the link) is one more.
        assert!(direct >= 4e6, "{stack} direct: {direct} ns is below 4 ms");
        assert!(
            broker >= 8e6,
            "{stack} via the broker: {broker} ns is below 8 ms"
        );
    }
    for s in series(&run) {
        assert_eq!(s["attrs"]["far"]["link"], "delay=2000us,rate=100000000bit");
    }
    let left = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let me = format!("toll-{}-", std::process::id());
    assert!(!String::from_utf8_lossy(&left.stdout).contains(&me));
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_far_host_serves_every_path_through_toll_agent() {
    assert_root();
    let far = FarHost::new();
    let s = Scratch::new("rpc-far");
    let launcher = far.launcher();
    let run = json_run(
        &s,
        &[
            "--remote-cmd",
            &launcher,
            "--stack",
            "raw,http1",
            "--path",
            "direct,broker,haproxy",
            "--mode",
            "blocking,pipelined",
            "--in-flight",
            "4",
        ],
    );
    assert_eq!(run["status"], "complete", "{run}");
    assert_eq!(run["config"]["far"]["remote"], launcher.as_str());
    assert_eq!(series(&run).len(), 2 * 3 * 2);
    for s in series(&run) {
        let p = &s["points"][0];
        assert_eq!(p["status"], "ok", "{}: {p}", s["label"]);
        // The far server counted every call: its CPU was read around each trial.
        assert_eq!(p["extra"]["server_cpu_ns"].as_array().unwrap().len(), 2);
    }
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn the_go_server_on_a_far_host() {
    assert_root();
    let far = FarHost::new();
    let s = Scratch::new("rpc-far-go");
    let launcher = far.launcher();
    let run = json_run(
        &s,
        &[
            "--runtime",
            "go",
            "--remote-cmd",
            &launcher,
            "--stack",
            "grpc",
            "--path",
            "direct,broker",
        ],
    );
    assert_eq!(run["status"], "complete", "{run}");
    assert!(run["config"]["server"]
        .as_str()
        .unwrap()
        .starts_with("go server"));
}

#[test]
fn a_far_host_that_cannot_start_the_server_is_one_line() {
    let s = Scratch::new("rpc-far-bad");
    let o = s.toll(&[
        "rpc",
        "--remote-cmd",
        "no-such-toll-here agent",
        "--stack",
        "raw",
    ]);
    assert_one_line_error(&o, "install toll on the far host");
    let worker = format!("{} worker", env!("CARGO_BIN_EXE_toll"));
    let o = s.toll(&["rpc", "--remote-cmd", &worker, "--stack", "raw"]);
    assert_one_line_error(&o, "rather than as `toll agent`");
    // An agent here, asked for a server of a runtime that has none.
    let here = format!("{} agent", env!("CARGO_BIN_EXE_toll"));
    let o = s.toll_env(
        &[
            "rpc",
            "--remote-cmd",
            &here,
            "--runtime",
            "go",
            "--stack",
            "raw",
        ],
        &[("TOLL_GO", "/nonexistent/go")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refused `rpc-server`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_path_is_shown_as_what_it_adds_over_direct() {
    let s = Scratch::new("rpc-over-direct");
    let mut args = vec!["rpc", "--stack", "raw", "--path", "direct,broker"];
    args.extend_from_slice(SMALL);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("+ µs over direct"), "{out}");
    let broker = out
        .lines()
        .find(|l| l.starts_with("raw") && l.contains("broker-per-call"))
        .unwrap_or_else(|| panic!("no broker row in {out}"));
    // The broker row ends with its difference and that difference's CI.
    assert!(
        broker.contains('+') && broker.trim_end().ends_with(']'),
        "{broker}"
    );
    let direct = out
        .lines()
        .find(|l| l.starts_with("raw") && l.contains("direct"))
        .unwrap();
    assert!(!direct.contains("[+"), "direct has no difference: {direct}");
}
