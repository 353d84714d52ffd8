//! Every measuring command finishes its own run when stopped (issue 47):
//! a point under way in a worker (Python, Erlang) is abandoned about a
//! second after the signal, not waited for; what completed is stored
//! partial with its summary; a stop before any point was measured stores
//! nothing and says so; the status is 128 + the signal; no process toll
//! started is left. The stop comes from `timeout`, which delivers SIGTERM
//! twice (to toll, then to its process group): one stop, not "quit at once".
//!
//! Asserted bounds are loose (a minute-long point must end within 20 s);
//! the time it took is printed.

mod common;
use common::*;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `timeout --preserve-status -s TERM <after> toll --db … ARGS`: its output,
/// and how long after the signal toll took to exit.
fn stopped_after(s: &Scratch, after: u64, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let o = Command::new("timeout")
        .args(["--preserve-status", "-s", "TERM", &after.to_string()])
        .arg(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(args)
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .env("TOLL_TEST_MARK", &s.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run timeout");
    let late = started.elapsed().saturating_sub(Duration::from_secs(after));
    (o, late)
}

/// Processes still running whose environment names this test's scratch
/// directory (toll and every worker it started inherit it).
fn left(s: &Scratch) -> Vec<String> {
    let needle = format!("TOLL_TEST_MARK={}", s.0.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == needle.as_bytes()))
        })
        .map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            format!(
                "{pid}: {}",
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            )
        })
        .collect()
}

fn nothing_left(s: &Scratch) {
    let end = Instant::now() + Duration::from_secs(5);
    while !left(s).is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(left(s).is_empty(), "processes left: {:?}", left(s));
}

fn runs(s: &Scratch) -> Vec<serde_json::Value> {
    let o = s.toll(&["runs", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A ring whose first point takes minutes: stopped 4 s in, before any
/// trial completed. Abandoned, nothing stored, one line, 143.
fn a_long_point_is_abandoned(runtime: &str, unit: &str, n: &str) {
    let s = Scratch::new(&format!("stopped-long-{runtime}"));
    let args = [
        "ring",
        "--runtime",
        runtime,
        "--unit",
        unit,
        "-n",
        n,
        "-m",
        "1000000",
        "--trials",
        "3",
        "--max-time",
        "3600",
    ];
    let (o, late) = stopped_after(&s, 4, &args);
    println!(
        "{runtime}: toll exited {:.2} s after the signal",
        late.as_secs_f64()
    );
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(
        late < Duration::from_secs(20),
        "a minute-long point was waited for: {late:?}"
    );
    let err = stderr(&o);
    assert!(
        err.contains("stopped before any point was measured: nothing stored"),
        "{err}"
    );
    assert!(runs(&s).is_empty(), "{:?}", runs(&s));
    nothing_left(&s);
}

#[test]
fn a_python_point_under_way_is_abandoned_and_nothing_is_stored() {
    a_long_point_is_abandoned("python", "thread", "200");
}

#[test]
fn an_erlang_point_under_way_is_abandoned_and_nothing_is_stored() {
    a_long_point_is_abandoned("erlang", "process", "1000");
}

/// Many short trials, stopped mid-run: what completed is stored partial
/// with its summary, the report printed, 143.
fn what_completed_is_kept(op: &str, runtime: &str, unit: &str, m: &[&str]) {
    let s = Scratch::new(&format!("stopped-kept-{op}-{runtime}"));
    let mut args = vec![
        op,
        "--runtime",
        runtime,
        "--unit",
        unit,
        "-n",
        "2,4,8",
        "--trials",
        "10000",
    ];
    args.extend_from_slice(m);
    let (o, _) = stopped_after(&s, 6, &args);
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(stderr(&o).contains("stored as partial"), "{}", stderr(&o));
    let all = runs(&s);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["status"], "partial", "{all:?}");
    let summary = all[0]["summary"].as_str().unwrap_or("");
    assert!(summary.contains("cheapest"), "its summary: {summary:?}");
    assert!(stdout(&o).contains("N"), "the report: {}", stdout(&o));
    // Trials the stop cut are said to be, not blamed on the time ceiling.
    assert!(
        !stdout(&o).contains("fitted in the time ceiling"),
        "{}",
        stdout(&o)
    );
    nothing_left(&s);
}

#[test]
fn a_stopped_python_ring_keeps_what_completed_with_its_summary() {
    what_completed_is_kept("ring", "python", "thread", &["-m", "100"]);
}

#[test]
fn a_stopped_erlang_spawn_keeps_what_completed_with_its_summary() {
    what_completed_is_kept("spawn", "erlang", "process", &[]);
}

/// The same for the other worker families: a stopped `toll ffi` (Python's
/// ctypes, Erlang's NIF) and `toll file` (Python's readers) keep what they
/// measured, partial, with a summary, 143, no process left.
fn kept(name: &str, args: &[&str], summary_has: &str) {
    let s = Scratch::new(&format!("stopped-kept-{name}"));
    let (o, _) = stopped_after(&s, 8, args);
    assert_eq!(o.status.code(), Some(143), "{name}: {}", stderr(&o));
    let all = runs(&s);
    assert_eq!(all.len(), 1, "{name}: {all:?}");
    assert_eq!(all[0]["status"], "partial", "{name}: {all:?}");
    let summary = all[0]["summary"].as_str().unwrap_or("");
    assert!(
        summary.contains(summary_has),
        "{name}: its summary {summary:?}"
    );
    nothing_left(&s);
}

#[test]
fn a_stopped_ffi_keeps_what_completed() {
    for (runtime, binding) in [("python", "ctypes"), ("erlang", "nif")] {
        kept(
            &format!("ffi-{runtime}"),
            &[
                "ffi",
                "--runtime",
                runtime,
                "--binding",
                binding,
                "--sizes",
                "0,1Ki,4Ki",
                "--trials",
                "100000",
                "--warmup-ms",
                "5",
                "--batch-ms",
                "5",
            ],
            "cheapest",
        );
    }
}

#[test]
fn a_stopped_file_keeps_what_completed() {
    kept(
        "file-python",
        &[
            "file",
            "--runtime",
            "python",
            "--file",
            "/usr/bin/env",
            "--pattern",
            "random",
            "--reads",
            "1000",
            "--cache",
            "warm",
            "--trials",
            "1000",
        ],
        "series",
    );
}
