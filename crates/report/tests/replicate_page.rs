//! replicate.html's E5 section draws what E5 compared (issue 48): each
//! server's requests per second with its interval, and each server's
//! latency by percentile, every server by the name the table gives it.

use serde_json::{json, Value};
use toll_measure::Fingerprint;
use toll_report::http::HttpReport;
use toll_report::plot::Scale;
use toll_report::replicate_page::section;
use toll_store::{Point, PointStatus, Run, RunStatus, Series};

fn run(id: i64, family: &str, config: Value, series: Vec<Series>) -> Run {
    Run {
        id,
        family: family.into(),
        started_at: String::new(),
        finished_at: None,
        status: RunStatus::Complete,
        summary: String::new(),
        error: None,
        config,
        env: Fingerprint::default(),
        tool_version: "0".into(),
        series,
    }
}

fn series(label: &str, extra: Value) -> Series {
    Series {
        id: 1,
        label: label.into(),
        attrs: json!({}),
        fit: None,
        points: vec![Point {
            n: 0,
            status: PointStatus::Ok,
            error: None,
            summary: None,
            samples: vec![],
            extra: Some(extra),
        }],
    }
}

/// A round's report: its percentiles `scale` ms apart.
fn report(scale: f64) -> Value {
    let r = HttpReport {
        complete_requests: 1000,
        percentiles: [50.0, 90.0, 99.0, 99.9, 100.0]
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, scale * (1 + i) as f64))
            .collect(),
        ..HttpReport::default()
    };
    serde_json::to_value(r).unwrap()
}

/// One server's figures as `toll http compare` stores them.
fn server(label: &str, url: &str, rate: f64) -> Value {
    json!({
        "label": label, "url": url, "warmup_rounds": 1, "stable": true, "rounds": 5,
        "rate": {"median": rate, "lo": rate * 0.95, "hi": rate * 1.05, "level": 0.937},
        "p50_ms": 1.0, "p99_ms": 4.0, "complete": 5000, "failed": 0, "non_2xx": 0,
        "ratio": null,
    })
}

#[test]
fn e5_draws_each_servers_rate_with_its_interval_and_its_latency_by_percentile() {
    let (nginx, apache) = ("http://127.0.0.1:8001", "http://127.0.0.1:8002");
    let comparison = json!({
        "round_ns": 1_000_000_000u64, "concurrency": 10, "keep_alive": true, "threads": 1,
        "warmup_window": 3, "warmup_tolerance": 0.05, "warmup_max": 10, "ci_target": 0.05,
        "rounds": 5, "stop": "narrow",
        "servers": [
            server("A", &format!("{nginx}/hello.html"), 9000.0),
            server("B", &format!("{apache}/hello.html"), 3000.0),
        ],
    });
    let side = |label: &str, scale: f64, with: Option<&Value>| {
        let rounds: Vec<Value> = (0..5u64)
            .map(|k| json!({"seq": k, "start_ns": k * 1_000_000_000, "rate": 1000.0 / scale, "report": report(scale)}))
            .collect();
        let mut extra = json!({"rounds": rounds});
        if let Some(c) = with {
            extra["comparison"] = c.clone();
        }
        series(label, extra)
    };
    let compare = run(
        12,
        "http-compare",
        json!({"round_ns": 1_000_000_000u64}),
        vec![
            side("A GET /hello.html", 1.0, Some(&comparison)),
            side("B GET /hello.html", 3.0, None),
        ],
    );
    let load = |id: i64, url: &str| {
        run(
            id,
            "http",
            json!({"url": format!("{url}/hello.html")}),
            vec![],
        )
    };
    let table = run(
        20,
        "replicate",
        json!({
            "replicate": "E5", "title": "web servers (Apache, 2010)", "design": "d",
            "preset": "quick", "runs": [10, 11, 12], "findings": [],
            "rows": [
                {"subject": "nginx", "figure": "rate", "run": 10},
                {"subject": "apache prefork", "figure": "rate", "run": 11},
            ],
        }),
        vec![],
    );
    let behind = vec![load(10, nginx), load(11, apache), compare];
    let mut h = String::new();
    section(&mut h, &table, &behind, Scale::Auto);
    let figures: Vec<&str> = h.split("<figure>").skip(1).collect();
    let rates = figures
        .iter()
        .find(|f| f.contains("requests per second, /hello.html"))
        .unwrap_or_else(|| panic!("no servers' rates: {h}"));
    for name in ["nginx (A)", "apache prefork (B)", "93% CI"] {
        assert!(rates.contains(name), "{name}: {rates}");
    }
    let latency = figures
        .iter()
        .find(|f| f.contains("latency by percentile"))
        .unwrap_or_else(|| panic!("no latency by percentile: {h}"));
    for name in ["nginx (A)", "apache prefork (B)"] {
        assert!(latency.contains(name), "{name}: {latency}");
    }
}
