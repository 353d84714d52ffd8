//! `toll agent` as the far end: a second network namespace joined by veth
//! plays the far host, `ip netns exec` the launcher, and the measured
//! traffic crosses the veth. Tests that make namespaces need root (CI runs
//! as root) and are ignored without it (`cfg(toll_root)`); each removes
//! what it made, on failure too (the namespace is deleted when its guard
//! is dropped).

mod common;
use common::far_host::{assert_root, FarHost};
use common::*;
use std::process::Command;

fn medians(run: &serde_json::Value) -> Vec<f64> {
    run["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["summary"]["median"].as_f64().unwrap())
        .collect()
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_transfer_to_a_far_host_is_measured_over_the_veth_and_stored() {
    assert_root();
    let far = FarHost::new();
    let s = Scratch::new("agent-far");
    let launcher = far.launcher();
    let mut args = vec!["transfer", "--remote-cmd", &launcher, "--sizes", "0,1000"];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("peer: far end started by"),
        "{}",
        stdout(&o)
    );
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["config"]["far"]["remote"], launcher.as_str());
    let series = &run["series"][0];
    assert_eq!(series["attrs"]["transport"], "tcp");
    assert_eq!(series["attrs"]["far"]["remote"], launcher.as_str());
    // A round trip over veth: more than nothing, far less than a second.
    for m in medians(&run) {
        assert!(m > 1_000.0 && m < 1e9, "{m} ns");
    }
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn across_an_emulated_link_a_round_trip_pays_the_delay_twice() {
    assert_root();
    let s = Scratch::new("agent-link");
    let mut args = vec![
        "transfer",
        "--link",
        "delay=10ms,rate=50mbit",
        "--sizes",
        "0,100",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(
        run["config"]["far"]["link"],
        "delay=10000us,rate=50000000bit"
    );
    for m in medians(&run) {
        assert!(
            m >= 20e6,
            "a round trip of {m} ns is below twice the 10 ms delay"
        );
    }
    let left = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let me = format!("toll-{}-", std::process::id());
    assert!(
        !String::from_utf8_lossy(&left.stdout).contains(&me),
        "namespaces left behind"
    );
}

#[test]
fn a_far_host_without_toll_is_one_line_naming_the_fix() {
    let s = Scratch::new("agent-no-toll");
    let o = s.toll(&[
        "transfer",
        "--remote-cmd",
        "no-such-toll-here agent",
        "--sizes",
        "0,1",
    ]);
    assert_one_line_error(&o, "install toll on the far host");
    // Nothing was measured, so the run is stored as failed, not lost.
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "failed");
}

#[test]
fn a_launcher_that_is_not_an_agent_or_has_no_ssh_is_named() {
    let s = Scratch::new("agent-not-agent");
    let worker = format!("{} worker", env!("CARGO_BIN_EXE_toll"));
    let o = s.toll(&["transfer", "--remote-cmd", &worker, "--sizes", "0,1"]);
    assert_one_line_error(&o, "rather than as `toll agent`");
    let o = s.toll_env(
        &["transfer", "--remote", "b.example"],
        &[("PATH", "/nonexistent")],
    );
    assert_one_line_error(&o, "ssh, which was not found");
    let o = s.toll(&["transfer", "--remote", "host.invalid", "--sizes", "0,1"]);
    assert_one_line_error(&o, "could not connect");
    let o = s.toll(&["transfer", "--remote-cmd", "x", "--via", "shm"]);
    assert_one_line_error(&o, "speaks tcp only, not shm");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_agent_whose_worker_dies_mid_run_leaves_a_partial_run() {
    let s = Scratch::new("agent-dies");
    // The agent here, on loopback: the fault travels to the worker it becomes.
    let launcher = format!("{} agent", env!("CARGO_BIN_EXE_toll"));
    let mut args = vec![
        "transfer",
        "--remote-cmd",
        &launcher,
        "--remote-addr",
        "127.0.0.1",
        "--sizes",
        "0:4000:1000",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll_env(&args, &[("TOLL_WORKER_FAULT", "exit:2000")]);
    assert_one_line_error(&o, "exited unexpectedly");
    assert!(stderr(&o).contains("stored as partial"), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    let ok = run["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "ok")
        .count();
    assert_eq!(ok, 2, "the points before the crash (0, 1000) are kept");
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn ctrl_c_across_a_link_stores_the_run_and_removes_the_namespaces() {
    assert_root();
    let s = Scratch::new("agent-ctrl-c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args([
            "transfer",
            "--link",
            "delay=2ms",
            "--sizes",
            "0,10",
            "--trials",
            "100000",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mine = format!("toll-{}-", child.id());
    let listed = || {
        let o = Command::new("ip").args(["netns", "list"]).output().unwrap();
        String::from_utf8_lossy(&o.stdout).contains(&mine)
    };
    // Wait (bounded) for the link, then for a little measuring.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !listed() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(listed(), "the link was never built");
    std::thread::sleep(std::time::Duration::from_secs(2));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!listed(), "namespaces left behind after Ctrl-C");
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to run toll as nobody: run the tests as root (CI does)"
)]
fn without_permission_for_namespaces_link_says_so_in_one_line() {
    assert_root();
    // Root can be anyone: run toll as `nobody`, who may not make namespaces.
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new("agent-nobody");
    std::fs::set_permissions(&s.0, std::fs::Permissions::from_mode(0o777)).unwrap();
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["transfer", "--link", "wan", "--sizes", "0,1"])
        .env("HOME", &s.0)
        .env("TOLL_CACHE_DIR", &s.0)
        .output()
        .unwrap();
    assert_one_line_error(
        &o,
        "network namespaces are not permitted here (need root or CAP_NET_ADMIN): --link loopback still works",
    );
}
