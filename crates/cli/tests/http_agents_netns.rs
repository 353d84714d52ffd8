//! `toll http` from load agents across network namespaces (issue 36), as
//! root: nginx in one namespace, three `toll agent`s in three others
//! (`--remote-cmd 'ip netns exec NS toll agent'`), all joined by veths to
//! one bridge the test makes. The merged run must be the agents' sum, its
//! percentiles those of the union of every raw latency the agents recorded
//! (`--raw-latencies`, the check mode), and an independent merge in Python
//! (scripts/hdr-merge, Python's HdrHistogram) must give the same. Tests
//! that make namespaces are ignored without root (`cfg(toll_root)`), the
//! Python merge without Python's hdrhistogram (`cfg(toll_py_hdrh)`); each
//! removes its namespaces, veths and bridge on every way it ends.

mod common;
use base64::Engine;
use common::far_host::assert_root;
use common::lan::{self, Lan};
use common::nginx::{self, Nginx, Place};
use common::*;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use serde_json::Value;
use std::process::Command;
use std::sync::Mutex;

const AGENTS: usize = 3;

fn decode(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    Deserializer::new()
        .deserialize(&mut &bytes[..])
        .expect("an HdrHistogram in V2 encoding")
}

/// nginx in namespace 0 of a LAN of 1 + AGENTS; its URL.
fn served(s: &Scratch, lan: &Lan) -> (Nginx, String) {
    let host = lan.addr(0);
    let wrap = ["ip", "netns", "exec", lan.ns(0)];
    let nginx = nginx::start_in(
        s,
        &[""],
        &Place {
            host: &host,
            wrap: &wrap,
        },
    );
    let url = format!("http://{host}:{}/hello.html", nginx.port());
    (nginx, url)
}

/// One load at a time: on a small machine three at once share its cores,
/// and a rate or a latency then measures the contention, not the agents.
static ONE_LOAD: Mutex<()> = Mutex::new(());

/// `toll http ARGS URL --json` from the agents in namespaces 1..=AGENTS.
fn from_agents(s: &Scratch, lan: &Lan, args: &[&str], url: &str) -> Value {
    let _alone = ONE_LOAD.lock().unwrap_or_else(|e| e.into_inner());
    let launchers: Vec<String> = (1..=AGENTS).map(|i| lan.agent(i)).collect();
    let mut v: Vec<&str> = vec!["http"];
    v.extend_from_slice(args);
    for l in &launchers {
        v.extend_from_slice(&["--remote-cmd", l]);
    }
    v.extend_from_slice(&["--json", url]);
    let o = s.toll(&v);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("--json is JSON")
}

/// The merged histogram the run stored, rebuilt from its buckets.
fn stored_histogram(extra: &Value) -> Histogram<u64> {
    let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
    for b in extra["latency_ns_histogram"].as_array().unwrap() {
        h.record_n(b[0].as_u64().unwrap(), b[1].as_u64().unwrap())
            .unwrap();
    }
    h
}

/// The report's percentile `pct` in ms.
fn reported(report: &Value, key: &str, pct: f64) -> f64 {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0].as_f64() == Some(pct))
        .unwrap_or_else(|| panic!("no p{pct} in {key}"))[1]
        .as_f64()
        .unwrap()
}

/// The sample of rank ⌈q·n⌉ (at least 1) of the sorted `raw`: the rank
/// HdrHistogram reads quantile q at.
fn at_rank(raw: &[u64], q: f64) -> u64 {
    let rank = ((q * raw.len() as f64).ceil() as usize).max(1);
    raw[rank - 1]
}

fn none_left(names: &[String]) {
    assert!(!lan::left_behind(names), "left behind: some of {names:?}");
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn agents_in_namespaces_merge_to_the_percentiles_of_every_raw_latency() {
    assert_root();
    let s = Scratch::new("http-agents-netns");
    let lan = Lan::new(1 + AGENTS);
    let names = lan.names();
    let (nginx, url) = served(&s, &lan);
    let raw_file = s.0.join("raw.json");
    let run = from_agents(
        &s,
        &lan,
        &[
            "-n",
            "3000",
            "-c",
            "6",
            "-k",
            "--raw-latencies",
            raw_file.to_str().unwrap(),
        ],
        &url,
    );
    drop(nginx);
    drop(lan);
    assert_eq!(run["status"], "complete");
    let extra = &run["series"][0]["points"][0]["extra"];
    let report = &extra["report"];
    assert_eq!(report["complete_requests"], 3000);
    assert_eq!(report["failed_requests"], 0);
    let rows = extra["agents"].as_array().unwrap();
    assert_eq!(rows.len(), AGENTS);

    // The merged histogram's count is the sum of the agents'.
    let merged = stored_histogram(extra);
    let per_agent: Vec<u64> = rows
        .iter()
        .map(|r| decode(r["histogram_v2"].as_str().unwrap()).len())
        .collect();
    assert_eq!(per_agent, vec![1000, 1000, 1000]);
    assert_eq!(merged.len(), per_agent.iter().sum::<u64>());

    // Every raw latency each agent recorded: as many as its histogram holds.
    let raw: Value = serde_json::from_slice(&std::fs::read(&raw_file).unwrap()).unwrap();
    let raw = raw.as_array().unwrap();
    assert_eq!(raw.len(), AGENTS);
    let mut union: Vec<u64> = Vec::new();
    for (r, row) in raw.iter().zip(rows) {
        assert_eq!(r["agent"], row["agent"]);
        let mine: Vec<u64> = r["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(mine.len() as u64, row["requests"].as_u64().unwrap());
        union.extend(mine);
    }
    union.sort_unstable();
    // The merged percentiles are the raw union's, within HdrHistogram's
    // precision: the union's sample at the same rank lies in the bucket the
    // merged histogram reads, and the report shows that bucket's value.
    for pct in [50.0, 90.0, 99.0, 99.9] {
        let q = pct / 100.0;
        let exact = at_rank(&union, q);
        let ours = merged.value_at_quantile(q);
        assert_eq!(
            merged.highest_equivalent(exact),
            ours,
            "p{pct}: raw {exact} ns, merged {ours} ns"
        );
        assert!(merged.equivalent(exact, ours));
        assert_eq!(reported(report, "percentiles", pct), ours as f64 / 1e6);
    }
    none_left(&names);
}

#[test]
#[cfg_attr(
    not(toll_root),
    ignore = "needs root to make network namespaces: run the tests as root (CI does)"
)]
fn a_rate_over_three_agents_in_namespaces_is_kept_and_corrected_stays_near() {
    assert_root();
    let s = Scratch::new("http-agents-netns-rate");
    let lan = Lan::new(1 + AGENTS);
    let names = lan.names();
    let (nginx, url) = served(&s, &lan);
    let run = from_agents(
        &s,
        &lan,
        &["--rate", "600", "--duration", "3s", "-c", "6", "-k"],
        &url,
    );
    drop(nginx);
    drop(lan);
    assert_eq!(run["status"], "complete");
    let report = &run["series"][0]["points"][0]["extra"]["report"];
    let achieved = report["requests_per_second"].as_f64().unwrap();
    assert!(
        (achieved - 600.0).abs() <= 12.0,
        "merged rate {achieved}/s, asked 600/s (2%)"
    );
    assert_eq!(report["failed_requests"], 0);
    // An unloaded server: the corrected median stays near the uncorrected.
    let (c50, u50) = (
        reported(report, "percentiles", 50.0),
        reported(report, "uncorrected_percentiles", 50.0),
    );
    assert!(c50 >= u50 && c50 <= u50 + 1.0, "p50 {c50} ms vs {u50} ms");
    none_left(&names);
}

#[test]
#[cfg_attr(
    not(all(toll_root, toll_py_hdrh)),
    ignore = "needs root (network namespaces) and Python's hdrhistogram (scripts/setup installs it)"
)]
fn python_s_hdrhistogram_merges_the_agents_to_the_same_percentiles() {
    assert_root();
    let s = Scratch::new("http-agents-netns-py");
    let lan = Lan::new(1 + AGENTS);
    let names = lan.names();
    let (nginx, url) = served(&s, &lan);
    let raw_file = s.0.join("raw.json");
    let run = from_agents(
        &s,
        &lan,
        &[
            "-n",
            "2000",
            "-c",
            "3",
            "-k",
            "--raw-latencies",
            raw_file.to_str().unwrap(),
        ],
        &url,
    );
    drop(nginx);
    drop(lan);
    let run_file = s.0.join("run.json");
    std::fs::write(&run_file, run.to_string()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/hdr-merge");
    let o = Command::new("python3")
        .arg(script)
        .arg(&run_file)
        .args(["50", "90", "99", "99.9"])
        .output()
        .expect("run python3");
    assert!(o.status.success(), "hdr-merge: {}", stderr(&o));
    let py: Value = serde_json::from_slice(&o.stdout).expect("hdr-merge prints JSON");
    let extra = &run["series"][0]["points"][0]["extra"];
    let merged = stored_histogram(extra);
    assert_eq!(py["count"].as_u64(), Some(merged.len()));
    assert_eq!(py["count"], extra["report"]["complete_requests"]);
    let mut union: Vec<u64> = serde_json::from_slice::<Value>(&std::fs::read(&raw_file).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["latencies_ns"].as_array().unwrap().clone())
        .map(|v| v.as_u64().unwrap())
        .collect();
    union.sort_unstable();
    let n = union.len() as f64;
    for pct in ["50", "90", "99", "99.9"] {
        let theirs = py["percentiles_ns"][pct].as_u64().unwrap();
        let q: f64 = pct.parse::<f64>().unwrap() / 100.0;
        let ours = merged.value_at_quantile(q);
        // Python's library rounds the rank (q·n + ½) where Rust's takes its
        // ceiling: each reads the bucket of the raw union's sample at its
        // own rank, and the two agree within the histogram's precision
        // whenever those ranks share a bucket.
        let rank = ((q * n + 0.5) as usize).max(1);
        assert_eq!(
            merged.highest_equivalent(union[rank - 1]),
            theirs,
            "p{pct}: Python's merge reads {theirs} ns, the raw union's rank {rank} is {} ns",
            union[rank - 1]
        );
        if merged.equivalent(union[rank - 1], at_rank(&union, q)) {
            assert!(
                merged.equivalent(theirs, ours),
                "p{pct}: {theirs} vs {ours}"
            );
        }
    }
    none_left(&names);
}
