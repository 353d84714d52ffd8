//! Emulated links, checked against what they were asked to be: a round trip
//! pays the one-way delay twice, and N bytes take at least N/rate. Lower
//! bounds only: a busy machine may be slower, never faster. These tests make
//! network namespaces, so they need root: without it they are ignored
//! (`cfg(toll_root)`, from crates/store/build.rs), never passed.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};
use toll_families::link::{self, LinkError, LinkSpec};

/// Fails a `cfg(toll_root)` test run by someone else than the root who built it.
fn assert_root() {
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(
        euid, 0,
        "built as root (cfg toll_root), run as uid {euid}: making namespaces needs root; \
         rebuild as this user (touch crates/store/build.rs) to have this test ignored"
    );
}

/// An echo server inside the link's far end; returns its port.
fn echo_far(link: &link::Link) -> u16 {
    let listener = link
        .in_far(|| TcpListener::bind((link::FAR_IP, 0)))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        while let Ok((mut s, _)) = listener.accept() {
            std::thread::spawn(move || {
                let _ = s.set_nodelay(true);
                let mut buf = [0u8; 65536];
                let mut total = 0u64;
                loop {
                    match s.read(&mut buf) {
                        // The sink form: a client that half-closes gets the byte count.
                        Ok(0) | Err(_) => {
                            let _ = s.write_all(&total.to_le_bytes());
                            return;
                        }
                        Ok(n) if n == 1 && total == 0 && buf[0] == b'?' => {
                            let _ = s.write_all(b"!");
                        }
                        Ok(n) => total += n as u64,
                    }
                }
            });
        }
    });
    port
}

fn namespaces() -> String {
    let out = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn rtt(addr: std::net::SocketAddr) -> Duration {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_nodelay(true).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t0 = Instant::now();
    c.write_all(b"?").unwrap();
    let mut one = [0u8; 1];
    c.read_exact(&mut one).unwrap();
    assert_eq!(&one, b"!");
    t0.elapsed()
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_wan_round_trip_pays_the_delay_both_ways() {
    assert_root();
    let link = link::build(&LinkSpec::wan()).unwrap();
    let far = link.far_namespace().unwrap().to_string();
    assert!(namespaces().contains(&far));
    let addr = link.to_far(echo_far(&link)).unwrap();
    // 30 ms ± 5 ms each way: never below 50 ms, on average not below 55 ms.
    let rtts: Vec<Duration> = (0..8).map(|_| rtt(addr)).collect();
    let mean = rtts.iter().sum::<Duration>() / rtts.len() as u32;
    assert!(
        rtts.iter().all(|r| *r >= Duration::from_millis(50)),
        "{rtts:?}"
    );
    assert!(mean >= Duration::from_millis(55), "{rtts:?}");
    drop(link);
    assert!(
        !namespaces().contains(&far),
        "the link's namespaces outlived it"
    );
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_delay_without_jitter_is_a_floor_and_lan_is_above_its_own() {
    assert_root();
    let link = link::build(&"delay=20ms".parse().unwrap()).unwrap();
    let addr = link.to_far(echo_far(&link)).unwrap();
    for _ in 0..3 {
        let r = rtt(addr);
        assert!(r >= Duration::from_millis(40), "{r:?}");
    }
    let lan = link::build(&LinkSpec::lan()).unwrap();
    let addr = lan.to_far(echo_far(&lan)).unwrap();
    let r = rtt(addr);
    assert!(r >= Duration::from_micros(200), "{r:?}");
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn n_bytes_take_at_least_n_over_the_rate() {
    assert_root();
    let rate_bits = 8_000_000; // 1 MB/s
    let spec: LinkSpec = "delay=1ms,rate=8mbit".parse().unwrap();
    let link = link::build(&spec).unwrap();
    let addr = link.to_far(echo_far(&link)).unwrap();
    let n: u64 = 600_000;
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let t0 = Instant::now();
    c.write_all(&vec![7u8; n as usize]).unwrap();
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let mut count = [0u8; 8];
    c.read_exact(&mut count).unwrap();
    let took = t0.elapsed();
    assert_eq!(u64::from_le_bytes(count), n, "bytes lost on the link");
    // The bucket may pass its burst at once; everything else waits for tokens.
    let floor = (n - link::tbf_burst(rate_bits)) as f64 / (rate_bits / 8) as f64;
    assert!(took.as_secs_f64() >= floor, "{took:?} < {floor} s");
}

#[test]
fn loopback_builds_nothing() {
    let lo = link::build(&LinkSpec::Loopback).unwrap();
    assert!(lo.launcher().is_empty());
    assert_eq!(lo.to_far(80).unwrap().to_string(), "127.0.0.1:80");
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_killed_runs_namespaces_are_swept() {
    assert_root();
    // A pid that is not running: its namespace is a killed run's leftover.
    let dead = (4_000_000..4_100_000)
        .find(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
        .unwrap();
    let stale = format!("toll-{dead}-0-near");
    let made = std::process::Command::new("ip")
        .args(["netns", "add", &stale])
        .status()
        .unwrap();
    assert!(made.success());
    let link = link::build(&"delay=1ms".parse().unwrap()).unwrap();
    let left = namespaces();
    let _ = std::process::Command::new("ip")
        .args(["netns", "del", &stale])
        .status();
    assert!(
        !left.contains(&stale),
        "a dead run's namespace was kept: {left}"
    );
    drop(link);
}

#[test]
fn without_permission_the_error_is_one_line_naming_loopback() {
    let e = LinkError::NotPermitted.to_string();
    assert_eq!(
        e,
        "network namespaces are not permitted here (need root or CAP_NET_ADMIN): --link loopback still works"
    );
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_panic_still_tears_the_link_down() {
    assert_root();
    let (tx, rx) = std::sync::mpsc::channel();
    let panicked = std::thread::spawn(move || {
        let link = link::build(&"delay=1ms".parse().unwrap()).unwrap();
        tx.send(link.far_namespace().unwrap().to_string()).unwrap();
        panic!("a measurement went wrong");
    })
    .join();
    assert!(panicked.is_err());
    let far = rx.recv().unwrap();
    assert!(!namespaces().contains(&far), "{far} outlived a panic");
}
