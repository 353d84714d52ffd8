//! One truth per run: a run of each family with a model is stored, and every
//! view of it — the family's own table, `toll show`, `toll report` as
//! Markdown, `toll export` (the JSON every other tool reads), `toll compare`
//! — names the same model, verdict and figures: the decision stored with
//! each series, never a reading of its own.

mod common;
use common::*;
use serde_json::Value;

/// The newest run's id.
fn newest(s: &Scratch) -> String {
    let o = s.toll(&["runs", "--json"]);
    assert!(o.status.success(), "runs: {}", stderr(&o));
    let runs: Value = serde_json::from_slice(&o.stdout).unwrap();
    runs.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .max()
        .unwrap()
        .to_string()
}

/// The verdict words a stored decision prints (`busy; curve, break ≈ 4000`).
fn words(d: &Value) -> String {
    let verdict = d["verdict"].as_str().unwrap();
    let word = match (verdict, d["break_n"].as_f64()) {
        ("curve", Some(b)) => format!("curve, break ≈ {b:.0}"),
        (v, _) => v.to_string(),
    };
    if d["busy"].as_bool().unwrap() {
        format!("busy; {word}")
    } else {
        word
    }
}

/// Every view of run `id` against its stored decisions; `table` is what the
/// measuring command printed, `row_of` finds a series' row in it.
fn every_view_agrees(s: &Scratch, id: &str, table: &str, row_of: &dyn Fn(&str) -> Vec<String>) {
    let run = export_json(s, id);
    let show = stdout(&s.toll(&["show", id]));
    let md = stdout(&s.toll(&["report", id, "--format", "md"]));
    let o = s.toll(&["compare", id, id, "--json"]);
    assert!(o.status.success(), "compare: {}", stderr(&o));
    let compare: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut decided = 0;
    for series in run["series"].as_array().unwrap() {
        let label = series["label"].as_str().unwrap();
        let Some(d) = series["fit"].get("decision") else {
            assert!(series["fit"].is_null(), "{label}: a fit without a decision");
            continue;
        };
        decided += 1;
        let w = words(d);
        let model = match d["model"].as_str().unwrap() {
            "line" => "the line",
            _ => "two segments",
        };
        // The family's own table.
        let words_of = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
        let row = table
            .lines()
            .find(|l| row_of(label).iter().all(|w| words_of(l).contains(w)))
            .unwrap_or_else(|| panic!("{label}: no row in\n{table}"));
        assert!(
            row.trim_end().ends_with(&w),
            "{label}: table says {row:?}, stored {w:?}"
        );
        // toll show: the decision line.
        assert!(
            show.contains(&format!("model: {model} — fit {w};")),
            "{label}: show does not say {model}, {w}:\n{show}"
        );
        // The report's models table.
        let md_row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("{label}: no models row in\n{md}"));
        assert!(
            md_row.contains(&format!("| {w} |")),
            "{label}: report says {md_row}, stored {w}"
        );
        // toll compare compares the figures the table printed.
        let c = compare["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["label"] == label)
            .unwrap();
        for (k, name) in [("alpha_ns", "alpha"), ("beta_ns", "beta")] {
            let stored = d[name]["value"].as_f64().unwrap();
            let compared = c["fit"][k]["value"][0].as_f64().unwrap();
            assert_eq!(compared, stored, "{label}: compare's {name}");
        }
    }
    assert!(decided > 0, "no series of run {id} has a model");
}

#[test]
fn every_view_of_a_transfer_run_names_the_stored_model_and_verdict() {
    let s = Scratch::new("truth-transfer");
    let mut args = vec![
        "transfer",
        "--peer",
        "rust",
        "--via",
        "pipe,unix",
        "--pin",
        "same",
        "--sizes",
        "0,1000,10000,40000",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "transfer: {}", stderr(&o));
    let table = stdout(&o);
    let id = newest(&s);
    every_view_agrees(&s, &id, &table, &|label| {
        label.split('/').map(String::from).collect()
    });
}

#[test]
fn every_view_of_a_spawn_run_names_the_stored_model_and_verdict() {
    let s = Scratch::new("truth-spawn");
    let o = s.toll(&[
        "spawn",
        "--runtime",
        "rust",
        "-n",
        "10,100,400,1000",
        "--trials",
        "3",
    ]);
    assert!(o.status.success(), "spawn: {}", stderr(&o));
    let table = stdout(&o);
    let model = table
        .split("\nmodel ")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let id = newest(&s);
    every_view_agrees(&s, &id, &model, &|label| {
        label.split('/').map(String::from).collect()
    });
}

#[test]
fn every_view_of_an_exec_run_names_the_stored_model_and_verdict() {
    let s = Scratch::new("truth-exec");
    let o = s.toll(&[
        "exec",
        "-N",
        "--runs",
        "3",
        "-L",
        "n",
        "1,2,3,4",
        "sleep 0.00{n}",
    ]);
    assert!(o.status.success(), "exec: {}", stderr(&o));
    let table = stdout(&o);
    let id = newest(&s);
    every_view_agrees(&s, &id, &table, &|label| {
        label.split_whitespace().map(String::from).collect()
    });
}

#[test]
fn two_sizes_get_no_model_and_every_view_says_so() {
    let s = Scratch::new("truth-two");
    let mut args = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1000",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "transfer: {}", stderr(&o));
    assert!(stdout(&o).contains("2 sizes: no model"), "{}", stdout(&o));
    let id = newest(&s);
    let run = export_json(&s, &id);
    assert!(
        run["series"][0]["fit"].is_null(),
        "a line through two sizes"
    );
    let md = stdout(&s.toll(&["report", &id, "--format", "md"]));
    assert!(md.contains("2 sizes: no model"), "{md}");
}
