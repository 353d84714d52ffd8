//! `toll http --io`: the plain HTTP/1.1 closed loop on io_uring and on
//! epoll counts the same answers, bytes and failures; the run says which it
//! used; epoll is the default, `TOLL_HTTP_IO=io_uring` prefers io_uring; a
//! kernel that refuses io_uring (`TOLL_IO_URING_REFUSED` acts as one) gets
//! epoll when io_uring was preferred and a one-line error when it was asked
//! for. (scripts/test runs the http suites once more preferring io_uring,
//! and once preferring it where it is refused.)

mod common;
use common::nginx;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::time::Duration;

fn report(s: &Scratch) -> Value {
    let run = export_json(s, "last");
    run["series"][0]["points"][0]["extra"]["report"].clone()
}

/// The interface a run reports, and the same in its stored report.
fn interface(s: &Scratch, o: &std::process::Output) -> String {
    let text = stdout(o);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("toll's system interface: "))
        .unwrap_or_else(|| panic!("no interface line: {text}"))
        .to_string();
    assert_eq!(report(s)["io"], line.as_str());
    line
}

/// Whether this kernel runs toll's io_uring loop (asked as a user would).
fn uring_here(s: &Scratch, url: &str) -> bool {
    let o = s.toll(&["http", "--io", "io_uring", "-n", "1", url]);
    if o.status.success() {
        return true;
    }
    assert_one_line_error(&o, "--io io_uring: the kernel refuses it here (");
    false
}

#[test]
fn io_uring_and_epoll_count_the_same_answers_bytes_and_failures() {
    let s = Scratch::new("http-io");
    let server = nginx::start(&s, &[""]);
    let port = server.port();
    let hello = format!("http://127.0.0.1:{port}/hello.html");
    let big = format!("http://127.0.0.1:{port}/big.bin");
    let uring = uring_here(&s, &hello);
    let ios: &[&str] = if uring {
        &["io_uring", "epoll"]
    } else {
        &["epoll"]
    };
    for &io in ios {
        // Closing connections, kept-alive ones, and 1 MiB answers (read in
        // many parts: io_uring waits for whole buffers while the body is
        // longer than one).
        for (url, keep, n, size) in [
            (&hello, false, 800u64, 92u64),
            (&hello, true, 3000, 92),
            (&big, false, 40, 1 << 20),
            (&big, true, 40, 1 << 20),
        ] {
            let what = format!("{io}, {url}, keep-alive {keep}");
            let count = n.to_string();
            let mut args = vec!["http", "--io", io, "-n", &count, "-c", "6"];
            if keep {
                args.push("-k");
            }
            args.push(url);
            let o = s.toll(&args);
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            assert_eq!(interface(&s, &o), io, "{what}");
            let r = report(&s);
            assert_eq!(r["complete_requests"], n, "{what}");
            assert_eq!(r["failed_requests"], 0, "{what}");
            assert_eq!(r["html_transferred"], n * size, "{what}");
            assert_eq!(r["keep_alive_requests"], if keep { n } else { 0 }, "{what}");
            let ms = |row: &str, k: &str| r[row][k].as_f64().unwrap();
            // Each answer timed from its own request: connect, then the
            // first byte, then the end, in that order, and never negative.
            assert!(ms("connect", "min") >= 0.0, "{what}: {r}");
            assert!(ms("waiting", "min") >= 0.0, "{what}: {r}");
            assert!(ms("connect", "mean") <= ms("total", "mean"), "{what}: {r}");
            assert!(ms("waiting", "mean") <= ms("total", "mean"), "{what}: {r}");
            assert!(ms("total", "min") > 0.0, "{what}: {r}");
        }
    }
    // epoll by default; TOLL_HTTP_IO=io_uring prefers io_uring where the
    // kernel has it, with or without keep-alive.
    let prefer = [("TOLL_HTTP_IO", "io_uring")];
    for keep in [false, true] {
        let mut args = vec!["http", "-n", "200", "-c", "4"];
        if keep {
            args.push("-k");
        }
        args.push(&hello);
        // (Unset for this run: the suite itself may run preferring io_uring.)
        let o = s.toll_env(&args, &[("TOLL_HTTP_IO", "")]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(interface(&s, &o), "epoll");
        let o = s.toll_env(&args, &prefer);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(interface(&s, &o), if uring { "io_uring" } else { "epoll" });
    }
}

#[test]
fn requests_past_the_timeout_are_cancelled_on_io_uring_too() {
    // A server that reads each request and never answers.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(c);
                let mut line = String::new();
                while r.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                std::thread::sleep(Duration::from_secs(30));
            });
        }
    });
    let s = Scratch::new("http-io-stall");
    let url = format!("http://127.0.0.1:{port}/");
    for io in ["io_uring", "epoll"] {
        let o = s.toll(&["http", "--io", io, "-n", "4", "-c", "2", "-s", "0.5", &url]);
        if io == "io_uring" && stderr(&o).contains("the kernel refuses it here") {
            continue;
        }
        assert_eq!(o.status.code(), Some(1), "{io}: {}", stderr(&o));
        let r = report(&s);
        assert_eq!(r["timeouts"], 4, "{io}: {r}");
        assert_eq!(r["failures"]["receive"], 4, "{io}: {r}");
    }
}

#[test]
fn a_kernel_that_refuses_io_uring_gets_epoll_or_a_clear_error() {
    let s = Scratch::new("http-io-refused");
    let server = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", server.port());
    let refused = [
        (
            "TOLL_IO_URING_REFUSED",
            "Operation not permitted (os error 1)",
        ),
        ("TOLL_HTTP_IO", "io_uring"),
    ];
    // Preferred but refused: epoll, and the run says so.
    let o = s.toll_env(&["http", "-n", "100", "-c", "2", &url], &refused);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(interface(&s, &o), "epoll");
    assert_eq!(report(&s)["complete_requests"], 100);
    let runs = s.toll(&["runs"]);
    let before = stdout(&runs).lines().count();
    let o = s.toll_env(&["http", "--io", "io_uring", "-n", "100", &url], &refused);
    assert_one_line_error(
        &o,
        "--io io_uring: the kernel refuses it here (Operation not permitted (os error 1)): use --io epoll",
    );
    assert_eq!(
        stdout(&s.toll(&["runs"])).lines().count(),
        before,
        "nothing stored"
    );
    let o = s.toll_env(&["http", "-n", "10", &url], &[("TOLL_HTTP_IO", "uring")]);
    assert_one_line_error(
        &o,
        "TOLL_HTTP_IO=uring: give io_uring or epoll, or unset it",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_usage_errors(
        &Scratch::new("http-io-usage"),
        &[
            (
                &[
                    "http", "--io", "io_uring", "--rate", "100", "-n", "10", &url,
                ],
                "--io io_uring runs a closed loop (without --rate or --spin): drop one of them",
            ),
            (
                &["http", "--io", "io_uring", "--http2", "-n", "10", &url],
                "--io io_uring is for plain HTTP/1.1 (http:// without --http2): drop it",
            ),
            (
                &["http", "--io", "kqueue", "-n", "10", &url],
                "invalid value 'kqueue'",
            ),
        ],
    );
}

#[test]
fn ctrl_c_stops_either_loop_with_its_answers_stored_partial() {
    let s = Scratch::new("http-io-sigint");
    let server = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", server.port());
    for io in ["io_uring", "epoll"] {
        if io == "io_uring" && !uring_here(&s, &url) {
            continue;
        }
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(s.db())
            .args(["http", "--io", io, "-c", "8", "--duration", "30s", &url])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1200));
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGINT,
        )
        .unwrap();
        let o = child.wait_with_output().unwrap();
        // As wrk and ab: Ctrl-C ends the load, and the figures so far are
        // printed and stored, marked partial; the status says so (130), as
        // every toll command's does.
        assert_eq!(o.status.code(), Some(130), "{io}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("(interrupted: the figures cover"),
            "{io}"
        );
        let run = export_json(&s, "last");
        assert_eq!(run["status"], "partial", "{io}");
        let r = report(&s);
        assert!(r["complete_requests"].as_u64().unwrap() > 0, "{io}: {r}");
        assert_eq!(r["failed_requests"], 0, "{io}: {r}");
        assert_eq!(r["partial"], true, "{io}: {r}");
    }
}
