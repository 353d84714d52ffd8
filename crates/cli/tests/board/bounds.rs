//! What bounds `toll board` and `toll push` (issue 34): a client that sends
//! half a request is dropped within the header timeout while others are
//! served; one address holds at most its share of connections; a run
//! pushed again is answered with the board's copy, not stored again; and
//! `toll push` reads no more of a reply than a board would send.

use super::{ok, runs, token, toll, toll_env, Board};
use crate::common::{assert_one_line_error, stderr, stdout, Scratch, QUICK};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// The board's header read timeout (crates/board/src/conn.rs), and the
/// slack a loaded machine may add to it.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
const SLACK: Duration = Duration::from_secs(3);
/// Connections one address may hold.
const PER_ADDRESS: usize = 64;

/// What sent half a request and waits: the head's first lines, no end.
fn half_sent(addr: &str) -> TcpStream {
    let mut c = TcpStream::connect(addr).unwrap();
    c.write_all(b"GET /runs HTTP/1.1\r\nHost: x\r\n").unwrap();
    c.set_nonblocking(true).unwrap();
    c
}

/// Whether the board has closed `c` (an end of file, a reset, or a last
/// answer before it closes).
fn closed(c: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    match c.read(&mut buf) {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(_) => true,
    }
}

#[test]
fn half_sent_requests_are_closed_within_the_header_timeout_while_others_are_served() {
    let s = Scratch::new("board-half-sent");
    let db = s.db();
    let board = Board::start(db.to_str().unwrap(), &[]);
    let start = Instant::now();
    let mut held: Vec<(TcpStream, Option<Duration>)> =
        (0..50).map(|_| (half_sent(&board.addr), None)).collect();
    let mut served = 0;
    let mut slowest = Duration::ZERO;
    while held.iter().any(|h| h.1.is_none()) && start.elapsed() < HEADER_TIMEOUT + 2 * SLACK {
        let t = Instant::now();
        let (status, page) = board.get("/runs");
        assert_eq!(status, 200, "another client, while 50 wait: {page}");
        slowest = slowest.max(t.elapsed());
        served += 1;
        for (c, at) in held.iter_mut().filter(|h| h.1.is_none()) {
            if closed(c) {
                *at = Some(start.elapsed());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let late: Vec<Option<Duration>> = held
        .iter()
        .map(|h| h.1)
        .filter(|at| at.is_none_or(|at| at > HEADER_TIMEOUT + SLACK))
        .collect();
    assert!(late.is_empty(), "not closed in time: {late:?}");
    let first = held.iter().filter_map(|h| h.1).min().unwrap();
    assert!(
        first >= HEADER_TIMEOUT - Duration::from_millis(500),
        "closed before the timeout, at {first:?}"
    );
    // Served throughout: a request every ~100 ms for the whole wait.
    assert!(served >= 20, "only {served} requests served meanwhile");
    assert!(slowest < SLACK, "another client waited {slowest:?}");
    drop(held);
    assert_eq!(board.get("/runs").0, 200, "served after");
}

/// A connection to `to` from `from` (any loopback address: Linux routes
/// all of 127/8 to this host).
fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    use nix::sys::socket::{bind, connect, socket, AddressFamily, SockFlag, SockType, SockaddrIn};
    use std::os::fd::AsRawFd;
    let fd = socket(
        AddressFamily::Inet,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .unwrap();
    let [a, b, c, d] = from;
    bind(fd.as_raw_fd(), &SockaddrIn::new(a, b, c, d, 0)).unwrap();
    let SocketAddr::V4(to) = to else {
        panic!("{to}: the board listens on IPv4 here")
    };
    connect(fd.as_raw_fd(), &SockaddrIn::from(to)).unwrap();
    TcpStream::from(fd)
}

#[test]
fn one_address_holds_at_most_its_share_of_connections() {
    let s = Scratch::new("board-per-address");
    let db = s.db();
    let board = Board::start(db.to_str().unwrap(), &[]);
    let start = Instant::now();
    let mut held: Vec<TcpStream> = (0..PER_ADDRESS).map(|_| half_sent(&board.addr)).collect();
    // One more from the same address: closed at accept, long before the
    // header timeout.
    let mut over = half_sent(&board.addr);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !closed(&mut over) {
        assert!(
            Instant::now() < deadline,
            "the connection over the share stays open"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Its share is its own: another address is served meanwhile.
    let addr: SocketAddr = board.addr.parse().unwrap();
    let mut other = connect_from([127, 0, 0, 2], addr);
    other
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    other
        .write_all(b"GET /runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    other.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        start.elapsed() < HEADER_TIMEOUT,
        "the share was tested after the held ones could time out"
    );
    let open = held.iter_mut().map(closed).filter(|c| !c).count();
    assert_eq!(open, PER_ADDRESS, "the share's connections stay open");
    drop(held);
    drop(other);
    // Given back as they close: the address is served again.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut c = TcpStream::connect(&board.addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        c.write_all(b"GET /runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        let _ = c.read_to_string(&mut answer);
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the address's share never came back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_run_pushed_three_times_is_stored_once_and_answered_with_one_id() {
    let s = Scratch::new("board-push-again");
    let here = s.db();
    let here = here.to_str().unwrap();
    let there = s.0.join("board.db");
    let there = there.to_str().unwrap();
    let mut a = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1000",
    ];
    a.extend_from_slice(QUICK);
    ok(&toll(here, &a), "transfer");
    let key = token(there, "ci");
    let board = Board::start(there, &[]);
    let push = |run: &str| {
        toll_env(
            here,
            &["push", run, "--to", &board.url],
            &[("TOLL_TOKEN", &key)],
        )
    };
    let mut urls = Vec::new();
    for i in 0..3 {
        let o = push("last");
        urls.push(ok(&o, "push").trim().to_string());
        let said = stderr(&o);
        assert_eq!(
            said.contains("on the board already"),
            i > 0,
            "push {i}: {said}"
        );
    }
    assert!(
        urls[0].starts_with(&format!("{}/runs/", board.url)),
        "{urls:?}"
    );
    assert!(urls.iter().all(|u| *u == urls[0]), "one id: {urls:?}");
    assert_eq!(runs(&board).len(), 1, "stored once");
    // Another run of the same machine is another run.
    ok(&toll(here, &a), "transfer");
    let o = push("last");
    let url = ok(&o, "push").trim().to_string();
    assert_ne!(url, urls[0]);
    assert_eq!(runs(&board).len(), 2);
}

/// A server that answers one request with `head` and then `body_len`
/// bytes; its address.
fn fake_board(head: String, body_len: usize) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // Read the whole request first: closing with it unread would reset
        // the connection before the reply is read.
        let mut got = Vec::new();
        let mut buf = [0u8; 65536];
        let mut want = None;
        while want.is_none_or(|w| got.len() < w) {
            let Ok(n) = c.read(&mut buf) else { break };
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
            if want.is_none() {
                if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                    let text = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                    let len = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    want = Some(end + 4 + len);
                }
            }
        }
        let _ = c.write_all(head.as_bytes());
        let chunk = vec![b'x'; 65536];
        let mut sent = 0;
        // The client stops reading at its limit: the writes fail then.
        while sent < body_len && c.write_all(&chunk).is_ok() {
            sent += chunk.len();
        }
    });
    (addr, t)
}

#[test]
fn a_reply_larger_than_a_board_sends_is_one_error_line() {
    let s = Scratch::new("board-push-reply");
    let db = s.db();
    let db = db.to_str().unwrap();
    let mut a = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1000",
    ];
    a.extend_from_slice(QUICK);
    ok(&toll(db, &a), "transfer");
    let huge = 64 << 20;
    for head in [
        // Its length said up front, and not said (read until it closes).
        format!("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: {huge}\r\n\r\n"),
        "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".to_string(),
    ] {
        let (addr, server) = fake_board(head.clone(), huge);
        let url = format!("http://{addr}");
        let t = Instant::now();
        let o = toll_env(
            db,
            &["push", "last", "--to", &url],
            &[("TOLL_TOKEN", "toll_x")],
        );
        assert_one_line_error(&o, &format!("the board at {url} answered with more than"));
        assert!(!o.status.success());
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        assert!(t.elapsed() < Duration::from_secs(20), "{head}");
        server.join().unwrap();
    }
}
