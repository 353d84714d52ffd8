//! A peer that dies or talks garbage mid-run, Ctrl-C, and databases that are
//! not toll's or cannot be written: clear errors, nothing lost.

mod common;
use common::*;
use std::process::Command;

/// Every peer the set-up installs (Haskell is optional, and tested by its own
/// worker test when GHC is there).
const PEERS: [&str; 7] = ["rust", "c", "python", "node", "go", "java", "erlang"];

fn faulty_run(s: &Scratch, peer: &str, fault: &str) -> std::process::Output {
    let mut args = vec![
        "transfer",
        "--peer",
        peer,
        "--via",
        "unix,pipe",
        "--sizes",
        "0:4000:1000",
    ];
    args.extend_from_slice(QUICK);
    s.toll_env(&args, &[("TOLL_WORKER_FAULT", fault)])
}

fn measured_points(run: &serde_json::Value) -> usize {
    run["series"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["points"].as_array().unwrap())
        .filter(|p| p["status"] == "ok")
        .count()
}

#[test]
fn a_peer_that_exits_mid_run_leaves_a_partial_run() {
    for peer in PEERS {
        let s = Scratch::new(&format!("exit-{peer}"));
        // Sizes 0, 1000, …: the worker dies at the first frame of 2000 items.
        let o = faulty_run(&s, peer, "exit:2000");
        assert_one_line_error(&o, &format!("peer {peer} exited unexpectedly"));
        assert!(stderr(&o).contains("stored as partial"), "{}", stderr(&o));
        let run = export_json(&s, "last");
        assert_eq!(run["status"], "partial", "{peer}");
        assert!(run["error"].as_str().unwrap().contains("exited"));
        assert_eq!(
            measured_points(&run),
            2,
            "{peer}: the points before the crash (0, 1000) are kept"
        );
        let failed = &run["series"][0]["points"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(failed["status"], "failed");
    }
}

#[test]
fn a_peer_that_sends_garbage_leaves_a_partial_run() {
    for peer in PEERS {
        let s = Scratch::new(&format!("garbage-{peer}"));
        let o = faulty_run(&s, peer, "garbage:2000");
        assert_one_line_error(
            &o,
            &format!("peer {peer} broke the protocol: bad reply to frame"),
        );
        assert!(stderr(&o).contains("no TOLR magic"), "{}", stderr(&o));
        let run = export_json(&s, "last");
        assert_eq!(run["status"], "partial");
        assert_eq!(measured_points(&run), 2);
        assert!(stdout(&s.toll(&["runs"])).contains("partial"));
    }
}

/// A transfer of 101 sizes, 1.5 s into measuring.
fn long_run_under_way(s: &Scratch) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["transfer", "--sizes", "0:100000:1000"])
        .args(["--trials", "3", "--warmup-ms", "5", "--batch-ms", "20"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child
}

#[test]
fn ctrl_c_stores_a_partial_run_and_exits_130() {
    let s = Scratch::new("sigint");
    let child = long_run_under_way(&s);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("stored as partial"));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    assert_eq!(run["error"], "interrupted by the user");
    assert!(measured_points(&run) >= 1);
}

#[test]
fn a_file_that_is_not_a_toll_database_is_refused_untouched() {
    let s = Scratch::new("not-db");
    std::fs::write(s.db(), "these are my notes\n").unwrap();
    let o = s.toll(&["runs"]);
    assert_one_line_error(&o, "is not a toll database");
    assert!(stderr(&o).contains("--db"));
    assert_eq!(
        std::fs::read_to_string(s.db()).unwrap(),
        "these are my notes\n"
    );
    let o = s.toll(&["transfer"]);
    assert_one_line_error(&o, "is not a toll database");
}

#[test]
fn a_read_only_database_can_be_read_but_not_written() {
    let s = Scratch::new("ro-db");
    let mut args = vec!["transfer", "--via", "pipe", "--sizes", "0,100"];
    args.extend_from_slice(QUICK);
    assert!(s.toll(&args).status.success());
    // Root ignores mode bits; in a new user namespace toll loses that power,
    // so the file's r--r--r-- binds it as it binds any user.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(s.db(), std::fs::Permissions::from_mode(0o444)).unwrap();
    let run_as_nobody = |toll_args: &[&str]| {
        Command::new("unshare")
            .arg("-U")
            .arg(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(s.db())
            .args(toll_args)
            .output()
            .expect("unshare (util-linux) runs")
    };
    let o = run_as_nobody(&["runs"]);
    assert!(o.status.success(), "reading a read-only db: {}", stderr(&o));
    assert!(stdout(&o).contains("complete"));
    let o = run_as_nobody(&["rm", "1"]);
    assert_one_line_error(&o, "is read-only");
    let o = run_as_nobody(&["transfer", "--via", "pipe", "--sizes", "0,100"]);
    assert_one_line_error(
        &o,
        "is read-only: make it writable, or pick another file with --db PATH",
    );
    let o = s.toll(&["runs"]);
    assert!(stdout(&o).contains("complete"), "the run is still there");
}

#[test]
fn a_killed_toll_leaves_a_sound_database_and_a_partial_run() {
    let s = Scratch::new("sigkill");
    let mut child = long_run_under_way(&s);
    child.kill().unwrap();
    child.wait().unwrap();
    // The next toll to open the database sees the run's process is gone.
    let o = s.toll(&["runs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("partial"), "{}", stdout(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    assert!(
        measured_points(&run) >= 1,
        "points stored before the kill are kept"
    );
    // And the database still takes new runs.
    let mut args = vec!["transfer", "--via", "pipe", "--sizes", "0,100"];
    args.extend_from_slice(QUICK);
    assert!(s.toll(&args).status.success());
}

/// The pids of every descendant of `pid` whose executable's name ends with `name`.
fn descendants_named(pid: u32, name: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for c in children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok())
            {
                let exe = std::fs::read_link(format!("/proc/{c}/exe")).unwrap_or_default();
                if exe.to_string_lossy().ends_with(name) {
                    found.push(c);
                }
                todo.push(c);
            }
        }
    }
    found
}

#[test]
fn a_peer_killed_mid_run_ends_its_own_series_and_the_others_complete() {
    let s = Scratch::new("kill-one-peer");
    let child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .arg("--wide")
        .args(["transfer", "--peer", "python,go,c", "--via", "pipe"])
        .args(["--sizes", "0:40000:4000"])
        // Long enough (about 2 s a peer) to be killed mid-series.
        .args(["--trials", "40", "--warmup-ms", "5", "--batch-ms", "5"])
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The go worker that measures (a short-lived probe of the same binary
    // may come first): one still alive 300 ms after it was seen.
    let start = std::time::Instant::now();
    loop {
        assert!(start.elapsed().as_secs() < 120, "the go worker never ran");
        let Some(&go) = descendants_named(child.id(), "toll-worker-go").first() else {
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        let pid = nix::unistd::Pid::from_raw(go as i32);
        if nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).is_ok() {
            break;
        }
    }
    let o = child.wait_with_output().unwrap();
    // The exit status says a series failed; the message names the peer.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the other peers go on"),
        "{}",
        stderr(&o)
    );
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    let series = run["series"].as_array().unwrap();
    let by = |label: &str| series.iter().find(|x| x["label"] == label).unwrap().clone();
    for label in ["python/pipe", "c/pipe"] {
        let points = by(label)["points"].as_array().unwrap().clone();
        assert_eq!(points.len(), 11, "{label}: every size");
        assert!(points.iter().all(|p| p["status"] == "ok"), "{label}");
    }
    // Cut short: a size failed, sizes were never tried, or (killed between
    // rounds, each on fresh channels) fewer rounds than the 40 asked.
    let go_points = by("go/pipe")["points"].as_array().unwrap().clone();
    let rounds = go_points
        .iter()
        .map(|p| p["samples"].as_array().map_or(0, Vec::len))
        .min()
        .unwrap_or(0);
    assert!(
        go_points.iter().any(|p| p["status"] == "failed") || go_points.len() < 11 || rounds < 40,
        "go/pipe was not cut short: {} points, {rounds} rounds",
        go_points.len()
    );
    assert!(
        run["error"].as_str().unwrap().contains("go"),
        "{}",
        run["error"]
    );
}
