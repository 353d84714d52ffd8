//! `toll compare` and `toll predict` end to end: on real transfer runs, and
//! on runs built with known times and stored through the store, so the
//! verdict and the exit status a CI job gates on can be asserted exactly.

mod common;
use common::*;
use serde_json::{json, Value};
use toll_measure::fit::fit_series;
use toll_measure::{Fingerprint, Sample, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

/// Store a `family` run on `host` whose one series `label` costs
/// `scale` × (1000 + n) ns at n = 0, 1000, 10000: ten trials a point,
/// ±0.5% around that in a fixed pattern. Returns its id.
fn store_run(s: &Scratch, family: &str, host: &str, label: &str, scale: f64) -> i64 {
    let store = Store::open(&s.db()).unwrap();
    let env = Fingerprint {
        hostname: host.into(),
        cpu_model: "Test CPU".into(),
        logical_cpus: 2,
        ..Fingerprint::default()
    };
    let id = store
        .begin_run(&NewRun {
            family: family.into(),
            config: json!({"sizes": [0, 1000, 10000]}),
            env,
            tool_version: "0.1.0".into(),
        })
        .unwrap();
    let (peer, via) = label.split_once('/').unwrap();
    let series = store
        .add_series(
            id,
            label,
            &json!({"peer": peer, "transport": via, "unit": "items"}),
        )
        .unwrap();
    let mut fit_input = Vec::new();
    for n in [0u64, 1000, 10_000] {
        let centre = scale * (1000.0 + n as f64);
        let samples: Vec<Sample> = (0..10)
            .map(|i| Sample {
                iters: 100,
                total_ns: (100.0 * centre * (1.0 + 0.001 * ((i * 7 % 11) as f64 - 5.0))).round()
                    as u64,
            })
            .collect();
        let per_op: Vec<f64> = samples.iter().map(Sample::per_op_ns).collect();
        store
            .add_point(
                series,
                &Point {
                    n,
                    status: PointStatus::Ok,
                    error: None,
                    summary: Some(Summary::of(&per_op)),
                    samples,
                    extra: None,
                },
            )
            .unwrap();
        fit_input.push((n as f64, per_op));
    }
    store
        .set_fit(series, &fit_series(&fit_input).unwrap())
        .unwrap();
    store
        .finish_run(id, RunStatus::Complete, "built by the test", None)
        .unwrap();
    id
}

#[test]
fn two_real_transfer_runs_compare_and_predict() {
    let s = Scratch::new("compare-real");
    for _ in 0..2 {
        let mut args = vec![
            "transfer",
            "--peer",
            "rust",
            "--via",
            "pipe",
            "--sizes",
            "0,1000,4000",
        ];
        args.extend_from_slice(QUICK);
        let o = s.toll(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = s.toll(&[
        "compare",
        "1",
        "2",
        "--fail-on",
        "regression",
        "--threshold",
        "5%",
    ]);
    let out = stdout(&o);
    // Three trials a side cannot show a change at α = 0.05: said, and the gate passes.
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.starts_with("toll compare: transfer runs, A = run 1 → B = run 2"),
        "{out}"
    );
    assert!(
        out.contains("same machine, toolchains, toll, config and placement"),
        "{out}"
    );
    assert!(out.contains("rust/pipe"), "{out}");
    assert!(out.contains("  α  ") && out.contains("  β  "), "{out}");
    assert!(stderr(&o).contains("smallest possible p"), "{}", stderr(&o));
    assert!(!out.contains("ACROSS MACHINES"), "{out}");

    let o = s.toll(&["compare", "1", "last", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).expect("compare --json is JSON");
    assert_eq!(c["cross_machine"], false);
    assert_eq!(c["b"]["id"], 2);
    let points = c["series"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        assert_eq!(p["change"]["count"], json!([3, 3]));
        assert_eq!(p["verdict"], "same");
        let (m, ci) = (&p["change"]["change"], &p["change"]["change_ci"]);
        assert!(
            ci[0].as_f64() <= m.as_f64() && m.as_f64() <= ci[1].as_f64(),
            "{p}"
        );
    }

    // predict: the newest run answers; --run picks another.
    let o = s.toll(&[
        "predict", "transfer", "--peer", "rust", "--via", "pipe", "-n", "500",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("transfer rust/pipe: t(500) = "), "{out}");
    assert!(out.contains("from run 2 "), "{out}");
    assert!(!stderr(&o).contains("outside the measured range"));
    let o = s.toll(&[
        "predict",
        "transfer",
        "--series",
        "rust/pipe",
        "--run",
        "1",
        "-n",
        "100k",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(a["run"], 1);
    let (t, ci) = (&a["prediction"]["time_ns"], &a["prediction"]["ci_ns"]);
    assert!(
        ci[0].as_f64() <= t.as_f64() && t.as_f64() <= ci[1].as_f64(),
        "{a}"
    );
    assert_eq!(a["measured"], json!([0, 4000]));
    assert!(
        stderr(&o).contains("n = 100000 lies outside the measured range 0…4000"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_ten_percent_regression_fails_a_five_percent_gate_and_two_percent_does_not() {
    let s = Scratch::new("compare-gate");
    let base = store_run(&s, "transfer", "box", "rust/pipe", 1.0);
    let worse = store_run(&s, "transfer", "box", "rust/pipe", 1.10);
    let close = store_run(&s, "transfer", "box", "rust/pipe", 1.02);
    let gate = ["--fail-on", "regression", "--threshold", "5%"];
    let ids = |a: i64, b: i64| [a.to_string(), b.to_string()];

    let [a, b] = ids(base, worse);
    let mut args = vec!["compare", a.as_str(), b.as_str()];
    args.extend_from_slice(&gate);
    let o = s.toll(&args);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("+10.0%") && out.contains("slower"), "{out}");
    assert!(out.contains("3 slower, 0 faster"), "{out}");
    assert!(
        stderr(&o).contains("--fail-on regression: 3 slower"),
        "{}",
        stderr(&o)
    );

    let [a, b] = ids(base, close);
    let mut args = vec!["compare", a.as_str(), b.as_str()];
    args.extend_from_slice(&gate);
    let o = s.toll(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("under 5%"), "{}", stdout(&o));

    // The other way round it is an improvement: no regression, but a change.
    let [a, b] = ids(worse, base);
    let o = s.toll(&["compare", a.as_str(), b.as_str(), "--fail-on", "regression"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("faster"));
    let o = s.toll(&["compare", a.as_str(), b.as_str(), "--fail-on", "change"]);
    assert_eq!(o.status.code(), Some(3));

    // Identical runs: "~" everywhere.
    let twin = store_run(&s, "transfer", "box", "rust/pipe", 1.0);
    let [a, b] = ids(base, twin);
    let o = s.toll(&["compare", a.as_str(), b.as_str(), "--fail-on", "change"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("0 slower, 0 faster, 0 under the threshold, 3 ~"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_pair_from_two_machines_is_flagged_first() {
    let s = Scratch::new("compare-hosts");
    let a = store_run(&s, "transfer", "laptop", "rust/pipe", 1.0).to_string();
    let b = store_run(&s, "transfer", "server", "rust/pipe", 1.0).to_string();
    let o = s.toll(&["compare", &a, &b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let loud = out.find("!! ACROSS MACHINES: A ran on laptop").expect(&out);
    assert!(
        loud < out.find("host").unwrap() && loud < out.find("\nrust/pipe").unwrap(),
        "{out}"
    );
    assert!(out.contains("host  laptop → server"), "{out}");
    assert!(
        stderr(&o).contains("warning: ACROSS MACHINES"),
        "{}",
        stderr(&o)
    );
    let o = s.toll(&["compare", &a, &b, "--json"]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["cross_machine"], true);
    assert_eq!(
        c["differences"][0],
        json!({"what": "host", "a": "laptop", "b": "server"})
    );
}

#[test]
fn html_writes_the_comparison_as_a_table_with_bars_and_still_gates() {
    let s = Scratch::new("compare-html");
    let base = store_run(&s, "transfer", "box", "rust/pipe", 1.0).to_string();
    let worse = store_run(&s, "transfer", "box", "rust/pipe", 1.10).to_string();
    let page = s.0.join("cmp.html");
    let o = s.toll(&[
        "compare",
        &base,
        &worse,
        "--fail-on",
        "regression",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("3 slower"),
        "the text as without --html"
    );
    assert!(stderr(&o).contains("as HTML written to"), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<table class=\"compare\""), "{html}");
    assert!(!html.contains("<pre") && !html.contains("<script"));
    // Three points and α, β: a bar each; three slower badges.
    assert_eq!(html.matches("<svg").count(), 5, "{html}");
    assert_eq!(html.matches("badge v-busy\">slower").count(), 3);
    // An unwritable path: one line, nothing half-written.
    let o = s.toll(&[
        "compare",
        &base,
        &worse,
        "--html",
        "/nonexistent/dir/c.html",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_one_line_error(&o, "--html");
}

#[test]
fn series_on_one_side_only_are_listed() {
    let s = Scratch::new("compare-one-side");
    let a = store_run(&s, "transfer", "box", "rust/pipe", 1.0).to_string();
    let b = store_run(&s, "transfer", "box", "c/pipe", 1.0).to_string();
    let o = s.toll(&["compare", &a, &b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("only in A: rust/pipe") && out.contains("only in B: c/pipe"),
        "{out}"
    );
}

#[test]
fn compare_and_predict_refuse_bad_input_in_one_line() {
    let s = Scratch::new("compare-bad");
    // Nothing stored yet.
    let o = s.toll(&["compare", "1", "2"]);
    assert_one_line_error(&o, "no runs stored yet (no database at");
    let t = store_run(&s, "transfer", "box", "rust/pipe", 1.0).to_string();
    let sp = store_run(&s, "spawn", "box", "go/goroutine", 1.0).to_string();
    let o = s.toll(&["compare", &t, &sp]);
    assert_one_line_error(
        &o,
        "run 1 is a transfer run and run 2 a spawn run: compare two runs of one family (see `toll runs`)",
    );
    assert_eq!(o.status.code(), Some(2));
    let o = s.toll(&["compare", &t, "9"]);
    assert_one_line_error(&o, "no run 9: see `toll runs`");
    for (args, needle) in [
        (&["compare", "1", "two"][..], "bad run id `two`"),
        (&["compare", "1"][..], "RUN_B"),
        (
            &["compare", "1", "1", "--threshold", "ten"][..],
            "--threshold `ten`",
        ),
        (
            &["compare", "1", "1", "--alpha", "1.5"][..],
            "--alpha `1.5`",
        ),
        (
            &["compare", "1", "1", "--fail-on", "slower"][..],
            "--fail-on `slower`: give regression, improvement or change",
        ),
        (
            &["predict", "http", "-n", "5"][..],
            "http runs have no t(n) model",
        ),
        (
            &["predict", "teleport", "-n", "5"][..],
            "unknown family `teleport`",
        ),
        (&["predict", "transfer", "-n", "1,2"][..], "give one n"),
        (
            &["predict", "transfer", "-n", "lots"][..],
            "bad count `lots`",
        ),
        (&["predict", "transfer"][..], "-n"),
        (
            &["predict", "transfer", "--run", "x", "-n", "1"][..],
            "bad run id `x`",
        ),
        (
            &["predict", "transfer", "--runtime", "go", "-n", "1"][..],
            "--runtime does not apply to transfer runs",
        ),
        (
            &["predict", "transfer", "--run", &sp, "-n", "1"][..],
            "run 2 is a spawn run, not transfer",
        ),
    ] {
        let o = s.toll(args);
        assert_one_line_error(&o, needle);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = s.toll(&["predict", "transfer", "--peer", "java", "-n", "1"]);
    assert_one_line_error(
        &o,
        "no complete transfer run has a fitted series matching --peer java: measure one (e.g. `toll transfer --peer java`), or pick one of rust/pipe",
    );
    let o = s.toll(&["predict", "ring", "-n", "1"]);
    assert_one_line_error(
        &o,
        "no complete ring run is stored: measure one first, e.g. `toll ring`",
    );
    // Every one of them read, none wrote: the two runs are all there is.
    assert_eq!(stdout(&s.toll(&["runs"])).lines().count(), 3);
}

/// A history cannot hide a change: three runs of a program that sleeps
/// 8 ms + 2 ms per step build the history, a fourth whose start-up grew
/// 300 ms (the same command; the delay read from a file) is compared with
/// the third. The fourth run's own interval is never widened by its own
/// move, so `toll compare` reports α's rise as significant.
#[test]
fn a_start_up_that_grew_after_three_steady_runs_is_a_significant_change() {
    let s = Scratch::new("compare-shift");
    let prog = s.0.join("prog.py");
    let delay = s.0.join("delay");
    std::fs::write(
        &prog,
        format!(
            "import sys, time\ntime.sleep(float(open({:?}).read()) + 0.002 * int(sys.argv[1]))\n",
            delay.to_str().unwrap()
        ),
    )
    .unwrap();
    let command = format!("python3 {} {{n}}", prog.to_str().unwrap());
    for d in ["0.008", "0.008", "0.008", "0.308"] {
        std::fs::write(&delay, d).unwrap();
        let o = s.toll(&["exec", "-N", "--runs", "10", "-L", "n", "0,2,4,8", &command]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = s.toll(&["compare", "3", "4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let alpha = &c["series"][0]["fit"]["alpha_ns"];
    let rise = alpha["difference"].as_f64().unwrap();
    // About 300 ms; a loaded machine oversleeps, never undersleeps.
    assert!((150e6..1e9).contains(&rise), "α rose by {rise} ns: {alpha}");
    assert_eq!(alpha["significant"], true, "{alpha}");
    assert!(alpha["difference_ci"][0].as_f64().unwrap() > 0.0, "{alpha}");
    // β (2 ms per step) did not move, and compare does not say it did. (Its
    // value is not checked: beside a 300 ms sleep, a loaded machine's
    // oversleeping is larger than the steps' 2–16 ms.)
    let beta = &c["series"][0]["fit"]["beta_ns"];
    assert_eq!(beta["significant"], false, "{beta}");
}
