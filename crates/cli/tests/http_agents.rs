//! `toll http` from load agents (issue 36's first slice), end to end on
//! loopback: nginx started here, two `toll agent`s started by --remote-cmd
//! with this very binary. The merged run must be the exact sum of the
//! agents' (counts and histograms), a launcher that fails must be named in
//! one line, and flags that do not fit the agents must be refused. The
//! agents start at one scheduled instant, and each row shows its clock
//! offset (on one machine: zero within its uncertainty). At a constant rate
//! the agents share one arrival schedule. The seconds the agents stream add
//! up to the run.

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

#[test]
fn two_agents_share_the_load_and_their_histograms_add_exactly() {
    let s = Scratch::new("http-agents-two");
    let nginx = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    let agent = agent_cmd();
    let o = s.toll(&[
        "http",
        "-n",
        "2000",
        "-c",
        "4",
        "-k",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Complete requests:      2000"), "{text}");
    assert!(text.contains("Load agents:            2"), "{text}");
    // Started at one scheduled instant; each row shows its clock offset
    // (on one machine, zero within its uncertainty, give or take scheduling).
    assert!(
        text.contains("started together at a scheduled instant"),
        "{text}"
    );
    assert!(
        text.contains("clock offset") && text.contains("± ms"),
        "{text}"
    );
    // Each agent's row: its offset (signed) and the offset's uncertainty.
    let offsets = text
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() >= 2
                && w[w.len() - 2].starts_with(['+', '-'])
                && w[w.len() - 2][1..].parse::<f64>().is_ok()
                && w[w.len() - 1].parse::<f64>().is_ok()
        })
        .count();
    assert_eq!(offsets, 2, "{text}");

    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["config"]["agents"].as_array().unwrap().len(), 2);
    let extra = &run["series"][0]["points"][0]["extra"];
    let rows = extra["agents"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let per: Vec<u64> = rows
        .iter()
        .map(|r| r["requests"].as_u64().unwrap())
        .collect();
    assert_eq!(per, vec![1000, 1000], "-n split evenly");
    let conns: Vec<u64> = rows
        .iter()
        .map(|r| r["connections"].as_u64().unwrap())
        .collect();
    assert_eq!(conns, vec![2, 2], "-c split evenly");
    for r in rows {
        let (o, u) = (
            r["clock_offset_ms"].as_f64().unwrap(),
            r["clock_uncertainty_ms"].as_f64().unwrap(),
        );
        // One clock: the estimate errs by at most its uncertainty, which on
        // loopback is well under 50 ms even on a busy machine.
        assert!((0.0..50.0).contains(&u), "uncertainty {u} ms");
        assert!(o.abs() <= u + 0.001, "offset {o} ms ± {u} on one clock");
    }
    let report = &extra["report"];
    assert_eq!(report["complete_requests"], 2000);
    assert_eq!(report["failed_requests"], 0);

    // An independent merge of the agents' encoded histograms.
    let mut merged: Option<Histogram<u64>> = None;
    for r in rows {
        let h = decode(r["histogram_v2"].as_str().unwrap());
        assert_eq!(h.len(), r["requests"].as_u64().unwrap());
        match &mut merged {
            Some(m) => m.add(&h).unwrap(),
            None => merged = Some(h),
        }
    }
    let merged = merged.unwrap();
    assert_eq!(merged.len(), 2000);
    let p = report["percentiles"].as_array().unwrap();
    for (pct, want) in [(50.0, 0usize), (99.0, 7)] {
        assert_eq!(p[want][0].as_f64().unwrap(), pct);
        let ours = merged.value_at_percentile(pct) as f64 / 1e6;
        assert_eq!(p[want][1].as_f64().unwrap(), ours, "p{pct}");
    }
    // The stored buckets are the merged histogram's, count for count.
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
    assert_eq!(buckets, ours);

    // `toll show` calls the measured point measured, not failed; the HTML
    // report renders the stored agents' rows.
    let shown = stdout(&s.toll(&["show", "last"]));
    assert!(!shown.contains("failed"), "{shown}");
    // The HTML report renders the stored agents' rows.
    let page = s.0.join("agents.html");
    let o = s.toll(&["report", "last", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Load agents"),
        "no agents' rows in the report page"
    );

    // --json keeps each agent's encoded histogram.
    let o = s.toll(&[
        "http",
        "-n",
        "300",
        "-c",
        "3",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        "--json",
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = run["series"][0]["points"][0]["extra"]["agents"]
        .as_array()
        .unwrap()
        .clone();
    let per: Vec<u64> = rows
        .iter()
        .map(|r| r["requests"].as_u64().unwrap())
        .collect();
    assert_eq!(per, vec![150, 150]);
    let conns: Vec<u64> = rows
        .iter()
        .map(|r| r["connections"].as_u64().unwrap())
        .collect();
    assert_eq!(
        conns,
        vec![2, 1],
        "3 connections: the first agent gets the extra one"
    );
    for r in &rows {
        assert_eq!(decode(r["histogram_v2"].as_str().unwrap()).len(), 150);
    }
}

#[test]
fn a_launcher_that_fails_is_named_and_min_agents_decides() {
    let s = Scratch::new("http-agents-bad");
    let nginx = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    let agent = agent_cmd();
    let bad = "/nonexistent/toll-missing agent";
    let o = s.toll(&[
        "http",
        "-n",
        "400",
        "-c",
        "2",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        bad,
        &url,
    ]);
    assert_one_line_error(&o, bad);
    assert!(!s.db().exists(), "nothing stored");

    // With --min-agents 1 the run goes on with the other, stored partial.
    let o = s.toll(&[
        "http",
        "-n",
        "400",
        "-c",
        "2",
        "--min-agents",
        "1",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        bad,
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(bad) && err.contains("warning:"), "{err}");
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    assert!(
        run["error"].as_str().unwrap_or("").contains(bad),
        "the lost agent is named: {run}"
    );
    let extra = &run["series"][0]["points"][0]["extra"];
    assert_eq!(
        extra["report"]["complete_requests"], 400,
        "the one left does all -n"
    );
    assert_eq!(extra["agents"].as_array().unwrap().len(), 1);
}

#[test]
fn flags_that_do_not_fit_agents_are_refused_before_any_load() {
    let s = Scratch::new("http-agents-refused");
    let agent = agent_cmd();
    let url = "http://127.0.0.1:9/";
    let with = |extra: &[&str]| {
        let mut v: Vec<String> = vec!["http".into(), "--remote-cmd".into(), agent.clone()];
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            with(&[
                "--remote-cmd",
                &agent,
                "--rate",
                "1.5",
                "-n",
                "100",
                "-c",
                "2",
                url,
            ]),
            "--rate 1.5 is lower than the 2 agents",
        ),
        (
            with(&["--remote-cmd", &agent, "-n", "10", "-c", "1", url]),
            "2 agents need at least 2 connections",
        ),
        (
            with(&["--min-agents", "2", "-n", "10", "-c", "2", url]),
            "--min-agents 2",
        ),
    ];
    for (args, needle) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = s.toll(&args);
        assert_one_line_error(&o, needle);
        assert_eq!(o.status.code(), Some(2), "a usage error: {args:?}");
    }
    assert!(!s.db().exists(), "nothing stored");
}

#[test]
fn an_agent_that_dies_mid_run_is_named_and_the_others_finish() {
    let s = Scratch::new("http-agents-dies");
    let nginx = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    let agent = agent_cmd();
    // Killed 0.7 s into a 2 s load.
    let dying = format!("timeout 0.7 {agent}");
    let o = s.toll(&[
        "http",
        "--duration",
        "2s",
        "-c",
        "2",
        "-k",
        "--min-agents",
        "1",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &dying,
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&dying), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "partial");
    assert!(
        run["error"].as_str().unwrap_or("").contains(&dying),
        "{run}"
    );
    let extra = &run["series"][0]["points"][0]["extra"];
    let rows = extra["agents"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(extra["report"]["complete_requests"], rows[0]["requests"]);
    // The seconds kept are the finished agent's only, as the run's counts.
    let per_second: u64 = extra["latency_per_second"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(Some(per_second), rows[0]["requests"].as_u64());
}

#[test]
fn bad_agents_are_one_line_before_any_load() {
    let s = Scratch::new("http-agents-unreachable");
    let nginx = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    // No agent reachable: one line naming every launcher.
    let (a, b) = ("/nonexistent/toll-a agent", "/nonexistent/toll-b agent");
    let o = s.toll(&[
        "http",
        "-n",
        "100",
        "-c",
        "2",
        "--min-agents",
        "1",
        "--remote-cmd",
        a,
        "--remote-cmd",
        b,
        &url,
    ]);
    assert_one_line_error(&o, "none of the 2 load agent(s) could be started");
    assert!(
        stderr(&o).contains(a) && stderr(&o).contains(b),
        "{}",
        stderr(&o)
    );
    // --remote whose host does not resolve: ssh's failure, named (or, on a
    // machine without ssh, that ssh is missing).
    let o = s.toll(&[
        "http",
        "-n",
        "100",
        "-c",
        "2",
        "--remote",
        "no-such-host.invalid",
        &url,
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("no-such-host.invalid") || err.contains("ssh, which was not found"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!o.status.success());

    // An agent of another toll version: named, with the fix. It answers
    // every line with an old agent's hello.
    let old = r#"while read l; do echo '{"ok":true,"runtime":"agent","agent":1,"wire":1,"version":"toll 0.0.1","pid":1,"host":"old"}'; done"#;
    let agent = agent_cmd();
    let o = s.toll(&[
        "http",
        "-n",
        "100",
        "-c",
        "2",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        old,
        &url,
    ]);
    assert_one_line_error(&o, "is toll 0.0.1, this is toll ");
    assert!(stderr(&o).contains("install the same toll on both"));
    assert!(!s.db().exists(), "nothing stored");
}

#[test]
fn a_constant_rate_is_one_schedule_shared_by_the_agents() {
    let s = Scratch::new("http-agents-rate");
    let nginx = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", nginx.port());
    let agent = agent_cmd();
    let o = s.toll(&[
        "http",
        "--rate",
        "400",
        "--duration",
        "2s",
        "-c",
        "4",
        "-k",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        "--json",
        &url,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(run["status"], "complete");
    let extra = &run["series"][0]["points"][0]["extra"];
    let report = &extra["report"];
    assert_eq!(report["target_rate"], 400.0);
    let achieved = report["requests_per_second"].as_f64().unwrap();
    assert!(
        (achieved - 400.0).abs() <= 20.0,
        "merged rate {achieved}/s, asked 400/s"
    );
    let complete = report["complete_requests"].as_u64().unwrap();
    // 2 s of arrivals at 400/s: 800, give or take the one in flight at the end.
    assert!((798..=802).contains(&complete), "{complete} requests");
    assert_eq!(report["failed_requests"], 0);
    let rows = extra["agents"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let mut corrected: Option<Histogram<u64>> = None;
    let mut uncorrected: Option<Histogram<u64>> = None;
    for r in rows {
        // Each agent's shard: half the arrivals, at half the rate.
        let n = r["requests"].as_u64().unwrap();
        assert!((398..=402).contains(&n), "an agent's share: {n} {r}");
        let rps = r["requests_per_second"].as_f64().unwrap();
        assert!((rps - 200.0).abs() <= 10.0, "an agent's rate: {rps}");
        let (c, u) = (
            decode(r["histogram_v2"].as_str().unwrap()),
            decode(r["histogram_uncorrected_v2"].as_str().unwrap()),
        );
        assert_eq!((c.len(), u.len()), (n, n));
        for (m, h) in [(&mut corrected, c), (&mut uncorrected, u)] {
            match m {
                Some(m) => m.add(&h).unwrap(),
                None => *m = Some(h),
            }
        }
    }
    // Corrected and uncorrected both merge exactly.
    let (corrected, uncorrected) = (corrected.unwrap(), uncorrected.unwrap());
    assert_eq!(corrected.len(), complete);
    let p = report["percentiles"].as_array().unwrap();
    let q = report["uncorrected_percentiles"].as_array().unwrap();
    assert_eq!(
        p[0][1].as_f64().unwrap(),
        corrected.value_at_percentile(50.0) as f64 / 1e6
    );
    assert_eq!(
        q[0][1].as_f64().unwrap(),
        uncorrected.value_at_percentile(50.0) as f64 / 1e6
    );
    // The agents' seconds, streamed as the run went and merged: together
    // exactly the run's histogram, bucket for bucket.
    let per_second = &extra["latency_per_second"];
    let counts: Vec<u64> = per_second["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(counts.len() >= 2, "a 2 s run has two seconds: {counts:?}");
    assert_eq!(counts.iter().sum::<u64>(), complete, "{counts:?}");
    let mut seconds = corrected.clone();
    seconds.reset();
    for h in per_second["histograms_v2"].as_array().unwrap() {
        seconds.add(decode(h.as_str().unwrap())).unwrap();
    }
    assert_eq!(seconds, corrected, "the seconds add up to the run");
    // An unloaded server: the corrected median stays near the uncorrected.
    let (c50, u50) = (p[0][1].as_f64().unwrap(), q[0][1].as_f64().unwrap());
    assert!(c50 >= u50 && c50 <= u50 + 1.0, "p50 {c50} ms vs {u50} ms");
}
