//! `toll http --unix-socket`: nginx listening on a unix socket in a temp
//! directory (and on a loopback port), the requests toll counts against
//! what nginx logged, the URL's Host header kept; `toll http compare` of
//! the same nginx over TCP and over its socket; the mistakes refused.

mod common;
use common::nginx::{self, UNIX};
use common::*;

#[test]
fn requests_through_the_socket_are_the_ones_nginx_logged() {
    let s = Scratch::new("http-unix");
    let n = nginx::start(&s, &[UNIX]);
    let sock = n.socket();
    let sock = sock.to_str().unwrap();
    // The host is not resolved (nothing listens on example.invalid): the
    // connection goes to the socket, the Host header says the URL's host.
    let url = "http://example.invalid:8080/logged/a";
    for keep in [true, false] {
        let before = n.logged().len();
        let mut args = vec!["http", "-n", "500", "-c", "4", "--unix-socket", sock, url];
        if keep {
            args.push("-k");
        }
        let o = s.toll(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.contains(&format!("benchmarking {url} via unix:{sock}")),
            "{text}"
        );
        assert!(text.contains("Complete requests:      500"), "{text}");
        assert!(text.contains("Failed requests:        0"), "{text}");
        let logged = n.logged();
        assert_eq!(logged.len() - before, 500, "nginx logged what toll counted");
        for (host, path) in &logged[before..] {
            assert_eq!(
                (host.as_str(), path.as_str()),
                ("example.invalid", "/logged/a")
            );
        }
    }
    let run = export_json(&s, "last");
    assert_eq!(run["config"]["unix_socket"], sock);
    assert_eq!(run["config"]["url"], url);
}

#[test]
fn h2c_through_the_socket() {
    let s = Scratch::new("http-unix-h2c");
    // nginx's `listen unix:… http2` without ssl: h2c with prior knowledge.
    let n = nginx::start(&s, &["unix http2"]);
    let sock = n.socket();
    let url = "http://localhost/logged/h2";
    let o = s.toll(&[
        "http",
        "-n",
        "300",
        "-c",
        "4",
        "-k",
        "--http2",
        "--streams",
        "2",
        "--unix-socket",
        sock.to_str().unwrap(),
        url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Complete requests:      300"), "{text}");
    assert!(text.contains("Failed requests:        0"), "{text}");
    let logged = n.logged();
    assert_eq!(logged.len(), 300, "nginx logged what toll counted");
    assert!(logged
        .iter()
        .all(|(h, p)| h == "localhost" && p == "/logged/h2"));
}

#[test]
fn compare_tcp_against_the_socket_prints_the_ratio_with_its_interval() {
    let s = Scratch::new("http-unix-compare");
    let n = nginx::start(&s, &["", UNIX]);
    let url = format!("http://127.0.0.1:{}/logged/c", n.port());
    let sock = n.socket();
    let via = format!("2={}", sock.display());
    let o = s.toll(&[
        "http",
        "compare",
        &url,
        &url,
        "--unix-socket",
        &via,
        "-c",
        "2",
        "-k",
        "--round",
        "200ms",
        "--warmup-max",
        "1",
        "--min-rounds",
        "3",
        "--max-rounds",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!("{url} via unix:{}", sock.display())),
        "{text}"
    );
    let ratio = text
        .lines()
        .find(|l| l.contains("B / A"))
        .unwrap_or_else(|| panic!("no ratio line:\n{text}"));
    // The ratio, then its interval and the interval's level.
    let figures: Vec<&str> = ratio.split_whitespace().collect();
    let r: f64 = figures[3].parse().unwrap();
    let lo: f64 = figures[4].trim_matches(['[', ',']).parse().unwrap();
    let hi: f64 = figures[5].trim_end_matches(']').parse().unwrap();
    assert!(lo <= r && r <= hi && lo > 0.0, "{ratio}");
    assert!(figures[6].ends_with('%'), "the interval's level: {ratio}");
    let run = export_json(&s, "last");
    let sockets = &run["config"]["unix_sockets"];
    assert_eq!(sockets[0], serde_json::Value::Null);
    assert_eq!(sockets[1], sock.to_str().unwrap());
    // Every request either server answered went to the one nginx.
    assert!(n.logged().len() > 10);
}

#[test]
fn agents_load_through_the_socket_on_their_host() {
    let s = Scratch::new("http-unix-agents");
    let n = nginx::start(&s, &[UNIX]);
    let sock = n.socket();
    let agent = format!("{} agent", env!("CARGO_BIN_EXE_toll"));
    let o = s.toll(&[
        "http",
        "-n",
        "400",
        "-c",
        "4",
        "-k",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        "--unix-socket",
        sock.to_str().unwrap(),
        "http://localhost/logged/agents",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Complete requests:      400"), "{text}");
    assert!(text.contains("from 2 load agent(s)"), "{text}");
    assert_eq!(
        n.logged().len(),
        400,
        "nginx logged what the agents counted"
    );
}

#[test]
fn socket_mistakes_are_one_line_before_any_load() {
    let s = Scratch::new("http-unix-mistakes");
    let missing = s.0.join("nowhere.sock");
    let missing = missing.to_str().unwrap();
    let file = s.0.join("plain-file");
    std::fs::write(&file, "not a socket").unwrap();
    let file = file.to_str().unwrap();
    let url = "http://localhost/";
    assert_usage_errors(
        &s,
        &[
            (&["http", "--unix-socket", missing, url], "no such socket"),
            (&["http", "--unix-socket", file, url], "is not a socket"),
            (
                &["http", "--unix-socket", file, "https://localhost/"],
                "give an http:// URL",
            ),
            (
                &["http", "--unix-socket", file, "--unix-socket", file, url],
                "more than once",
            ),
            (
                &[
                    "http",
                    "compare",
                    url,
                    url,
                    "--unix-socket",
                    &format!("3={file}"),
                ],
                "there is no URL 3",
            ),
            (
                &[
                    "http",
                    "compare",
                    url,
                    url,
                    "--unix-socket",
                    "/a",
                    "--unix-socket",
                    "/b",
                ],
                "N=PATH",
            ),
        ],
    );
}
