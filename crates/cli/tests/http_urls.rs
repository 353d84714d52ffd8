//! `toll http --urls FILE` and `--warmup TIME` end to end against nginx
//! started here on loopback: each line's count against what nginx logged
//! for its path (round robin and seeded random), the rows in the report,
//! the JSON and `toll show`; the warm-up's requests in nginx's log and not
//! in toll's count; the mistakes refused in one line before any load.

mod common;
use common::nginx;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// nginx's logged requests by path.
fn by_path(n: &nginx::Nginx) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (_, path) in n.logged() {
        *out.entry(path).or_default() += 1;
    }
    out
}

/// A URL file of four requests to nginx on `port` (a POST with a body
/// file beside it), with a comment and a blank line.
fn url_file(s: &Scratch, port: u16) -> String {
    std::fs::write(s.0.join("body.txt"), "posted").unwrap();
    let text = format!(
        "# four requests to one nginx\n\
         http://127.0.0.1:{port}/logged/a\n\
         \n\
         GET http://127.0.0.1:{port}/logged/bb\n\
         POST http://127.0.0.1:{port}/logged/ccc @body.txt\n\
         head http://127.0.0.1:{port}/logged/d?x=1\n"
    );
    let file = s.0.join("urls.txt");
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

/// The stored report's per-URL rows, as (path, requests, failed).
fn rows(report: &Value) -> Vec<(String, u64, u64)> {
    report["per_url"]
        .as_array()
        .expect("per-URL rows")
        .iter()
        .map(|r| {
            let url = r["url"].as_str().unwrap();
            let path = url.split_once("/logged/").unwrap().1;
            let path = path.split('?').next().unwrap();
            (
                format!("/logged/{path}"),
                r["requests"].as_u64().unwrap(),
                r["failed"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn each_lines_count_is_what_nginx_logged_for_its_path() {
    let s = Scratch::new("http-urls");
    let n = nginx::start(&s, &[""]);
    let file = url_file(&s, n.port());
    for (extra, total) in [
        (&[][..], 800u64),
        (&["--pick", "random", "--seed", "7"][..], 801),
    ] {
        let before = by_path(&n);
        let total_s = total.to_string();
        let mut args = vec!["http", "--urls", &file, "-n", &total_s, "-c", "3"];
        // Round robin on kept-alive connections, random on a new
        // connection per request.
        if extra.is_empty() {
            args.push("-k");
        }
        args.extend_from_slice(extra);
        let o = s.toll(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.contains(&format!("Complete requests:      {total}")),
            "{text}"
        );
        assert!(text.contains("Failed requests:        0"), "{text}");
        assert!(text.contains("Per URL (4 lines, "), "{text}");
        for want in ["GET http://", "POST http://", "HEAD http://"] {
            assert!(text.contains(want), "{want} missing:\n{text}");
        }
        let after = by_path(&n);
        let run = export_json(&s, "last");
        let report = &run["series"][0]["points"][0]["extra"]["report"];
        let rows = rows(report);
        assert_eq!(rows.len(), 4);
        let mut sum = 0;
        for (path, requests, failed) in &rows {
            let logged = after.get(path).unwrap_or(&0) - before.get(path).unwrap_or(&0);
            assert_eq!(
                *requests, logged,
                "{path}: toll's count against nginx's log"
            );
            assert_eq!(*failed, 0, "{path}: each URL's length is its own");
            sum += requests;
        }
        assert_eq!(sum, total, "the lines add up to the run");
        if extra.is_empty() {
            // Round robin over three connections: each line within one of
            // an even share.
            for (path, requests, _) in &rows {
                assert!(requests.abs_diff(total / 4) <= 3, "{path}: {requests}");
            }
            assert_eq!(report["pick"], "round robin");
        } else {
            assert_eq!(report["pick"], "random, seed 7");
        }
        // Each line's histogram is stored, and holds its requests.
        let hists = run["series"][0]["points"][0]["extra"]["per_url"]
            .as_array()
            .unwrap();
        for (h, (_, requests, _)) in hists.iter().zip(&rows) {
            let count: u64 = h["latency_ns_histogram"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b[1].as_u64().unwrap())
                .sum();
            assert_eq!(count, *requests);
        }
        assert_eq!(run["config"]["urls"].as_array().unwrap().len(), 4);
    }
    // --json keeps the rows, `toll show` prints them.
    let o = s.toll(&["http", "--urls", &file, "-n", "40", "-c", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        rows(&run["series"][0]["points"][0]["extra"]["report"]).len(),
        4
    );
    let shown = s.toll(&["show", "last"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let text = stdout(&shown);
    assert!(text.contains("Per URL (4 lines, round robin)"), "{text}");
}

#[test]
fn h2c_lines_are_counted_as_nginx_logged_them() {
    let s = Scratch::new("http-urls-h2c");
    let n = nginx::start(&s, &["http2"]);
    let file = url_file(&s, n.port());
    let o = s.toll(&[
        "http",
        "--urls",
        &file,
        "-n",
        "400",
        "-c",
        "4",
        "-k",
        "--http2",
        "--streams",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Complete requests:      400"), "{text}");
    assert!(text.contains("Failed requests:        0"), "{text}");
    let run = export_json(&s, "last");
    let rows = rows(&run["series"][0]["points"][0]["extra"]["report"]);
    let logged = by_path(&n);
    assert_eq!(rows.len(), 4);
    for (path, requests, _) in &rows {
        assert!(*requests > 0, "{path}: every line is sent");
        assert_eq!(logged.get(path), Some(requests), "{path}");
    }
}

#[test]
fn the_warm_up_is_sent_and_not_measured() {
    let s = Scratch::new("http-warmup");
    let n = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/logged/w", n.port());
    let o = s.toll(&[
        "http", "--warmup", "300ms", "-n", "500", "-c", "2", "-k", &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Complete requests:      500"), "{text}");
    assert!(
        text.contains("Warm-up:                0.300 seconds"),
        "{text}"
    );
    let said: Vec<String> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with("warm-up: "))
        .map(String::from)
        .collect();
    assert_eq!(said.len(), 1, "said once: {}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["config"]["warmup_ns"], 300_000_000);
    let warm = run["config"]["warmup_requests"].as_u64().unwrap();
    assert!(warm > 0, "the warm-up answered requests");
    assert!(
        said[0].contains(&format!("{warm} requests answered")),
        "{}",
        said[0]
    );
    // nginx saw the warm-up's requests as well as the measured ones; at
    // most -c more, in flight when the warm-up ended and dropped.
    let report = &run["series"][0]["points"][0]["extra"]["report"];
    assert_eq!(report["warmup"]["requests"], warm);
    let failed = report["warmup"]["failed"].as_u64().unwrap();
    let logged = n.logged().len() as u64;
    assert!(
        (500 + warm..=500 + warm + failed + 2).contains(&logged),
        "nginx logged {logged}: 500 measured + {warm} warm-up (+ {failed} failed, + up to 2 in flight)"
    );
}

#[test]
fn url_file_and_warm_up_mistakes_are_one_line_before_any_load() {
    let s = Scratch::new("http-urls-mistakes");
    let d = s.0.join("files");
    std::fs::create_dir_all(&d).unwrap();
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bad_line = write("bad.txt", "# ok\nhttp://127.0.0.1:9/a\nGET\n");
    let two_servers = write("two.txt", "http://127.0.0.1:9/a\nhttp://127.0.0.1:10/b\n");
    let extra_words = write(
        "extra.txt",
        "http://127.0.0.1:9/a\nGET http://127.0.0.1:9/b more\n",
    );
    let no_body = write("nobody.txt", "POST http://127.0.0.1:9/a @absent.json\n");
    let empty = write("empty.txt", "# nothing\n\n");
    let good = write("good.txt", "http://127.0.0.1:9/a\n");
    let missing = d.join("absent.txt");
    let missing = missing.to_str().unwrap();
    let dir = d.to_str().unwrap();
    let agent = format!("{} agent", env!("CARGO_BIN_EXE_toll"));
    assert_usage_errors(
        &s,
        &[
            (&["http", "--urls", missing], "cannot read it"),
            (&["http", "--urls", dir], "cannot read it"),
            (&["http", "--urls", &bad_line], "line 3"),
            (&["http", "--urls", &extra_words], "line 2"),
            (&["http", "--urls", &two_servers], "line 2"),
            (&["http", "--urls", &no_body], "cannot read the body file"),
            (&["http", "--urls", &empty], "has no request"),
            (
                &["http", "--urls", &good, "http://127.0.0.1:9/"],
                "both name what to load",
            ),
            (
                &["http", "--pick", "random", "http://127.0.0.1:9/"],
                "add --urls FILE",
            ),
            (
                &["http", "--urls", &good, "--seed", "3"],
                "add --pick random",
            ),
            (
                &["http", "--urls", &good, "--remote-cmd", &agent],
                "not sent to load agents",
            ),
            (
                &[
                    "http",
                    "--warmup",
                    "1s",
                    "--remote-cmd",
                    &agent,
                    "http://127.0.0.1:9/",
                ],
                "not sent to load agents",
            ),
            (
                &["http", "--warmup", "0s", "http://127.0.0.1:9/"],
                "--warmup",
            ),
            (
                &["http", "--urls", &good, "--io", "io_uring"],
                "drop it to load a URL file",
            ),
        ],
    );
}
