//! `toll http --http2` and https from load agents (issue 36), end to end
//! on loopback against the nginx of tests/http_h2_tls.rs (h2c, h2 over TLS
//! by ALPN, HTTP/1.1 over TLS): each agent runs the client engine one
//! machine would, `-c` split as for HTTP/1.1 and `--streams` per
//! connection unchanged, and the merged run is the agents' exact sum.

mod common;
use base64::Engine;
use common::nginx;
use common::*;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use serde_json::Value;

fn agent_cmd() -> String {
    format!("{} agent", env!("CARGO_BIN_EXE_toll"))
}

fn decode(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    Deserializer::new()
        .deserialize(&mut &bytes[..])
        .expect("an HdrHistogram in V2 encoding")
}

/// `toll http ARGS URL` from two agents: its stdout and the stored run.
fn from_two(s: &Scratch, args: &[&str], url: &str) -> (String, Value) {
    let agent = agent_cmd();
    let mut v: Vec<&str> = vec!["http"];
    v.extend_from_slice(args);
    v.extend_from_slice(&["--remote-cmd", &agent, "--remote-cmd", &agent, url]);
    let o = s.toll(&v);
    assert!(o.status.success(), "{}", stderr(&o));
    (stdout(&o), export_json(s, "last"))
}

/// The run is the sum of its two agents: requests split as asked, every
/// histogram count theirs, the stored buckets their added histograms.
fn adds_up(run: &Value, per_agent: &[u64]) {
    assert_eq!(run["status"], "complete");
    let extra = &run["series"][0]["points"][0]["extra"];
    let rows = extra["agents"].as_array().unwrap();
    let mut merged: Option<Histogram<u64>> = None;
    let mut requests = Vec::new();
    for r in rows {
        let h = decode(r["histogram_v2"].as_str().unwrap());
        requests.push(h.len());
        match &mut merged {
            Some(m) => m.add(&h).unwrap(),
            None => merged = Some(h),
        }
    }
    assert_eq!(requests, per_agent);
    let merged = merged.unwrap();
    let buckets: Vec<(u64, u64)> = extra["latency_ns_histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap()))
        .collect();
    let ours: Vec<(u64, u64)> = merged
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    assert_eq!(buckets, ours, "the stored histogram is the agents' sum");
    assert_eq!(extra["report"]["failed_requests"], 0);
}

#[test]
fn h2c_with_shared_connections_from_two_agents() {
    let s = Scratch::new("http-agents-h2c");
    let n = nginx::start(&s, &["http2"]);
    let url = format!("http://127.0.0.1:{}/hello.html", n.port());
    let (text, run) = from_two(
        &s,
        &["-n", "2000", "-c", "8", "-k", "--http2", "--streams", "4"],
        &url,
    );
    for line in [
        "Protocol:               HTTP/2 (h2c, prior knowledge)",
        "Complete requests:      2000",
        "Load agents:            2",
    ] {
        assert!(text.contains(line), "`{line}` missing:\n{text}");
    }
    assert_eq!(run["config"]["http2"], true);
    assert_eq!(run["config"]["streams"], 4);
    let rows = run["series"][0]["points"][0]["extra"]["agents"].clone();
    let conns: Vec<u64> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["connections"].as_u64().unwrap())
        .collect();
    assert_eq!(conns, vec![4, 4], "-c split as for HTTP/1.1");
    adds_up(&run, &[1000, 1000]);
}

#[test]
fn tls_from_two_agents_h2_by_alpn_and_http1() {
    let s = Scratch::new("http-agents-tls");
    let n = nginx::start(&s, &["ssl http2", "ssl"]);
    let h2 = format!("https://127.0.0.1:{}/hello.html", n.ports[0]);
    let (text, run) = from_two(
        &s,
        &["-n", "400", "-c", "4", "-k", "--http2", "--insecure"],
        &h2,
    );
    for line in [
        "SSL/TLS Protocol:       TLSv1.",
        "Protocol:               HTTP/2 (h2, by ALPN)",
        "Complete requests:      400",
    ] {
        assert!(text.contains(line), "`{line}` missing:\n{text}");
    }
    adds_up(&run, &[200, 200]);

    // HTTP/1.1 over TLS, without keep-alive: every request its own
    // handshake, on each agent.
    let h1 = format!("https://127.0.0.1:{}/hello.html", n.ports[1]);
    let (text, run) = from_two(&s, &["-n", "60", "-c", "2", "--insecure"], &h1);
    for line in [
        "Protocol:               HTTP/1.1",
        "Complete requests:      60",
        "Keep-Alive requests:    0",
    ] {
        assert!(text.contains(line), "`{line}` missing:\n{text}");
    }
    adds_up(&run, &[30, 30]);

    // A certificate the agents do not trust: one line, before any load.
    let agent = agent_cmd();
    let o = s.toll(&[
        "http",
        "-n",
        "10",
        "-c",
        "2",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        &h1,
    ]);
    assert_one_line_error(&o, "--insecure");
}
