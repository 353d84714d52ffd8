//! `toll http compare` from load agents (issue 36): every round of the
//! comparison is loaded from all the agents, as `toll http --remote` loads
//! once, and the stored comparison names them. A round from fewer agents
//! would be another load, so --min-agents below all of them is refused,
//! and so is the check mode --raw-latencies; both before any load.

mod common;
use common::nginx;
use common::*;

fn agent_cmd() -> String {
    format!("{} agent", env!("CARGO_BIN_EXE_toll"))
}

#[test]
fn every_round_of_a_comparison_runs_from_the_agents() {
    let s = Scratch::new("http-agents-compare");
    let n = nginx::start(&s, &["", ""]);
    let (a, b) = (
        format!("http://127.0.0.1:{}/hello.html", n.ports[0]),
        format!("http://127.0.0.1:{}/hello.html", n.ports[1]),
    );
    let agent = agent_cmd();
    let o = s.toll(&[
        "http",
        "compare",
        "--round",
        "200ms",
        "--warmup-max",
        "0",
        "--min-rounds",
        "3",
        "--max-rounds",
        "3",
        "-c",
        "2",
        "-k",
        "--remote-cmd",
        &agent,
        "--remote-cmd",
        &agent,
        &a,
        &b,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["family"], "http-compare");
    assert_eq!(run["config"]["agents"].as_array().unwrap().len(), 2);
    let series = run["series"].as_array().unwrap();
    assert_eq!(series.len(), 2);
    for sr in series {
        let rounds = sr["points"][0]["extra"]["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 3, "three measured rounds: {sr}");
        for r in rounds {
            let rep = &r["report"];
            assert!(rep["complete_requests"].as_u64().unwrap() > 0, "{r}");
            assert_eq!(rep["failed_requests"], 0, "{r}");
            assert!(r["rate"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
}

#[test]
fn a_comparison_from_fewer_agents_or_checking_raw_latencies_is_refused() {
    let s = Scratch::new("http-agents-compare-bad");
    let agent = agent_cmd();
    let url = "http://127.0.0.1:9/";
    let base = |extra: &[&str]| {
        let mut v: Vec<String> = vec![
            "http".into(),
            "compare".into(),
            "--remote-cmd".into(),
            agent.clone(),
            "--remote-cmd".into(),
            agent.clone(),
            "-c".into(),
            "2".into(),
        ];
        v.extend(extra.iter().map(|x| x.to_string()));
        v.extend([url.to_string(), url.to_string()]);
        v
    };
    for (args, needle) in [
        (
            base(&["--min-agents", "1"]),
            "every round from all 2 agent(s)",
        ),
        (
            base(&["--raw-latencies", "/tmp/x.json"]),
            "--raw-latencies checks one run",
        ),
        (
            {
                let mut v = base(&[]);
                v[7] = "1".into();
                v
            },
            "2 agents need at least 2 connections",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = s.toll(&args);
        assert_one_line_error(&o, needle);
        assert_eq!(o.status.code(), Some(2), "a usage error: {args:?}");
    }
    assert!(!s.db().exists(), "nothing stored");
}
