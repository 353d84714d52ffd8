//! Every way toll can be asked to end cleans up: SIGTERM (what `timeout`,
//! `docker stop`, systemd and a CI time-out send) and SIGHUP (a closed
//! terminal) take Ctrl-C's path — the run stored partial, every process
//! toll started stopped, its temporary directories removed — and toll exits
//! 128 + the signal (143, 129).

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every descendant of `pid` now (children of each of its threads, and
/// theirs).
fn descendants(pid: u32) -> BTreeSet<u32> {
    let mut found = BTreeSet::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for c in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                if found.insert(c) {
                    todo.push(c);
                }
            }
        }
    }
    found
}

/// Whether a process still runs (a zombie does not count).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").split_whitespace().next();
            !matches!(state, Some("Z") | Some("X") | None)
        })
        .unwrap_or(false)
}

/// toll's temporary directories that name `pid`.
fn temp_dirs(pid: u32) -> Vec<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.starts_with(&format!("toll-{pid}-")) || name == format!("toll-replicate-{pid}")
        })
        .collect()
}

/// Watch `child` for `wait` while it works, recording every process it
/// starts; then send `signal` and check it ends as Ctrl-C would.
fn signal_midway(s: &Scratch, child: Child, wait: Duration, signal: Signal, code: i32) {
    let pid = child.id();
    let mut seen = BTreeSet::new();
    let start = Instant::now();
    while start.elapsed() < wait {
        seen.extend(descendants(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
    seen.extend(descendants(pid));
    assert!(!seen.is_empty(), "toll started no process to watch");
    kill(Pid::from_raw(pid as i32), signal).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(code), "{signal}: {}", stderr(&o));
    // Nothing toll started outlives it by more than a few seconds.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut left: Vec<u32> = seen.iter().copied().filter(|&p| alive(p)).collect();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left.retain(|&p| alive(p));
    }
    assert!(left.is_empty(), "{signal}: processes left: {left:?}");
    assert!(temp_dirs(pid).is_empty(), "{signal}: {:?}", temp_dirs(pid));
    // What was measured is stored partial; no run is left "running".
    let o = s.toll(&["runs", "--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let status: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert!(status.contains(&"partial"), "{signal}: {status:?}");
    assert!(!status.contains(&"running"), "{signal}: {status:?}");
}

fn long_transfer(s: &Scratch) -> Child {
    Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["transfer", "--peer", "rust,c", "--via", "pipe,unix"])
        .args(["--sizes", "0:100000:1000", "--trials", "3"])
        .args(["--warmup-ms", "5", "--batch-ms", "20"])
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn sigterm_stops_a_transfer_as_ctrl_c_does_and_exits_143() {
    let s = Scratch::new("sigterm");
    let child = long_transfer(&s);
    signal_midway(&s, child, Duration::from_millis(2500), Signal::SIGTERM, 143);
}

#[test]
fn sighup_stops_a_transfer_as_ctrl_c_does_and_exits_129() {
    let s = Scratch::new("sighup");
    let child = long_transfer(&s);
    signal_midway(&s, child, Duration::from_millis(2500), Signal::SIGHUP, 129);
}

#[test]
fn sigterm_during_e5_stops_every_server_and_exits_143() {
    let s = Scratch::new("sigterm-e5");
    let child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["replicate", "E5", "--test-preset"])
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // At a moment that varies from run to run, within the servers' work.
    let ms = 3000 + u64::from(std::process::id() % 4000);
    signal_midway(&s, child, Duration::from_millis(ms), Signal::SIGTERM, 143);
}
