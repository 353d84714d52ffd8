//! Every way toll can be asked to end cleans up: SIGTERM (what `timeout`,
//! `docker stop`, systemd and a CI time-out send) and SIGHUP (a closed
//! terminal) take Ctrl-C's path — the run stored partial, every process
//! toll started stopped, its temporary directories removed — and toll exits
//! 128 + the signal (143, 129). SIGKILL cannot be caught: every process
//! toll started gets SIGTERM from the kernel when toll dies and is gone
//! within seconds, and the next toll sweeps the temporary directory and
//! marks the run partial.
//!
//! Each test gives toll a TMPDIR of its own, so the temporary directories
//! looked for are this test's toll's only.

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

/// The TMPDIR this test gives toll.
fn tmpdir(s: &Scratch) -> PathBuf {
    let d = s.0.join("tmp");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every temporary file or directory of toll's under the test's TMPDIR
/// (toll keeps them in `toll-<uid>/<pid>-<start>/`).
fn temp_files(s: &Scratch) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(tmpdir(s)).unwrap().flatten();
    for e in entries.filter(|e| e.file_name().to_string_lossy().starts_with("toll")) {
        match std::fs::read_dir(e.path()) {
            Ok(inner) => found.extend(inner.flatten().map(|i| i.path())),
            Err(_) => found.push(e.path()),
        }
    }
    found
}

/// `toll --db <scratch db> ARGS`, with the test's TMPDIR, not yet waited for.
fn toll(s: &Scratch, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toll"));
    c.arg("--db")
        .arg(s.db())
        .args(args)
        .env("TMPDIR", tmpdir(s))
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// A process's group, from /proc/PID/stat.
fn pgid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()
}

/// `pid: command line`, for a message.
fn described(pid: u32) -> String {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
    format!("{pid} (group {}): {}", pgid(pid).unwrap_or(0), cmd.trim())
}

/// Every running process now in one of `groups`.
fn in_groups(groups: &BTreeSet<u32>) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|&p| pgid(p).is_some_and(|g| groups.contains(&g)) && alive(p))
        .collect()
}

/// The status of every run in the store, read by a new toll (which sweeps
/// what a killed one left).
fn statuses(s: &Scratch) -> Vec<String> {
    let o = toll(s, &["runs", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    runs.as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
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
    assert!(temp_files(s).is_empty(), "{signal}: {:?}", temp_files(s));
    // What was measured is stored partial; no run is left "running".
    let status = statuses(s);
    assert!(
        status.iter().any(|s| s == "partial"),
        "{signal}: {status:?}"
    );
    assert!(
        !status.iter().any(|s| s == "running"),
        "{signal}: {status:?}"
    );
}

/// Watch `child` for `wait` while it works, recording every process group
/// it starts; then SIGKILL it and check that within 5 s no process of those
/// groups is left, and that the next toll sweeps its temporary directory
/// and marks its run partial.
fn kill_midway(s: &Scratch, child: Child, wait: Duration) {
    let pid = child.id();
    let mut groups = BTreeSet::new();
    let start = Instant::now();
    let leaders = || -> Vec<u32> {
        // The groups toll made: those its descendants lead.
        let all = descendants(pid);
        all.into_iter().filter(|&p| pgid(p) == Some(p)).collect()
    };
    while start.elapsed() < wait {
        groups.extend(leaders());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Then at the first moment a run is being stored and a group is up.
    let ready = |groups: &BTreeSet<u32>| {
        statuses(s).iter().any(|s| s == "running") && !in_groups(groups).is_empty()
    };
    while !ready(&groups) {
        assert!(start.elapsed() < Duration::from_secs(120), "no run began");
        groups.extend(leaders());
        std::thread::sleep(Duration::from_millis(200));
    }
    groups.extend(leaders());
    let before = in_groups(&groups);
    assert!(!before.is_empty(), "toll started no process group to watch");
    eprintln!("before SIGKILL of toll {pid}:");
    for p in &before {
        eprintln!("  {}", described(*p));
    }
    assert!(!temp_files(s).is_empty(), "toll made no temporary files");
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&o.status),
        Some(9)
    );
    std::thread::sleep(Duration::from_secs(5));
    let left = in_groups(&groups);
    eprintln!("5 s after: {} process(es) of those groups", left.len());
    let shown: Vec<String> = left.iter().map(|&p| described(p)).collect();
    assert!(left.is_empty(), "processes left: {shown:#?}");
    // The next toll, whatever it does, sweeps and marks.
    let status = statuses(s);
    assert!(temp_files(s).is_empty(), "not swept: {:?}", temp_files(s));
    assert!(!status.is_empty(), "no run was stored");
    assert!(!status.iter().any(|s| s == "running"), "{status:?}");
    // The run it closed says what it holds (its process wrote no summary).
    let o = toll(s, &["runs", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in runs.as_array().unwrap() {
        let summary = r["summary"].as_str().unwrap_or("");
        assert!(
            summary.contains("before its process stopped")
                || summary.contains("stopped before any point was measured")
                || r["status"] != "partial",
            "{r}"
        );
    }
}

fn long_transfer(s: &Scratch) -> Child {
    toll(s, &["transfer", "--peer", "rust,c", "--via", "pipe,unix"])
        .args(["--sizes", "0:100000:1000", "--trials", "3"])
        .args(["--warmup-ms", "5", "--batch-ms", "20"])
        .spawn()
        .unwrap()
}

fn e5(s: &Scratch) -> Child {
    toll(s, &["replicate", "E5", "--test-preset"])
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
    let child = e5(&s);
    // At a moment that varies from run to run, within the servers' work.
    let ms = 3000 + u64::from(std::process::id() % 4000);
    signal_midway(&s, child, Duration::from_millis(ms), Signal::SIGTERM, 143);
}

#[test]
fn sighup_during_e5_stops_every_server_and_exits_129() {
    let s = Scratch::new("sighup-e5");
    let child = e5(&s);
    // At a moment that varies from run to run, within the servers' work.
    let ms = 3000 + u64::from(std::process::id() % 4000);
    signal_midway(&s, child, Duration::from_millis(ms), Signal::SIGHUP, 129);
}

#[test]
fn sigkill_of_a_transfer_leaves_no_peer_and_the_next_toll_sweeps() {
    let s = Scratch::new("sigkill");
    let child = long_transfer(&s);
    kill_midway(&s, child, Duration::from_millis(2500));
}

#[test]
fn sigkill_during_e5_leaves_no_server_and_the_next_toll_sweeps() {
    let s = Scratch::new("sigkill-e5");
    let child = e5(&s);
    // At a moment that varies from run to run, within the servers' work.
    let ms = 3000 + u64::from(std::process::id() % 4000);
    kill_midway(&s, child, Duration::from_millis(ms));
}
