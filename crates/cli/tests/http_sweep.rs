//! `toll http --sweep FROM..TO` end to end against a server made here whose
//! capacity is known by construction: every answer holds one of WORKERS
//! permits for HOLD, so it answers at most WORKERS ÷ HOLD requests a
//! second. The knee's interval must contain that capacity, and the sweep
//! must stop within two steps past it. The capacity (200 req/s, 40 ms
//! answers) is low enough that a busy machine beside the test cannot move
//! it: the server sleeps, it does not compute. Plus the mistakes refused
//! in one line before any load.

mod common;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const WORKERS: usize = 8;
const HOLD: Duration = Duration::from_millis(40);
/// WORKERS ÷ HOLD.
const CAPACITY: f64 = 200.0;

/// A counting semaphore: the server's workers.
struct Permits {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Permits {
    fn hold(&self, d: Duration) {
        let mut free = self.free.lock().unwrap();
        while *free == 0 {
            free = self.freed.wait(free).unwrap();
        }
        *free -= 1;
        drop(free);
        // Sleep to a deadline: a late wake-up is not carried forward.
        let end = Instant::now() + d;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
        *self.free.lock().unwrap() += 1;
        self.freed.notify_one();
    }
}

/// Answer each keep-alive request on `sock` after holding a permit.
fn serve(sock: TcpStream, permits: Arc<Permits>) {
    let mut out = sock.try_clone().unwrap();
    let mut r = BufReader::new(sock);
    let mut line = String::new();
    loop {
        // The request head: up to its blank line (GET, no body).
        loop {
            line.clear();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => {}
            }
        }
        permits.hold(HOLD);
        let body = "ok\n";
        let answer = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/plain\r\n\r\n{body}",
            body.len()
        );
        if out.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// The server on 127.0.0.1, a thread per connection; its URL.
fn start_server() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let permits = Arc::new(Permits {
        free: Mutex::new(WORKERS),
        freed: Condvar::new(),
    });
    std::thread::spawn(move || {
        for sock in l.incoming().flatten() {
            let p = permits.clone();
            std::thread::spawn(move || serve(sock, p));
        }
    });
    format!("http://127.0.0.1:{port}/")
}

#[test]
fn the_knee_brackets_the_capacity_and_the_sweep_stops_two_steps_past_it() {
    let s = Scratch::new("http-sweep");
    let url = start_server();
    let svg = s.0.join("sweep.svg");
    // 100, 158, 251, 398, 631, 1000 req/s: the capacity lies between the
    // second and the third, 26% from either. Steps of 2 s: a hiccup of
    // toll's at a step's end (a busy machine) costs its achieved rate
    // under 1%.
    let o = s.toll(&[
        "http",
        &url,
        "--sweep",
        "100..1000",
        "--steps",
        "6",
        "--step-duration",
        "2s",
        "-c",
        "32",
        "-k",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(run["family"], "http-sweep");
    let points = run["series"][0]["points"].as_array().unwrap();
    let report = &points[0]["extra"]["sweep"];
    let rates: Vec<f64> = report["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let knee = &report["knee"];
    let (lo, hi) = (knee["lo"].as_f64(), knee["hi"].as_f64());
    assert!(
        lo.is_some_and(|lo| lo < CAPACITY) && hi.is_some_and(|hi| hi > CAPACITY),
        "the knee's interval [{lo:?}, {hi:?}] holds {CAPACITY}: {}",
        stdout_pretty(report)
    );
    assert_eq!(knee["passes"], 3);
    assert!((knee["level"].as_f64().unwrap() - 0.75).abs() < 1e-9);
    // Every step run is stored as a point, and none ran past the second
    // step above the capacity.
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(points.len(), runs.len());
    let first_above = rates.iter().position(|&r| r > CAPACITY).unwrap();
    let highest = runs.iter().map(|r| r["step"].as_u64().unwrap()).max();
    assert!(
        highest.is_some_and(|h| h as usize <= first_above + 1),
        "stopped within two steps past the capacity: step {highest:?} of {rates:?}"
    );
    // The corrected latency is timed from each request's slot; below the
    // capacity it sits on the server's floor.
    let below = &runs[0];
    let p50 = below["corrected"]["p50"].as_f64().unwrap();
    assert!(p50 >= HOLD.as_secs_f64() * 1e3, "{below}");
    // The two-segment fit sees the latency leave its floor at the knee.
    let split = &report["latency_break"]["split"];
    assert!(
        split[0].as_f64().unwrap() < CAPACITY && split[1].as_f64().unwrap() > CAPACITY,
        "{}",
        stdout_pretty(report)
    );
    // The picture: the percentiles, the SLO and the knee's interval.
    let drawn = std::fs::read_to_string(&svg).expect("the plot is written");
    for label in [
        "p99.9",
        "SLO, p99 ≤",
        "knee: interval of the capacity (≥75%)",
    ] {
        assert!(drawn.contains(label), "{label} not drawn");
    }
    // And `toll show` prints the stored sweep as the command did: its
    // table, knee and break, not its steps as points of a model in n.
    let shown = s.toll(&["show", "last"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let text = stdout(&shown);
    for needle in [
        "offered/s",
        "kept up",
        "A step keeps up when",
        "Knee: ",
        "Latency leaves its floor",
        "Stopped: ",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert!(!text.contains("median CI"), "no points table: {text}");
    // `toll report`'s page draws it, and prints its table.
    let page = s.0.join("page.html");
    let o = s.toll(&["report", "last", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Latency and achieved rate against offered</h3>\n<figure>\n<svg"));
    assert!(html.contains("Knee: "));
    // Its Markdown is the sweep's report too, not its steps as points.
    let o = s.toll(&["report", "last", "--format", "md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("Knee: ") && md.contains("kept up"), "{md}");
    assert!(
        !md.contains("### Models") && !md.contains("median CI"),
        "{md}"
    );
    // `toll compare` of two sweeps compares their knees: a sweep against
    // itself is within its own interval, at 1×.
    let o = s.toll(&["compare", "1", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("knee B / A: 1.000× [") && text.contains("(≥50% interval"),
        "{text}"
    );
    assert!(text.contains("within the intervals"), "{text}");
}

/// `toll agent` as a launcher: this very binary.
fn agent_cmd() -> String {
    format!("{} agent", env!("CARGO_BIN_EXE_toll"))
}

/// 100, 159, 252, 400 req/s, 1 s each: the capacity between the second
/// and the third.
const SHORT_SWEEP: [&str; 8] = [
    "--sweep",
    "100..400",
    "--steps",
    "4",
    "--step-duration",
    "1s",
    "-c",
    "32",
];

#[test]
fn a_sweep_through_two_agents_brackets_the_capacity_from_their_merged_histograms() {
    let s = Scratch::new("http-sweep-agents");
    let url = start_server();
    let agent = agent_cmd();
    let mut args = vec!["http", &url, "-k", "--repeats", "2"];
    args.extend(SHORT_SWEEP);
    args.extend(["--remote-cmd", &agent, "--remote-cmd", &agent]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = stdout(&o);
    assert!(
        printed.contains("from 2 load agent(s), each step's rate shared over them"),
        "{printed}"
    );
    let run = export_json(&s, "last");
    assert_eq!(run["family"], "http-sweep");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["config"]["agents"].as_array().unwrap().len(), 2);
    let points = run["series"][0]["points"].as_array().unwrap();
    let report = &points[0]["extra"]["sweep"];
    assert_eq!(report["agents"], 2);
    let knee = &report["knee"];
    let (lo, hi) = (knee["lo"].as_f64(), knee["hi"].as_f64());
    assert!(
        lo.is_some_and(|lo| lo < CAPACITY) && hi.is_some_and(|hi| hi > CAPACITY),
        "the knee's interval [{lo:?}, {hi:?}] holds {CAPACITY}: {}",
        stdout_pretty(report)
    );
    assert_eq!(knee["passes"], 2);
    // The lowest step, below the capacity: 3 requests on each of the 32
    // connections, 16 on each agent, every one answered and counted once
    // in the merge; its histogram holds them all.
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(points.len(), runs.len());
    let first = &runs[0];
    assert_eq!(first["requests"], 96, "{first}");
    assert_eq!(first["errors"], 0, "{first}");
    let counted: u64 = points[0]["extra"]["latency_ns_histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[1].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 96);
    // Timed from each request's slot on either agent: on the server's floor.
    assert!(first["corrected"]["p50"].as_f64().unwrap() >= HOLD.as_secs_f64() * 1e3);
    // `toll show` prints what the command printed, line for line.
    let shown = stdout(&s.toll(&["show", "last"]));
    let report_lines = printed
        .lines()
        .skip_while(|l| !l.starts_with("Sweep: "))
        .take_while(|l| !l.starts_with("Stopped: "));
    let mut n = 0;
    for line in report_lines.filter(|l| !l.trim().is_empty()) {
        assert!(
            shown.contains(line.trim_end()),
            "{line:?} not shown: {shown}"
        );
        n += 1;
    }
    assert!(n >= 8, "the report's lines: {printed}");
    assert!(!shown.contains("median CI"), "no points table: {shown}");
}

#[test]
fn an_agent_lost_mid_sweep_stops_it_names_it_and_keeps_the_steps_before() {
    let s = Scratch::new("http-sweep-agent-lost");
    let url = start_server();
    let agent = agent_cmd();
    // Starts as an agent three times (the warm-up and two steps), then
    // fails to start: the sweep's third step breaks.
    let count = s.0.join("launches");
    let failing = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); echo $((n + 1)) > {c}; [ $n -lt 3 ] || exit 3; exec {agent}",
        c = count.display()
    );
    let mut args = vec!["http", &url, "-k", "--repeats", "1"];
    args.extend(SHORT_SWEEP);
    args.extend(["--remote-cmd", &agent, "--remote-cmd", &failing]);
    let o = s.toll(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("the sweep stopped early, pass 1 step 3") && err.contains(&failing),
        "{err}"
    );
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    let why = run["error"].as_str().unwrap_or("");
    assert!(why.contains(&failing), "the lost agent is named: {why}");
    let points = run["series"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "the two steps that finished");
    let report = &points[0]["extra"]["sweep"];
    assert_eq!(report["partial"], true);
    assert!(report["stopped"].as_str().unwrap().contains("step 3"));
    // Its knee speaks of the steps that ran, not of those never reached.
    let shown = stdout(&s.toll(&["show", "last"]));
    assert!(
        shown.contains("capacity above 159 req/s (no step up to 159 failed)"),
        "{shown}"
    );
}

fn stdout_pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap()
}

#[test]
fn the_sweeps_mistakes_are_one_line_before_any_load() {
    let s = Scratch::new("http-sweep-bad");
    // Nothing listens here: a refusal that came after the preflight would
    // name the connection instead.
    let url = "http://127.0.0.1:9/";
    let cases: &[(&[&str], &str)] = &[
        (
            &["http", url, "--sweep", "500..100"],
            "FROM must be below TO",
        ),
        (
            &["http", url, "--sweep", "100..100"],
            "FROM must be below TO",
        ),
        (&["http", url, "--sweep", "100-500"], "is not a range"),
        (
            &["http", url, "--sweep", "a..500"],
            "is not a positive number",
        ),
        (&["http", url, "--sweep", "100..1e9"], "out of range"),
        (
            &["http", url, "--sweep", "100..500", "--rate", "100"],
            "cannot go with --rate",
        ),
        (
            &["http", url, "--sweep", "100..500", "-n", "1000"],
            "cannot go with -n",
        ),
        (
            &["http", url, "--sweep", "100..500", "--duration", "5s"],
            "cannot go with -t/--duration",
        ),
        (
            &["http", url, "--sweep", "100..500", "--io", "io_uring"],
            "cannot go with --io io_uring",
        ),
        (&["http", url, "--steps", "5"], "add --sweep FROM..TO"),
        (
            &["http", url, "--sweep", "10..500", "--step-duration", "1s"],
            "too few for the p99",
        ),
        (
            &["http", url, "--sweep", "100..500", "--slo", "0.5x"],
            "multiple above 1",
        ),
        (
            &["http", url, "--sweep", "100..500", "--steps", "1"],
            "--steps",
        ),
    ];
    assert_usage_errors(&s, cases);
    // Through load agents, what does not fit a sweep.
    let agent = agent_cmd();
    let two = ["--remote-cmd", &agent, "--remote-cmd", &agent];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--min-agents", "1"], "cannot go with --min-agents 1"),
        (
            vec!["--raw-latencies", "raw.json"],
            "cannot go with --raw-latencies",
        ),
        (vec!["-c", "1"], "2 agents need at least 2 connections"),
    ];
    let cases: Vec<(Vec<&str>, &str)> = cases
        .into_iter()
        .map(|(extra, needle)| {
            let mut v = vec!["http", url, "--sweep", "100..500"];
            v.extend(two);
            v.extend(extra);
            (v, needle)
        })
        .collect();
    let cases: Vec<(&[&str], &str)> = cases.iter().map(|(a, n)| (a.as_slice(), *n)).collect();
    assert_usage_errors(&s, &cases);
    let o = s.toll(&[
        "http",
        url,
        "--sweep",
        "1.5..500",
        "--step-duration",
        "100s",
        "-c",
        "2",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
    ]);
    assert_one_line_error(
        &o,
        "lower than the 2 agents that would share its first step",
    );
}
