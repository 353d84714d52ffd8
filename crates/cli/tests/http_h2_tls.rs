//! `toll http --http2` and https end to end, against nginx started here on
//! loopback: h2c with prior knowledge, h2 over TLS by ALPN, HTTP/1.1 over
//! TLS with and without keep-alive, and the one-line errors for a
//! certificate that is not trusted, a server without HTTP/2 and flags that
//! do not fit.

mod common;
use common::nginx;
use common::*;
use serde_json::Value;

/// The stored report of the newest run.
fn report(s: &Scratch) -> Value {
    let run = export_json(s, "last");
    run["series"][0]["points"][0]["extra"]["report"].clone()
}

fn lines_present(text: &str, labels: &[&str]) {
    for label in labels {
        assert!(text.contains(label), "`{label}` missing:\n{text}");
    }
}

#[test]
fn h2c_with_prior_knowledge_and_shared_connections() {
    let s = Scratch::new("h2c");
    let n = nginx::start(&s, &["http2"]);
    let url = format!("http://127.0.0.1:{}/hello.html", n.port());
    let o = s.toll(&[
        "http",
        "-n",
        "2000",
        "-c",
        "8",
        "-k",
        "--http2",
        "--streams",
        "4",
        "--threads",
        "2",
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    lines_present(
        &stdout(&o),
        &[
            "Protocol:               HTTP/2 (h2c, prior knowledge)",
            "Document Length:        92 bytes",
            "Complete requests:      2000",
            "Failed requests:        0",
            "HTML transferred:       184000 bytes",
        ],
    );
    let r = report(&s);
    assert_eq!(r["protocol"], "HTTP/2 (h2c, prior knowledge)");
    // HTTP/2 frames and HPACK headers come on top of the documents.
    assert!(r["total_transferred"].as_u64().unwrap() > 184_000, "{r}");
    let run = export_json(&s, "last");
    assert_eq!(run["config"]["http2"], true);
    assert_eq!(run["config"]["streams"], 4);
}

#[test]
fn h2_over_tls_by_alpn_moves_large_files() {
    let s = Scratch::new("h2-tls");
    let n = nginx::start(&s, &["ssl http2"]);
    let url = format!("https://127.0.0.1:{}/big.bin", n.port());
    let o = s.toll(&[
        "http",
        "-n",
        "12",
        "-c",
        "2",
        "-k",
        "--http2",
        "--insecure",
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    lines_present(
        &text,
        &[
            "SSL/TLS Protocol:       TLSv1.",
            "Protocol:               HTTP/2 (h2, by ALPN)",
            "Document Length:        1048576 bytes",
            "Complete requests:      12",
            "Failed requests:        0",
            "HTML transferred:       12582912 bytes",
        ],
    );
}

#[test]
fn https_http1_with_and_without_keep_alive() {
    let s = Scratch::new("h1-tls");
    let n = nginx::start(&s, &["ssl"]);
    let url = format!("https://127.0.0.1:{}/hello.html", n.port());
    let o = s.toll(&["http", "-n", "300", "-c", "3", "-k", "--insecure", &url]);
    assert!(o.status.success(), "{}", stderr(&o));
    lines_present(
        &stdout(&o),
        &[
            "Protocol:               HTTP/1.1",
            "Complete requests:      300",
            "Failed requests:        0",
            "Keep-Alive requests:    300",
        ],
    );
    // Without -k every request pays for its own TCP and TLS handshakes:
    // ab's Connect time is there, and no request reuses a connection.
    let o = s.toll(&["http", "-n", "60", "-c", "2", "--insecure", &url]);
    assert!(o.status.success(), "{}", stderr(&o));
    lines_present(
        &stdout(&o),
        &["Complete requests:      60", "Keep-Alive requests:    0"],
    );
    let r = report(&s);
    assert!(r["connect"]["min"].as_f64().unwrap() > 0.01, "{r}");
    // The non-2xx count works over TLS as over plain HTTP.
    let teapot = format!("https://127.0.0.1:{}/teapot", n.port());
    let o = s.toll(&["http", "-n", "20", "-k", "--insecure", &teapot]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Non-2xx responses:      20 (418: 20)"));
}

#[test]
fn tls_and_http2_mistakes_are_one_line_errors() {
    let s = Scratch::new("h2-tls-errors");
    let n = nginx::start(&s, &["ssl", "", "ssl http2"]);
    let (tls_only, plain, tls_h2) = (n.ports[0], n.ports[1], n.ports[2]);
    let runs_before = stdout(&s.toll(&["runs"]));
    // A self-signed certificate is refused unless the user says --insecure.
    let o = s.toll(&["http", "-n", "5", &format!("https://127.0.0.1:{tls_h2}/")]);
    assert_one_line_error(&o, "--insecure");
    // A server without h2 in its ALPN, over TLS and in the clear.
    let o = s.toll(&[
        "http",
        "-n",
        "5",
        "--http2",
        "--insecure",
        &format!("https://127.0.0.1:{tls_only}/"),
    ]);
    assert_one_line_error(&o, "drop --http2");
    let o = s.toll(&[
        "http",
        "-n",
        "5",
        "--http2",
        &format!("http://127.0.0.1:{plain}/"),
    ]);
    assert_one_line_error(&o, "does not speak HTTP/2 without TLS");
    // TLS to a plain-HTTP port.
    let o = s.toll(&[
        "http",
        "-n",
        "5",
        "--insecure",
        &format!("https://127.0.0.1:{plain}/"),
    ]);
    assert_one_line_error(&o, "TLS handshake");
    // Flags that do not fit: exit status 2, the flag named.
    let o = s.toll(&[
        "http",
        "-n",
        "5",
        "--insecure",
        &format!("http://127.0.0.1:{plain}/"),
    ]);
    assert_one_line_error(&o, "--insecure is for https://");
    assert_eq!(o.status.code(), Some(2));
    let o = s.toll(&[
        "http",
        "-n",
        "8",
        "-c",
        "4",
        "--http2",
        "--streams",
        "4",
        &format!("http://127.0.0.1:{plain}/"),
    ]);
    assert_one_line_error(&o, "add -k");
    let o = s.toll(&[
        "http",
        "--streams",
        "2",
        &format!("http://127.0.0.1:{plain}/"),
    ]);
    assert_one_line_error(&o, "--http2");
    // None of it stored a run.
    assert_eq!(stdout(&s.toll(&["runs"])), runs_before);
}
