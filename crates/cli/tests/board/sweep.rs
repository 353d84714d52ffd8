//! A sweep pushed to a board (issue 51): its run page is the sweep's —
//! the picture of latency and achieved rate against offered, the knee with
//! its interval, the SLO's rule and a row per step — not a table of points.

use super::{ok, runs, token, toll, toll_env, Board};
use crate::common::Scratch;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// A server on 127.0.0.1 that answers every keep-alive GET at once; its URL.
fn start_server() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for sock in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut out = sock.try_clone().unwrap();
                let mut r = BufReader::new(sock);
                let mut line = String::new();
                loop {
                    loop {
                        line.clear();
                        match r.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) if line == "\r\n" => break,
                            Ok(_) => {}
                        }
                    }
                    let answer = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
                    if out.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/")
}

#[test]
fn a_pushed_sweep_has_its_knee_its_steps_and_its_picture_on_its_page() {
    let s = Scratch::new("board-sweep");
    let here = s.0.join("here.db");
    let here = here.to_str().unwrap();
    let url = start_server();
    // 100 and 200 req/s, 1 s each, one pass.
    ok(
        &toll(
            here,
            &[
                "http",
                &url,
                "-k",
                "-c",
                "4",
                "--sweep",
                "100..200",
                "--steps",
                "2",
                "--step-duration",
                "1s",
                "--repeats",
                "1",
            ],
        ),
        "sweep",
    );
    let board_db = s.0.join("board.db");
    let board_db = board_db.to_str().unwrap();
    let key = token(board_db, "team");
    let board = Board::start(board_db, &[]);
    let o = toll_env(
        here,
        &["push", "last", "--to", &board.url],
        &[("TOLL_TOKEN", &key)],
    );
    ok(&o, "push");
    let pushed = runs(&board);
    assert_eq!(pushed.len(), 1, "{pushed:?}");
    assert_eq!(pushed[0]["family"], "http-sweep");
    let id = pushed[0]["id"].as_i64().unwrap();
    let (status, page) = board.get(&format!("/runs/{id}"));
    assert_eq!(status, 200, "{page}");
    // The picture, the report's heading and its parts.
    assert!(
        page.contains("Latency and achieved rate against offered</h3>\n<figure>\n<svg"),
        "{page}"
    );
    for needle in [
        "As <code>toll http --sweep</code> reported it",
        "<th>offered/s</th><th>achieved/s</th><th>p50</th>",
        "<th>errors</th><th>kept up</th>",
        "A step keeps up when achieved ≥ 99% of offered",
        "<p><strong>Knee: ",
        "(one pass: no level)</strong></p>",
        "<p>Stopped: ",
    ] {
        assert!(page.contains(needle), "{needle} not on the page: {page}");
    }
    // A row per step: its offered rate first, its nine cells, and how
    // many of its one pass kept up last (which, a busy machine decides).
    let rows: Vec<&str> = page
        .lines()
        .filter(|l| l.starts_with("<tr><td class=\"num\">"))
        .collect();
    assert_eq!(rows.len(), 2, "{page}");
    for (row, offered) in rows.iter().zip(["100", "200"]) {
        assert!(
            row.starts_with(&format!("<tr><td class=\"num\">{offered}</td>")),
            "{row}"
        );
        assert_eq!(row.matches("<td class=\"num\">").count(), 9, "{row}");
        assert!(row.ends_with("/1</td></tr>"), "{row}");
    }
    // Not the generic table of points in n.
    assert!(!page.contains("median CI"), "{page}");
}
