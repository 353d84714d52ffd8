//! What the board refuses, and how (issue 47): a push larger than
//! `--max-body` is refused on its declared length before a byte of its body
//! is read (no `100 Continue`); every 400 is one line naming what to fix —
//! JSON on the API, the board's page on a page — a bad date too; a bearer
//! token is taken whatever the case of its scheme; a pushed run's
//! summaries are made from its samples.

use super::{exec_export, runs, token, Board};
use crate::common::Scratch;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// `text` is one line of JSON, `{"error": "…"}`, whose reason holds each of
/// `needles`; the reason.
fn one_json_line(text: &str, needles: &[&str]) -> String {
    let line = text.strip_suffix('\n').unwrap_or(text);
    assert!(!line.contains('\n'), "more than one line: {text}");
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    let why = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error: {text}"))
        .to_string();
    for n in needles {
        assert!(why.contains(n), "`{n}` not in: {why}");
    }
    why
}

#[test]
fn a_push_over_the_limit_is_refused_on_its_length_before_its_body_is_read() {
    let s = Scratch::new("board-413");
    let db = s.db();
    let db = db.to_str().unwrap();
    let key = token(db, "ci");
    let board = Board::start(db, &["--max-body", "1Mi"]);
    for expect in ["Expect: 100-continue\r\n", ""] {
        // A terabyte declared, not a byte of it sent: the answer must come
        // without the body (a board that waited for it would never answer,
        // and the read below would time out).
        let mut c = TcpStream::connect(&board.addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            c,
            "POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 1000000000000\r\n{expect}\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer)
            .expect("an answer without the body");
        assert!(
            answer.starts_with("HTTP/1.1 413 "),
            "{expect:?}: the first line, not a 100 Continue: {answer}"
        );
        let body = answer.split_once("\r\n\r\n").unwrap().1;
        one_json_line(
            body,
            &["larger than this board takes (1048576 bytes)", "--max-body"],
        );
    }
    // Without a length said up front (chunked), it is cut at the limit.
    let mut c = TcpStream::connect(&board.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        c,
        "POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Transfer-Encoding: chunked\r\n\r\n"
    )
    .unwrap();
    let chunk = vec![b' '; 64 << 10];
    for _ in 0..20 {
        if write!(c, "{:x}\r\n", chunk.len()).is_err()
            || c.write_all(&chunk).is_err()
            || c.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let mut answer = String::new();
    let _ = c.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
    assert!(runs(&board).is_empty(), "nothing refused is stored");
}

#[test]
fn a_bearer_token_is_taken_whatever_the_case_of_its_scheme() {
    let s = Scratch::new("board-bearer");
    let run = exec_export(&s).to_string();
    let db = s.db();
    let db = db.to_str().unwrap();
    let key = token(db, "ci");
    let board = Board::start(db, &[]);
    for (i, scheme) in ["bearer", "BEARER", "Bearer", "bEaReR"].iter().enumerate() {
        let (status, answer) = board.request(
            "POST",
            "/api/runs",
            &[("Authorization", &format!("{scheme} {key}"))],
            run.as_bytes(),
        );
        // The first push stores the run; the others are answered with it.
        assert_eq!(status, if i == 0 { 201 } else { 200 }, "{scheme}: {answer}");
    }
    for wrong in [format!("Basic {key}"), key.clone()] {
        let (status, answer) = board.request(
            "POST",
            "/api/runs",
            &[("Authorization", &wrong)],
            run.as_bytes(),
        );
        assert_eq!(status, 401, "{wrong}: {answer}");
        one_json_line(&answer, &["Authorization: Bearer TOKEN"]);
    }
    assert_eq!(runs(&board).len(), 1);
}

#[test]
fn every_400_is_one_line_naming_what_to_fix_a_date_off_the_calendar_too() {
    let s = Scratch::new("board-400");
    let db = s.db();
    let db = db.to_str().unwrap();
    let key = token(db, "ci");
    let board = Board::start(db, &[]);
    for (query, needles) in [
        (
            "since=2026-13-45",
            &["since=2026-13-45 is not a date", "YYYY-MM-DD"][..],
        ),
        (
            "until=2026-02-29",
            &["until=2026-02-29 is not a date", "YYYY-MM-DD"],
        ),
        (
            "since=garbage",
            &["since=garbage is not a date", "YYYY-MM-DD"],
        ),
        (
            "page=x",
            &["the query does not read (page", "a whole number"],
        ),
    ] {
        // The API: JSON.
        let (status, body) = board.get(&format!("/api/runs?{query}"));
        assert_eq!(status, 400, "{query}: {body}");
        one_json_line(&body, needles);
        // The page: the board's page with the same line, not a
        // deserializer's bare text.
        let (status, page) = board.get(&format!("/runs?{query}"));
        assert_eq!(status, 400, "{query}: {page}");
        assert!(
            page.contains("<html") && page.contains(needles[0]),
            "{query}: {page}"
        );
        assert!(!page.contains("Failed to deserialize"), "{page}");
    }
    let (status, page) = board.get("/machines?desc=lots");
    assert_eq!(status, 400);
    assert!(
        page.contains("<html") && page.contains("desc takes 0 or 1"),
        "{page}"
    );
    assert_eq!(
        board.get("/api/runs?since=2024-02-29&until=2026-12-31").0,
        200
    );
    // A body that is not a run.
    let auth = format!("Bearer {key}");
    let mut wrong = exec_export(&s);
    wrong["series"] = 3.into();
    let mut no_iters = exec_export(&s);
    no_iters["series"][0]["points"][0]["samples"][1] = serde_json::json!({"total_ns": 5});
    for (body, needle) in [
        (b"{not json".to_vec(), "not JSON"),
        (b"\xff\xfe".to_vec(), "not JSON"),
        (
            wrong.to_string().into_bytes(),
            "$.series: integer, not array",
        ),
        (
            no_iters.to_string().into_bytes(),
            "$.series[0].points[0].samples[1]: `iters` is missing",
        ),
    ] {
        let (status, answer) =
            board.request("POST", "/api/runs", &[("Authorization", &auth)], &body);
        assert_eq!(status, 400, "{answer}");
        one_json_line(&answer, &[needle]);
    }
    assert!(runs(&board).is_empty());
}

#[test]
fn a_pushed_runs_summaries_are_made_from_its_samples() {
    let s = Scratch::new("board-summaries");
    let mut run = exec_export(&s);
    // Every sample 1 ns; the summary sent says 259 µs.
    let point = &mut run["series"][0]["points"][0];
    let count = point["samples"].as_array().unwrap().len();
    assert!(count >= 3);
    point["samples"] = vec![serde_json::json!({"iters": 1, "total_ns": 1}); count].into();
    for k in ["mean", "median", "min", "max", "ci_low", "ci_high"] {
        point["summary"][k] = 259_000.0.into();
    }
    let db = s.db();
    let db = db.to_str().unwrap();
    let key = token(db, "ci");
    let board = Board::start(db, &[]);
    let auth = format!("Bearer {key}");
    let (status, answer) = board.request(
        "POST",
        "/api/runs",
        &[("Authorization", &auth)],
        run.to_string().as_bytes(),
    );
    assert_eq!(status, 201, "{answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["summaries_remade"], 1);
    let (status, stored) = board.get(&format!("/api/runs/{}", answer["id"]));
    assert_eq!(status, 200);
    let stored: Value = serde_json::from_str(&stored).unwrap();
    let summary = &stored["series"][0]["points"][0]["summary"];
    for k in ["mean", "median", "min", "max"] {
        assert_eq!(summary[k], 1.0, "{k}: {summary}");
    }
    assert_eq!(summary["count"], count);

    // A summary with no samples to make it from is refused.
    let mut bare = run.clone();
    bare["series"][0]["points"][0]["samples"] = Value::Array(vec![]);
    bare["started_at"] = "2026-01-01T00:00:00Z".into();
    let (status, answer) = board.request(
        "POST",
        "/api/runs",
        &[("Authorization", &auth)],
        bare.to_string().as_bytes(),
    );
    assert_eq!(status, 400, "{answer}");
    one_json_line(&answer, &["no samples it could be made from"]);
    assert_eq!(runs(&board).len(), 1);
}
